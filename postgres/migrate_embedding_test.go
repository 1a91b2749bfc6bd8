package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
)

// TestMigrateEmbeddingBytes: the embeddings stored as real[] before
// migration 13 are read back the same after it, now from their bytes; the
// real[] copy stays only where the pgvector column is generated from it.
func TestMigrateEmbeddingBytes(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testMigrateEmbeddingBytes(t, postgresDSN(t)) })
	t.Run("PGlite", func(t *testing.T) { testMigrateEmbeddingBytes(t, pgliteDSN(t)) })
}

func testMigrateEmbeddingBytes(t *testing.T, dsn string) {
	ctx := context.Background()
	conn, cfg := migratedBefore(t, dsn, 13)
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	vecs := map[string][]float32{"v1": {0.6, -0.8, 1e-30}, "v2": {}, "n1": nil}
	// More than a batch, so that the backfill goes on past its first.
	for i := range 1203 {
		id := []string{"v1", "v2", "n1"}[i%3]
		if i >= 3 {
			id = "w" + time.Duration(i).String()
			vecs[id] = []float32{float32(i), 1}
		}
		if _, err := conn.Exec(ctx, `INSERT INTO records (id, workspace, kind, agent_id, content, data, created_at, updated_at, embedding, embedding_model)
			VALUES ($1, 'default', 'passage', 'a', 'c', '{}'::json, $2, $2, $3::real[], 'm')`, id, at, vecs[id]); err != nil {
			t.Fatal(err)
		}
	}

	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var recs []*loci.Record
	if err := db.View(ctx, func(tx loci.Tx) (err error) {
		recs, err = tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(vecs) {
		t.Fatalf("%d records, want %d", len(recs), len(vecs))
	}
	for _, r := range recs {
		if want := vecs[r.ID]; !slices.Equal(r.Embedding, want) || (want == nil) != (r.Embedding == nil) {
			t.Fatalf("%s: embedding %#v, want %#v", r.ID, r.Embedding, want)
		}
	}
	var bytesLeft, arrays int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE embedding IS NOT NULL AND embedding_f32 IS NULL),
		count(*) FILTER (WHERE embedding IS NOT NULL) FROM records`).Scan(&bytesLeft, &arrays); err != nil {
		t.Fatal(err)
	}
	wantArrays := 0
	if db.HasPGVector() {
		wantArrays = len(vecs) - 1
	}
	if bytesLeft != 0 || arrays != wantArrays {
		t.Errorf("after the backfill: %d embeddings without bytes, %d real[] kept; want 0 and %d", bytesLeft, arrays, wantArrays)
	}
}
