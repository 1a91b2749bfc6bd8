package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
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
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE content_hash IS NULL`).Scan(&missing); err != nil || missing != 0 {
		t.Fatalf("records without a hash: %d (%v)", missing, err)
	}
}
