package rules

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/loci-memory/loci"
)

// The memories API (docs/api.md, "The memories API over every kind"): add,
// get, patch, delete, history and batches over every kind, written once
// against the kinds' registrations (kinds.go). Every kind's own rules hold, whichever
// way a write comes through.

var _ loci.MemoryService = (*Service)(nil)

func errMemoryNotFound() error { return loci.Errorf(loci.ENOTFOUND, "memory not found") }

// checkInput checks the common fields of an add and returns it with its
// metadata and expiry resolved. The kind's add checks the rest.
func (s *Service) checkInput(in loci.MemoryInput, now time.Time) (*memInput, error) {
	if in.Kind == "" {
		in.Kind = loci.KindFact
	}
	kw, err := writesOf(in.Kind)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("content", in.Content, 0); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"user_id", in.UserID}, {"agent_id", in.AgentID}, {"session_id", in.SessionID}} {
		if f.v != "" {
			if err := loci.RequireText(f.name, f.v, loci.MaxAgentIDBytes); err != nil {
				return nil, err
			}
		}
	}
	out := &memInput{MemoryInput: in}
	if out.metadata, err = loci.NormalizeMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if out.expiresAt, err = expiryOf(in.ExpiresAt, in.TTLSeconds, now); err != nil {
		return nil, err
	}
	if !out.expiresAt.IsZero() && !kw.ttl() {
		return nil, errNoTTL(in.Kind)
	}
	return out, nil
}

// expiryOf resolves expires_at or ttl_seconds (not both) to a time after
// now; zero when neither is set.
func expiryOf(at *time.Time, ttl *int64, now time.Time) (time.Time, error) {
	switch {
	case at != nil && ttl != nil:
		return time.Time{}, loci.Errorf(loci.EINVALID, "set expires_at or ttl_seconds, not both")
	case at != nil:
		t := at.UTC().Truncate(time.Microsecond)
		if !t.After(now) {
			return time.Time{}, loci.Errorf(loci.EINVALID, "expires_at must be in the future")
		}
		return t, loci.CheckTime("expires_at", t)
	case ttl != nil:
		if *ttl <= 0 || *ttl > loci.MaxTTLSeconds {
			return time.Time{}, loci.Errorf(loci.EINVALID, "ttl_seconds must be from 1 to %d", loci.MaxTTLSeconds)
		}
		return now.Add(time.Duration(*ttl) * time.Second), nil
	}
	return time.Time{}, nil
}

// AddMemory adds one memory.
func (s *Service) AddMemory(ctx context.Context, in loci.MemoryInput) (_ *loci.MemoryEvent, err error) {
	a, err := s.beginKind(ctx, loci.OpMemoryAdd, in.Kind, loci.Scope{AgentID: in.AgentID, UserID: in.UserID, SessionID: in.SessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	var ev *loci.MemoryEvent
	err = a.update(func(tx loci.Tx) error {
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		var err error
		ev, err = w.add(ctx, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	if ev.Event == loci.EventAdd {
		a.created()
	}
	s.kickEmbedding()
	return ev, nil
}

// add adds one memory in w's transaction.
func (w *memWrite) add(ctx context.Context, in loci.MemoryInput) (*loci.MemoryEvent, error) {
	return w.addFrom(ctx, in, "")
}

// getMemory reads a memory that the context's key may reach: ENOTFOUND
// when absent, expired, or another agent's under a key bound to one.
func (w *memWrite) get(ctx context.Context, id string) (*loci.Record, error) {
	return getMemoryTx(ctx, w.tx, w.ws, id, w.now)
}

// lockByID takes the locks of an edit or delete of memory id, its slot's
// then its own (lockByID), and reads it under them, timed after them.
func (w *memWrite) lockByID(ctx context.Context, id string) (*loci.Record, error) {
	rec, err := lockByID(ctx, w.tx, w.ws, id, func() (*loci.Record, error) { return w.get(ctx, id) })
	if err != nil {
		return nil, err
	}
	if now := w.s.now(); now.After(w.now) {
		w.now = now
	}
	return rec, nil
}

func getMemoryTx(ctx context.Context, tx loci.Tx, ws, id string, now time.Time) (*loci.Record, error) {
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	rec, err := tx.GetRecord(ctx, ws, id)
	if loci.ErrorCode(err) == loci.ENOTFOUND {
		return nil, errMemoryNotFound()
	} else if err != nil {
		return nil, err
	}
	if (rec.Expired(now) && !readExpired(rec)) || !reachable(ctx, rec) {
		return nil, errMemoryNotFound()
	}
	return rec, nil
}

// reachable reports whether the context's key may reach rec: a key bound
// to an agent reaches its agent's records and those of no agent (a user's
// preferences and sessions, global facts), never another agent's. Not
// found, rather than forbidden, so that ids do not tell what exists.
func reachable(ctx context.Context, rec *loci.Record) bool {
	p := loci.PrincipalFrom(ctx)
	return p == nil || p.AgentID == "" || rec.AgentID == "" || rec.AgentID == p.AgentID
}

// toldID is the id of rec that an answer may name to ctx's caller: rec's
// when it reaches it, else "" (as for none: nil).
func toldID(ctx context.Context, rec *loci.Record) string {
	if rec == nil || !reachable(ctx, rec) {
		return ""
	}
	return rec.ID
}

// GetMemory returns one memory of any kind.
func (s *Service) GetMemory(ctx context.Context, id string) (_ *loci.UserMemory, err error) {
	a, err := s.begin(ctx, loci.OpMemoryGet, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	var out *loci.UserMemory
	err = a.view(func(tx loci.Tx) error {
		rec, err := getMemoryTx(ctx, tx, loci.WorkspaceFrom(ctx), id, s.now())
		if err != nil {
			return err
		}
		a.e.Kind = rec.Kind
		a.touchRecord(rec)
		out = userMemoryOf(rec)
		return nil
	})
	return out, err
}

// UpdateMemory changes a memory in place, keeping history.
func (s *Service) UpdateMemory(ctx context.Context, id string, p loci.MemoryPatch) (_ *loci.MemoryEvent, err error) {
	a, err := s.begin(ctx, loci.OpMemoryUpdate, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	var ev *loci.MemoryEvent
	err = a.update(func(tx loci.Tx) error {
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		var err error
		if ev, err = w.update(ctx, id, p); err == nil {
			a.e.Kind = ev.Kind
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.kickEmbedding()
	return ev, nil
}

// update patches one memory in w's transaction: the kind edits content
// and tags; metadata and expiry are the memories API's, the same for every kind.
func (w *memWrite) update(ctx context.Context, id string, p loci.MemoryPatch) (*loci.MemoryEvent, error) {
	if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
		return nil, err
	}
	if p.Content == nil && p.Metadata == nil && p.Tags == nil && p.ExpiresAt == nil && p.TTLSeconds == nil && !p.NoExpiry {
		return nil, loci.Errorf(loci.EINVALID, "a patch sets at least one of content, metadata, tags, expires_at, ttl_seconds")
	}
	if p.NoExpiry && (p.ExpiresAt != nil || p.TTLSeconds != nil) {
		return nil, loci.Errorf(loci.EINVALID, "expires_at null removes the time to live: set it or ttl_seconds, not both")
	}
	if p.Content != nil {
		if err := loci.RequireText("content", *p.Content, 0); err != nil {
			return nil, err
		}
	}
	meta, err := loci.NormalizeMetadata(p.Metadata)
	if err != nil {
		return nil, err
	}
	var expires time.Time
	if p.ExpiresAt != nil || p.TTLSeconds != nil {
		if expires, err = expiryOf(p.ExpiresAt, p.TTLSeconds, w.now); err != nil {
			return nil, err
		}
	}
	rec, err := w.lockByID(ctx, id)
	if err != nil {
		return nil, err
	}
	w.a.touchRecord(rec)
	kw, err := writesOf(rec.Kind)
	if err != nil {
		return nil, err
	}
	if (!expires.IsZero() || p.NoExpiry) && !kw.ttl() {
		// Nor is the expiry its lifecycle gives (working memory's,
		// an episode's) removed.
		return nil, errNoTTL(rec.Kind)
	}
	ev := &loci.MemoryEvent{ID: rec.ID, Kind: rec.Kind, Event: loci.EventNoop, Version: rec.Version}
	if p.Content != nil || p.Tags != nil {
		if ev, err = kw.edit(ctx, w, rec, &memEdit{content: p.Content, tags: p.Tags}); err != nil {
			return nil, err
		}
		if ev.ID != rec.ID {
			w.a.touch(ev.ID)
		}
		if rec, err = w.tx.GetRecord(ctx, w.ws, ev.ID); err != nil {
			return nil, err
		}
	}
	// Metadata and expiry change in place, on the record current now: in
	// the version the kind's edit just made, or in a new one.
	next := *rec
	if p.Metadata != nil {
		next.Metadata = meta
	}
	if !expires.IsZero() || p.NoExpiry {
		next.ExpiresAt = expires
	}
	if slices.Equal(next.Metadata, rec.Metadata) && next.ExpiresAt.Equal(rec.ExpiresAt) {
		return ev, nil
	}
	if ev.Event == loci.EventNoop {
		if err := w.keepVersion(ctx, rec); err != nil {
			return nil, err
		}
		next.UpdatedAt, next.Version = w.now, rec.Version+1
	}
	if err := w.tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: next.ID, Kind: next.Kind, Event: loci.EventUpdate, Version: next.Version, Previous: ev.Previous}, nil
}

// keepVersion keeps rec's current value as a version before it changes.
func (w *memWrite) keepVersion(ctx context.Context, rec *loci.Record) error {
	return w.tx.InsertVersion(ctx, loci.RecordVersion{
		RecordID: rec.ID, Version: rec.Version, Content: rec.Content, Data: rec.Data, Metadata: rec.Metadata, UpdatedAt: rec.UpdatedAt,
	})
}

// DeleteMemory deletes a memory of any kind, and the adds queued in the
// background whose results name it (eventforget.go).
func (s *Service) DeleteMemory(ctx context.Context, id string) (err error) {
	a, err := s.begin(ctx, loci.OpMemoryDelete, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return err
	}
	return a.update(func(tx loci.Tx) error {
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		rec, err := w.deleteMemory(ctx, id)
		if rec != nil {
			a.e.Kind = rec.Kind
		}
		if err != nil {
			return err
		}
		return forgetEventsOf(ctx, tx, w.ws, []*loci.Record{rec})
	})
}

// delete deletes one memory in w's transaction, as its kind does, and
// returns its kind.
func (w *memWrite) delete(ctx context.Context, id string) (loci.Kind, error) {
	rec, err := w.deleteMemory(ctx, id)
	if rec == nil {
		return "", err
	}
	return rec.Kind, err
}

// deleteMemory deletes one memory in w's transaction, as its kind does,
// and returns it as it was (nil when it was not found).
func (w *memWrite) deleteMemory(ctx context.Context, id string) (*loci.Record, error) {
	if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
		return nil, err
	}
	rec, err := w.lockByID(ctx, id)
	if err != nil {
		return nil, err
	}
	w.a.touchRecord(rec)
	kw, err := writesOf(rec.Kind)
	if err != nil {
		return nil, err
	}
	return rec, kw.remove(ctx, w, rec)
}

// deleteRecord deletes one record by id (with its versions, index entries
// and embedding): the kinds whose delete is only that.
func (w *memWrite) deleteRecord(ctx context.Context, rec *loci.Record) error {
	_, err := w.tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: rec.Workspace, Kinds: []loci.Kind{rec.Kind}, IDs: []string{rec.ID}})
	return err
}

// MemoryHistory returns every value a memory has had, newest first: its
// kept versions and its current value; for a keyed fact, every version of
// its key.
func (s *Service) MemoryHistory(ctx context.Context, id string) (_ []loci.MemoryVersion, err error) {
	a, err := s.begin(ctx, loci.OpMemoryHistory, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	var out []loci.MemoryVersion
	err = a.view(func(tx loci.Tx) error {
		out = out[:0]
		now := s.now()
		rec, err := getMemoryTx(ctx, tx, loci.WorkspaceFrom(ctx), id, now)
		if err != nil {
			return err
		}
		a.e.Kind = rec.Kind
		a.touchIn(rec.Scope)
		recs := []*loci.Record{rec}
		if rules, ok := rulesOf(rec.Kind); ok {
			if f, ok := rules.historyOf(rec); ok {
				if recs, err = tx.FindRecords(ctx, f); err != nil {
					return err
				}
				// A keyed fact's slot is the user's, whichever agent
				// wrote each version: a key bound to an agent reads
				// only those it reaches.
				recs = slices.DeleteFunc(recs, func(r *loci.Record) bool { return !reachable(ctx, r) })
			}
		}
		for _, r := range recs {
			a.touch(r.ID)
			vs, err := tx.ListVersions(ctx, r.ID)
			if err != nil {
				return err
			}
			out = append(out, loci.MemoryVersion{ID: r.ID, Version: r.Version, Content: r.Content, Metadata: r.Metadata,
				UpdatedAt: r.UpdatedAt, Current: r.InvalidAt.IsZero() || r.InvalidAt.After(now)})
			for _, v := range vs {
				out = append(out, loci.MemoryVersion{ID: r.ID, Version: v.Version, Content: v.Content, Metadata: v.Metadata, UpdatedAt: v.UpdatedAt})
			}
		}
		// Newest first (a record's versions are timed in the order they
		// commit, under its lock; at one time, the order read: a record's
		// current value, then its versions newest first); the oldest of
		// all was the memory's ADD.
		sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
		for i := range out {
			out[i].Event = loci.EventUpdate
		}
		if len(out) > 0 {
			out[len(out)-1].Event = loci.EventAdd
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BatchMemories applies a batch in one transaction; its deletes take the
// adds queued in the background whose results name what they delete, as
// DeleteMemory does.
func (s *Service) BatchMemories(ctx context.Context, b loci.MemoryBatch) (_ []loci.MemoryEvent, err error) {
	a, err := s.begin(ctx, loci.OpMemoryBatch, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	n := len(b.Add) + len(b.Update) + len(b.Delete)
	if n == 0 {
		return nil, loci.Errorf(loci.EINVALID, "a batch holds at least one of add, update, delete")
	} else if n > loci.MaxBatchOps {
		return nil, loci.Errorf(loci.EINVALID, "a batch holds at most %d operations, not %d", loci.MaxBatchOps, n)
	}
	for i, in := range b.Add {
		if err := checkBinding(ctx, in.AgentID, loci.AgentFree); err != nil {
			return nil, opError("add", i, err)
		}
	}
	var out []loci.MemoryEvent
	err = a.update(func(tx loci.Tx) error {
		out = out[:0]
		w := &memWrite{s: s, tx: tx, a: a, ws: loci.WorkspaceFrom(ctx), now: s.now()}
		if err := w.lockBatch(ctx, b); err != nil {
			return err
		}
		for i, in := range b.Add {
			ev, err := w.add(ctx, in)
			if err != nil {
				return opError("add", i, err)
			}
			out = append(out, *ev)
		}
		for i, u := range b.Update {
			ev, err := w.update(ctx, u.ID, u.MemoryPatch)
			if err != nil {
				return opError("update", i, err)
			}
			out = append(out, *ev)
		}
		var gone []*loci.Record
		for i, id := range b.Delete {
			rec, err := w.deleteMemory(ctx, id)
			if err != nil {
				return opError("delete", i, err)
			}
			gone = append(gone, rec)
			out = append(out, loci.MemoryEvent{ID: id, Kind: rec.Kind, Event: loci.EventDelete})
		}
		// The adds queued in the background whose results name what went
		// (eventforget.go).
		return forgetEventsOf(ctx, tx, w.ws, gone)
	})
	if err != nil {
		return nil, err
	}
	s.kickEmbedding()
	return out, nil
}

// lockBatch takes, before any of b's operations runs, the locks they take
// one by one (the slots of its keyed adds, and of the records it updates
// and deletes, then those records'), each class in order: two batches
// that touch the same records in different orders would otherwise each
// hold one the other waits for (a deadlock on PostgreSQL). Each operation
// takes its locks again, which it holds already.
func (w *memWrite) lockBatch(ctx context.Context, b loci.MemoryBatch) error {
	var slots, records []string
	for _, in := range b.Add {
		kind := in.Kind
		if kind == "" {
			kind = loci.KindFact
		}
		// The slot the record it adds will be in.
		if l := slotLock(w.ws, &loci.Record{Kind: kind, Scope: loci.Scope{AgentID: in.AgentID, UserID: in.UserID}, Key: in.Key}); l != "" {
			slots = append(slots, l)
		}
	}
	ids := slices.Clone(b.Delete)
	for _, u := range b.Update {
		ids = append(ids, u.ID)
	}
	for _, id := range ids {
		if loci.RequireText("id", id, loci.MaxRecordIDBytes) != nil {
			continue // refused when its operation runs
		}
		records = append(records, recordLock(w.ws, id))
		rec, err := w.tx.GetRecord(ctx, w.ws, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			continue
		} else if err != nil {
			return err
		}
		if l := slotLock(w.ws, rec); l != "" {
			slots = append(slots, l)
		}
	}
	slices.Sort(slots)
	slices.Sort(records)
	for _, l := range slices.Concat(slices.Compact(slots), slices.Compact(records)) {
		if err := w.lock(ctx, l); err != nil {
			return err
		}
	}
	return nil
}

// opError names the batch operation an error came from, keeping its code.
func opError(op string, i int, err error) error {
	code := loci.ErrorCode(err)
	if code == loci.EINTERNAL || code == loci.EUNAVAILABLE || code == loci.ESTORAGEFULL {
		return err
	}
	return &loci.Error{Code: code, Message: fmt.Sprintf("%s[%d]: %s", op, i, loci.ErrorMessage(err)), Err: err}
}
