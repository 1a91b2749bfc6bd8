package memory

import (
	"context"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// What a kind's door is given by the memories door (memories.go): the
// input checked for its common fields, the edit, the write in progress,
// and the helpers the doors share.

// memInput is a MemoryInput checked for its common fields.
type memInput struct {
	loci.MemoryInput
	metadata  []byte    // canonical, nil for none
	expiresAt time.Time // zero: never
}

// memEdit is the content and tags of a patch (nil: unchanged), with the
// metadata and expiry the door applies around the kind's edit.
type memEdit struct {
	content *string
	tags    *[]string
}

// memWrite is one write of the memories door: the service, the
// transaction, the audit entry and the time.
type memWrite struct {
	s   *Service
	tx  loci.Tx
	a   *audited
	ws  string
	now time.Time
}

// seenRecord is a repeat's record: its id and version.
type seenRecord struct {
	id      string
	version int
}

// normContent is content as a repeat is compared: case and spacing aside.
func normContent(s string) string { return loci.NormalizeContent(s) }

// sameContent finds a live record selected by f, not history, of key key
// ("" for none), whose content is c (case and spacing aside) and returns
// its id and version (id "" for none). The content's hash is indexed, so
// it reads the few records that share it, whatever the scope's size; a
// batch sees its own earlier writes, in its transaction.
//
// It first takes the lock of that content in f's kind and scope
// (repeatLock), held to the end of the transaction, so that two writes of
// the same content at once take turns: the second reads the first's record
// and is its repeat. On PostgreSQL that is one advisory lock (a statement,
// no index and no row); on SQLite the one writer already serializes.
func (w *memWrite) sameContent(ctx context.Context, f loci.RecordFilter, key, c string) (seenRecord, error) {
	h := loci.ContentHash(c)
	if err := w.lock(ctx, repeatLock(f, key, h)); err != nil {
		return seenRecord{}, err
	}
	f.ContentHash, f.LiveAt = &h, w.now
	if !f.AsOf.IsZero() {
		// What is true now, the lock's now: a repeat that committed
		// while this write waited is valid from before it.
		f.AsOf = w.now
	}
	recs, err := w.tx.FindRecords(ctx, f)
	if err != nil {
		return seenRecord{}, err
	}
	norm := normContent(c)
	for _, r := range recs {
		if r.InvalidAt.IsZero() && r.Key == key && normContent(r.Content) == norm {
			return seenRecord{r.ID, r.Version}, nil
		}
	}
	return seenRecord{}, nil
}

// repeatLock names the lock of content hash h in the kind, scope and key
// that f and key select. The scope is the user and agent f names (a field
// f leaves open is "*"); the session is left out, so that the doors whose
// repeat checks overlap (a fact of no key through POST /v1/facts, across
// sessions, and through /v1/memories, in one) take the same lock.
func repeatLock(f loci.RecordFilter, key, h string) string {
	scope := func(p *string) string {
		if p == nil {
			return "*"
		}
		return "=" + *p
	}
	kinds := make([]string, len(f.Kinds))
	for i, k := range f.Kinds {
		kinds[i] = string(k)
	}
	return lockName(f.Workspace, "repeat", strings.Join(kinds, ","), scope(f.UserID), scope(f.AgentID), key, h)
}

// lock takes the named lock to the end of the transaction and reads the
// clock again: what the write stamps after it (updated_at, valid_at, a
// version's time) is read under the lock, so that the writes the lock
// serializes are timed in the order they commit, as they are numbered.
func (w *memWrite) lock(ctx context.Context, name string) error {
	if err := w.tx.Lock(ctx, name); err != nil {
		return err
	}
	if now := w.s.now(); now.After(w.now) {
		w.now = now
	}
	return nil
}

// errNoTTL refuses a time to live on a kind that takes none.
func errNoTTL(k loci.Kind) error {
	return loci.Errorf(loci.EINVALID, "a %s takes no expires_at or ttl_seconds (notes, passages and facts do)", k)
}

// ownRoute refuses what the door does not do for a kind: 400 for an add,
// 409 for an edit, naming the kind's own route.
func ownRoute(code string, k loci.Kind, what string) error {
	d, _ := doorOf(k)
	return loci.Errorf(code, "a %s is not %s through /v1/memories: use %s", k, what, d.route())
}
