package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

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
	check("a write", backstopCheckpointPages, func(tx loci.Tx) error { return nil })
	check("one record", backstopCheckpointPages, func(tx loci.Tx) error { return tx.InsertRecords(ctx, batch(1)) })
	check("a bulk load", bulkCheckpointPages, func(tx loci.Tx) error { return tx.InsertRecords(ctx, batch(3)) })
	check("the write after it", backstopCheckpointPages, func(tx loci.Tx) error { return nil })
	check("a bulk load rolled back", bulkCheckpointPages, func(tx loci.Tx) error {
		if err := tx.InsertRecords(ctx, batch(3)); err != nil {
			return err
		}
		return errRollBack
	})
	check("the write after it", backstopCheckpointPages, func(tx loci.Tx) error { return nil })
}

var errRollBack = errors.New("roll back")

// TestCheckpointOnReaders: once the writer's commits have written
// walCheckpointPages pages to the WAL, a checkpoint runs on a reader, and
// the writer's next write starts the WAL again from its beginning; the
// commit of a bulk load asks for one only past bulkCheckpointPages.
func TestCheckpointOnReaders(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	batch := func(k int) []*loci.Record {
		var rs []*loci.Record
		for range k {
			n++
			rs = append(rs, storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "",
				fmt.Sprintf("passage %d, long enough that a hundred of them fill a few pages of the table and its indexes", n)))
		}
		return rs
	}
	insert := func(rs []*loci.Record) {
		t.Helper()
		if err := db.Update(ctx, func(tx loci.Tx) error {
			if len(rs) > 1 {
				return tx.InsertRecords(ctx, rs)
			}
			return tx.InsertRecord(ctx, rs[0])
		}); err != nil {
			t.Fatal(err)
		}
	}
	walFrames := func() int {
		t.Helper()
		var busy, frames, done int
		if err := db.writer.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
			t.Fatal(err)
		}
		return frames
	}
	c := db.ckpt
	// One record at a time (no bulk load) until a checkpoint is asked
	// for: the pages counted start again from 0.
	for pages := int64(-1); c.pages.Load() > pages; {
		if n > 20*walCheckpointPages {
			t.Fatalf("%d single writes asked for no checkpoint", n)
		}
		pages = c.pages.Load()
		insert(batch(1))
	}
	for deadline := time.Now().Add(30 * time.Second); c.runs.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the checkpoint asked for did not run")
		}
	}
	insert(batch(1))
	if got := walFrames(); got >= walCheckpointPages {
		t.Errorf("after a checkpoint and a write, the WAL holds %d frames, want a few (it starts again)", got)
	}
	// A bulk load that writes more than walCheckpointPages asks for none.
	runs := c.runs.Load()
	before := c.pages.Load()
	for c.pages.Load()-before < walCheckpointPages {
		insert(batch(500))
	}
	if len(c.ask) != 0 || c.runs.Load() != runs {
		t.Errorf("bulk loads of %d pages asked for a checkpoint, want none below %d", c.pages.Load()-before, bulkCheckpointPages)
	}
}
