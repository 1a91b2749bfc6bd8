package rules

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loci-memory/loci"
)

// Every operation audits itself (docs/rules.md, "Every access is audited,
// without content"), whatever the interface it came through (REST, MCP, CLI, a
// Go program): a rule begins an entry naming the operation and its scope,
// notes the ids of the records it touches, and the entry is written
//
//   - with the operation's changes, in the same transaction, when it writes
//     (the change and its entry commit or roll back together);
//   - to a queue written in batches, one transaction per batch, when it only
//     reads, or when it fails (reads do not take SQLite's single writer
//     one by one; a batch waits at most auditFlushEvery, and FindAudit
//     writes what waits before it reads).
//
// The entry never holds content: ids, scope, kind, counts, the outcome.

// maxAuditIDs bounds the ids one audit entry keeps.
const maxAuditIDs = 1000

// audited is the audit entry of one operation in the making.
type audited struct {
	s   *Service
	ctx context.Context
	e   loci.AuditEntry
	// inserted: the entry was inserted in the current attempt of the
	// operation's transaction; written: that transaction committed.
	inserted, written bool
	// call is the scope the call named; parts the records touched by
	// touchIn, by their scope (the call's, its empty fields filled from
	// the record's), and cur is 1 + the index in parts of the scope
	// touched last (0: none), whose part the ids touch notes join.
	call  loci.Scope
	parts []auditPart
	cur   int
}

// auditPart is the ids an operation touched in one scope.
type auditPart struct {
	scope loci.Scope
	ids   []string
}

// begin starts the audit entry of operation op (its audit name and kind)
// in scope sc, and checks the context's key binding against op's agent
// binding: a refusal (EFORBIDDEN) is returned, and audited, when the caller
// ends the entry. Callers defer a.end(&err) right after, with err the
// operation's error result.
func (s *Service) begin(ctx context.Context, op *loci.Operation, sc loci.Scope) (*audited, error) {
	return s.beginKind(ctx, op, op.Kind, sc)
}

// beginKind is begin for an operation over several kinds that logs the
// kind of the call (adding a memory of a kind).
func (s *Service) beginKind(ctx context.Context, op *loci.Operation, kind loci.Kind, sc loci.Scope) (*audited, error) {
	a := &audited{s: s, ctx: ctx, e: loci.AuditEntry{Operation: op.AuditName(), Kind: kind, Scope: sc, Status: 200}, call: sc}
	return a, checkBinding(ctx, sc.AgentID, op.Agent)
}

// checkBinding refuses a key bound to an agent what its binding forbids.
func checkBinding(ctx context.Context, agentID string, b loci.AgentBinding) error {
	p := loci.PrincipalFrom(ctx)
	if p == nil || p.AgentID == "" {
		return nil
	}
	switch {
	case b == loci.AgentDeny:
		return loci.Errorf(loci.EFORBIDDEN, "a key bound to agent %s cannot use this operation", p.AgentID)
	case agentID != "" && agentID != p.AgentID:
		return loci.Errorf(loci.EFORBIDDEN, "this key is bound to agent %s and cannot reach agent %s", p.AgentID, agentID)
	case agentID == "" && b == loci.AgentNamed:
		return loci.Errorf(loci.EFORBIDDEN, "this key is bound to agent %s: name agent_id=%s", p.AgentID, p.AgentID)
	}
	return nil
}

// touch notes records the operation touched (ids, or keys where a kind is
// keyed so), and counts them.
func (a *audited) touch(ids ...string) {
	a.e.Count += len(ids)
	for _, id := range ids {
		if len(a.e.RecordIDs) < maxAuditIDs {
			a.e.RecordIDs = append(a.e.RecordIDs, id)
		}
	}
	if a.cur > 0 {
		p := &a.parts[a.cur-1]
		for _, id := range ids {
			if len(p.ids) < maxAuditIDs {
				p.ids = append(p.ids, id)
			}
		}
	}
}

// touchRecord notes a record the operation reached by id, and its scope: the
// entry names the scope of the record it touched, where the call named none
// (an entry says who, what, which scope), so that the audit of a user or agent
// shows what was done to their records by id.
func (a *audited) touchRecord(rec *loci.Record) { a.touchIn(rec.Scope, rec.ID) }

// touchIn notes ids of records of scope sc. The entry's scope is the
// call's, its empty fields filled from sc; when the records touched differ
// in a field the call left empty (a batch over two users), the operation
// writes one entry per scope, each with its records' ids. What touch notes
// next joins sc's part.
func (a *audited) touchIn(sc loci.Scope, ids ...string) {
	full := a.call
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&full.AgentID, sc.AgentID}, {&full.UserID, sc.UserID}, {&full.SessionID, sc.SessionID}, {&full.TaskID, sc.TaskID},
	} {
		if *f.dst == "" {
			*f.dst = f.src
		}
	}
	a.cur = 0
	for i := range a.parts {
		if a.parts[i].scope == full {
			a.cur = i + 1
		}
	}
	if a.cur == 0 {
		a.parts = append(a.parts, auditPart{scope: full})
		a.cur = len(a.parts)
	}
	a.touch(ids...)
}

// entries returns the operation's entry: one, naming the scope of the
// records touched; or one per scope, when they differ (touchIn). The ids
// noted before the first record's scope join the first part.
func (a *audited) entries() []loci.AuditEntry {
	if len(a.parts) == 0 {
		return []loci.AuditEntry{a.e}
	}
	if len(a.parts) == 1 {
		e := a.e
		e.Scope = a.parts[0].scope
		return []loci.AuditEntry{e}
	}
	inPart := map[string]bool{}
	for _, p := range a.parts {
		for _, id := range p.ids {
			inPart[id] = true
		}
	}
	out := make([]loci.AuditEntry, len(a.parts))
	for i, p := range a.parts {
		e := a.e
		e.Scope, e.RecordIDs = p.scope, p.ids
		if i == 0 {
			for _, id := range a.e.RecordIDs {
				if !inPart[id] {
					e.RecordIDs = append(e.RecordIDs, id)
				}
			}
		}
		e.Count = len(e.RecordIDs)
		out[i] = e
	}
	return out
}

// touchRecords notes the records' ids.
func (a *audited) touchRecords(recs []*loci.Record) {
	for _, r := range recs {
		a.touch(r.ID)
	}
}

// count sets how many records the operation returned or changed, when it
// is not the number of ids noted (a listing's total, a deletion).
func (a *audited) count(n int) { a.e.Count = n }

// created marks the operation as one that created what it names (201).
func (a *audited) created() { a.e.Status = 201 }

// quiet marks an operation that read and changed no memory (a scheduled
// prune that found nothing to delete): it writes no entry.
func (a *audited) quiet() { a.written = true }

// dryRun marks the operation as a dry run: it said what it would change.
func (a *audited) dryRun() { a.e.DryRun = true }

// reset forgets what an attempt of the transaction noted: the store's
// retry policy may run a transaction function twice.
func (a *audited) reset() {
	a.e.RecordIDs, a.e.Count, a.e.Status, a.inserted = a.e.RecordIDs[:0], 0, 200, false
	a.parts, a.cur = nil, 0
}

// update runs fn in a read-write transaction and, when it succeeds, writes
// the operation's audit entry in that transaction.
func (a *audited) update(fn func(tx loci.Tx) error) error {
	err := a.s.store.Update(a.ctx, func(tx loci.Tx) error {
		a.reset()
		if err := fn(tx); err != nil {
			return err
		}
		if a.written || !a.s.auditOn {
			return nil
		}
		for _, e := range a.entries() {
			e = a.s.complete(a.ctx, e)
			if err := tx.InsertAudit(a.ctx, &e); err != nil {
				return fmt.Errorf("audit: %w", err)
			}
		}
		a.inserted = true
		return nil
	})
	if err == nil && a.inserted {
		a.written = true
	}
	return err
}

// view runs fn in a read transaction; the entry is queued when the
// operation ends.
func (a *audited) view(fn func(tx loci.Tx) error) error {
	return a.s.store.View(a.ctx, func(tx loci.Tx) error {
		a.reset()
		return fn(tx)
	})
}

// snapshot is view in one snapshot of the store, from its first read to
// its end (an export).
func (a *audited) snapshot(fn func(tx loci.Tx) error) error {
	return a.s.store.Snapshot(a.ctx, func(tx loci.Tx) error {
		a.reset()
		return fn(tx)
	})
}

// end queues the entry unless its transaction wrote it: always for a
// read, and for a failure (with the error's status and no ids: nothing
// was changed). errp points at the operation's error result.
func (a *audited) end(errp *error) { a.finish(errp, false) }

// endPartial is end for an operation that stores or reads in several
// transactions without writing its entry in them (an import's batches, a
// reindex's, an export's stream): a failure keeps the ids and count of
// what was done before it.
func (a *audited) endPartial(errp *error) { a.finish(errp, true) }

func (a *audited) finish(errp *error, partial bool) {
	if !a.s.auditOn {
		return
	}
	err := *errp
	if err == nil && a.written {
		return
	}
	entries := a.entries()
	if err != nil && !partial && len(entries) > 1 {
		// Nothing was changed: one entry, naming the call's scope.
		entries = []loci.AuditEntry{a.e}
		entries[0].Scope = a.call
	}
	for _, e := range entries {
		if err != nil {
			e.Status = loci.StatusOf(loci.ErrorCode(err))
			if !partial {
				e.RecordIDs, e.Count = nil, 0
			}
		}
		a.s.auditQ.add(a.s.complete(a.ctx, e))
	}
}

// complete fills what an entry takes from the context and the clock.
func (s *Service) complete(ctx context.Context, e loci.AuditEntry) loci.AuditEntry {
	e.ID = newID()
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	if e.Workspace == "" {
		e.Workspace = loci.WorkspaceFrom(ctx)
	}
	if p := loci.PrincipalFrom(ctx); p != nil {
		if e.KeyID == "" {
			e.KeyID = p.KeyID
		}
		if e.Role == "" {
			e.Role = p.Role
		}
	}
	if e.Via == "" {
		e.Via = loci.ViaFrom(ctx)
	}
	if e.RecordIDs == nil {
		e.RecordIDs = []string{}
	} else {
		e.RecordIDs = append([]string(nil), e.RecordIDs...)
	}
	// An entry logs what a call named, valid or not (a refused scope with
	// a NUL or invalid UTF-8): as text every store can hold.
	for _, p := range []*string{&e.AgentID, &e.UserID, &e.SessionID, &e.TaskID, &e.Operation} {
		*p = loggable(*p)
	}
	for i, id := range e.RecordIDs {
		e.RecordIDs[i] = loggable(id)
	}
	return e
}

// loggable returns s without NUL bytes and invalid UTF-8, at most 1024
// bytes long.
func loggable(s string) string {
	if len(s) > 1024 {
		s = s[:1024]
	}
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
}

// Audit appends an entry that no operation wrote itself: what a transport
// refused before reaching one (no key, a role too low, a rate limit).
func (s *Service) Audit(ctx context.Context, e loci.AuditEntry) error {
	if !s.auditOn {
		return nil
	}
	s.auditQ.add(s.complete(ctx, e))
	return nil
}

// FindAudit returns the context workspace's entries that match f, newest
// first, after writing every entry queued before it.
func (s *Service) FindAudit(ctx context.Context, f loci.AuditFilter) (_ []*loci.AuditEntry, _ int, err error) {
	a, err := s.begin(ctx, loci.OpAuditRead, loci.Scope{AgentID: f.AgentID, UserID: f.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, 0, err
	}
	if err := s.FlushAudit(ctx); err != nil {
		return nil, 0, err
	}
	f.Workspace = loci.WorkspaceFrom(ctx)
	entries := []*loci.AuditEntry{}
	var total int
	err = a.view(func(tx loci.Tx) error {
		found, n, err := tx.FindAudit(ctx, f)
		entries, total = append(entries[:0], found...), n
		return err
	})
	// The entries' own ids are not logged as record ids of this read.
	a.count(len(entries))
	return entries, total, err
}

// PruneAudit applies the audit retention r (age and size), in every
// workspace. The prune's own entry is written with it, and is not counted
// against MaxEntries.
func (s *Service) PruneAudit(ctx context.Context, r loci.AuditRetention) (n int, err error) {
	a, err := s.begin(ctx, loci.OpAuditPrune, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	if r.MaxAge < 0 || r.MaxEntries < 0 || (r.MaxAge == 0 && r.MaxEntries == 0) {
		return 0, loci.Errorf(loci.EINVALID, "audit retention needs a positive age or number of entries")
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return 0, err
	}
	// What waits in the queue is older than this call: it is pruned too.
	if err := s.FlushAudit(ctx); err != nil {
		return 0, err
	}
	err = a.update(func(tx loci.Tx) error {
		var before time.Time
		if r.MaxAge > 0 {
			before = s.now().Add(-r.MaxAge)
		}
		d, err := tx.PruneAudit(ctx, before, r.MaxEntries)
		if err != nil {
			return err
		}
		n = d
		a.count(n)
		if n == 0 {
			a.quiet()
		}
		return nil
	})
	return n, err
}

// auditFlushEvery is the longest a queued entry waits; auditFlushAt the
// queue length at which it is written at once.
const (
	auditFlushEvery = 20 * time.Millisecond
	auditFlushAt    = 256
)

// auditQueue holds the entries waiting to be written, and writes them in
// batches: a writer goroutine runs while there are entries, and ends when
// the queue is empty.
type auditQueue struct {
	s       *Service
	mu      sync.Mutex
	pending []loci.AuditEntry
	running bool
	// closed: the service is closing; an entry queued after the last
	// write has no store to go to and is logged as lost.
	closed bool
	kick   chan struct{}
	// flush serializes writes of batches (the writer and FlushAudit).
	flush sync.Mutex
}

func newAuditQueue(s *Service) *auditQueue {
	return &auditQueue{s: s, kick: make(chan struct{}, 1)}
}

// add queues e, starting the writer if need be.
func (q *auditQueue) add(e loci.AuditEntry) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		q.s.logger.Error("audit entry after the service closed, not written", "operation", e.Operation, "status", e.Status)
		return
	}
	q.pending = append(q.pending, e)
	full := len(q.pending) >= auditFlushAt
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.run()
	} else if full {
		select {
		case q.kick <- struct{}{}:
		default:
		}
	}
}

// run writes batches until the queue is empty.
func (q *auditQueue) run() {
	t := time.NewTimer(auditFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-q.kick:
		}
		if n, err := q.write(context.Background()); err != nil {
			q.s.logger.Error("audit log write failed", "entries", n, "err", err)
		}
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		t.Reset(auditFlushEvery)
	}
}

// write writes what is queued in one transaction, and returns how many
// entries it took.
func (q *auditQueue) write(ctx context.Context) (int, error) {
	q.flush.Lock()
	defer q.flush.Unlock()
	q.mu.Lock()
	batch := q.pending
	q.pending = nil
	q.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	err := q.s.store.Update(ctx, func(tx loci.Tx) error {
		for i := range batch {
			if err := tx.InsertAudit(ctx, &batch[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return len(batch), fmt.Errorf("audit: %w", err)
	}
	return len(batch), nil
}

// close takes no entry after it, and writes what waits (after the batch
// being written, if any: write holds flush): the store closes next.
func (q *auditQueue) close(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	_, err := q.write(ctx)
	return err
}

// FlushAudit writes the entries waiting in the queue now (FindAudit does;
// so does a process before it exits).
func (s *Service) FlushAudit(ctx context.Context) error {
	_, err := s.auditQ.write(context.WithoutCancel(ctx))
	return err
}
