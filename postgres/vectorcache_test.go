package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// replicas opens n stores on one fresh schema of dsn, as n `loci serve`
// processes on one database would be, each with its own vector cache.
func replicas(t *testing.T, dsn string, n int) []*postgres.DB {
	t.Helper()
	return replicasIn(t, dsn, testdb.NewSchema(t, dsn), n)
}

func replicasIn(t *testing.T, dsn, schema string, n int) []*postgres.DB {
	t.Helper()
	var out []*postgres.DB
	for range n {
		cfg, err := testdb.PostgresConfig(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		db, err := postgres.OpenConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, db)
	}
	return out
}

func randomUnit(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var ss float64
	for d := range v {
		v[d] = float32(rng.NormFloat64())
		ss += float64(v[d]) * float64(v[d])
	}
	for d := range v {
		v[d] = float32(float64(v[d]) / math.Sqrt(ss))
	}
	return v
}

func searchVec(t *testing.T, s loci.Store, f loci.RecordFilter, model string, q []float32, limit int) []loci.ScoredRecord {
	t.Helper()
	var out []loci.ScoredRecord
	if err := s.View(context.Background(), func(tx loci.Tx) (err error) {
		out, err = tx.SearchVector(context.Background(), f, model, q, limit)
		return err
	}); err != nil {
		t.Fatalf("search vector: %v", err)
	}
	return out
}

// TestVectorCacheReplicas writes through one store and searches through
// another whose cache was loaded before the writes: inserts, new
// embeddings, scope changes and deletes are all seen right after commit,
// with the ranking that SQL gives (a third store, without the cache).
func TestVectorCacheReplicas(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testVectorCacheReplicas(t, postgresDSN(t)) })
	t.Run("PGlite", func(t *testing.T) { testVectorCacheReplicas(t, pgliteDSN(t)) })
}

func testVectorCacheReplicas(t *testing.T, dsn string) {
	ctx := context.Background()
	dbs := replicas(t, dsn, 3)
	writer, reader, oracle := dbs[0], dbs[1], dbs[2]
	postgres.SetVectorCache(oracle, false)
	const model, dims = "m", 8
	rng := rand.New(rand.NewSource(11))
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	agentA := ws
	agentA.AgentID = loci.Ptr("a")

	var recs []*loci.Record
	for i := range 40 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: []string{"a", "b"}[i%2]}, "", fmt.Sprint("passage ", i))
		r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
		recs = append(recs, r)
	}
	storetest.MustInsert(t, writer, recs...)

	// check compares the reader's answers with SQL's on a few queries,
	// plus q, and returns the reader's answer to q on f.
	check := func(step string, f loci.RecordFilter, q []float32) []loci.ScoredRecord {
		t.Helper()
		var got []loci.ScoredRecord
		for i := range 5 {
			query := q
			if i > 0 {
				query = randomUnit(rng, dims)
			}
			for _, filter := range []loci.RecordFilter{f, ws, agentA} {
				for _, limit := range []int{3, 100} {
					g, want := searchVec(t, reader, filter, model, query, limit), searchVec(t, oracle, filter, model, query, limit)
					if msg := sameRankingTol(want, g, 1e-5); msg != "" {
						t.Fatalf("%s: limit %d: %s\nsql:   %s\ncache: %s", step, limit, msg, ranking(want), ranking(g))
					}
					if i == 0 && filter.AgentID == f.AgentID && limit == 100 {
						got = g
					}
				}
			}
		}
		return got
	}
	// The reader loads its cache now, before the changes below.
	if got := check("Load", ws, recs[0].Embedding); len(got) != 40 || got[0].Record.ID != recs[0].ID {
		t.Fatalf("Load: %d results, first %v; want 40, first %s", len(got), ranking(got[:1]), recs[0].ID)
	}

	t.Cleanup(func() {
		// Every search of the reader outside a writing transaction
		// was answered from its cache, none fell back to SQL.
		if n := postgres.CachedSearches(reader); n < 7*30 {
			t.Errorf("the cache answered %d searches, want at least %d", n, 7*30)
		}
	})
	t.Run("Insert", func(t *testing.T) {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "new")
		r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
		storetest.MustInsert(t, writer, r)
		if got := check("Insert", agentA, r.Embedding); len(got) == 0 || got[0].Record.ID != r.ID || got[0].Score < 0.9999 {
			t.Fatalf("best hit %s, want the new record %s", ranking(got[:min(1, len(got))]), r.ID)
		}
	})
	t.Run("NewEmbedding", func(t *testing.T) {
		r := recs[2]
		v := randomUnit(rng, dims)
		var ok bool
		if err := writer.Update(ctx, func(tx loci.Tx) (err error) {
			ok, err = tx.SetEmbedding(ctx, r.Workspace, r.ID, r.Version, model, v)
			return err
		}); err != nil || !ok {
			t.Fatalf("set embedding: %v, %v", ok, err)
		}
		if got := check("NewEmbedding", ws, v); got[0].Record.ID != r.ID || got[0].Score < 0.9999 {
			t.Fatalf("best hit %s, want %s at 1", ranking(got[:1]), r.ID)
		}
	})
	t.Run("ScopeChange", func(t *testing.T) {
		r := recs[1] // agent b
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			cur, err := tx.GetRecord(ctx, r.Workspace, r.ID)
			if err != nil {
				return err
			}
			prev := cur.Version
			cur.AgentID, cur.Version = "a", prev+1
			return tx.UpdateRecord(ctx, cur, prev)
		})
		if got := check("ScopeChange", agentA, r.Embedding); got[0].Record.ID != r.ID {
			t.Fatalf("best hit for agent a %s, want %s, moved to a", ranking(got[:1]), r.ID)
		}
	})
	t.Run("EmbeddingCleared", func(t *testing.T) {
		r := recs[3]
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			cur, err := tx.GetRecord(ctx, r.Workspace, r.ID)
			if err != nil {
				return err
			}
			prev := cur.Version
			cur.Content, cur.Embedding, cur.EmbeddingModel, cur.Version = "changed", nil, "", prev+1
			return tx.UpdateRecord(ctx, cur, prev)
		})
		for _, h := range check("EmbeddingCleared", ws, r.Embedding) {
			if h.Record.ID == r.ID {
				t.Fatalf("found %s, whose embedding was cleared", r.ID)
			}
		}
	})
	t.Run("Delete", func(t *testing.T) {
		r := recs[0]
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: r.Workspace, IDs: []string{r.ID}})
			return err
		})
		for _, h := range check("Delete", ws, r.Embedding) {
			if h.Record.ID == r.ID {
				t.Fatalf("found deleted record %s", r.ID)
			}
		}
	})
	t.Run("ReaderWritesToo", func(t *testing.T) {
		// A transaction that has written searches its own writes.
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "mine")
		r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
		storetest.MustUpdate(t, reader, func(tx loci.Tx) error {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
			got, err := tx.SearchVector(ctx, ws, model, r.Embedding, 1)
			if err != nil {
				return err
			}
			if len(got) != 1 || got[0].Record.ID != r.ID {
				t.Errorf("in the writing transaction: %s, want %s", ranking(got), r.ID)
			}
			return nil
		})
		check("ReaderWritesToo", ws, r.Embedding)
	})
}

// TestVectorCacheOutOfOrderCommit commits a transaction that stamped its
// row before another one did, after the other, and after a reader has
// read the feed: the reader must still find the row. (Not on PGlite: an
// open transaction there blocks every other connection.)
func TestVectorCacheOutOfOrderCommit(t *testing.T) {
	ctx := context.Background()
	dbs := replicas(t, postgresDSN(t), 2)
	writer, reader := dbs[0], dbs[1]
	const model, dims = "m", 4
	rng := rand.New(rand.NewSource(3))
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	newRec := func(content string) *loci.Record {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{}, "", content)
		r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
		return r
	}
	storetest.MustInsert(t, writer, newRec("first"))
	if got := searchVec(t, reader, ws, model, randomUnit(rng, dims), 10); len(got) != 1 {
		t.Fatalf("%d results, want 1", len(got))
	}

	slow, fast := newRec("slow"), newRec("fast")
	inserted, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	releaseSlow := func() { once.Do(func() { close(release) }) }
	defer releaseSlow() // on failure too, so the store can close
	go func() {
		done <- writer.Update(ctx, func(tx loci.Tx) error {
			if err := tx.InsertRecord(ctx, slow); err != nil {
				return err
			}
			close(inserted)
			<-release
			return nil
		})
	}()
	<-inserted
	storetest.MustInsert(t, writer, fast) // stamped after slow, committed first
	got := searchVec(t, reader, ws, model, fast.Embedding, 10)
	if len(got) != 2 || got[0].Record.ID != fast.ID {
		t.Fatalf("before the slow commit: %s, want %s first of 2", ranking(got), fast.ID)
	}
	releaseSlow()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got = searchVec(t, reader, ws, model, slow.Embedding, 10)
	if len(got) != 3 || got[0].Record.ID != slow.ID {
		t.Fatalf("after the slow commit: %s, want %s first of 3", ranking(got), slow.ID)
	}
	if n := postgres.CachedSearches(reader); n != 3 {
		t.Fatalf("the cache answered %d searches, want 3", n)
	}
}

// TestVectorCacheConcurrentWriters inserts from many goroutines through
// one store while another searches all the while; at the end the
// searcher finds every record.
func TestVectorCacheConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dbs := replicas(t, postgresDSN(t), 2)
	writer, reader := dbs[0], dbs[1]
	const model, dims, writers, each = "m", 4, 8, 25
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	searched := make(chan int)
	go func() {
		rng := rand.New(rand.NewSource(1))
		n := 0
		for {
			select {
			case <-stop:
				searched <- n
				return
			default:
			}
			q := randomUnit(rng, dims)
			if err := reader.View(ctx, func(tx loci.Tx) error {
				_, err := tx.SearchVector(ctx, ws, model, q, 5)
				return err
			}); err != nil {
				t.Error(err)
			}
			n++
		}
	}()
	// NewRecord is not safe for concurrent use: make them all first.
	rng := rand.New(rand.NewSource(100))
	recs := make([][]*loci.Record, writers)
	for w := range recs {
		for i := range each {
			r := storetest.NewRecord(loci.KindPassage, loci.Scope{}, "", fmt.Sprint(w, " ", i))
			r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
			recs[w] = append(recs[w], r)
		}
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, r := range recs[w] {
				// Some transactions hold their stamp a while before
				// committing, so commits land out of stamp order.
				if err := writer.Update(ctx, func(tx loci.Tx) error {
					if err := tx.InsertRecord(ctx, r); err != nil {
						return err
					}
					if i%3 == 0 {
						_, err := tx.CountRecords(ctx, ws)
						return err
					}
					return nil
				}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if n := <-searched; n == 0 {
		t.Fatal("the reader never searched while the writers wrote")
	}
	got := searchVec(t, reader, ws, model, []float32{1, 0, 0, 0}, writers*each+10)
	if len(got) != writers*each {
		t.Fatalf("reader found %d records, want %d", len(got), writers*each)
	}
	if postgres.CachedSearches(reader) == 0 {
		t.Fatal("the cache answered no search")
	}
}

// TestVectorCachePrunedTombstones prunes tombstones that a reader has not
// read yet: the reader notices (the feed's floor) and reloads, so the
// record deleted before the prune is not found either.
func TestVectorCachePrunedTombstones(t *testing.T) {
	ctx := context.Background()
	dsn := postgresDSN(t)
	schema := testdb.NewSchema(t, dsn)
	dbs := replicasIn(t, dsn, schema, 2)
	writer, reader := dbs[0], dbs[1]
	const model, dims = "m", 4
	rng := rand.New(rand.NewSource(9))
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	var recs []*loci.Record
	for i := range 5 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{}, "", fmt.Sprint(i))
		r.Embedding, r.EmbeddingModel = randomUnit(rng, dims), model
		recs = append(recs, r)
	}
	storetest.MustInsert(t, writer, recs...)
	if got := searchVec(t, reader, ws, model, recs[0].Embedding, 10); len(got) != 5 {
		t.Fatalf("%d results, want 5", len(got))
	}
	del := func(r *loci.Record) {
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: r.Workspace, IDs: []string{r.ID}})
			return err
		})
	}
	del(recs[0])
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE `+schema+`.record_tombstones SET deleted_at = now() - interval '2 hours'`); err != nil {
		t.Fatal(err)
	}
	del(recs[1]) // prunes recs[0]'s tombstone
	var tombstones int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+schema+`.record_tombstones`).Scan(&tombstones); err != nil {
		t.Fatal(err)
	}
	if tombstones != 1 {
		t.Fatalf("%d tombstones after the prune, want 1", tombstones)
	}
	got := searchVec(t, reader, ws, model, recs[0].Embedding, 10)
	if len(got) != 3 {
		t.Fatalf("%d results, want 3: %s", len(got), ranking(got))
	}
	for _, h := range got {
		if h.Record.ID == recs[0].ID || h.Record.ID == recs[1].ID {
			t.Fatalf("found deleted record %s", h.Record.ID)
		}
	}
	if n := postgres.CachedSearches(reader); n != 2 {
		t.Fatalf("the cache answered %d searches, want 2", n)
	}
}

// BenchmarkSearchVector times SearchVector over n passages with dense
// 256-dimension embeddings, from the cache and in SQL.
func BenchmarkSearchVector(b *testing.B) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		b.Skipf("%s is not set", testdb.PostgresEnv)
	}
	const model, dims = "m", 256
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db := testdb.OpenPostgres(b, dsn)
			rng := rand.New(rand.NewSource(1))
			now := time.Now().UTC()
			for done := 0; done < n; done += 1000 {
				if err := db.Update(ctx, func(tx loci.Tx) error {
					for range 1000 {
						r := &loci.Record{ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
							Scope: loci.Scope{AgentID: "bench"}, Content: "x", CreatedAt: now, UpdatedAt: now, Version: 1,
							Embedding: randomUnit(rng, dims), EmbeddingModel: model}
						if err := tx.InsertRecord(ctx, r); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("bench"), Kinds: []loci.Kind{loci.KindPassage}}
			for _, cache := range []bool{true, false} {
				b.Run(map[bool]string{true: "Cache", false: "SQL"}[cache], func(b *testing.B) {
					postgres.SetVectorCache(db, cache)
					if err := db.View(ctx, func(tx loci.Tx) error { // loads the cache
						_, err := tx.SearchVector(ctx, f, model, randomUnit(rng, dims), 10)
						return err
					}); err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for range b.N {
						q := randomUnit(rng, dims)
						if err := db.View(ctx, func(tx loci.Tx) error {
							_, err := tx.SearchVector(ctx, f, model, q, 10)
							return err
						}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
