package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// TestCLIAudited: the verbs' operations on a local database are audited
// as every interface's are, as coming from the command line, a failed one
// too (the queued entries are written before the verb closes the store).
func TestCLIAudited(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	for _, args := range [][]string{
		{"remember", "tone", "friendly", "--agent", "writer", "--db", db},
		{"recall", "tone", "--agent", "writer", "--db", db},
		{"recall", "missing", "--agent", "writer", "--db", db},
	} {
		if code, _, _ := runCLI(t, args...); code != 0 && args[1] != "missing" {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	entries, _, err := rules.New(store).FindAudit(ctx, loci.AuditFilter{AgentID: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		op     string
		status int
	}{{"note.recall", 404}, {"note.recall", 200}, {"note.remember", 201}} // newest first
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(entries), len(want), entries)
	}
	for i, w := range want {
		e := entries[i]
		if e.Operation != w.op || e.Status != w.status || e.Via != loci.ViaCLI || e.AgentID != "writer" || e.Kind != loci.KindNote {
			t.Errorf("entry %d = %+v, want %s %d via cli", i, e, w.op, w.status)
		}
	}
}
