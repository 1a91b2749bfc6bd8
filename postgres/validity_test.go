package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// TestCacheFiltersValidity: the in-process search cache filters on
// validity and review (RecordFilter.Match) from the change feed, so a
// search with AsOf or Review is answered from the cache, not from SQL, and
// sees another process's change of invalid_at or review right after it
// commits (the update restamps the row for the change feed).
func TestCacheFiltersValidity(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	open := func() *postgres.DB {
		cfg, err := testdb.PostgresConfig(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		db, err := postgres.OpenConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	writer, reader, oracle := open(), open(), open()
	postgres.SetVectorCache(oracle, false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "home_city", "lives in paris")
	old.ValidAt, old.InvalidAt = t0, t0.Add(time.Hour)
	cur := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "home_city", "lives in berlin")
	cur.ValidAt = t0.Add(time.Hour)
	storetest.MustInsert(t, writer, old, cur)

	later := loci.RecordFilter{Workspace: loci.DefaultWorkspace, UserID: loci.Ptr("u"), AsOf: t0.Add(2 * time.Hour)}
	disputed := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Review: []string{loci.ReviewDisputed}}
	check := func(step string, f loci.RecordFilter, want ...string) {
		t.Helper()
		before := postgres.CachedLexicalSearches(reader)
		got, sql := searchLex(t, reader, f, []string{"lives"}, 10), searchLex(t, oracle, f, []string{"lives"}, 10)
		if msg := sameRanking(sql, got); msg != "" {
			t.Fatalf("%s: cache and SQL differ: %s", step, msg)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.Record.ID)
		}
		if len(ids) != len(want) || (len(want) == 1 && ids[0] != want[0]) {
			t.Fatalf("%s: got %v, want %v", step, ids, want)
		}
		if postgres.CachedLexicalSearches(reader) != before+1 {
			t.Fatalf("%s: the cache did not answer (SQL fallback)", step)
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
