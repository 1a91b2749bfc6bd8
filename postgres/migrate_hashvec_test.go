package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
)

// TestMigrateDropHashVectors opens a schema written before migration 0011
// with vectors of the hash embedder, of another model and none, as
// SQLite's test of 0010: the hash embedder's go (their records are
// pending again), the rest stay.
func TestMigrateDropHashVectors(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	conn, cfg := migratedBefore(t, dsn, 11)
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	vec := []float32{0.6, 0.8}
	for _, r := range []struct {
		id, model string
		vec       []float32
	}{
		{"h1", "hash-v1-256", vec}, {"h2", "hash-v1-2", vec}, {"o1", "text-embedding-3-small", vec}, {"n1", "", nil},
	} {
		if _, err := conn.Exec(ctx, `INSERT INTO records (id, workspace, kind, agent_id, content, data, created_at, updated_at, embedding, embedding_model)
			VALUES ($1, 'default', 'passage', 'a', 'c', '{}'::json, $2, $2, $3::real[], $4)`, r.id, at, r.vec, r.model); err != nil {
			t.Fatal(err)
		}
	}

	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string]*loci.Record{}
	var pending int
	db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		for _, r := range recs {
			got[r.ID] = r
		}
		pending, _ = tx.CountPendingEmbeddings(ctx, loci.RecordFilter{}, "hash-v1-256")
		return err
	})
	for _, id := range []string{"h1", "h2", "n1"} {
		if r := got[id]; r == nil || r.Embedding != nil || r.EmbeddingModel != "" {
			t.Errorf("%s after migration: %+v; want no embedding", id, r)
		}
	}
	if r := got["o1"]; r == nil || !slices.Equal(r.Embedding, vec) || r.EmbeddingModel != "text-embedding-3-small" {
		t.Errorf("o1 after migration: %+v; want its embedding kept", r)
	}
	if pending != 4 {
		t.Errorf("%d records pending for the hash embedder, want 4", pending)
	}
}
