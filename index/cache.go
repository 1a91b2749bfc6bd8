package index

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loci-memory/loci"
)

// DefaultBudget is the memory the cache's indexes may use by default.
const DefaultBudget = 256 << 20

// Option configures a Cache.
type Option func(*config)

type config struct {
	budget int64
	// model is the embedding model whose vectors are indexed ("" keeps
	// none: search is lexical only).
	model string
	// confidence gives a record's confidence on 0..1, if its kind has one.
	confidence func(*loci.Record) (float64, bool)
	// conversational says whether a record is part of a conversation,
	// whose order context reads.
	conversational func(*loci.Record) bool
	// question says whether a record asks a question.
	question func(*loci.Record) bool
	// speaker names who said a record (a conversation message's role).
	speaker func(*loci.Record) string
	// fold maps a stored term to the term the analyzer makes of the same
	// word now (nil: terms as stored).
	fold func(string) string
}

// WithBudget bounds the memory the cache's indexes use, in bytes (about:
// it is an estimate). A scope whose index would not fit is searched by a
// streaming pass instead.
func WithBudget(bytes int64) Option { return func(c *config) { c.budget = bytes } }

// WithModel indexes the vectors made by model; records without one count
// as pending. Without it no vectors are kept, and none is pending.
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithConfidence sets how a record's confidence on 0..1 is read.
func WithConfidence(fn func(*loci.Record) (float64, bool)) Option {
	return func(c *config) { c.confidence = fn }
}

// WithConversational sets which records are conversation turns: their
// neighbours are what context (Query.Lenders) reads.
func WithConversational(fn func(*loci.Record) bool) Option {
	return func(c *config) { c.conversational = fn }
}

// WithQuestion sets which records ask a question (Doc.Question): context
// can lend more to the turn that answers one.
func WithQuestion(fn func(*loci.Record) bool) Option {
	return func(c *config) { c.question = fn }
}

// WithSpeaker sets who said a record (Doc.Speaker): a conversation
// message's role or speaker's name, "" for none. It is read once, when the
// record is indexed.
func WithSpeaker(fn func(*loci.Record) string) Option {
	return func(c *config) { c.speaker = fn }
}

// WithTermFold sets how a term of a record's stored analyzed text is
// mapped to the term the analyzer makes of the same word now (such as
// analysis.FoldStem), so that text analyzed by an earlier analyzer still
// matches queries analyzed by this one without being re-analyzed.
func WithTermFold(fn func(term string) string) Option {
	return func(c *config) { c.fold = fn }
}

// Cache holds the indexes of the scopes searched. It is safe for
// concurrent use; one Cache serves one store in one process.
type Cache struct {
	cfg config

	mu     sync.Mutex // guards used, lru, spaces and their maps
	used   int64
	lru    *list.List // of *entry, most recent first
	elems  map[*entry]*list.Element
	spaces map[string]*space

	hits, loads, evictions, streams, private, resets, applied, dropped atomic.Int64
}

// space is one workspace's part of the cache.
type space struct {
	workspace string
	// refresh serializes reads of the change feed (and loads), so that
	// each applies a later snapshot than the one before.
	refresh sync.Mutex
	cursor  loci.Cursor
	synced  bool

	entries map[string]*entry
	// Entries by the first scope field they set, for finding the entries
	// a change touches: agent, user, session, task, none.
	byAgent, byUser, bySession, byTask map[string][]*entry
	wide                               []*entry // no scope field: the whole workspace
	orGlobal                           []*entry // user U or global, without an agent
}

func newSpace(ws string) *space {
	return &space{
		workspace: ws, entries: map[string]*entry{}, byAgent: map[string][]*entry{}, byUser: map[string][]*entry{},
		bySession: map[string][]*entry{}, byTask: map[string][]*entry{},
	}
}

// New returns an empty cache.
func New(opts ...Option) *Cache {
	c := &Cache{cfg: config{budget: DefaultBudget}, lru: list.New(), elems: map[*entry]*list.Element{}, spaces: map[string]*space{}}
	for _, o := range opts {
		o(&c.cfg)
	}
	return c
}

// CacheStats counts what the cache did, for tests and metrics.
type CacheStats struct {
	Entries int   // scope indexes held
	Bytes   int64 // their estimated size
	Budget  int64
	// Hits: searches answered by a held index; Loads: indexes loaded;
	// Evictions: indexes dropped for the budget; Streams: scopes too
	// large for the budget, searched by a streaming pass; Private:
	// searches inside a transaction that had written, on an index of
	// their own; Resets: workspaces dropped because changes were missing;
	// Applied: changes applied to held indexes; Dropped: indexes dropped
	// because patching them would cost more than reloading.
	Hits, Loads, Evictions, Streams, Private, Resets, Applied, Dropped int64
}

// Stats returns the cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	n, used := len(c.elems), c.used
	c.mu.Unlock()
	return CacheStats{
		Entries: n, Bytes: used, Budget: c.cfg.budget,
		Hits: c.hits.Load(), Loads: c.loads.Load(), Evictions: c.evictions.Load(), Streams: c.streams.Load(),
		Private: c.private.Load(), Resets: c.resets.Load(), Applied: c.applied.Load(), Dropped: c.dropped.Load(),
	}
}

// scopeOf reduces f to the scope an index is kept for: the workspace, the
// scope fields and the global-user widening. A scope pinned to an agent, a
// user, a session or a task is kept whole, whatever kinds a search asks
// for, so that searches of one agent's passages and of all its memories
// share one index (and its statistics are the scope's); a scope pinned to
// none (the workspace, global knowledge, a user's records or global ones)
// is kept for the kinds asked only, since all kinds of it can be most of
// the workspace.
func scopeOf(f loci.RecordFilter) loci.RecordFilter {
	s := loci.RecordFilter{
		Workspace: f.Workspace,
		AgentID:   f.AgentID, UserID: f.UserID, SessionID: f.SessionID, TaskID: f.TaskID,
		OrGlobalUser: f.OrGlobalUser && f.UserID != nil,
	}
	pinned := s.AgentID != nil || s.SessionID != nil || s.TaskID != nil ||
		s.UserID != nil && *s.UserID != "" && !s.OrGlobalUser
	if !pinned {
		s.Kinds = slices.Clone(f.Kinds)
		slices.Sort(s.Kinds)
		s.Kinds = slices.Compact(s.Kinds)
	}
	return s
}

// keyOf names a scope.
func keyOf(s loci.RecordFilter) string {
	var b strings.Builder
	field := func(name string, v *string) {
		b.WriteString(name)
		if v == nil {
			b.WriteString("*")
		} else {
			b.WriteString("=")
			b.WriteString(fmt.Sprintf("%q", *v))
		}
		b.WriteByte(0)
	}
	field("a", s.AgentID)
	field("u", s.UserID)
	field("s", s.SessionID)
	field("t", s.TaskID)
	if s.OrGlobalUser {
		b.WriteString("g\x00")
	}
	for _, k := range s.Kinds {
		b.WriteString(string(k))
		b.WriteByte(',')
	}
	return b.String()
}

// inScope reports whether a record of kind and scope belongs to the scope
// filter s.
func inScope(s *loci.RecordFilter, kind loci.Kind, sc loci.Scope) bool {
	r := loci.Record{Workspace: s.Workspace, Kind: kind, Scope: sc}
	return s.Match(&r)
}

// register files e under the first scope field it sets. Callers hold c.mu.
func (sp *space) register(e *entry) {
	s := &e.filter
	switch {
	case s.AgentID != nil:
		sp.byAgent[*s.AgentID] = append(sp.byAgent[*s.AgentID], e)
	case s.UserID != nil:
		sp.byUser[*s.UserID] = append(sp.byUser[*s.UserID], e)
		if s.OrGlobalUser {
			sp.orGlobal = append(sp.orGlobal, e)
		}
	case s.SessionID != nil:
		sp.bySession[*s.SessionID] = append(sp.bySession[*s.SessionID], e)
	case s.TaskID != nil:
		sp.byTask[*s.TaskID] = append(sp.byTask[*s.TaskID], e)
	default:
		sp.wide = append(sp.wide, e)
	}
	sp.entries[e.key] = e
}

// unregister removes e from the space's maps. Callers hold c.mu.
func (sp *space) unregister(e *entry) {
	drop := func(m map[string][]*entry, k string) {
		l := slices.DeleteFunc(m[k], func(x *entry) bool { return x == e })
		if len(l) == 0 {
			delete(m, k)
		} else {
			m[k] = l
		}
	}
	s := &e.filter
	switch {
	case s.AgentID != nil:
		drop(sp.byAgent, *s.AgentID)
	case s.UserID != nil:
		drop(sp.byUser, *s.UserID)
		sp.orGlobal = slices.DeleteFunc(sp.orGlobal, func(x *entry) bool { return x == e })
	case s.SessionID != nil:
		drop(sp.bySession, *s.SessionID)
	case s.TaskID != nil:
		drop(sp.byTask, *s.TaskID)
	default:
		sp.wide = slices.DeleteFunc(sp.wide, func(x *entry) bool { return x == e })
	}
	if sp.entries[e.key] == e {
		delete(sp.entries, e.key)
	}
}

// touched returns the held entries a record of kind and scope belongs
// to. Callers hold c.mu.
func (sp *space) touched(kind loci.Kind, sc loci.Scope) []*entry {
	var out []*entry
	add := func(l []*entry) {
		for _, e := range l {
			if inScope(&e.filter, kind, sc) && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	add(sp.byAgent[sc.AgentID])
	add(sp.byUser[sc.UserID])
	add(sp.bySession[sc.SessionID])
	add(sp.byTask[sc.TaskID])
	add(sp.wide)
	if sc.UserID == "" {
		add(sp.orGlobal)
	}
	return out
}

// spaceOf returns the workspace's space, creating it.
func (c *Cache) spaceOf(ws string) *space {
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spaces[ws]
	if sp == nil {
		sp = newSpace(ws)
		c.spaces[ws] = sp
	}
	return sp
}

// part is one filter's share of a search: a held or private index, or a
// streaming pass.
type part struct {
	f loci.RecordFilter
	e *entry
	s *streamed
}

// acquire returns the index of f's scope, read up to date in tx: held,
// loaded (and held when it fits the budget), or private to tx when tx has
// written records; or nil when the scope is too large for the budget, to
// be streamed.
func (c *Cache) acquire(ctx context.Context, tx loci.Tx, f loci.RecordFilter) (*entry, error) {
	return c.acquireFor(ctx, tx, f, false)
}

// acquireFor is acquire; for a listing (list.go) it returns nil rather
// than load an index private to tx, or one right after the feed started
// over (which, while it keeps starting over, would be loaded again by
// every call): the store answers one listing for less than a load costs.
func (c *Cache) acquireFor(ctx context.Context, tx loci.Tx, f loci.RecordFilter, listing bool) (*entry, error) {
	scope := scopeOf(f)
	key := keyOf(scope)
	sp := c.spaceOf(scope.Workspace)
	sp.refresh.Lock()
	defer sp.refresh.Unlock()

	var since *loci.Cursor
	if sp.synced {
		since = &sp.cursor
	}
	cs, err := tx.Changes(ctx, scope.Workspace, since)
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	if cs.Dirty {
		if listing {
			return nil, nil
		}
		// tx sees its own uncommitted writes: an index of its own, of
		// its scope only.
		c.private.Add(1)
		return c.load(ctx, tx, scope, key)
	}
	behind := false
	switch {
	case !sp.synced || cs.Reset:
		if sp.synced {
			c.resets.Add(1)
		}
		c.dropSpace(sp)
		sp.cursor, sp.synced = cs.Cursor, true
		if listing && cs.Reset {
			return nil, nil
		}
	case cs.Cursor.Before(sp.cursor):
		// tx's snapshot is older than what the cache holds (a
		// concurrent search read a later one): use what is held, but
		// hold nothing loaded from this snapshot.
		behind = true
	default:
		if err := c.apply(ctx, tx, sp, cs); err != nil {
			return nil, err
		}
		sp.cursor = cs.Cursor
	}

	c.mu.Lock()
	e := sp.entries[key]
	if e != nil {
		c.lru.MoveToFront(c.elems[e])
		c.mu.Unlock()
		c.hits.Add(1)
		return e, nil
	}
	c.mu.Unlock()
	e, err = c.load(ctx, tx, scope, key)
	if err != nil || e == nil || behind {
		return e, err
	}
	c.install(sp, e)
	return e, nil
}

// load reads scope's records from tx into a new index, or returns nil
// when the scope would not fit the budget.
func (c *Cache) load(ctx context.Context, tx loci.Tx, scope loci.RecordFilter, key string) (*entry, error) {
	n, err := tx.CountRecords(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("size scope: %w", err)
	}
	if entryOverhead+int64(n)*c.docEstimate() > c.cfg.budget {
		return nil, nil
	}
	e := newEntry(&c.cfg, key, scope)
	e.reserve(n)
	f := scope
	f.Order = loci.OrderNone
	err = tx.ScanRecords(ctx, f, func(r *loci.Record) error {
		e.put(r)
		if e.bytes > c.cfg.budget || e.tooBig {
			// The estimate was short (longer texts, or vectors): the
			// scope is streamed, and the budget kept.
			return errOverBudget
		}
		return nil
	})
	if errors.Is(err, errOverBudget) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("load index: %w", err)
	}
	e.loaded()
	c.loads.Add(1)
	return e, nil
}

// errOverBudget stops a load that outgrows the budget.
var errOverBudget = errors.New("index: scope over budget")

// docEstimate is what a record's index is expected to cost: the mean of
// what is held, else a guess for a short text with a 256-dimension vector.
func (c *Cache) docEstimate() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var docs int
	for e := range c.elems {
		docs += e.live
	}
	if docs < 100 {
		return 2048
	}
	return max(c.used/int64(docs), 256)
}

// install holds e, evicting the least recently used indexes until the
// budget is kept (never e itself).
func (c *Cache) install(sp *space, e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := sp.entries[e.key]; old != nil {
		c.forget(sp, old)
	}
	sp.register(e)
	c.elems[e] = c.lru.PushFront(e)
	e.cached = true
	c.used += e.bytes
	c.evict(e)
}

// evict drops least recently used indexes until the budget is kept,
// sparing keep. Callers hold c.mu.
func (c *Cache) evict(keep *entry) {
	for c.used > c.cfg.budget {
		el := c.lru.Back()
		if el == nil || el.Value.(*entry) == keep {
			return
		}
		old := el.Value.(*entry)
		c.forget(c.spaces[old.filter.Workspace], old)
		c.evictions.Add(1)
	}
}

// forget drops e from the cache. Callers hold c.mu.
func (c *Cache) forget(sp *space, e *entry) {
	if el, ok := c.elems[e]; ok {
		c.lru.Remove(el)
		delete(c.elems, e)
	}
	sp.unregister(e)
	e.mu.RLock()
	c.used -= e.bytes
	e.mu.RUnlock()
	e.cached = false
}

// dropSpace forgets every index of a workspace.
func (c *Cache) dropSpace(sp *space) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range sp.entries {
		c.forget(sp, e)
	}
}

// maxPatch is the most changed records applied to one index in one read
// of the feed; past it (and past half the index) it is dropped and
// reloaded when next searched.
const maxPatch = 1000

// idChunk bounds the ids read in one statement.
const idChunk = 500

// apply brings the held indexes of a workspace up to date with cs:
// removals first, then the current state of each changed record, read in
// tx. Only indexes of the scopes a change touches are read or changed.
func (c *Cache) apply(ctx context.Context, tx loci.Tx, sp *space, cs *loci.ChangeSet) error {
	if len(cs.Removed) == 0 && len(cs.Changed) == 0 {
		return nil
	}
	c.mu.Lock()
	// An index that would take many changes is cheaper to reload.
	perEntry := map[*entry]int{}
	for _, ch := range cs.Changed {
		for _, e := range sp.touched(ch.Kind, ch.Scope) {
			perEntry[e]++
		}
	}
	for e, n := range perEntry {
		if n > maxPatch && n > e.live/2 {
			c.forget(sp, e)
			c.dropped.Add(1)
		}
	}
	removals := map[*entry][]string{}
	for _, ch := range cs.Removed {
		for _, e := range sp.touched(ch.Kind, ch.Scope) {
			removals[e] = append(removals[e], ch.ID)
		}
	}
	wanted := map[string][]*entry{} // changed id -> the entries it touches
	var ids []string
	for _, ch := range cs.Changed {
		for _, e := range sp.touched(ch.Kind, ch.Scope) {
			if _, seen := wanted[ch.ID]; !seen {
				ids = append(ids, ch.ID)
			}
			if !slices.Contains(wanted[ch.ID], e) {
				wanted[ch.ID] = append(wanted[ch.ID], e)
			}
		}
	}
	c.mu.Unlock()

	for e, gone := range removals {
		c.update(e, func() {
			for _, id := range gone {
				e.remove(id)
			}
		})
	}
	found := map[string]bool{}
	for start := 0; start < len(ids); start += idChunk {
		chunk := ids[start:min(start+idChunk, len(ids))]
		err := tx.ScanRecords(ctx, loci.RecordFilter{Workspace: sp.workspace, IDs: chunk, Order: loci.OrderNone}, func(r *loci.Record) error {
			found[r.ID] = true
			for _, e := range wanted[r.ID] {
				in := inScope(&e.filter, r.Kind, r.Scope)
				c.update(e, func() {
					if in {
						e.put(r)
					} else {
						e.remove(r.ID)
					}
				})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read changed records: %w", err)
		}
	}
	for _, id := range ids {
		if !found[id] {
			for _, e := range wanted[id] {
				c.update(e, func() { e.remove(id) })
			}
		}
	}
	c.applied.Add(int64(len(cs.Removed) + len(cs.Changed)))
	c.mu.Lock()
	c.evict(nil)
	c.mu.Unlock()
	return nil
}

// update changes a held index under its lock, keeping the budget's count.
func (c *Cache) update(e *entry, fn func()) {
	e.mu.Lock()
	before := e.bytes
	fn()
	delta, tooBig := e.bytes-before, e.tooBig
	e.mu.Unlock()
	c.mu.Lock()
	if e.cached {
		c.used += delta
		if tooBig {
			// Outgrown what it can hold: the scope is loaded again
			// (and, too big, streamed).
			c.forget(c.spaces[e.filter.Workspace], e)
		}
	}
	c.mu.Unlock()
}
