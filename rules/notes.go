package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// noteData is a note's kind-specific data.
type noteData struct {
	Value json.RawMessage `json:"value"`
}

func errNoteNotFound() error { return loci.Errorf(loci.ENOTFOUND, "Memory not found") }

// checkNoteValue validates a note's value and returns its compact JSON and
// the text that is searched and rendered for it.
func checkNoteValue(value json.RawMessage) (json.RawMessage, string, error) {
	trimmed := bytes.TrimSpace(value)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, "", loci.Errorf(loci.EINVALID, "value is required")
	}
	if !json.Valid(trimmed) {
		return nil, "", loci.Errorf(loci.EINVALID, "value must be valid JSON")
	}
	// encoding/json accepts invalid UTF-8 inside strings (and would
	// replace it on decoding): refuse it, as for keys.
	if !utf8.Valid(trimmed) {
		return nil, "", loci.Errorf(loci.EINVALID, "value must be valid UTF-8")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return nil, "", loci.Errorf(loci.EINVALID, "value must be valid JSON")
	}
	compact := json.RawMessage(buf.Bytes())
	text := string(compact)
	var s string
	if compact[0] == '"' {
		if err := json.Unmarshal(compact, &s); err != nil {
			return nil, "", loci.Errorf(loci.EINVALID, "value must be valid JSON")
		}
		text = s
		if len(s) > loci.MaxNoteValueBytes {
			return nil, "", loci.Errorf(loci.ETOOLARGE, "value must be at most %d bytes", loci.MaxNoteValueBytes)
		}
		if err := loci.RequireText("value", s, 0); err != nil {
			return nil, "", err
		}
	} else if len(compact) > loci.MaxNoteValueBytes {
		return nil, "", loci.Errorf(loci.ETOOLARGE, "value must be at most %d bytes", loci.MaxNoteValueBytes)
	}
	return compact, text, nil
}

func checkNoteKey(agentID, key string) error {
	if err := loci.RequireText("agent_id", agentID, loci.MaxAgentIDBytes); err != nil {
		return err
	}
	return loci.RequireText("key", key, loci.MaxNoteKeyBytes)
}

// noteFilter selects the agent's notes. A note's scope is its agent alone:
// the other scope fields are pinned to "" (as stored), which also lets a
// lookup by key use the records' unique key index instead of scanning
// every note of the agent.
func (s *Service) noteFilter(ctx context.Context, agentID string) loci.RecordFilter {
	none := ""
	return loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx),
		Kinds:     []loci.Kind{loci.KindNote},
		AgentID:   &agentID,
		UserID:    &none,
		SessionID: &none,
		TaskID:    &none,
		LiveAt:    s.now(),
	}
}

// findNote returns the note's record, or a "Memory not found" error.
func (s *Service) findNote(ctx context.Context, tx loci.Tx, agentID, key string) (*loci.Record, error) {
	f := s.noteFilter(ctx, agentID)
	f.Key = &key
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, err
	} else if len(recs) == 0 {
		return nil, errNoteNotFound()
	}
	return recs[0], nil
}

// Remember creates or updates a note, keeping the previous value as a
// version. The same value again (case and spacing aside) is answered
// "updated", as remember always answers a key it holds: its updated_at is
// now, and no version is added (docs/rules.md, "A repeat changes nothing
// (NOOP)").
func (s *Service) Remember(ctx context.Context, agentID, key string, value json.RawMessage) (_ *loci.RememberResult, err error) {
	a, err := s.begin(ctx, loci.OpNoteRemember, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkNoteKey(agentID, key); err != nil {
		return nil, err
	}
	value, text, err := checkNoteValue(value)
	if err != nil {
		return nil, err
	}
	res := &loci.RememberResult{Key: key}
	err = a.update(func(tx loci.Tx) error {
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		rec, ev, err := w.writeNote(ctx, agentID, key, value, text)
		if err != nil {
			return err
		}
		if ev == loci.EventNoop {
			// Remember sets updated_at every time: the same value again keeps
			// its version (no new one in history) and says when it was last
			// remembered.
			next := *rec
			next.UpdatedAt = w.now
			if err := tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
				return err
			}
			rec = &next
		}
		res.Action, res.UpdatedAt = loci.ActionUpdated, rec.UpdatedAt
		if ev == loci.EventAdd {
			res.Action = loci.ActionCreated
			a.created()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("remember: %w", err)
	}
	s.kickEmbedding()
	return res, nil
}

// writeNote creates or updates the note key of agentID with value (its
// text as searched), keeping the previous value as a version, and returns
// the note's record and what it did: ADD, UPDATE, or NOOP when the note
// already says text (case and spacing aside). Creating needs the caller's
// role (creator); changing an existing note needs editor. An expired note
// of the key is replaced as if absent. It is timed under the note's lock.
func (w *memWrite) writeNote(ctx context.Context, agentID, key string, value json.RawMessage, text string) (*loci.Record, string, error) {
	s, tx, a, ws := w.s, w.tx, w.a, w.ws
	if err := w.lock(ctx, noteLock(ws, agentID, key)); err != nil {
		return nil, "", err
	}
	now := w.now
	data, err := json.Marshal(noteData{Value: value})
	if err != nil {
		return nil, "", fmt.Errorf("encode note: %w", err)
	}
	f := s.noteFilter(ctx, agentID)
	f.Key, f.LiveAt = &key, time.Time{}
	found, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, "", err
	}
	if len(found) > 0 && found[0].Expired(now) {
		if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: []string{found[0].ID}}); err != nil {
			return nil, "", err
		}
		found = nil
	}
	if len(found) == 0 {
		rec := &loci.Record{
			ID: newID(), Workspace: ws, Kind: loci.KindNote,
			Scope: loci.Scope{AgentID: agentID}, Key: key,
			Content: text, SearchText: searchText(key + " " + text), Data: data,
			CreatedAt: now, UpdatedAt: now, Version: 1,
		}
		a.touch(rec.ID)
		return rec, loci.EventAdd, tx.InsertRecord(ctx, rec)
	}
	old := found[0]
	a.touch(old.ID)
	if sameNoteValue(old, value, text) {
		return old, loci.EventNoop, nil
	}
	if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
		return nil, "", err
	}
	if err := tx.InsertVersion(ctx, loci.RecordVersion{
		RecordID: old.ID, Version: old.Version, Content: old.Content, Data: old.Data, Metadata: old.Metadata, UpdatedAt: old.UpdatedAt,
	}); err != nil {
		return nil, "", err
	}
	rec := *old
	rec.Content, rec.SearchText, rec.Data = text, searchText(key+" "+text), data
	rec.UpdatedAt, rec.Version = now, old.Version+1
	if text != old.Content {
		rec.Embedding, rec.EmbeddingModel = nil, ""
	}
	return &rec, loci.EventUpdate, tx.UpdateRecord(ctx, &rec, old.Version)
}

// Recall returns one note.
func (s *Service) Recall(ctx context.Context, agentID, key string) (_ *loci.Note, err error) {
	a, err := s.begin(ctx, loci.OpNoteRecall, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkNoteKey(agentID, key); err != nil {
		return nil, err
	}
	var note *loci.Note
	err = a.view(func(tx loci.Tx) error {
		rec, err := s.findNote(ctx, tx, agentID, key)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		note, err = noteOf(rec)
		return err
	})
	return note, err
}

// RecallAll returns every note of the agent, by key.
func (s *Service) RecallAll(ctx context.Context, agentID string) (_ []*loci.Note, err error) {
	a, err := s.begin(ctx, loci.OpNoteRecallAll, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("agent_id", agentID, loci.MaxAgentIDBytes); err != nil {
		return nil, err
	}
	notes := []*loci.Note{}
	err = a.view(func(tx loci.Tx) error {
		notes = notes[:0] // the retry policy may run this twice
		f := s.noteFilter(ctx, agentID)
		f.Order = loci.OrderKeyAsc
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			n, err := noteOf(rec)
			if err != nil {
				s.malformed(rec, err)
				continue
			}
			a.touch(rec.ID)
			notes = append(notes, n)
		}
		return nil
	})
	return notes, err
}

// ListNotes returns one page of the agent's notes, by key, and how many
// notes the agent has: it reads, and audits, only the page.
func (s *Service) ListNotes(ctx context.Context, agentID string, limit, offset int) (_ []*loci.Note, total int, err error) {
	a, err := s.begin(ctx, loci.OpNoteRecallAll, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := loci.RequireText("agent_id", agentID, loci.MaxAgentIDBytes); err != nil {
		return nil, 0, err
	}
	notes := []*loci.Note{}
	err = a.view(func(tx loci.Tx) error {
		notes = notes[:0] // the retry policy may run this twice
		f := s.noteFilter(ctx, agentID)
		n, err := tx.CountRecords(ctx, f)
		if err != nil {
			return err
		}
		total = n
		f.Order = loci.OrderKeyAsc
		f.Limit, f.Offset = pageOf(limit, offset)
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			n, err := noteOf(rec)
			if err != nil {
				s.malformed(rec, err)
				continue
			}
			a.touch(rec.ID)
			notes = append(notes, n)
		}
		return nil
	})
	return notes, total, err
}

// Forget deletes a note and all its versions.
func (s *Service) Forget(ctx context.Context, agentID, key string) (err error) {
	a, err := s.begin(ctx, loci.OpNoteForget, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := checkNoteKey(agentID, key); err != nil {
		return err
	}
	return a.update(func(tx loci.Tx) error {
		rec, err := s.findNote(ctx, tx, agentID, key)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		_, err = tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: rec.Workspace, IDs: []string{rec.ID}})
		return err
	})
}

// History returns every value the note has had, the current one first.
func (s *Service) History(ctx context.Context, agentID, key string) (_ []loci.NoteVersion, err error) {
	a, err := s.begin(ctx, loci.OpNoteHistory, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkNoteKey(agentID, key); err != nil {
		return nil, err
	}
	var out []loci.NoteVersion
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		rec, err := s.findNote(ctx, tx, agentID, key)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		cur, err := noteOf(rec)
		if err != nil {
			return err
		}
		out = append(out, loci.NoteVersion{Value: cur.Value, Version: rec.Version, UpdatedAt: rec.UpdatedAt})
		versions, err := tx.ListVersions(ctx, rec.ID)
		if err != nil {
			return err
		}
		for _, v := range versions {
			var d noteData
			if err := json.Unmarshal(v.Data, &d); err != nil {
				return fmt.Errorf("decode note version: %w", err)
			}
			out = append(out, loci.NoteVersion{Value: d.Value, Version: v.Version, UpdatedAt: v.UpdatedAt})
		}
		return nil
	})
	return out, err
}

func noteOf(rec *loci.Record) (*loci.Note, error) {
	var d noteData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("decode note %s: %w", rec.ID, err)
	}
	return &loci.Note{Key: rec.Key, Value: d.Value, UpdatedAt: rec.UpdatedAt, Metadata: ownMetadata(rec)}, nil
}

// sameNoteValue reports whether a note already holds value: the same
// string (case and spacing aside), or the same other JSON value.
func sameNoteValue(old *loci.Record, value json.RawMessage, text string) bool {
	var d noteData
	if json.Unmarshal(old.Data, &d) != nil || len(d.Value) == 0 || len(value) == 0 {
		return false
	}
	if d.Value[0] == '"' && value[0] == '"' {
		return normContent(text) == normContent(old.Content)
	}
	return bytes.Equal(d.Value, value)
}
