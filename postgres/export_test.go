package postgres

import (
	"context"

	"github.com/loci-memory/loci"
)

// Exec runs a statement in a transaction of the store, for tests that
// need the server itself to report an error.
func Exec(ctx context.Context, tx loci.Tx, sql string) error {
	_, err := tx.StoreTx.(*Tx).tx.Exec(ctx, sql)
	return err
}

// SelectRecords is the query ScanRecords runs for f.
func SelectRecords(f loci.RecordFilter) (string, []any) { return selectRecords(f) }

// HoldConn takes a pooled connection and returns a function that gives it
// back without a word to the server, as a transaction that did not reach
// it would.
func HoldConn(ctx context.Context, db *DB) (func(), error) {
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return c.Release, nil
}
