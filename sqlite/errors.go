package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loci-memory/loci"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Primary result codes the backend classifies.
const (
	sqliteNotADB = sqlite3.SQLITE_NOTADB
)

// sqliteCode returns the primary result code of the SQLite error in err's
// chain, or 0.
func sqliteCode(err error) int {
	var serr *sqlite.Error
	if errors.As(err, &serr) {
		return serr.Code() & 0xff
	}
	return 0
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED (any
// extended code).
func isBusy(err error) bool {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// classify turns storage trouble into domain errors, once, where a
// transaction ends: SQLite busy or locked (another process held the
// database longer than the busy timeout) is EUNAVAILABLE and transient, so
// the retry policy tries once more; a full disk (or the size limit) is
// ESTORAGEFULL; a file that became read-only is EUNAVAILABLE. Domain
// errors and anything else pass unchanged.
func (db *DB) classify(err error) error {
	if err == nil || loci.ErrorCode(err) != loci.EINTERNAL {
		return err
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return loci.Transient(loci.WrapError(err, loci.EUNAVAILABLE,
			"the database is busy: another process has held it for longer than %s; retry later", db.timeout))
	case sqlite3.SQLITE_FULL:
		db.full.Failed()
		return loci.WrapError(err, loci.ESTORAGEFULL,
			"the database's disk is full (or the database reached its size limit): nothing was written; free space and retry")
	case sqlite3.SQLITE_READONLY:
		return loci.WrapError(err, loci.EUNAVAILABLE, "the database file %s has become read-only: nothing was written", db.path)
	}
	return err
}

// conn takes a connection of pool, waiting at most the store's timeout:
// a database that has no free connection for that long (a write that
// holds the one writer) answers EUNAVAILABLE rather than making the
// request wait without end.
func (db *DB) conn(ctx context.Context, pool *sql.DB) (*sql.Conn, error) {
	wctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	c, err := pool.Conn(wctx)
	if err == nil {
		return c, nil
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, loci.Transient(loci.WrapError(err, loci.EUNAVAILABLE,
			"the database is busy: no connection was free within %s; retry later", db.timeout))
	}
	return nil, db.classify(fmt.Errorf("connect: %w", err))
}

// fullError is Ping's report while writes fail for a full disk
// (diskfull.State.Full).
func (db *DB) fullError() error {
	if !db.full.Full() {
		return nil
	}
	return loci.Errorf(loci.ESTORAGEFULL, "the database's disk is full: writes fail until space is freed (reads work)")
}
