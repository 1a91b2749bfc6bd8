package memory

import (
	"context"

	"github.com/loci-memory/loci"
)

// sessionDoor is how the memories door reaches sessions and their
// messages: read and deleted by id (a session with its messages; a
// message, leaving its session one message less); written through the
// session's routes, which keep its messages in order.
type sessionDoor struct{}

func (sessionDoor) route() string {
	return "PUT /v1/sessions/{session_id} or POST /v1/sessions/{session_id}/messages"
}
func (sessionDoor) ttl() bool { return false }

func (sessionDoor) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindSession, "added")
}

func (sessionDoor) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindSession, "edited")
}

func (sessionDoor) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	sid := sessionIDOf(rec)
	if err := w.tx.Lock(ctx, lockName(w.ws, "session", sid)); err != nil {
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
