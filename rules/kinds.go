package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// kindWrites is what the memories API (memories.go) asks a kind: how a
// memory of the kind is added, edited and deleted by id, under the kind's
// own rules. Each kind declares its writes beside its rules (notes_kind.go,
// facts_kind.go, …) and registers it there (registerKind), and no
// cross-kind code switches on the kind.
type kindWrites interface {
	// route names the kind's own route, for the errors of what the memories API
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

// kindImport is what import asks a kind: the facts an import checks a
// record of the kind against and the rules that span its records. Each
// kind declares them in its kind file, beside its writes.
type kindImport interface {
	// importLimits are the bounds an imported record of the kind keeps.
	importLimits() importLimits
	// checkImportScope checks the scope and fields a record of the kind
	// requires (docs/records.md, "The kinds"), so that an imported one is
	// reachable the way the API reaches the kind.
	checkImportScope(rec *loci.Record) error
	// checkImportData checks data, a JSON object (field names it in
	// errors), against what a record of the kind stores (rec's category
	// chooses, for sessions): its fields' types and ranges.
	checkImportData(field string, rec *loci.Record, data []byte) (any, error)
	// keepImportData keeps in e what the kind's limits that span records
	// need of data, e's record's data as checkImportData decoded it.
	keepImportData(e *importEntry, data any)
	// holdImport adds to h (h.hold) a read of each group of records r
	// belongs to whose limits span records (a task's working bytes, a user
	// and agent's episodes), so that what the workspace holds is read once.
	holdImport(h *importHold, ir *importRules, r *loci.Record)
	// tallyImport counts one checked line of the kind in ir, and refuses
	// it when it takes a limit that spans records past its bound.
	tallyImport(ir *importRules, e *importEntry) error
	// uniqueKey is what an open record's key is unique in: the kind,
	// scope and key unless the kind says otherwise.
	uniqueKey(r *loci.Record) string
	// keyHolders selects the records of workspace ws that may hold the
	// key of r, an open keyed record: those whose uniqueKey may be r's
	// (the kind, scope and key unless the kind says otherwise), history
	// included, so that an import finds a stored one before writing.
	keyHolders(ws string, r *loci.Record) loci.RecordFilter
	// keyName names r's key, and where it is unique, in an import's
	// errors.
	keyName(r *loci.Record) string
	// linkable reports whether a block link may point at a record of the
	// kind: blocks alone.
	linkable() bool
}

// kindRules is what search, review and the memories API ask a kind
// about one of its records: how its confidence and its review questions
// read, whether it lends context, whether it is read once expired.
type kindRules interface {
	// confidence01 returns a record's confidence on 0..1, if the kind
	// has one; ok false: the record is neither helped nor penalised.
	confidence01(r *loci.Record) (c float64, ok bool)
	// reviewItem fills it, a review-queue item, from r, as at now; an
	// error for a kind that is never asked about.
	reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) error
	// isMessage reports whether r is a conversation message: only
	// messages lend context to their neighbours in search, and a
	// forgotten one leaves its session with one message less.
	isMessage(r *loci.Record) bool
	// readExpired reports whether a record of the kind past its expiry is
	// still read by id (a session's expiry ends it, its record stays).
	readExpired() bool
	// historyOf selects the records whose versions are r's history (a
	// keyed fact: every fact of its slot); ok false: r's alone.
	historyOf(r *loci.Record) (f loci.RecordFilter, ok bool)
	// expiresByDelete reports whether maintenance's expire deletes a
	// record of the kind once its expires_at has passed, as it is, with
	// its versions: working memory, episodes, notes and passages. Facts
	// (a key's timeline is mended: deleteFactTx) and sessions (with their
	// messages, never a persistent one: expireSessions) expire by rules of
	// their own; blocks and preferences are never deleted automatically.
	expiresByDelete() bool
}

// importLimits are the bounds of an imported record of one kind.
type importLimits struct {
	maxContent    int     // content bytes
	maxConfidence float64 // the confidence's top (its bottom is 0)
	dataRequired  bool    // data must be given, not empty
	expiry        importExpiry
}

// importExpiry says whether an imported record of a kind has an
// expires_at, as the kind's writes and lifecycle give one.
type importExpiry int

const (
	// expiryOptional: a time to live, or none (notes, passages, facts);
	// a session's end.
	expiryOptional importExpiry = iota
	// expiryRequired: every one expires, as its kind's lifecycle says
	// (working memory after its last write, an episode after its
	// creation); one without would live for ever.
	expiryRequired
	// expiryNever: never expires (blocks, preferences); an expired one
	// would still be read, but be left out of the next export.
	expiryNever
)

// memKind is all a kind declares: its writes, its import and its rules.
type memKind interface {
	kindWrites
	kindImport
	kindRules
}

// kindsByName holds every kind, registered by its kind file with
// registerKind.
var kindsByName = map[loci.Kind]memKind{}

// registerKind registers kind k's writes, import and rules; each kind file
// calls it once, in a package-level declaration
// (var _ = registerKind(loci.KindNote, noteKind{})), so a kind is
// registered where it is declared. It panics on a kind registered twice.
func registerKind(k loci.Kind, m memKind) bool {
	if _, dup := kindsByName[k]; dup {
		panic("memory: kind " + string(k) + " registered twice")
	}
	kindsByName[k] = m
	return true
}

// writesOf returns the writes of kind k.
func writesOf(k loci.Kind) (kindWrites, error) {
	d, ok := kindsByName[k]
	if !ok {
		return nil, loci.Errorf(loci.EINVALID, "unknown kind %q", k)
	}
	return d, nil
}

// rulesOf returns the rules of kind k, and false for an unknown kind.
func rulesOf(k loci.Kind) (kindRules, bool) {
	d, ok := kindsByName[k]
	return d, ok
}

// importOf returns what import asks of kind k, and false for an unknown
// kind.
func importOf(k loci.Kind) (kindImport, bool) {
	d, ok := kindsByName[k]
	return d, ok
}

// The questions cross-kind code asks of one record, answered by its kind.

// confidence01 returns r's confidence on 0..1, if its kind has one, as
// the kind says (kindRules.confidence01): facts and episodes keep 0..1,
// preferences and sessions 0..100. An episode recorded without a
// confidence_score, and a conversation message, have none: they are
// neither helped nor penalised.
func confidence01(r *loci.Record) (float64, bool) {
	rules, ok := rulesOf(r.Kind)
	if !ok {
		return 0, false
	}
	return rules.confidence01(r)
}

// isMessage reports whether r is a conversation message, as its kind says
// (kindRules.isMessage): only messages lend context to their neighbours,
// since a turn's answer is often the next message; a passage or fact
// written a minute after another is not its context.
func isMessage(r *loci.Record) bool {
	rules, ok := rulesOf(r.Kind)
	return ok && rules.isMessage(r)
}

// readExpired reports whether rec, past its expiry, is still read by id,
// as its kind says (kindRules.readExpired).
func readExpired(rec *loci.Record) bool {
	rules, ok := rulesOf(rec.Kind)
	return ok && rules.readExpired()
}

// readExpiredKinds are the kinds whose records are still read once past
// their expiry (kindRules.readExpired): a listing's RecordFilter.Lasting.
func readExpiredKinds() []loci.Kind {
	var out []loci.Kind
	for _, k := range loci.Kinds {
		if rules, ok := rulesOf(k); ok && rules.readExpired() {
			out = append(out, k)
		}
	}
	return out
}

// expiredByDeleteKinds are the kinds whose records expire deletes as
// they are once past their expiry (kindRules.expiresByDelete), in the
// order of loci.Kinds.
func expiredByDeleteKinds() []loci.Kind {
	var out []loci.Kind
	for _, k := range loci.Kinds {
		if rules, ok := rulesOf(k); ok && rules.expiresByDelete() {
			out = append(out, k)
		}
	}
	return out
}

// linkable reports whether a block link may point at r, as its kind
// says (kindImport.linkable).
func linkable(r *loci.Record) bool {
	k, ok := importOf(r.Kind)
	return ok && k.linkable()
}

// defaultRules are the rules a kind keeps unless it declares its own: no
// limit that spans records, no confidence, no review questions, any JSON
// object as data, a key unique in its kind and scope, no messages, no
// block links, not read once expired, not deleted as it is by expire. Each kind embeds it.
type defaultRules struct{}

func (defaultRules) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	m := map[string]json.RawMessage{}
	return &m, decodeImport(field, rec, data, &m)
}
func (defaultRules) keepImportData(*importEntry, any)                   {}
func (defaultRules) holdImport(*importHold, *importRules, *loci.Record) {}
func (defaultRules) tallyImport(*importRules, *importEntry) error       { return nil }
func (defaultRules) confidence01(*loci.Record) (float64, bool)          { return 0, false }
func (defaultRules) isMessage(*loci.Record) bool                        { return false }
func (defaultRules) linkable() bool                                     { return false }
func (defaultRules) historyOf(*loci.Record) (loci.RecordFilter, bool) {
	return loci.RecordFilter{}, false
}
func (defaultRules) readExpired() bool     { return false }
func (defaultRules) expiresByDelete() bool { return false }
func (defaultRules) uniqueKey(r *loci.Record) string {
	return strings.Join([]string{string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Key}, "\x00")
}
func (defaultRules) keyHolders(ws string, r *loci.Record) loci.RecordFilter {
	return loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{r.Kind}, Key: &r.Key,
		AgentID: &r.AgentID, UserID: &r.UserID, SessionID: &r.SessionID, TaskID: &r.TaskID, Order: loci.OrderNone,
	}
}
func (defaultRules) keyName(r *loci.Record) string {
	return fmt.Sprintf("the %s key %q of this scope", r.Kind, r.Key)
}
func (defaultRules) reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) error {
	return fmt.Errorf("review queue: record %s is a %s", r.ID, r.Kind)
}
