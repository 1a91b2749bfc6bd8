package index_test

import (
	"context"
	"maps"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

// TestHoldsSpeakerFold: a search says which query terms each lexical
// hit holds (Result.Holds), each doc's speaker (WithSpeaker), and matches
// stored terms through the fold (WithTermFold), alike in an index held
// in memory and in a scope streamed because it is over the budget.
func TestHoldsSpeakerFold(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	texts := map[string]string{"r1": "ann colour trip", "r2": "trip plan", "r3": "ann color", "r4": "other words"}
	var recs []*loci.Record
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", texts[id])
		r.SearchText, r.Tags = texts[id], []string{id}
		recs = append(recs, r)
	}
	storetest.MustInsert(t, db, recs...)
	tag := map[string]string{}
	for _, r := range recs {
		tag[r.ID] = r.Tags[0]
	}
	opts := []index.Option{
		index.WithSpeaker(func(r *loci.Record) string { return "speaker-" + r.Tags[0] }),
		index.WithTermFold(func(t string) string {
			if t == "colour" {
				return "color"
			}
			return t
		}),
	}
	want := map[string]uint64{"r1": 0b111, "r2": 0b100, "r3": 0b011}
	for name, c := range map[string]*index.Cache{
		"Held":     index.New(opts...),
		"Streamed": index.New(append(opts, index.WithBudget(1))...),
	} {
		t.Run(name, func(t *testing.T) {
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
			err := db.View(ctx, func(tx loci.Tx) error {
				res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{"ann", "color", "trip"}, N: 10})
				if err != nil {
					return err
				}
				got := map[string]uint64{}
				for id, m := range res.Holds() {
					got[tag[id]] = m
				}
				if !maps.Equal(got, want) {
					t.Errorf("holds %v, want %v", got, want)
				}
				if len(res.Lexical) != 3 {
					t.Errorf("%d lexical hits, want 3 (r1, r2, r3: colour folds to color)", len(res.Lexical))
				}
				for _, h := range res.Lexical {
					if h.Doc.Speaker != "speaker-"+tag[h.Doc.Meta.ID] {
						t.Errorf("hit %s: speaker %q", tag[h.Doc.Meta.ID], h.Doc.Speaker)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
