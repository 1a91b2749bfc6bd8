package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite"
)

// Checkpoints. The writer's commits append the pages they change to the
// WAL, and a checkpoint copies them into the database file. SQLite's own
// (wal_autocheckpoint) runs inside the commit that leaves the WAL past its
// threshold, on the writer: the one writer waits for it, and for its two
// fsyncs (a tenth of a batched ingest's time).
// Instead the writer counts the pages its commits wrote, and once
// walCheckpointPages are written it asks a goroutine for the checkpoint,
// which runs it on a reader connection (PASSIVE: it copies what no reader
// still needs and never blocks the writer) while the writer goes on.
// SQLite's own stays on the writer as a backstop, past
// backstopCheckpointPages, for a WAL the goroutine has not kept small.

// checkpointer runs the checkpoints the writer asks for on the readers.
type checkpointer struct {
	// pages is what the writer's commits wrote to the WAL since it last
	// asked for a checkpoint.
	pages atomic.Int64
	// runs counts the checkpoints run (for tests).
	runs     atomic.Int64
	ask      chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// startCheckpointer starts the goroutine that checkpoints the WAL on
// db's readers when the writer asks (DB.wrote).
func (db *DB) startCheckpointer() {
	c := &checkpointer{ask: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	db.ckpt = c
	go func() {
		defer close(c.done)
		for {
			select {
			case <-c.stop:
				return
			case <-c.ask:
				// A checkpoint that fails (a full disk, a reader's
				// snapshot in the way) leaves the WAL to the next one, or
				// to the writer's backstop.
				_, _ = db.reader.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
				c.runs.Add(1)
			}
		}
	}()
}

// stopCheckpointer waits for a checkpoint running to end and stops the
// goroutine (Close; once, however often the DB is closed).
func (db *DB) stopCheckpointer() {
	if c := db.ckpt; c != nil {
		c.stopOnce.Do(func() { close(c.stop) })
		<-c.done
	}
}

// wrote counts the pages the transaction that conn (the writer) has just
// ended wrote to the WAL, and asks for a checkpoint once threshold pages
// have been written since the last.
func (db *DB) wrote(conn *sql.Conn, threshold int64) {
	c := db.ckpt
	if c == nil {
		return
	}
	var n int
	_ = conn.Raw(func(dc any) error {
		if s, ok := dc.(sqlite.DBStatus); ok {
			n, _, _ = s.Status(sqlite.DBStatusCacheWrite, true)
		}
		return nil
	})
	if c.pages.Add(int64(n)) < threshold {
		return
	}
	c.pages.Store(0)
	select {
	case c.ask <- struct{}{}:
	default: // one is asked for already
	}
}
