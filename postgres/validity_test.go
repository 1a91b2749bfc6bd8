package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// TestIndexFiltersValidity: a held search index (package index) filters on
// validity and review (RecordFilter.Match), and sees another process's
// change of invalid_at or review right after it commits (the update
// restamps the row for the change feed): it answers as an index loaded
// afresh does.
func TestIndexFiltersValidity(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	writer, reader := testdb.PostgresPair(t, dsn)
	held := index.New()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "home_city", "lives in paris")
	old.ValidAt, old.InvalidAt = t0, t0.Add(time.Hour)
	cur := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "home_city", "lives in berlin")
	cur.ValidAt = t0.Add(time.Hour)
	storetest.MustInsert(t, writer, old, cur)

	later := loci.RecordFilter{Workspace: loci.DefaultWorkspace, UserID: loci.Ptr("u"), AsOf: t0.Add(2 * time.Hour)}
	disputed := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Review: []string{loci.ReviewDisputed}}
	search := func(c *index.Cache, f loci.RecordFilter) []string {
		t.Helper()
		var ids []string
		if err := reader.View(ctx, func(tx loci.Tx) error {
			res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{"lives"}, N: 10})
			for _, h := range res.Lexical {
				ids = append(ids, h.Doc.Meta.ID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	check := func(step string, f loci.RecordFilter, want ...string) {
		t.Helper()
		got, fresh := search(held, f), search(index.New(), f)
		if !slices.Equal(got, fresh) {
			t.Fatalf("%s: the held index answers %v, a fresh one %v", step, got, fresh)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", step, got, want)
		}
	}
	check("CurrentOnly", later, cur.ID)
	check("PastOnly", loci.RecordFilter{Workspace: loci.DefaultWorkspace, UserID: loci.Ptr("u"), AsOf: t0.Add(time.Minute)}, old.ID)
	check("NoneDisputed", disputed)

	next := *cur
	next.InvalidAt, next.Review, next.Version = t0.Add(90*time.Minute), loci.ReviewDisputed, 2
	storetest.MustUpdate(t, writer, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &next, 1) })
	check("EndedAfterUpdate", later)
	check("DisputedAfterUpdate", disputed, cur.ID)
}
