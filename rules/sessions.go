package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/loci-memory/loci"
)

// A session is one record (Kind session, Key and SessionID = the session
// id, Category "session", Content = its summary, Confidence, ExpiresAt,
// Data sessionData); each of its messages is a record of its own (Kind
// session, no key, the same user and session, Category "message", Content
// = the message, Data messageData), so what was said is found by search.
const (
	sessionCategory = "session"
	messageCategory = "message"
)

// sessionData is a session's kind-specific data.
type sessionData struct {
	Context      json.RawMessage `json:"context"`
	Summary      string          `json:"summary"`
	IsPersistent bool            `json:"is_persistent"`
	// MessageCount is how many messages the session holds.
	MessageCount int `json:"message_count"`
	// NextIndex is the index the next message gets, once a message has
	// been forgotten (0: MessageCount, as long as none has been).
	NextIndex int `json:"next_index,omitempty"`
}

// nextIndex is the index the session's next message gets: messages are
// ordered by index, and an index is never given twice.
func (d *sessionData) nextIndex() int {
	return max(d.NextIndex, d.MessageCount)
}

// messageData is a message's kind-specific data.
type messageData struct {
	Role  string `json:"role"`
	Index int    `json:"index"`
}

func errSessionNotFound(id string) error {
	return loci.Errorf(loci.ENOTFOUND, "session %s not found", id)
}

func checkSessionID(id string) error {
	return loci.RequireText("session_id", id, loci.MaxSessionIDBytes)
}

// checkSessionContext returns the context as compact JSON, {} when absent.
func checkSessionContext(c json.RawMessage) (json.RawMessage, error) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || bytes.Equal(c, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c); err != nil {
		return nil, loci.Errorf(loci.EINVALID, "context must be valid JSON")
	}
	return buf.Bytes(), nil
}

func (s *Service) sessionFilter(ctx context.Context) loci.RecordFilter {
	return loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindSession}}
}

// findSession returns the session's record, whoever its user. The
// record's session is the session (its key is its id): naming it lets a
// store read the session's records alone, not every session's.
func (s *Service) findSession(ctx context.Context, tx loci.Tx, id string) (*loci.Record, error) {
	f := s.sessionFilter(ctx)
	f.SessionID, f.Key, f.Category = &id, &id, loci.Ptr(sessionCategory)
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, err
	} else if len(recs) == 0 {
		return nil, errSessionNotFound(id)
	}
	return recs[0], nil
}

// insertMessage stores message m of a session at index i, and returns
// its record's id.
func (s *Service) insertMessage(ctx context.Context, tx loci.Tx, sess *loci.Record, i int, m loci.Message, now time.Time) (string, error) {
	data, err := json.Marshal(messageData{Role: m.Role, Index: i})
	if err != nil {
		return "", fmt.Errorf("encode message: %w", err)
	}
	at := m.CreatedAt
	if at.IsZero() {
		at = now
	}
	id := newID()
	return id, tx.InsertRecord(ctx, &loci.Record{
		ID: id, Workspace: sess.Workspace, Kind: loci.KindSession,
		Scope: loci.Scope{UserID: sess.UserID, SessionID: sess.SessionID}, Category: messageCategory,
		Content: m.Content, SearchText: searchText(m.Content), Data: data,
		CreatedAt: at.UTC(), UpdatedAt: now, Version: 1,
	})
}

// PutSession stores or replaces a session and its messages.
func (s *Service) PutSession(ctx context.Context, id string, p loci.SessionPut) (_ *loci.Session, created bool, err error) {
	a, err := s.begin(ctx, loci.OpSessionPut, loci.Scope{UserID: p.UserID, SessionID: id})
	defer a.end(&err)
	if err != nil {
		return nil, false, err
	}
	if err := checkSessionID(id); err != nil {
		return nil, false, err
	} else if err := p.Validate(); err != nil {
		return nil, false, err
	}
	sctx, err := checkSessionContext(p.Context)
	if err != nil {
		return nil, false, err
	}
	data, err := json.Marshal(sessionData{Context: sctx, Summary: p.Summary, IsPersistent: p.IsPersistent, MessageCount: len(p.Messages)})
	if err != nil {
		return nil, false, fmt.Errorf("encode session: %w", err)
	}
	ws := loci.WorkspaceFrom(ctx)
	var sess *loci.Session
	err = a.update(func(tx loci.Tx) error {
		created = false // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "session", id)); err != nil {
			return err
		}
		now := s.now()
		rec := &loci.Record{
			ID: newID(), Workspace: ws, Kind: loci.KindSession,
			Scope: loci.Scope{UserID: p.UserID, SessionID: id}, Key: id, Category: sessionCategory,
			Content: p.Summary, SearchText: searchText(p.Summary), Data: data,
			Confidence: p.Confidence, ExpiresAt: p.ExpiresAt.UTC().Truncate(time.Microsecond),
			CreatedAt: now, UpdatedAt: now, Version: 1,
		}
		old, err := s.findSession(ctx, tx, id)
		switch {
		case loci.ErrorCode(err) == loci.ENOTFOUND:
			created = true
			a.created()
			a.touch(rec.ID)
			if err := tx.InsertRecord(ctx, rec); err != nil {
				return err
			}
		case err != nil:
			return err
		case old.UserID != p.UserID:
			return loci.Errorf(loci.ECONFLICT, "session %s belongs to another user", id)
		default:
			if err := s.replaceSession(ctx, tx, a, old, rec); err != nil {
				return err
			}
		}
		for i, m := range p.Messages {
			mid, err := s.insertMessage(ctx, tx, rec, i, m, now)
			if err != nil {
				return err
			}
			a.touch(mid)
		}
		// The session as stored, read back in the same transaction (the
		// ids it reads are those just noted).
		sess, _, err = s.getSession(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("put session: %w", err)
	}
	return sess, created, nil
}

// replaceSession replaces old, a stored session, with rec, deleting (and
// noting) the messages it had. Creating needs the creator role (the
// route's); replacing a session needs editor.
func (s *Service) replaceSession(ctx context.Context, tx loci.Tx, a *audited, old, rec *loci.Record) error {
	if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
		return err
	}
	a.touch(old.ID)
	id := rec.SessionID
	f := s.sessionFilter(ctx)
	f.SessionID, f.UserID, f.Category = &id, &old.UserID, loci.Ptr(messageCategory)
	// The messages it had are replaced: deleted, and noted.
	if err := tx.ScanRecords(ctx, f, func(r *loci.Record) error {
		a.touch(r.ID)
		return nil
	}); err != nil {
		return err
	}
	if _, err := tx.DeleteRecords(ctx, f); err != nil {
		return err
	}
	rec.ID, rec.CreatedAt, rec.Version = old.ID, old.CreatedAt, old.Version+1
	return tx.UpdateRecord(ctx, rec, old.Version)
}

// AppendSessionMessage appends one message to a session.
func (s *Service) AppendSessionMessage(ctx context.Context, id string, m loci.Message) (_ *loci.SessionSummary, err error) {
	a, err := s.begin(ctx, loci.OpSessionAppend, loci.Scope{SessionID: id})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkSessionID(id); err != nil {
		return nil, err
	} else if err := m.Validate(); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var out *loci.SessionSummary
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "session", id)); err != nil {
			return err
		}
		rec, err := s.findSession(ctx, tx, id)
		if err != nil {
			return err
		}
		var d sessionData
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return fmt.Errorf("decode session %s: %w", id, err)
		}
		now := s.now()
		i := d.nextIndex()
		mid, err := s.insertMessage(ctx, tx, rec, i, m, now)
		if err != nil {
			return err
		}
		a.created()
		a.touchIn(rec.Scope, mid, rec.ID)
		d.MessageCount++
		if d.NextIndex > 0 {
			d.NextIndex = i + 1
		}
		next := *rec
		if next.Data, err = json.Marshal(d); err != nil {
			return fmt.Errorf("encode session: %w", err)
		}
		next.UpdatedAt, next.Version = now, rec.Version+1
		if err := tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
			return err
		}
		out = &loci.SessionSummary{SessionID: id, UpdatedAt: now, Summary: d.Summary, MessageCount: d.MessageCount}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("append message: %w", err)
	}
	return out, nil
}

// recountMessages sets the message_count of the sessions whose messages
// tx deleted (forget) to the messages they have left, and returns the ids
// of the session records it changed. Sessions deleted too are skipped.
func (s *Service) recountMessages(ctx context.Context, tx loci.Tx, sessionIDs []string) ([]string, error) {
	ws := loci.WorkspaceFrom(ctx)
	var changed []string
	for _, id := range sessionIDs {
		if err := tx.Lock(ctx, lockName(ws, "session", id)); err != nil {
			return nil, err
		}
		rec, err := s.findSession(ctx, tx, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		var d sessionData
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return nil, fmt.Errorf("decode session %s: %w", id, err)
		}
		f := s.sessionFilter(ctx)
		f.SessionID, f.UserID, f.Category = &id, &rec.UserID, loci.Ptr(messageCategory)
		n, err := tx.CountRecords(ctx, f)
		if err != nil {
			return nil, err
		}
		if n == d.MessageCount {
			continue
		}
		d.NextIndex = d.nextIndex()
		d.MessageCount = n
		next := *rec
		if next.Data, err = json.Marshal(d); err != nil {
			return nil, fmt.Errorf("encode session: %w", err)
		}
		next.UpdatedAt, next.Version = s.now(), rec.Version+1
		if err := tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
			return nil, err
		}
		changed = append(changed, rec.ID)
	}
	return changed, nil
}

// GetSession returns a session with its messages in order.
func (s *Service) GetSession(ctx context.Context, id string) (_ *loci.Session, err error) {
	a, err := s.begin(ctx, loci.OpSessionGet, loci.Scope{SessionID: id})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkSessionID(id); err != nil {
		return nil, err
	}
	var out *loci.Session
	err = a.view(func(tx loci.Tx) error {
		sess, ids, err := s.getSession(ctx, tx, id)
		out = sess
		if sess != nil {
			a.touchIn(loci.Scope{UserID: sess.UserID}, ids...)
		}
		return err
	})
	return out, err
}

// getSession reads a session with its messages in order, and returns the
// ids of the records it read (the session's, then its messages').
func (s *Service) getSession(ctx context.Context, tx loci.Tx, id string) (*loci.Session, []string, error) {
	rec, err := s.findSession(ctx, tx, id)
	if err != nil {
		return nil, nil, err
	}
	var d sessionData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, nil, fmt.Errorf("decode session %s: %w", id, err)
	}
	f := s.sessionFilter(ctx)
	f.SessionID, f.UserID, f.Category = &id, &rec.UserID, loci.Ptr(messageCategory)
	f.Order = loci.OrderCreatedAsc
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	type indexed struct {
		i int
		m loci.Message
	}
	ids := []string{rec.ID}
	msgs := make([]indexed, 0, len(recs))
	for _, r := range recs {
		var md messageData
		if err := json.Unmarshal(r.Data, &md); err != nil {
			s.malformed(r, err)
			continue
		}
		ids = append(ids, r.ID)
		msgs = append(msgs, indexed{md.Index, loci.Message{Role: md.Role, Content: r.Content, CreatedAt: r.CreatedAt}})
	}
	sort.SliceStable(msgs, func(a, b int) bool { return msgs[a].i < msgs[b].i })
	out := &loci.Session{
		SessionID: id, UserID: rec.UserID, Context: d.Context, Summary: d.Summary,
		Messages: make([]loci.Message, len(msgs)), MessageCount: d.MessageCount, IsPersistent: d.IsPersistent,
		ExpiresAt: rec.ExpiresAt, Confidence: rec.Confidence, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
		Metadata: ownMetadata(rec),
	}
	for i, m := range msgs {
		out.Messages[i] = m.m
	}
	return out, ids, nil
}

// DeleteSession deletes a session and its messages.
func (s *Service) DeleteSession(ctx context.Context, id string) (_ bool, err error) {
	a, err := s.begin(ctx, loci.OpSessionDelete, loci.Scope{SessionID: id})
	defer a.end(&err)
	if err != nil {
		return false, err
	}
	if err := checkSessionID(id); err != nil {
		return false, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var n int
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "session", id)); err != nil {
			return err
		}
		// The entry names the session's user, when there is a session;
		// what goes is that user's session and messages.
		f := s.sessionFilter(ctx)
		f.SessionID = &id
		if rec, err := s.findSession(ctx, tx, id); err == nil {
			a.touchIn(rec.Scope)
			f.UserID = &rec.UserID
		} else if loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		var err error
		n, err = deleteTouched(ctx, tx, a, f)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("delete session: %w", err)
	}
	return n > 0, nil
}

// ListUserSessions returns a user's sessions' metadata, most recently
// updated first.
func (s *Service) ListUserSessions(ctx context.Context, userID string, limit, offset int) (_ []loci.SessionSummary, _ int, err error) {
	a, err := s.begin(ctx, loci.OpSessionList, loci.Scope{UserID: userID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return nil, 0, err
	}
	out := []loci.SessionSummary{}
	var total int
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		f := s.sessionFilter(ctx)
		// A session's record has its id as key, its messages none:
		// Keyed reads the sessions alone, not every message of the user.
		f.UserID, f.Category, f.Keyed = &userID, loci.Ptr(sessionCategory), true
		n, err := tx.CountRecords(ctx, f)
		if err != nil {
			return err
		}
		total = n
		f.Order = loci.OrderUpdatedDesc
		f.Limit, f.Offset = pageOf(limit, offset)
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			var d sessionData
			if err := json.Unmarshal(r.Data, &d); err != nil {
				s.malformed(r, err)
				continue
			}
			a.touch(r.ID)
			out = append(out, loci.SessionSummary{SessionID: r.Key, UpdatedAt: r.UpdatedAt, Summary: d.Summary, MessageCount: d.MessageCount, Metadata: ownMetadata(r)})
		}
		a.count(total)
		return nil
	})
	return out, total, err
}
