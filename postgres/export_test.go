package postgres

import (
	"context"

	"github.com/loci-memory/loci"
)

// Exec runs a statement in a transaction of the store, for tests that
// need the server itself to report an error.
func Exec(ctx context.Context, tx loci.Tx, sql string) error {
	_, err := tx.(*Tx).tx.Exec(ctx, sql)
	return err
}

// SelectRecords is the query ScanRecords runs for f.
func SelectRecords(f loci.RecordFilter) (string, []any) { return selectRecords(f) }
