package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

func mustOpen(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// search runs a lexical and a vector search for agent a on c and returns
// the ids each found.
func search(t *testing.T, db *sqlite.DB, c *index.Cache, term string, q []float32) (lex, vec []string) {
	t.Helper()
	ctx := context.Background()
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
	if err := db.View(ctx, func(tx loci.Tx) error {
		res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{term}, Vector: q, N: 10})
		if err != nil {
			return err
		}
		for _, h := range res.Lexical {
			lex = append(lex, h.Doc.Meta.ID)
		}
		for _, h := range res.Vector {
			vec = append(vec, h.Doc.Meta.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return lex, vec
}

// The change feed survives a restart: a process that reopens the file
// (with a fresh index) finds what was written, and an index held across
// another handle's reopen and writes stays exact.
func TestSearchIndexSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	db := mustOpen(t, path)
	held := index.New(index.WithModel("m"))
	r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "kept across restarts")
	r.SearchText, r.Embedding, r.EmbeddingModel = "kept across restart", []float32{1, 0}, "m"
	storetest.MustInsert(t, db, r)
	if lex, vec := search(t, db, held, "kept", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("before restart: lexical %v, vector %v", lex, vec)
	}
	db.Close()
	db = mustOpen(t, path)
	if lex, vec := search(t, db, index.New(index.WithModel("m")), "kept", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("after restart: lexical %v, vector %v", lex, vec)
	}
	other := mustOpen(t, path)
	r2 := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "kept too")
	r2.SearchText = "kept too"
	storetest.MustInsert(t, other, r2)
	if lex, _ := search(t, db, held, "kept", nil); len(lex) != 2 {
		t.Fatalf("the held index after another handle's write: %v", lex)
	}
}
