package memory

import (
	"context"
	"encoding/json"
	"fmt"
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

// kindRules is what import, search and review ask a kind: the facts an
// import checks a record of the kind against, the rules that span its
// records, and how its confidence and its review questions read. Each
// kind declares its rules in its door file, beside its door.
type kindRules interface {
	// importLimits are the bounds an imported record of the kind keeps.
	importLimits() importLimits
	// checkImportScope checks the scope and fields a record of the kind
	// requires (DESIGN §1.2), so that an imported one is reachable the
	// way the API reaches the kind.
	checkImportScope(rec *loci.Record) error
	// checkImportData checks data, a JSON object (field names it in
	// errors), against what a record of the kind stores (rec's category
	// chooses, for sessions): its fields' types and ranges.
	checkImportData(field string, rec *loci.Record, data []byte) (any, error)
	// holdImport notes in h the groups of records r belongs to whose
	// limits span records (a task's working bytes, a user and agent's
	// episodes), so that what the workspace holds of them is read once.
	holdImport(h *importHold, ir *importRules, r *loci.Record)
	// tallyImport counts one checked line of the kind in ir, and refuses
	// it when it takes a limit that spans records past its bound.
	tallyImport(ir *importRules, e *importEntry) error
	// confidence01 returns a record's confidence on 0..1, if the kind
	// has one; ok false: the record is neither helped nor penalised.
	confidence01(r *loci.Record) (c float64, ok bool)
	// reviewItem fills it, a review-queue item, from r, as at now; an
	// error for a kind that is never asked about.
	reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) error
}

// importLimits are the bounds of an imported record of one kind.
type importLimits struct {
	maxContent    int     // content bytes
	maxConfidence float64 // the confidence's top (its bottom is 0)
	dataRequired  bool    // data must be given, not empty
}

// memKind is all a kind declares: its door and its rules.
type memKind interface {
	kindDoor
	kindRules
}

// kindDoors registers every kind, its door and its rules.
var kindDoors = map[loci.Kind]memKind{
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

// rulesOf returns the rules of kind k, and false for an unknown kind.
func rulesOf(k loci.Kind) (kindRules, bool) {
	d, ok := kindDoors[k]
	return d, ok
}

// defaultRules are the rules a kind keeps unless it declares its own: no
// limit that spans records, no confidence, no review questions, any JSON
// object as data. Each kind embeds it.
type defaultRules struct{}

func (defaultRules) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	m := map[string]json.RawMessage{}
	return &m, decodeImport(field, rec, data, &m)
}
func (defaultRules) holdImport(*importHold, *importRules, *loci.Record) {}
func (defaultRules) tallyImport(*importRules, *importEntry) error       { return nil }
func (defaultRules) confidence01(*loci.Record) (float64, bool)          { return 0, false }
func (defaultRules) reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) error {
	return fmt.Errorf("review queue: record %s is a %s", r.ID, r.Kind)
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
