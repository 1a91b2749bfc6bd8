package rules_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestSearchSpellings: a British and an American spelling find each
// other, in text written now and in text whose stored analysed form was
// written before spellings were folded (the British words' own stems),
// without re-analysing it; in an index held in memory and in a scope
// too large for the budget, searched by a streaming pass.
func TestSearchSpellings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, budget := range []int64{0, 1} {
			name := "Held"
			var opts []rules.Option
			if budget > 0 {
				name, opts = "Streamed", append(opts, rules.WithIndexBudget(budget))
			}
			t.Run(name, func(t *testing.T) {
				e := lcOpen(t, open, opts...)
				ctx := context.Background()
				now, err := e.svc.AddPassage(ctx, "a1", "Her favourite colour is a soft grey", nil)
				if err != nil {
					t.Fatal(err)
				}
				us, err := e.svc.AddPassage(ctx, "a1", "He organized a trip and traveled to the theater", nil)
				if err != nil {
					t.Fatal(err)
				}
				// As SearchText analysed it before: Snowball stems of the
				// British words, unfolded.
				old := &loci.Record{Kind: loci.KindPassage, Scope: loci.Scope{AgentID: "a1"}, CreatedAt: lcT0.Add(-time.Hour),
					Content: "The neighbours organised a colourful festival", SearchText: "neighbour organis colour festiv"}
				e.lcInsert(t, old)
				for q, want := range map[string]string{
					"favorite color gray":                 now.ID,
					"favourite colour":                    now.ID,
					"organised travelling theatre":        us.ID,
					"neighbors organized colorful":        old.ID,
					"neighbours organised colourful fest": old.ID,
				} {
					res := mustSearch(t, e.svc, loci.SearchQuery{Query: q, AgentID: "a1", Limit: 1})
					if len(res.Results) == 0 || res.Results[0].ID != want {
						var got []string
						for _, r := range res.Results {
							got = append(got, r.Content)
						}
						t.Errorf("search %q: got %s, want record %s first", q, strings.Join(got, " | "), want)
					}
				}
			})
		}
	})
}
