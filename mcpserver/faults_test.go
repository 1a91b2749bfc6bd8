package mcpserver_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// TestToolUnavailable: a tool call that finds the storage locked by
// another process past the store's timeout is a tool error with code
// unavailable (the transport's mapping of 503), not internal.
func TestToolUnavailable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	db, err := sqlite.Open(ctx, path, sqlite.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := rules.New(retry.New(db, 10*time.Millisecond, retry.WithLogger(quiet)), rules.WithLogger(quiet))
	cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "writer"})

	holder, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	r := MustCall(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"})
	tx.Rollback()
	if !r.isError || r.out["code"] != loci.EUNAVAILABLE {
		t.Errorf("remember while the database is locked: %+v; want a tool error with code unavailable", r)
	}
	if r := MustCall(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"}); r.isError {
		t.Errorf("remember after the lock is released: %+v", r)
	}
}
