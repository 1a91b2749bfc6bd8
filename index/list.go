package index

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// A filtered listing (GET /v1/memories?filters=…) is answered here, from
// the index of its scope, rather than by reading the whole scope from the
// store: the index holds every field the filter language and the
// listing's filter read (kind, scope, key, tags, category, times, expiry,
// metadata, decoded once when a record is indexed), so one pass over the
// scope's docs in memory selects the matches, counts them and keeps the
// page's ids in the listing's order; the store then reads only the page.

// Listing is a listing's answer from an index: the page's ids, in the
// listing's order, with the time each was last updated as the index holds
// it, and how many records the filter selects in all.
type Listing struct {
	IDs     []string
	Updated []time.Time
	Total   int
}

// List answers the listing f (its Where, Order, Limit and Offset
// included) from the index of f's scope, read up to date in tx as a
// search's is. It returns nil, and no error, when the index cannot answer:
// the scope is too large for the budget, tx has written records, the
// change feed has just started over (see acquireFor), or f asks for what
// the index does not hold (content hashes, or an order other than by
// creation or update time); the caller then reads the store.
func (c *Cache) List(ctx context.Context, tx loci.Tx, f loci.RecordFilter) (*Listing, error) {
	switch f.Order {
	case loci.OrderCreatedDesc, loci.OrderCreatedAsc, loci.OrderUpdatedDesc:
	default:
		return nil, nil
	}
	if f.ContentHash != nil {
		return nil, nil
	}
	e, err := c.acquireFor(ctx, tx, f, true)
	if err != nil || e == nil {
		return nil, err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	m := e.lister(&f)
	want := 0 // the page and what precedes it; 0: all
	if f.Limit > 0 {
		want = f.Offset + f.Limit
	}
	top := listTop{want: want, desc: f.Order != loci.OrderCreatedAsc}
	total := 0
	for _, d := range e.docs {
		if d == nil || !m.match(d) {
			continue
		}
		total++
		at := d.created
		if f.Order == loci.OrderUpdatedDesc {
			at = d.updated
		}
		top.offer(listCand{at: at, d: d})
	}
	page := top.sorted()
	page = page[min(f.Offset, len(page)):]
	out := &Listing{Total: total, IDs: make([]string, len(page)), Updated: make([]time.Time, len(page))}
	for i, cd := range page {
		out.IDs[i], out.Updated[i] = cd.d.id, fromMicros(cd.d.updated)
	}
	return out, nil
}

// lister is a listing's filter prepared for one entry: the fields a
// listing sets most (kinds, the time records must be live at, a creation
// window) are checked on the doc's own fields; the filter language's
// condition on the doc's record with its decoded metadata; anything else
// by RecordFilter.MatchFields on the record.
type lister struct {
	e     *entry
	f     *loci.RecordFilter
	full  bool // check f.MatchFields on the record
	where *loci.MemoryFilter
	// metaOnly: where reads only metadata, and is given a record
	// without the doc's other fields (making it costs more than the
	// check).
	metaOnly bool

	anyKind       bool
	kinds         []uint32 // interned kinds f selects that the entry holds
	live          int64    // noTime: no expiry check
	lasting       []uint32 // interned kinds whose expiry is not checked
	after, before int64    // exclusive creation window; noTime: open
}

// lister prepares f, a listing of e's scope, for e. Call it under e's
// lock.
func (e *entry) lister(f *loci.RecordFilter) *lister {
	m := &lister{e: e, f: f, where: f.Where, metaOnly: f.Where.MetadataOnly(), anyKind: len(f.Kinds) == 0,
		live: micros(f.LiveAt), after: micros(f.CreatedAfter), before: micros(f.CreatedBefore)}
	rest := *f
	rest.Workspace, rest.AgentID, rest.UserID, rest.SessionID, rest.TaskID, rest.OrGlobalUser = "", nil, nil, nil, nil, false
	rest.Kinds, rest.LiveAt, rest.Lasting, rest.CreatedAfter, rest.CreatedBefore = nil, time.Time{}, nil, time.Time{}, time.Time{}
	rest.Where, rest.Order, rest.Limit, rest.Offset = nil, 0, 0, 0
	if s := scopeOf(*f); !reflect.ValueOf(rest).IsZero() || s.Workspace != e.filter.Workspace || keyOf(s) != e.key {
		m.full = true
		return m
	}
	for _, k := range f.Kinds {
		if i, ok := e.strIdx[string(k)]; ok {
			m.kinds = append(m.kinds, i)
		}
	}
	for _, k := range f.Lasting {
		if i, ok := e.strIdx[string(k)]; ok {
			m.lasting = append(m.lasting, i)
		}
	}
	return m
}

// match reports whether the listing selects d.
func (m *lister) match(d *doc) bool {
	if m.full {
		return m.e.match(m.f, d)
	}
	kind := m.e.str(d, sKind)
	if !m.anyKind && !slices.Contains(m.kinds, kind) {
		return false
	}
	if x := d.x(); m.live != noTime && x.expires != noTime && x.expires <= m.live && !slices.Contains(m.lasting, kind) {
		return false
	}
	if m.after != noTime && d.created <= m.after || m.before != noTime && d.created >= m.before {
		return false
	}
	if m.where == nil {
		return true
	}
	if m.metaOnly {
		return m.where.MatchFields(&noRecord, d.x().meta)
	}
	r := m.e.record(d)
	return m.where.MatchFields(&r, d.x().meta)
}

// noRecord is the record a condition on metadata alone is given.
var noRecord loci.Record

// listCand is a doc a listing selects, with the time it is ordered by.
type listCand struct {
	at int64
	d  *doc
}

// listTop keeps the first want candidates in a listing's order (ties on
// id, in the time's direction, as the backends order them), or all of
// them when want is 0: a heap whose root is the last one kept.
type listTop struct {
	want int
	desc bool
	heap []listCand
}

// before reports whether a comes before b in the listing's order.
func (t *listTop) before(a, b listCand) bool {
	if a.at != b.at {
		return a.at > b.at == t.desc
	}
	return strings.Compare(a.d.id, b.d.id) > 0 == t.desc
}

func (t *listTop) offer(c listCand) {
	if t.want == 0 {
		t.heap = append(t.heap, c)
		return
	}
	if len(t.heap) < t.want {
		t.heap = append(t.heap, c)
		t.up(len(t.heap) - 1)
		return
	}
	if !t.before(c, t.heap[0]) {
		return
	}
	t.heap[0] = c
	t.down(0)
}

// up and down keep the heap: a parent comes after its children.
func (t *listTop) up(i int) {
	h := t.heap
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *listTop) down(i int) {
	h := t.heap
	for {
		l, worst := 2*i+1, i
		if l < len(h) && t.before(h[worst], h[l]) {
			worst = l
		}
		if r := l + 1; r < len(h) && t.before(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// sorted returns the candidates kept, in the listing's order.
func (t *listTop) sorted() []listCand {
	slices.SortFunc(t.heap, func(a, b listCand) int {
		if t.before(a, b) {
			return -1
		}
		return 1
	})
	return t.heap
}

// decodeMeta decodes a doc's metadata for filters, its keys interned in
// the entry; nil when it is not valid metadata (a filter then finds no
// field in it, as it would in the record). It counts what it costs in
// d.bytes: a scalar is the entry's one box of it; an array or object is
// the doc's own, its decoded size taken as about three times its JSON's.
func (e *entry) decodeMeta(d *doc) {
	fields, err := loci.DecodeMetadataFields(d.extra.metadata)
	if err != nil || len(fields) == 0 {
		return
	}
	containers := false
	for i := range fields {
		fields[i].Key = e.strtab[e.intern(fields[i].Key)]
		d.bytes += 32 // the field
		switch fields[i].Value.(type) {
		case []any, map[string]any:
			containers = true
			continue
		}
		fields[i].Value = e.internValue(fields[i].Value)
	}
	d.bytes += int32(24 + len(d.extra.metadata))
	if containers {
		d.bytes += int32(2 * len(d.extra.metadata))
	}
	d.extra.meta = fields
}

// internValue returns the entry's one box of a scalar metadata value, so
// that docs alike share it: fewer objects, and a filter's pass over the
// docs reads what is already in the cache.
func (e *entry) internValue(v any) any {
	if x, ok := e.vals[v]; ok {
		return x
	}
	if e.vals == nil {
		e.vals = map[any]any{}
	}
	e.vals[v] = v
	e.bytes += 64
	if s, ok := v.(string); ok {
		e.bytes += int64(len(s))
	}
	return v
}
