package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
)

var _ index.VectorReader = (*postgres.Tx)(nil)

// TestReadVectors: ReadVectors returns, for the ids of the workspace
// asked, each record's model and vector as ScanRecords reads them (from
// the bytes, or from the real[] of a row written before those), and
// nothing for ids of another workspace or unknown ones.
func TestReadVectors(t *testing.T) {
	ctx := context.Background()
	db := testdb.OpenPostgres(t, postgresDSN(t))
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := []*loci.Record{
		{ID: "a", Workspace: "w", Embedding: []float32{0.5, -0.25, 1}, EmbeddingModel: "m"},
		{ID: "b", Workspace: "w", Embedding: []float32{-1, 0, 0.125}, EmbeddingModel: "m2"},
		{ID: "c", Workspace: "w"},
		{ID: "e", Workspace: "w", Embedding: []float32{0.75, 2}, EmbeddingModel: "m"}, // as real[] only, below
		{ID: "d", Workspace: "other", Embedding: []float32{1, 1, 1}, EmbeddingModel: "m"},
	}
	err := db.Update(ctx, func(tx loci.Tx) error {
		for _, r := range recs {
			r.Kind, r.Scope, r.Content, r.Version = loci.KindPassage, loci.Scope{AgentID: "x"}, "text", 1
			r.CreatedAt, r.UpdatedAt = at, at
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
		}
		return postgres.Exec(ctx, tx, `UPDATE records SET embedding = '{0.75, 2}', embedding_f32 = NULL WHERE id = 'e'`)
	})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		model string
		vec   []float32
	}
	out := map[string]got{}
	err = db.View(ctx, func(tx loci.Tx) error {
		return tx.StoreTx.(*postgres.Tx).ReadVectors(ctx, "w", []string{"a", "b", "c", "d", "e", "zz"}, func(id, model string, vec []float32) error {
			out[id] = got{model, slices.Clone(vec)}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 {
		t.Fatalf("read %d records, want a, b, c and e: %v", len(out), out)
	}
	for _, r := range recs[:4] {
		g := out[r.ID]
		if g.model != r.EmbeddingModel || !slices.Equal(g.vec, r.Embedding) || (g.vec == nil) != (r.Embedding == nil) {
			t.Errorf("%s: got %q %v, want %q %v", r.ID, g.model, g.vec, r.EmbeddingModel, r.Embedding)
		}
	}
}
