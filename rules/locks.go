package rules

import (
	"context"
	"strings"

	"github.com/loci-memory/loci"
)

// lockName names the lock that serializes read-modify-write on one thing.
func lockName(parts ...string) string {
	return strings.Join(parts, "\x1f")
}

// recordLock names the lock of one record by id, which every edit and
// delete of the record by id takes (whichever way: the memories API, a
// fact's, a block's, an episode's), before it reads the record it changes:
// the edits of one record take turns, and each is numbered and timed
// under the lock, in the order they commit.
func recordLock(ws, id string) string {
	return lockName(ws, "record", id)
}

// slotLock names the lock of the slot record r is in, which the writers
// that reach a record by its key rather than its id hold when they do (a
// keyed fact's slot, a note's key), or "" when r's kind keeps none.
func slotLock(ws string, r *loci.Record) string {
	switch {
	case r.Kind == loci.KindFact && r.Key != "":
		return factSlotLock(ws, r.UserID, r.Key)
	case r.Kind == loci.KindNote:
		return noteLock(ws, r.AgentID, r.Key)
	}
	return ""
}

// noteLock names the lock of an agent's note of key.
func noteLock(ws, agentID, key string) string {
	return lockName(ws, "note", agentID, key)
}

// lockByID takes the locks an edit or delete of record id takes, in the
// one order every writer of a record takes them: its slot's (slotLock)
// before its own (recordLock), as the writers that reach it by its key
// hold the slot's when they take the record's; then returns the record as
// get reads it under them. The slot is learnt from a read before the
// locks (a record's key and scope never change). Taking them the other
// way round, an edit and a keyed write of one record each waited for the
// other (a deadlock on PostgreSQL), or lost the race to a version
// conflict neither had asked for.
func lockByID(ctx context.Context, tx loci.Tx, ws, id string, get func() (*loci.Record, error)) (*loci.Record, error) {
	rec, err := get()
	switch {
	case err == nil:
		if l := slotLock(ws, rec); l != "" {
			if err := tx.Lock(ctx, l); err != nil {
				return nil, err
			}
		}
	case loci.ErrorCode(err) != loci.ENOTFOUND:
		return nil, err
	}
	if err := tx.Lock(ctx, recordLock(ws, id)); err != nil {
		return nil, err
	}
	return get()
}
