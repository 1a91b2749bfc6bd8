package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/loci-memory/loci"
)

// Facts that change over time (docs/rules.md, "Facts change over time, and
// history is kept"). A fact with a key fills a slot of its user (or of global
// knowledge, user ""), whichever agent wrote it. The slot's versions form a
// timeline by valid_at: each is true from its valid_at until its invalid_at,
// and no two overlap. A new version takes its place in the timeline
// (placeFact): the version true at its valid_at ends there (invalid_at,
// superseded_by) and, when a later version exists, the new one ends where that
// one begins. Nothing is deleted: superseded versions are history. Every
// change to a slot holds the slot's lock; the unique index on open facts per
// slot (migrations) backs it up.

// asOf returns t truncated as stored, or now when t is zero.
func (s *Service) asOf(t time.Time) time.Time {
	if t.IsZero() {
		return s.now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// validFrom is when a fact became true: its valid_at, or, for a fact
// stored before facts had one, when it was stored.
func validFrom(r *loci.Record) time.Time {
	if r.ValidAt.IsZero() {
		return r.CreatedAt
	}
	return r.ValidAt
}

// ended reports whether a fact is no longer true at now.
func ended(r *loci.Record, now time.Time) bool {
	return !r.InvalidAt.IsZero() && !r.InvalidAt.After(now)
}

// factSlotLock names the lock of a fact slot.
func factSlotLock(ws, userID, key string) string {
	return lockName(ws, "fact-slot", userID, key)
}

// placed is what placing a fact in its key's timeline changed: the
// version it superseded and the later version it now ends before (nil for
// none).
type placed struct{ superseded, next *loci.Record }

// ids returns the ids of the versions changed.
func (p placed) ids() []string {
	var ids []string
	for _, r := range []*loci.Record{p.superseded, p.next} {
		if r != nil {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// insertFact inserts a new fact with data d, first placing it in its
// key's timeline when it has a key, and returns the versions that changed.
func (s *Service) insertFact(ctx context.Context, tx loci.Tx, rec *loci.Record, d factData, now time.Time) (placed, error) {
	var p placed
	if rec.Key != "" {
		var err error
		if p, err = placeFact(ctx, tx, rec, &d, now); err != nil {
			return placed{}, err
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return placed{}, fmt.Errorf("encode fact: %w", err)
	}
	rec.Data = data
	if err := tx.InsertRecord(ctx, rec); err != nil {
		return placed{}, err
	}
	return p, nil
}

// placeFact makes room for rec in its slot's timeline at rec.ValidAt,
// holding the slot's lock: the version true at that time (prev) ends
// there and names rec as its successor (which needs the editor role: it
// changes what exists); when a later version (next) exists, rec ends
// where next begins and next names rec as its predecessor. It sets rec's
// InvalidAt and d's links, and returns prev when rec superseded it and
// next when there is one.
func placeFact(ctx context.Context, tx loci.Tx, rec *loci.Record, d *factData, now time.Time) (placed, error) {
	if err := tx.Lock(ctx, factSlotLock(rec.Workspace, rec.UserID, rec.Key)); err != nil {
		return placed{}, err
	}
	versions, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: rec.Workspace, Kinds: []loci.Kind{loci.KindFact}, UserID: &rec.UserID, Key: &rec.Key,
		Order: loci.OrderValidDesc,
	})
	if err != nil {
		return placed{}, err
	}
	var prev, next *loci.Record
	for i, r := range versions { // newest valid_at first
		if !validFrom(r).After(rec.ValidAt) {
			prev = r
			if i > 0 {
				next = versions[i-1]
			}
			break
		}
	}
	if prev == nil && len(versions) > 0 {
		next = versions[len(versions)-1]
	}
	var p placed
	if prev != nil && (prev.InvalidAt.IsZero() || prev.InvalidAt.After(rec.ValidAt)) {
		if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
			return placed{}, err
		}
		err := updateFact(ctx, tx, prev, now, func(r *loci.Record, pd *factData, _ time.Time) {
			r.InvalidAt, r.Review = rec.ValidAt, "" // a superseded fact's dispute is moot
			pd.SupersededBy = rec.ID
		})
		if err != nil {
			return placed{}, err
		}
		d.Supersedes, p.superseded = prev.ID, prev
	}
	if next != nil {
		rec.InvalidAt = validFrom(next)
		d.SupersededBy = next.ID
		if err := updateFact(ctx, tx, next, now, func(_ *loci.Record, nd *factData, _ time.Time) {
			nd.Supersedes = rec.ID
		}); err != nil {
			return placed{}, err
		}
		p.next = next
	}
	return p, nil
}

// currentFirst reorders ranked facts (every version, with history) so that
// no version of a key ranks above the version of that key true at t: a
// version found above it is moved to just below it, at its score at most.
func currentFirst(hits []Hit, t time.Time) []Hit {
	slot := func(r *loci.Record) string { return r.UserID + "\x00" + r.Key }
	trueAt := map[string]int{} // slot -> index of its version true at t
	for i, h := range hits {
		if h.Record.Key != "" && h.Record.ValidAtTime(t) {
			trueAt[slot(h.Record)] = i
		}
	}
	out := make([]Hit, 0, len(hits))
	held := map[string][]Hit{}
	for i, h := range hits {
		r := h.Record
		if r.Key == "" {
			out = append(out, h)
			continue
		}
		j, ok := trueAt[slot(r)]
		if ok && j > i {
			held[slot(r)] = append(held[slot(r)], h)
			continue
		}
		out = append(out, h)
		if ok && j == i {
			for _, x := range held[slot(r)] {
				if x.Score > h.Score {
					x.Score = h.Score
					if x.Explain != nil {
						e := *x.Explain
						e.Score = h.Score
						x.Explain = &e
					}
				}
				out = append(out, x)
			}
		}
	}
	return out
}

// getFactRecord reads a fact. ENOTFOUND when absent or another kind.
func getFactRecord(ctx context.Context, tx loci.Tx, ws, id string) (*loci.Record, error) {
	rec, err := tx.GetRecord(ctx, ws, id)
	if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && rec.Kind != loci.KindFact) {
		return nil, errFactNotFound()
	}
	return rec, err
}

// getLiveFact reads a fact that a route may answer: ENOTFOUND when absent,
// another kind, expired at now (an expired record is answered by no route:
// docs/rules.md, "Expiry hides at once, maintenance deletes later"), or
// another agent's under a key bound to one (reachable: docs/rules.md,
// "Memory is isolated by workspace and scope").
func getLiveFact(ctx context.Context, tx loci.Tx, ws, id string, now time.Time) (*loci.Record, error) {
	rec, err := getFactRecord(ctx, tx, ws, id)
	if err == nil && (rec.Expired(now) || !reachable(ctx, rec)) {
		return nil, errFactNotFound()
	}
	return rec, err
}

// updateFactTx runs fn on a fact in the write transaction of the
// operation a audits, holding, for a keyed fact, its slot's lock and then
// the fact's (lockByID: the order every writer takes them). The fact is
// noted as touched.
func (s *Service) updateFactTx(ctx context.Context, a *audited, id string, fn func(tx loci.Tx, rec *loci.Record, now time.Time) error) error {
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return err
	}
	ws := loci.WorkspaceFrom(ctx)
	return a.update(func(tx loci.Tx) error {
		rec, err := lockByID(ctx, tx, ws, id, func() (*loci.Record, error) { return getLiveFact(ctx, tx, ws, id, s.now()) })
		if err != nil {
			return err
		}
		a.touchRecord(rec)
		return fn(tx, rec, s.now())
	})
}

// GetFact returns one fact, whatever its status.
func (s *Service) GetFact(ctx context.Context, id string) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactGet, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var fact *loci.Fact
	err = a.view(func(tx loci.Tx) error {
		now := s.now()
		rec, err := getLiveFact(ctx, tx, ws, id, now)
		if err != nil {
			return err
		}
		a.touchRecord(rec)
		fact, err = factOf(rec, now)
		return err
	})
	return fact, err
}

// FactHistory returns every version of the fact's key and slot, newest
// valid_at first; a fact without a key is its own history.
func (s *Service) FactHistory(ctx context.Context, id string) (_ []*loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactHistory, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	out := []*loci.Fact{}
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		now := s.now()
		rec, err := getLiveFact(ctx, tx, ws, id, now)
		if err != nil {
			return err
		}
		a.touchIn(rec.Scope)
		recs := []*loci.Record{rec}
		if rec.Key != "" {
			// The versions of the key that have expired are answered
			// nowhere, history included.
			if recs, err = tx.FindRecords(ctx, loci.RecordFilter{
				Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, UserID: &rec.UserID, Key: &rec.Key, LiveAt: now, Order: loci.OrderValidDesc,
			}); err != nil {
				return err
			}
		}
		// A key bound to an agent reads the versions it reaches (the slot
		// is the user's, whichever agent), and no link to another's.
		hidden := map[string]bool{}
		for _, r := range recs {
			if !reachable(ctx, r) {
				hidden[r.ID] = true
			}
		}
		for _, r := range recs {
			if hidden[r.ID] {
				continue
			}
			f, err := factOf(r, now)
			if err != nil {
				return err
			}
			if hidden[f.SupersededBy] {
				f.SupersededBy = ""
			}
			if hidden[f.Supersedes] {
				f.Supersedes = ""
			}
			a.touch(r.ID)
			out = append(out, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// InvalidateFact marks a fact no longer true from at (now when zero),
// keeping it as history and ending its dispute.
func (s *Service) InvalidateFact(ctx context.Context, id string, at time.Time) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactInvalidate, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.CheckTime("at", at); err != nil {
		return nil, err
	}
	var fact *loci.Fact
	err = s.updateFactTx(ctx, a, id, func(tx loci.Tx, rec *loci.Record, now time.Time) error {
		end := now
		if !at.IsZero() {
			end = at.UTC().Truncate(time.Microsecond)
		}
		if end.Before(validFrom(rec)) {
			return loci.Errorf(loci.EINVALID, "at must not be before the fact's valid_at (%s)", validFrom(rec).Format(time.RFC3339Nano))
		}
		if !rec.InvalidAt.IsZero() && !end.Before(rec.InvalidAt) {
			return loci.Errorf(loci.ECONFLICT, "the fact is already no longer true from %s", rec.InvalidAt.Format(time.RFC3339Nano))
		}
		if err := updateFact(ctx, tx, rec, now, func(r *loci.Record, _ *factData, _ time.Time) {
			r.InvalidAt, r.Review = end, ""
		}); err != nil {
			return err
		}
		var err error
		fact, err = factOf(rec, now)
		return err
	})
	return fact, err
}

// ResolveFact settles a fact's dispute: keep clears it; otherwise the fact
// ends now (or at its valid_at when that is later), kept as history.
func (s *Service) ResolveFact(ctx context.Context, id string, keep bool) (_ *loci.Fact, err error) {
	a, err := s.begin(ctx, loci.OpFactResolve, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	var fact *loci.Fact
	err = s.updateFactTx(ctx, a, id, func(tx loci.Tx, rec *loci.Record, now time.Time) error {
		if rec.Review != loci.ReviewDisputed {
			return loci.Errorf(loci.ECONFLICT, "the fact is not disputed")
		}
		end := now
		if validFrom(rec).After(end) {
			end = validFrom(rec)
		}
		if err := updateFact(ctx, tx, rec, now, func(r *loci.Record, _ *factData, _ time.Time) {
			r.Review = ""
			if !keep && (r.InvalidAt.IsZero() || r.InvalidAt.After(end)) {
				r.InvalidAt = end
			}
		}); err != nil {
			return err
		}
		var err error
		fact, err = factOf(rec, now)
		return err
	})
	return fact, err
}

// DeleteFact deletes one fact; its neighbours in its key's timeline stop
// naming it (the one it superseded stays ended: deleting a fact does not
// make an older one true again). The adds queued in the background whose
// results name it go with it (eventforget.go).
func (s *Service) DeleteFact(ctx context.Context, id string) (err error) {
	a, err := s.begin(ctx, loci.OpFactDelete, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return err
	}
	return s.updateFactTx(ctx, a, id, func(tx loci.Tx, rec *loci.Record, now time.Time) error {
		if err := deleteFactTx(ctx, tx, a, rec, now); err != nil {
			return err
		}
		return forgetEventsOf(ctx, tx, rec.Workspace, []*loci.Record{rec})
	})
}

// lockFactSlots takes the slot locks of the keyed facts among recs (in
// one order, so two callers never wait for each other in a cycle) and
// returns those facts read again under the locks, with the links they have
// now; a fact deleted meanwhile is left out.
func lockFactSlots(ctx context.Context, tx loci.Tx, recs []*loci.Record) ([]*loci.Record, error) {
	var locks []string
	var keyed []*loci.Record
	for _, r := range recs {
		if r.Kind == loci.KindFact && r.Key != "" {
			keyed = append(keyed, r)
			locks = append(locks, factSlotLock(r.Workspace, r.UserID, r.Key))
		}
	}
	slices.Sort(locks)
	for _, l := range slices.Compact(locks) {
		if err := tx.Lock(ctx, l); err != nil {
			return nil, err
		}
	}
	out := keyed[:0:0]
	for _, r := range keyed {
		now, err := getFactRecord(ctx, tx, r.Workspace, r.ID)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, now)
	}
	return out, nil
}

// unlinkForgottenFacts makes the versions left of the deleted facts' keys
// stop naming them: a version that a deleted one superseded, or that
// superseded it, drops the link (and keeps its validity: the version
// before a deleted current one stays ended, so the key has no current
// fact). gone holds the ids deleted; versions among them are left alone.
// The versions changed are noted as touched.
func unlinkForgottenFacts(ctx context.Context, tx loci.Tx, a *audited, deleted []*loci.Record, gone map[string]bool, now time.Time) error {
	for _, rec := range deleted {
		var d factData
		if err := decodeData(rec, &d); err != nil {
			return err
		}
		unlink := func(other string, names func(*factData) *string) error {
			if other == "" || gone[other] {
				return nil
			}
			r, err := getFactRecord(ctx, tx, rec.Workspace, other)
			if loci.ErrorCode(err) == loci.ENOTFOUND {
				return nil
			} else if err != nil {
				return err
			}
			var od factData
			if err := decodeData(r, &od); err != nil {
				return err
			} else if *names(&od) != rec.ID {
				return nil
			}
			if a != nil {
				a.touch(r.ID)
			}
			return updateFact(ctx, tx, r, now, func(_ *loci.Record, od *factData, _ time.Time) { *names(od) = "" })
		}
		if err := unlink(d.Supersedes, func(od *factData) *string { return &od.SupersededBy }); err != nil {
			return err
		}
		if err := unlink(d.SupersededBy, func(od *factData) *string { return &od.Supersedes }); err != nil {
			return err
		}
	}
	return nil
}

// deleteFactTx deletes the fact rec in tx and unlinks its neighbours in
// its key's timeline, holding the locks updateFactTx takes; a, when set,
// notes the neighbours it changed.
func deleteFactTx(ctx context.Context, tx loci.Tx, a *audited, rec *loci.Record, now time.Time) error {
	if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: rec.Workspace, Kinds: []loci.Kind{loci.KindFact}, IDs: []string{rec.ID}}); err != nil {
		return err
	}
	return unlinkForgottenFacts(ctx, tx, a, []*loci.Record{rec}, map[string]bool{rec.ID: true}, now)
}
