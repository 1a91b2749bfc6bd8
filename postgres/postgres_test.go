package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
	pgvector "github.com/pgvector/pgvector-go"
)

// PGliteEnv names the DSN of a PGlite server (PostgreSQL in WASM with the
// real pgvector), which CI serves with pglite-socket (ci/pglite).
const PGliteEnv = "LOCI_TEST_PGLITE_DSN"

func postgresDSN(t *testing.T) string {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL server to test on (.ci/run always sets it)", testdb.PostgresEnv)
	}
	return dsn
}

func pgliteDSN(t *testing.T) string {
	dsn := os.Getenv(PGliteEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PGlite server to test the pgvector path on (.ci/run always sets it)", PGliteEnv)
	}
	return dsn
}

func TestConformance(t *testing.T) {
	dsn := postgresDSN(t)
	storetest.Run(t, func(t testing.TB) loci.Store { return testdb.OpenPostgres(t, dsn) })
}

func TestIndexConformance(t *testing.T) {
	dsn := postgresDSN(t)
	storetest.RunIndex(t, func(t *testing.T) (loci.Store, loci.Store) { return testdb.PostgresPair(t, dsn) })
}

// TestIndexConformancePGlite runs the index suite on PGlite, where a scope
// over the budget has its vector side answered by pgvector's HNSW index.
func TestIndexConformancePGlite(t *testing.T) {
	dsn := pgliteDSN(t)
	storetest.RunIndex(t, func(t *testing.T) (loci.Store, loci.Store) { return testdb.PostgresPair(t, dsn) })
}

// TestConformancePGlite runs the suite on PGlite, where the vector
// extension exists, so embeddings also go through the pgvector column.
func TestConformancePGlite(t *testing.T) {
	dsn := pgliteDSN(t)
	storetest.Run(t, func(t testing.TB) loci.Store {
		db := testdb.OpenPostgres(t, dsn)
		if !db.HasPGVector() {
			t.Fatalf("PGlite store has no pgvector column: the vector extension did not load")
		}
		return db
	})
}

func TestPGVectorColumn(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testVectorColumn(t, postgresDSN(t)) })
	t.Run("PGlite", func(t *testing.T) { testVectorColumn(t, pgliteDSN(t)) })
}

// openWithPool opens a store on a new schema of dsn's database, and a
// pool on the same schema for looking at its tables; both close when t
// ends.
func openWithPool(t *testing.T, dsn string) (*postgres.DB, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	cfg, err := testdb.PostgresConfig(dsn, testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return db, pool
}

// testVectorColumn checks that embeddings round-trip exactly, and that
// where pgvector exists its column holds the same vector, and an HNSW index
// for the dimension is built.
func testVectorColumn(t *testing.T, dsn string) {
	ctx := context.Background()
	db, pool := openWithPool(t, dsn)

	r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "vectors")
	r.Embedding, r.EmbeddingModel = []float32{0.1, -2.5e-7, 3.4028235e38, 1}, "test-4"
	bad := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "not a number")
	bad.Embedding = []float32{float32NaN(), 1, 2, 3}
	empty := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "empty")
	empty.Embedding = []float32{}
	storetest.MustInsert(t, db, r, bad, empty)

	got := storetest.MustFind(t, db, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID, empty.ID}, Order: loci.OrderCreatedAsc})
	if len(got) != 2 || !slices.Equal(got[0].Embedding, r.Embedding) || got[0].EmbeddingModel != "test-4" {
		t.Fatalf("embedding = %v, want %v", got[0].Embedding, r.Embedding)
	}
	if got[1].Embedding == nil || len(got[1].Embedding) != 0 {
		t.Fatalf("empty embedding = %#v, want an empty slice", got[1].Embedding)
	}
	if !db.HasPGVector() {
		t.Logf("no vector extension on this server: exact path only")
		return
	}
	var v pgvector.Vector
	if err := pool.QueryRow(ctx, `SELECT embedding_vec::text FROM records WHERE id = $1`, r.ID).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Slice(), r.Embedding) {
		t.Fatalf("pgvector column = %v, want %v", v.Slice(), r.Embedding)
	}
	var nulls int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM records WHERE id = ANY($1) AND embedding_vec IS NULL`,
		[]string{bad.ID, empty.ID}).Scan(&nulls); err != nil || nulls != 2 {
		t.Fatalf("vectors pgvector cannot hold: %d NULL (%v), want 2", nulls, err)
	}
	var indexed bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('records_embedding_hnsw_4') IS NOT NULL`).Scan(&indexed); err != nil || !indexed {
		t.Fatalf("HNSW index for 4 dimensions: %v %v", indexed, err)
	}
	// The index answers a cosine query of its dimension.
	var nearest string
	if err := pool.QueryRow(ctx, `SELECT id FROM records WHERE vector_dims(embedding_vec) = 4
		ORDER BY embedding_vec::vector(4) <=> $1::text::vector(4) LIMIT 1`, pgvector.NewVector([]float32{0.1, 0, 3e38, 1}).String()).Scan(&nearest); err != nil || nearest != r.ID {
		t.Fatalf("nearest = %q (%v), want %s", nearest, err, r.ID)
	}
}

// TestConcurrentOpen opens four stores on one fresh schema at once: the
// migration lock makes them take turns, and all succeed.
func TestConcurrentOpen(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testConcurrentOpen(t, postgresDSN(t)) })
	t.Run("PGlite", func(t *testing.T) {
		pgliteDSN(t)
		t.Skip("PGlite serves every connection from one session, so advisory locks never exclude one another: there is no race to test")
	})
}

func testConcurrentOpen(t *testing.T, dsn string) {
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg, err := testdb.PostgresConfig(dsn, schema)
			if err != nil {
				errs[i] = err
				return
			}
			db, err := postgres.OpenConfig(ctx, cfg)
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = db.Ping(ctx)
			db.Close()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	cfg, _ := testdb.PostgresConfig(dsn, schema)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	files, _ := filepath.Glob("migrations/*.sql")
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(files) {
		t.Fatalf("schema_migrations has %d rows (%v), want %d (one per migration)", n, err, len(files))
	}
}

func float32NaN() float32 {
	var zero float32
	return zero / zero
}
