package rules

import (
	"context"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// factKind is how the memories API reaches facts, the default kind of a
// memory: a user's (or global) knowledge, in category general_fact unless
// named; with a key, a slot whose new content supersedes the old.
type factKind struct{ defaultRules }

var _ = registerKind(loci.KindFact, factKind{})

func (factKind) route() string { return "POST /v1/facts" }
func (factKind) ttl() bool     { return true }

func (factKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	cat := in.Category
	if cat == "" {
		cat = loci.CategoryGeneralFact
	}
	fi := loci.FactInput{UserID: in.UserID, AgentID: in.AgentID, Category: cat, Fact: in.Content, Keywords: in.Tags, Key: in.Key}
	if err := fi.Validate(); err != nil {
		return nil, err
	}
	keywords := cleanKeywords(in.Tags)
	// The same content current in the same scope and key changes nothing.
	f := loci.RecordFilter{Workspace: w.ws, Kinds: []loci.Kind{loci.KindFact}, UserID: &in.UserID, AsOf: w.now}
	if in.Key != "" {
		f.Key = &in.Key // a slot is per user, whichever agent
		if err := w.lock(ctx, factSlotLock(w.ws, in.UserID, in.Key)); err != nil {
			return nil, err
		}
	} else {
		f.AgentID, f.SessionID = &in.AgentID, &in.SessionID
	}
	// One that brings keywords or metadata it lacks updates them.
	if old, err := w.sameContent(ctx, f, in.Key, in.Content); err != nil {
		return nil, err
	} else if old != nil {
		return w.repeatOf(ctx, old, repeat{tags: keywords, metadata: in.metadata, maxTags: loci.MaxFactKeywords, search: factSearchText})
	}
	rec := &loci.Record{
		ID: newID(), Workspace: w.ws, Kind: loci.KindFact,
		Scope: loci.Scope{UserID: in.UserID, AgentID: in.AgentID, SessionID: in.SessionID}, Key: in.Key,
		Content: in.Content, SearchText: factSearchText(in.Content, keywords), Tags: keywords, Metadata: in.metadata,
		Category: cat, Confidence: loci.FactInitialRelevance, CreatedAt: w.now, UpdatedAt: w.now, ExpiresAt: in.expiresAt,
		Version: 1, ValidAt: w.now,
	}
	changed, err := w.s.insertFact(ctx, w.tx, rec, factData{Role: in.role}, w.now)
	if err != nil {
		return nil, err
	}
	w.a.touch(changed.ids()...)
	ev := &loci.MemoryEvent{ID: rec.ID, Kind: loci.KindFact, Event: loci.EventAdd, Version: 1}
	if changed.superseded != nil {
		ev.Event, ev.Previous = loci.EventUpdate, toldID(ctx, changed.superseded) // another agent's id is not told
	}
	return ev, nil
}

// edit changes a fact's content or keywords. A keyed fact's new content is
// a new version of its slot, superseding the record edited (which must be
// the current one); anything else changes in place, keeping a version.
func (factKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	next := *rec
	if p.tags != nil {
		fi := loci.FactInput{Category: rec.Category, Fact: rec.Content, Keywords: *p.tags}
		if err := fi.Validate(); err != nil {
			return nil, err
		}
		next.Tags = cleanKeywords(*p.tags)
	}
	if p.content != nil {
		next.Content = *p.content
	}
	search := factSearchText(next.Content, next.Tags)
	if rec.Key == "" || normContent(next.Content) == normContent(rec.Content) {
		return w.editInPlace(ctx, rec, &next, search)
	}
	if !rec.InvalidAt.IsZero() {
		return nil, loci.Errorf(loci.ECONFLICT, "fact %s is a past version of its key %q: edit the current one", rec.ID, rec.Key)
	}
	if err := w.lock(ctx, factSlotLock(w.ws, rec.UserID, rec.Key)); err != nil {
		return nil, err
	}
	// Read again under the slot's lock: a keyed write of another process
	// may have superseded it since it was read.
	if cur, err := getFactRecord(ctx, w.tx, w.ws, rec.ID); err != nil {
		return nil, err
	} else if !cur.InvalidAt.IsZero() {
		return nil, loci.Errorf(loci.ECONFLICT, "fact %s is a past version of its key %q: edit the current one", rec.ID, rec.Key)
	}
	nv := &loci.Record{
		ID: newID(), Workspace: w.ws, Kind: loci.KindFact, Scope: rec.Scope, Key: rec.Key,
		Content: next.Content, SearchText: search, Tags: next.Tags, Metadata: rec.Metadata,
		Category: rec.Category, Confidence: loci.FactInitialRelevance, CreatedAt: w.now, UpdatedAt: w.now,
		ExpiresAt: rec.ExpiresAt, Version: 1, ValidAt: w.now,
	}
	changed, err := w.s.insertFact(ctx, w.tx, nv, factData{}, w.now)
	if err != nil {
		return nil, err
	}
	w.a.touch(changed.ids()...)
	return &loci.MemoryEvent{ID: nv.ID, Kind: loci.KindFact, Event: loci.EventUpdate, Version: 1, Previous: rec.ID}, nil
}

func (factKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	// The caller holds the slot's lock, then the fact's (lockByID).
	return deleteFactTx(ctx, w.tx, w.a, rec, w.now)
}

func (factKind) importLimits() importLimits {
	return importLimits{maxContent: maxImportContentBytes, maxConfidence: 1}
}

func (factKind) checkImportScope(rec *loci.Record) error {
	if err := need(rec, "content", rec.Content); err != nil { // as POST /v1/facts needs a fact
		return err
	}
	return checkCategory(rec.Category, true)
}

func (factKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d factData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if d.ContradictionCount < 0 || d.ContradictionCount > maxImportInt {
		return nil, loci.Errorf(loci.EINVALID, "%s: contradiction_count is out of range", field)
	}
	return &d, nil
}

// confidence01 is a fact's confidence, kept on 0..1.
// uniqueKey: a fact's key is unique in its user's (or the global) slot of
// that key, whichever agent wrote it.
func (factKind) uniqueKey(r *loci.Record) string {
	return strings.Join([]string{string(r.Kind), r.UserID, r.Key}, "\x00")
}

// keyHolders: the facts of r's slot, whichever agent wrote them.
func (factKind) keyHolders(ws string, r *loci.Record) loci.RecordFilter {
	return loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, UserID: &r.UserID, Key: &r.Key, Order: loci.OrderNone}
}

// historyOf: a keyed fact's history is its slot's, newest first.
func (factKind) historyOf(r *loci.Record) (loci.RecordFilter, bool) {
	if r.Key == "" {
		return loci.RecordFilter{}, false
	}
	return loci.RecordFilter{
		Workspace: r.Workspace, Kinds: []loci.Kind{loci.KindFact}, UserID: &r.UserID, Key: &r.Key, Order: loci.OrderValidDesc,
	}, true
}

func (factKind) confidence01(r *loci.Record) (float64, bool) { return r.Confidence, true }

// reviewItem asks about a disputed fact.
func (factKind) reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) (err error) {
	it.Fact, err = factOf(r, now)
	return err
}
