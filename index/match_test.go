package index

import (
	"fmt"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestMatcherAgreesWithFilter: the prepared matcher selects exactly the
// docs RecordFilter.Match selects, whether it checks the doc's fields
// itself (kinds, liveness) or falls back to the filter.
func TestMatcherAgreesWithFilter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	agent := "a"
	scope := loci.RecordFilter{Workspace: "w", AgentID: &agent}
	e := newEntry(&config{}, keyOf(scope), scope)
	kinds := []loci.Kind{loci.KindPassage, loci.KindBlock, loci.KindNote}
	expiries := []time.Time{{}, now.Add(-time.Hour), now, now.Add(time.Microsecond), now.Add(time.Hour)}
	for i := range 30 {
		r := &loci.Record{
			ID: fmt.Sprintf("r%02d", i), Workspace: "w", Kind: kinds[i%len(kinds)], Scope: loci.Scope{AgentID: agent},
			Content: "some words", CreatedAt: now.Add(-time.Duration(i) * time.Minute), ExpiresAt: expiries[i%len(expiries)],
		}
		if i%4 == 0 {
			r.Tags = []string{"x"}
		}
		// Validity: unset, valid from before/at/after now, invalid from
		// before/at/after now.
		switch i % 7 {
		case 1:
			r.ValidAt = now.Add(-time.Hour)
		case 2:
			r.ValidAt = now
		case 3:
			r.ValidAt = now.Add(time.Microsecond)
		case 4:
			r.InvalidAt = now.Add(-time.Hour)
		case 5:
			r.InvalidAt = now
		case 6:
			r.ValidAt, r.InvalidAt = now.Add(-time.Hour), now.Add(time.Hour)
		}
		r.UpdatedAt = r.CreatedAt
		e.put(r)
	}
	minConf := 0.5
	filters := map[string]loci.RecordFilter{
		"scope":          scope,
		"passages":       {Workspace: "w", AgentID: &agent, Kinds: []loci.Kind{loci.KindPassage}},
		"two kinds live": {Workspace: "w", AgentID: &agent, Kinds: []loci.Kind{loci.KindBlock, loci.KindNote}, LiveAt: now},
		"absent kind":    {Workspace: "w", AgentID: &agent, Kinds: []loci.Kind{loci.KindFact}},
		"as of":          {Workspace: "w", AgentID: &agent, Kinds: []loci.Kind{loci.KindPassage, loci.KindNote}, LiveAt: now, AsOf: now.Add(time.Nanosecond)},
		"as of now":      {Workspace: "w", AgentID: &agent, AsOf: now},
		"live":           {Workspace: "w", AgentID: &agent, LiveAt: now, Order: loci.OrderCreatedDesc, Limit: 3},
		"tags":           {Workspace: "w", AgentID: &agent, Tags: []string{"x"}, LiveAt: now},
		"created after":  {Workspace: "w", AgentID: &agent, CreatedAfter: now.Add(-10 * time.Minute)},
		"min confidence": {Workspace: "w", AgentID: &agent, MinConfidence: &minConf},
		"empty ids":      {Workspace: "w", AgentID: &agent, IDs: []string{}},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			m := e.matcher(&f)
			wantFull := name == "tags" || name == "created after" || name == "min confidence" || name == "empty ids"
			if m.full != wantFull {
				t.Errorf("full = %v, want %v", m.full, wantFull)
			}
			n := 0
			for _, d := range e.docs {
				if got, want := m.match(d), e.match(&f, d); got != want {
					t.Errorf("%s (kind %s, expires %v): matcher %v, filter %v", d.id, e.strtab[e.str(d, sKind)], fromMicros(d.x().expires), got, want)
				}
				if m.match(d) {
					n++
				}
			}
			t.Logf("%d of %d selected", n, len(e.docs))
		})
	}
}
