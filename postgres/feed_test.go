package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// holdTransaction begins a transaction on dsn's database that holds a
// transaction id, as a write left open does, and keeps it open until the
// test ends or the function it returns is called.
func holdTransaction(t testing.TB, dsn string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			tx.Rollback(ctx)
			conn.Close(ctx)
		})
	}
	t.Cleanup(release)
	return release
}

// preparedTransaction prepares a transaction that holds a transaction id
// on dsn's database (two-phase commit), left prepared until the test ends.
func preparedTransaction(t testing.TB, dsn string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("loci_test_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, `BEGIN; SELECT pg_current_xact_id(); PREPARE TRANSACTION '`+name+`'`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `ROLLBACK PREPARED '`+name+`'`); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// TestFeedLongTransaction: a transaction that holds a transaction id and
// stays open in another database of the cluster (idle in transaction, or
// prepared for two-phase commit), begun before loci's schema or after it,
// never makes a search reload its scope's index, and every change another
// replica writes meanwhile is read once, not again at every search. A
// prepared transaction needs max_prepared_transactions, which a server of
// the test's own has.
func TestFeedLongTransaction(t *testing.T) {
	dsn := postgresDSN(t)
	var own *testdb.Cluster
	ownServer := func(*testing.T) string {
		if own == nil {
			own = testdb.NewCluster(t, "max_prepared_transactions = 10")
		}
		return own.DSN("postgres")
	}
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) string
		hold   func(t testing.TB, dsn string) func()
		before bool
	}{
		{"IdleBeforeSchema", func(*testing.T) string { return dsn }, holdTransaction, true},
		{"IdleAfterSchema", func(*testing.T) string { return dsn }, holdTransaction, false},
		{"PreparedBeforeSchema", ownServer, preparedTransaction, true},
		{"PreparedAfterSchema", ownServer, preparedTransaction, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := tc.server(t)
			other := testdb.NewDatabase(t, server)
			if tc.before {
				tc.hold(t, other)
			}
			writer, reader := testdb.PostgresPair(t, server)
			for _, agent := range []string{"a", "b"} {
				storetest.MustInsert(t, writer, passage(agent, "apple "+agent))
			}
			c := index.New()
			for _, agent := range []string{"a", "b"} {
				searchApple(t, reader, c, agent)
			}
			if !tc.before {
				tc.hold(t, other)
			}
			const writes = 30
			for i := range writes {
				r := passage("a", fmt.Sprintf("apple %d", i))
				storetest.MustInsert(t, writer, r)
				if got := searchApple(t, reader, c, "a"); !slices.Contains(got, r.ID) {
					t.Fatalf("write %d: the search misses it: %v", i, got)
				}
				searchApple(t, reader, c, "b")
			}
			st := c.Stats()
			if st.Loads != 2 || st.Resets != 0 || st.Dropped != 0 {
				t.Errorf("with a long transaction open: %d loads, %d resets, %d dropped; want 2 loads (one per scope), none else",
					st.Loads, st.Resets, st.Dropped)
			}
			// Each write is read once, twice at most when a search reads
			// the feed while it commits; not again by every search.
			if st.Applied > 2*writes {
				t.Errorf("%d changes applied for %d writes: the feed reads the same changes again", st.Applied, writes)
			}
		})
	}
}

func passage(agent, text string) *loci.Record {
	r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", text)
	r.SearchText = text
	return r
}

// searchApple searches agent's passages for "apple" on s through c, and
// returns the ids found.
func searchApple(t *testing.T, s loci.Store, c *index.Cache, agent string) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	err := s.View(ctx, func(tx loci.Tx) error {
		res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr(agent)}},
			Terms: []string{"apple"}, N: 100})
		if err != nil {
			return err
		}
		for _, h := range res.Lexical {
			ids = append(ids, h.Doc.Meta.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestFeedPrune: tombstones are pruned only once their transaction
// finished before a horizon sampled over an hour earlier, so that a
// reader that keeps reading never starts over, even while a long
// transaction is open, and one that has not read since before the horizon
// does, and then finds what is left. The hour is made to pass by moving
// the samples and tombstones back in time. It runs on a server of its own,
// where no other test's transaction holds the horizon back.
func TestFeedPrune(t *testing.T) {
	ctx := context.Background()
	postgresDSN(t)
	dsn := testdb.NewCluster(t).DSN("postgres")
	other := testdb.NewDatabase(t, dsn)
	cfg, err := testdb.PostgresConfig(dsn, testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	var stores [2]*postgres.DB
	for i := range stores {
		if stores[i], err = postgres.OpenConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	writer, reader := stores[0], stores[1]
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	exec := func(sql string) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	anHourPasses := func() {
		t.Helper()
		exec(`UPDATE record_feed_horizons SET taken_at = taken_at - interval '2 hours'`)
		exec(`UPDATE record_tombstones SET deleted_at = deleted_at - interval '2 hours'`)
	}
	tombstones := func() (n int, floor int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM record_tombstones), (SELECT floor FROM record_feed)`).Scan(&n, &floor); err != nil {
			t.Fatal(err)
		}
		return n, floor
	}
	del := func(r *loci.Record) {
		t.Helper()
		if err := writer.Update(ctx, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	recs := []*loci.Record{passage("a", "apple 1"), passage("a", "apple 2"), passage("a", "apple 3"), passage("a", "apple 4"), passage("a", "apple 5")}
	storetest.MustInsert(t, writer, recs...)
	live, stale := index.New(), index.New()
	searchApple(t, reader, live, "a")
	searchApple(t, reader, stale, "a")

	release := holdTransaction(t, other)
	del(recs[0])
	searchApple(t, reader, live, "a")
	anHourPasses()
	// The horizon sampled at the first delete is below the long
	// transaction: nothing is pruned while it is open.
	del(recs[1])
	searchApple(t, reader, live, "a")
	if n, floor := tombstones(); n != 2 || floor != 0 {
		t.Fatalf("with a long transaction open since before the horizon: %d tombstones, floor %d; want both kept, floor 0", n, floor)
	}
	release()
	anHourPasses()
	del(recs[2]) // samples a horizon above the first two deletes
	searchApple(t, reader, live, "a")
	anHourPasses()
	del(recs[3]) // prunes those two, and raises the floor
	if n, floor := tombstones(); n != 2 || floor == 0 {
		t.Fatalf("after the prune: %d tombstones, floor %d; want 2 (the last two deletes'), floor raised", n, floor)
	}
	if got := searchApple(t, reader, live, "a"); !slices.Equal(got, []string{recs[4].ID}) {
		t.Fatalf("the reader finds %v; want only %s", got, recs[4].ID)
	}
	if st := live.Stats(); st.Resets != 0 || st.Loads != 1 {
		t.Errorf("a reader that read all along: %d resets, %d loads; want none, 1", st.Resets, st.Loads)
	}
	if got := searchApple(t, reader, stale, "a"); !slices.Equal(got, []string{recs[4].ID}) {
		t.Fatalf("the reader that had not read since the start finds %v; want only %s", got, recs[4].ID)
	}
	if st := stale.Stats(); st.Resets != 1 {
		t.Errorf("a reader that had not read since before the horizon: %d resets; want 1", st.Resets)
	}
}
