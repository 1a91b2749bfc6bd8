package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
)

// TestMigrateContentKey opens a schema written before migration 0019,
// whose records hold the text hash of their content: each gets its key
// (loci.ContentKey of the hash) and loses the text, so that a repeat of
// what it says is still found, and one whose key alone matches is not.
func TestMigrateContentKey(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	conn, cfg := migratedBefore(t, dsn, 19)
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20 {
		content := fmt.Sprintf("Likes  Tea number %d", i)
		if _, err := conn.Exec(ctx, `INSERT INTO records (id, workspace, kind, user_id, content, created_at, updated_at, content_hash)
			VALUES ($1, 'default', 'fact', 'u', $2, $3, $3, $4)`, fmt.Sprint("f", i), content, at, loci.ContentHash(content)); err != nil {
			t.Fatal(err)
		}
	}

	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := loci.ContentHash("likes tea NUMBER 19")
	other := h[:16] + strings.Repeat("0", len(h)-16) // the same key, another hash
	err = db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "default", ContentHash: &h})
		if err != nil {
			return err
		}
		if len(recs) != 1 || recs[0].ID != "f19" {
			t.Errorf("records with the hash of f19's content: %v", recs)
		}
		if n, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "default", UserID: loci.Ptr("u"), ContentHash: &h}); err != nil || n != 1 {
			t.Errorf("count of records with the hash of f19's content: %d (%v), want 1", n, err)
		}
		if recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "default", ContentHash: &other}); err != nil || len(recs) != 0 {
			t.Errorf("records of a hash whose first 64 bits are f19's: %v (%v), want none", recs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM records WHERE content_key IS NULL OR content_hash IS NOT NULL`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("records not keyed or still with a text hash: %d (%v)", left, err)
	}
}
