package index

import (
	"reflect"
	"slices"
	"time"

	"github.com/loci-memory/loci"
)

// matcher is a search's filter prepared for one entry. The filter's scope
// is the entry's, so a doc's being in the entry answers it; when all that
// is left are kinds, a time the doc must be live at and one it must be
// valid at (a search's "what is true now"), those are checked on the
// doc's interned fields without making its record. Any other
// filter is checked by RecordFilter.Match on the doc's record.
type matcher struct {
	e    *entry
	f    *loci.RecordFilter
	full bool // check f.Match on the record

	anyKind bool
	kinds   []uint32 // the interned kinds f selects that the entry holds
	live    time.Time
	asOf    time.Time
}

// matcher prepares f, a filter of e's scope, for e. Call it under e's lock.
func (e *entry) matcher(f *loci.RecordFilter) *matcher {
	m := &matcher{e: e, f: f}
	rest := *f
	rest.Workspace, rest.AgentID, rest.UserID, rest.SessionID, rest.TaskID, rest.OrGlobalUser = "", nil, nil, nil, nil, false
	rest.Kinds, rest.LiveAt, rest.AsOf, rest.Order, rest.Limit, rest.Offset = nil, time.Time{}, time.Time{}, 0, 0, 0
	if s := scopeOf(*f); !reflect.ValueOf(rest).IsZero() || s.Workspace != e.filter.Workspace || keyOf(s) != e.key {
		m.full = true
		return m
	}
	m.anyKind = len(f.Kinds) == 0
	for _, k := range f.Kinds {
		if i, ok := e.strIdx[string(k)]; ok {
			m.kinds = append(m.kinds, i)
		}
	}
	m.live, m.asOf = f.LiveAt, f.AsOf
	return m
}

// match reports whether the filter selects d.
func (m *matcher) match(d *doc) bool {
	if m.full {
		return m.e.match(m.f, d)
	}
	if !m.anyKind && !slices.Contains(m.kinds, m.e.str(d, sKind)) {
		return false
	}
	x := d.x()
	if !m.asOf.IsZero() && (x.validAt != noTime || x.invalid != noTime) {
		r := loci.Record{ValidAt: fromMicros(x.validAt), InvalidAt: fromMicros(x.invalid)}
		if !r.ValidAtTime(m.asOf) {
			return false
		}
	}
	if m.live.IsZero() || x.expires == noTime {
		return true
	}
	r := loci.Record{ExpiresAt: fromMicros(x.expires)}
	return !r.Expired(m.live)
}
