package memory

import (
	"context"
	"time"

	"github.com/loci-memory/loci"
)

// kindDoor is what the memories door (memories.go) asks a kind: how a
// memory of the kind is added, edited and deleted by id, under the kind's
// own rules. Each kind declares its door beside its rules (notes_door.go,
// facts_door.go, …); kindDoors registers them, one line a kind, and no
// cross-kind code switches on the kind.
type kindDoor interface {
	// route names the kind's own route, for the errors of what the door
	// does not do for it.
	route() string
	// add stores a new memory of the kind (or answers NOOP or UPDATE as
	// the kind's keying says). in's common fields are checked.
	add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error)
	// edit changes rec's content and/or tags (p.content, p.tags; nil:
	// unchanged), keeping history, and returns what it did.
	edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error)
	// remove deletes rec as the kind's own delete does.
	remove(ctx context.Context, w *memWrite, rec *loci.Record) error
	// ttl reports whether a memory of the kind takes a time to live
	// (expires_at, ttl_seconds): notes, passages and facts. Working
	// memory, episodes and sessions expire by rules of their own; blocks
	// and preferences are never deleted automatically.
	ttl() bool
}

// kindDoors registers every kind's door.
var kindDoors = map[loci.Kind]kindDoor{
	loci.KindNote:       noteDoor{},
	loci.KindBlock:      blockDoor{},
	loci.KindPassage:    passageDoor{},
	loci.KindWorking:    workingDoor{},
	loci.KindEpisode:    episodeDoor{},
	loci.KindFact:       factDoor{},
	loci.KindPreference: preferenceDoor{},
	loci.KindSession:    sessionDoor{},
}

// doorOf returns the door of kind k.
func doorOf(k loci.Kind) (kindDoor, error) {
	d, ok := kindDoors[k]
	if !ok {
		return nil, loci.Errorf(loci.EINVALID, "unknown kind %q", k)
	}
	return d, nil
}

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
