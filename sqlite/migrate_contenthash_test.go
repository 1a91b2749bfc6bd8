package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
)

// TestMigrateContentHash opens a database written before migration 0009:
// its records get the hash of their content, so a repeat of what they say
// is found (docs/rules.md, "A repeat changes nothing (NOOP)").
func TestMigrateContentHash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw := migratedBefore(t, ctx, path, contentHashMigration)
	for i := range 1500 { // more than one batch
		if _, err := raw.ExecContext(ctx, `INSERT INTO records (id, workspace, kind, user_id, content, created_at, updated_at)
			VALUES (?, 'default', 'fact', 'u', ?, 0, 0)`, fmt.Sprint("f", i), fmt.Sprintf("Likes  Tea number %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := loci.ContentHash("likes tea NUMBER 1499")
	err = db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "default", ContentHash: &h})
		if err != nil {
			return err
		}
		if len(recs) != 1 || recs[0].ID != "f1499" {
			t.Errorf("records with the hash of f1499's content: %v", recs)
		}
		n, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "default"})
		if n != 1500 {
			t.Errorf("%d records, want 1500", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE content_key IS NULL`).Scan(&missing); err != nil || missing != 0 {
		t.Fatalf("records without a content key: %d (%v)", missing, err)
	}
}

// TestMigrateContentKey opens a database written before migration 0013,
// whose records hold the text hash of their content: each gets its key
// (the hash's first 64 bits) and loses the text, so a repeat of what it
// says is still found, and one whose key alone matches is not.
func TestMigrateContentKey(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw := migratedBefore(t, ctx, path, contentKeyMigration)
	for i := range 1500 { // more than one batch
		content := fmt.Sprintf("Likes  Tea number %d", i)
		if _, err := raw.ExecContext(ctx, `INSERT INTO records (id, workspace, kind, user_id, content, created_at, updated_at, content_hash)
			VALUES (?, 'default', 'fact', 'u', ?, 0, 0, ?)`, fmt.Sprint("f", i), content, loci.ContentHash(content)); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := loci.ContentHash("likes tea NUMBER 1499")
	// The same first 64 bits, another hash: no record.
	other := h[:16] + strings.Repeat("0", len(h)-16)
	err = db.View(ctx, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "default", ContentHash: &h})
		if err != nil {
			return err
		}
		if len(recs) != 1 || recs[0].ID != "f1499" {
			t.Errorf("records with the hash of f1499's content: %v", recs)
		}
		if n, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "default", UserID: loci.Ptr("u"), ContentHash: &h}); err != nil || n != 1 {
			t.Errorf("count of records with the hash of f1499's content: %d (%v), want 1", n, err)
		}
		if recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "default", ContentHash: &other}); err != nil || len(recs) != 0 {
			t.Errorf("records of a hash whose first 64 bits are f1499's: %v (%v), want none", recs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE content_key IS NULL OR content_hash IS NOT NULL`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("records not keyed or still with a text hash: %d (%v)", left, err)
	}
}
