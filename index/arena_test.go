package index_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

// TestReleaseReusesOnlyWhatWasGivenBack: a search's docs are made in room
// a released search gave back; a result not released keeps its docs
// whatever searches run and are released after it, and a search made in
// reused room finds what a search on a fresh cache finds.
func TestReleaseReusesOnlyWhatWasGivenBack(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, agent := range []string{"a", "b"} {
		for i := range 40 {
			text := fmt.Sprintf("%s shared words note %d of agent %s", agent, i, agent)
			r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", text)
			r.SearchText = text
			storetest.MustInsert(t, db, r)
		}
	}
	search := func(c *index.Cache, agent string) *index.Result {
		t.Helper()
		var res *index.Result
		err := db.View(ctx, func(tx loci.Tx) error {
			var err error
			res, err = c.Search(ctx, tx, index.Query{
				Filters: []loci.RecordFilter{{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr(agent)}},
				Terms:   []string{"shared", "words", agent}, N: 30,
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Lexical) != 30 {
			t.Fatalf("agent %s: %d hits, want 30", agent, len(res.Lexical))
		}
		return res
	}
	seen := func(res *index.Result) []string {
		var out []string
		for _, h := range res.Lexical {
			out = append(out, fmt.Sprintf("%s %s %s %.6f", h.Doc.Meta.ID, h.Doc.Meta.AgentID, h.Doc.Meta.Content, h.Score))
		}
		return out
	}
	want := seen(search(index.New(), "b"))
	c := index.New()
	search(c, "b").Release() // room to reuse
	kept := search(c, "a")   // made in it, and not given back
	keptSeen := seen(kept)
	for range 5 {
		res := search(c, "b")
		if got := seen(res); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("a search in reused room found\n%v\nwant\n%v", got, want)
		}
		res.Release()
		res.Release() // a second release gives nothing back twice
	}
	if got := seen(kept); fmt.Sprint(got) != fmt.Sprint(keptSeen) {
		t.Fatalf("a result not released changed under later searches:\n%v\nwas\n%v", got, keptSeen)
	}
}
