package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/storetest"
)

// TestBulkCheckpoint: the commit of a bulk load (InsertRecords of more
// than one record) checkpoints the WAL only past bulkCheckpointPages; the
// transaction after it, and one that inserts a record, checkpoint at
// SQLite's default again, whether the bulk load committed or not.
func TestBulkCheckpoint(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	threshold := func(tx loci.Tx) int {
		t.Helper()
		var n int
		if err := tx.StoreTx.(*Tx).queryRow(ctx, `PRAGMA wal_autocheckpoint`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	batch := func(n int) []*loci.Record {
		var rs []*loci.Record
		for i := range n {
			rs = append(rs, storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", fmt.Sprint("passage ", i)))
		}
		return rs
	}
	check := func(name string, want int, fn func(tx loci.Tx) error) {
		t.Helper()
		var got int
		err := db.Update(ctx, func(tx loci.Tx) error {
			err := fn(tx)
			got = threshold(tx)
			return err
		})
		if err != nil && !errors.Is(err, errRollBack) {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: the commit checkpoints past %d pages, want %d", name, got, want)
		}
	}
	check("a write", walCheckpointPages, func(tx loci.Tx) error { return nil })
	check("one record", walCheckpointPages, func(tx loci.Tx) error { return tx.InsertRecords(ctx, batch(1)) })
	check("a bulk load", bulkCheckpointPages, func(tx loci.Tx) error { return tx.InsertRecords(ctx, batch(3)) })
	check("the write after it", walCheckpointPages, func(tx loci.Tx) error { return nil })
	check("a bulk load rolled back", bulkCheckpointPages, func(tx loci.Tx) error {
		if err := tx.InsertRecords(ctx, batch(3)); err != nil {
			return err
		}
		return errRollBack
	})
	check("the write after it", walCheckpointPages, func(tx loci.Tx) error { return nil })
}

var errRollBack = errors.New("roll back")
