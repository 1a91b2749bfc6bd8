package memory

import (
	"context"
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
	// role is the role of the conversation's message the memory came
	// from, kept in its record ("" for none).
	role string
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
func (w *memWrite) sameContent(ctx context.Context, f loci.RecordFilter, key, c string) (seenRecord, error) {
	h := loci.ContentHash(c)
	f.ContentHash, f.LiveAt = &h, w.now
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
