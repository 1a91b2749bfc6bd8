package rules

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
)

// sessionKind is how the memories API reaches sessions and their
// messages: read and deleted by id (a session with its messages; a
// message, leaving its session one message less); written through the
// session's routes, which keep its messages in order.
type sessionKind struct{ defaultRules }

var _ = registerKind(loci.KindSession, sessionKind{})

func (sessionKind) route() string {
	return "PUT /v1/sessions/{session_id} or POST /v1/sessions/{session_id}/messages"
}
func (sessionKind) ttl() bool { return false }

func (sessionKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindSession, "added")
}

func (sessionKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindSession, "edited")
}

func (sessionKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	sid := sessionIDOf(rec)
	if err := w.lock(ctx, lockName(w.ws, "session", sid)); err != nil {
		return err
	}
	if rec.Category != messageCategory {
		f := w.s.sessionFilter(ctx)
		f.SessionID = &sid
		_, err := deleteTouched(ctx, w.tx, w.a, f)
		return err
	}
	if err := w.deleteRecord(ctx, rec); err != nil {
		return err
	}
	changed, err := w.s.recountMessages(ctx, w.tx, []string{rec.SessionID})
	w.a.touch(changed...)
	return err
}

func (sessionKind) importLimits() importLimits {
	return importLimits{maxContent: max(loci.MaxSessionSummary, loci.MaxMessageBytes), maxConfidence: 100}
}

func (sessionKind) checkImportScope(rec *loci.Record) error {
	errs := []error{need(rec, "user_id", rec.UserID), need(rec, "session_id", rec.SessionID)}
	if !slices.Contains([]string{sessionCategory, messageCategory}, rec.Category) {
		errs = append(errs, loci.Errorf(loci.EINVALID, "a session record's category must be %s or %s", sessionCategory, messageCategory))
	} else if rec.Category == sessionCategory && rec.Key != rec.SessionID {
		// A session is found by its key, its messages by session_id.
		errs = append(errs, loci.Errorf(loci.EINVALID, "a session's key must be its session_id"))
	}
	return firstError(errs...)
}

// checkImportData checks a session's data, or a message's.
func (sessionKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	if rec.Category == messageCategory {
		var d messageData
		if err := decodeImport(field, rec, data, &d); err != nil {
			return nil, err
		}
		if d.Index < 0 || d.Index > maxImportInt {
			return nil, loci.Errorf(loci.EINVALID, "%s: a message's index is out of range", field)
		}
		return &d, nil
	}
	var d sessionData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if d.MessageCount < 0 || d.MessageCount > maxImportInt {
		return nil, loci.Errorf(loci.EINVALID, "%s: message_count is out of range", field)
	}
	return &d, nil
}

// keepImportData keeps a session's message count and next index, and a
// message's index, for the session rules.
func (sessionKind) keepImportData(e *importEntry, data any) {
	switch d := data.(type) {
	case *sessionData:
		e.messageCount, e.nextIndex = d.MessageCount, d.nextIndex()
	case *messageData:
		e.messageIndex = d.Index
	}
}

// uniqueKey: a session's id (its key) is unique in the workspace, whoever
// its user or agent, as the session routes keep it (a session is found by
// its id alone, and another user's is a conflict); a message has no key.
func (sessionKind) uniqueKey(r *loci.Record) string {
	if r.Category != sessionCategory {
		return defaultRules{}.uniqueKey(r)
	}
	return strings.Join([]string{string(r.Kind), r.Category, r.Key}, "\x00")
}

// keyHolders: the sessions of r's id, whoever their user, as findSession
// reads them.
func (sessionKind) keyHolders(ws string, r *loci.Record) loci.RecordFilter {
	if r.Category != sessionCategory {
		return defaultRules{}.keyHolders(ws, r)
	}
	return loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindSession}, SessionID: &r.SessionID, Key: &r.Key,
		Category: loci.Ptr(sessionCategory), Order: loci.OrderNone,
	}
}

func (sessionKind) keyName(r *loci.Record) string {
	if r.Category != sessionCategory {
		return defaultRules{}.keyName(r)
	}
	return fmt.Sprintf("session %q (a session id is unique in the workspace, whichever its user)", r.Key)
}

// isMessage reports whether r is a conversation message, not a session.
func (sessionKind) isMessage(r *loci.Record) bool { return r.Category == messageCategory }

// readExpired: a session past its expiry has ended; its record is still
// read by id, with its messages.
func (sessionKind) readExpired() bool { return true }

// tallyImport tallies a session, or one of its messages, for the session
// rules importRules.check applies once every line is seen.
func (sessionKind) tallyImport(ir *importRules, e *importEntry) error {
	r := e.rec
	switch r.Category {
	case sessionCategory:
		t := ir.session(r)
		if t.line == 0 {
			t.line, t.count, t.next = e.line, e.messageCount, e.nextIndex
		}
	case messageCategory:
		t := ir.session(r)
		t.messages++
		if t.firstLine == 0 {
			t.firstLine = e.line
		}
		if t.maxLine == 0 || e.messageIndex > t.maxIndex {
			t.maxIndex, t.maxLine = e.messageIndex, e.line
		}
		ir.indexes = append(ir.indexes, ir.indexHash(r, e.messageIndex))
	}
	return nil
}

// confidence01 is a session's confidence, kept on 0..100; a conversation
// message has none.
func (d sessionKind) confidence01(r *loci.Record) (float64, bool) {
	if d.isMessage(r) {
		return 0, false
	}
	return r.Confidence / 100, true
}
