package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
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

// search runs a lexical and a vector search for agent a and returns the ids
// each found.
func search(t *testing.T, db *sqlite.DB, term string, q []float32) (lex, vec []string) {
	t.Helper()
	ctx := context.Background()
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
	if err := db.View(ctx, func(tx loci.Tx) error {
		l, err := tx.SearchLexical(ctx, f, []string{term}, 10)
		if err != nil {
			return err
		}
		v, err := tx.SearchVector(ctx, f, "m", q, 10)
		for _, r := range l {
			lex = append(lex, r.Record.ID)
		}
		for _, r := range v {
			vec = append(vec, r.Record.ID)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return lex, vec
}

func TestSearchIndexSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	db := mustOpen(t, path)
	r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "kept across restarts")
	r.SearchText, r.Embedding, r.EmbeddingModel = "kept across restart", []float32{1, 0}, "m"
	storetest.MustInsert(t, db, r)
	if lex, vec := search(t, db, "kept", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("before restart: lexical %v, vector %v", lex, vec)
	}
	db.Close()
	db = mustOpen(t, path)
	if lex, vec := search(t, db, "kept", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("after restart: lexical %v, vector %v", lex, vec)
	}
}

// Two handles on one file stand for two processes: each sees the other's
// writes, though each keeps its own in-memory index.
func TestSearchIndexSeesOtherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	one, two := mustOpen(t, path), mustOpen(t, path)
	a := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "first")
	a.SearchText, a.Embedding, a.EmbeddingModel = "first", []float32{1, 0}, "m"
	storetest.MustInsert(t, one, a)
	if lex, vec := search(t, two, "first", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("two does not see one's insert: %v %v", lex, vec)
	}
	b := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "second")
	b.SearchText, b.Embedding, b.EmbeddingModel = "second", []float32{0, 1}, "m"
	storetest.MustInsert(t, two, b)
	if lex, _ := search(t, one, "second", []float32{0, 1}); len(lex) != 1 {
		t.Fatalf("one does not see two's insert: %v", lex)
	}
	if err := two.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{a.ID}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if lex, vec := search(t, one, "first", []float32{1, 0}); len(lex) != 0 || len(vec) != 1 || vec[0] != b.ID {
		t.Fatalf("one still sees two's delete: lexical %v, vector %v", lex, vec)
	}
}

// A search inside a write transaction, after the transaction changed
// records, must see those changes; and when the transaction then rolls
// back, the search index must not keep them.
func TestSearchIndexInDirtyTx(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	storetest.MustInsert(t, mustOpen(t, path), func() *loci.Record {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "apple")
		r.Embedding, r.EmbeddingModel = []float32{1, 0}, "m"
		return r
	}())
	db := mustOpen(t, path) // a fresh handle: nothing loaded yet
	var r *loci.Record
	if err := db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		if len(recs) == 1 {
			r = recs[0]
		}
		return err
	}); err != nil || r == nil {
		t.Fatalf("find: %v %v", r, err)
	}
	errRollback := errors.New("roll back")
	err := db.Update(ctx, func(tx loci.Tx) error {
		moved := *r
		moved.AgentID, moved.Version = "b", r.Version+1
		if err := tx.UpdateRecord(ctx, &moved, r.Version); err != nil {
			return err
		}
		fb := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("b")}
		lex, err := tx.SearchLexical(ctx, fb, []string{"apple"}, 10)
		if err != nil {
			return err
		}
		if len(lex) != 1 {
			t.Errorf("in the tx, lexical search for agent b found %d records, want 1", len(lex))
		}
		vec, err := tx.SearchVector(ctx, fb, "m", []float32{1, 0}, 10)
		if err != nil {
			return err
		}
		if len(vec) != 1 {
			t.Errorf("in the tx, vector search for agent b found %d records, want 1", len(vec))
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("update: %v", err)
	}
	if lex, vec := search(t, db, "apple", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("after the rollback, agent a's search found lexical %v, vector %v; want the record in both", lex, vec)
	}
}
