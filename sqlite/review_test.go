package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/storetest"
)

// A panic inside a transaction function must not leave the transaction
// open: the single writer connection would stay taken and every later
// write would wait forever.
func TestPanicInTxReleasesConnection(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, filepath.Join(t.TempDir(), "loci.db"))
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was not passed on")
			}
		}()
		db.Update(ctx, func(tx loci.Tx) error {
			if err := tx.InsertRecord(ctx, storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "lost")); err != nil {
				t.Error(err)
			}
			panic("boom")
		})
	}()
	// Bounded, so that the defect fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := db.Update(ctx, func(tx loci.Tx) error {
		n, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		if err == nil && n != 0 {
			t.Errorf("got %d records after the panic, want 0", n)
		}
		return err
	}); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
}
