// Package sqlite is loci's embedded backend: SQLite through modernc.org/sqlite
// (pure Go, no cgo), in WAL mode, with one writer connection that takes
// immediate transactions and a pool of readers. Search indexes live above
// the store (package index); the store reports what changed through a feed
// (Tx.Changes, migration 0006).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/diskfull"
	"github.com/loci-memory/loci/internal/sqltable"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Memory is the path of the transient in-memory store.
const Memory = ":memory:"

var _ loci.Store = (*DB)(nil)

var memorySeq atomic.Int64

// DB is a SQLite store.
type DB struct {
	path   string
	writer *sql.DB
	reader *sql.DB
	// timeout bounds every wait for the database (options.timeout).
	timeout time.Duration
	// full is what writes met of a full disk (Ping reports it).
	full diskfull.State
	// cacheKiB is the writer's page cache (writerCacheKiB at open); a
	// transaction that writes many records grows it (Tx.growCache).
	cacheKiB atomic.Int64
	// writeStmts and readStmts are the statements prepared on each pool
	// (stmts.go); the same set when the pools are one (:memory:).
	writeStmts, readStmts *stmtSet
	// ckpt checkpoints the WAL (checkpoint.go); nil in memory.
	ckpt *checkpointer
}

// DefaultTimeout is how long a transaction waits for the database by
// default: for the one writer connection, and for another process's lock.
const DefaultTimeout = 5 * time.Second

// Option configures Open.
type Option func(*options)

type options struct {
	timeout time.Duration
	maxSize int64
}

// WithTimeout bounds how long a transaction waits for the database: for a
// free connection (the one writer, held by another write) and for the lock
// of another process (SQLite's busy timeout). Past it the transaction fails
// with EUNAVAILABLE. Default DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithMaxSize caps the database at about n bytes: a write that would grow
// it further fails with ESTORAGEFULL, as on a full disk. 0: no cap.
func WithMaxSize(n int64) Option { return func(o *options) { o.maxSize = n } }

// Open opens (creating it and its directory if needed) the database at path
// and applies pending migrations. Path ":memory:" opens a transient store
// that lives as long as the DB. It refuses (EINVALID, changing nothing) a
// file it may not write, a file that is not a SQLite database, a database
// that holds tables not loci's, and one that a newer loci wrote.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	o := options{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	db := &DB{path: path, timeout: o.timeout}
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)", o.timeout.Milliseconds())
	if o.maxSize > 0 {
		// Pages are 4096 bytes (SQLite's default, which loci keeps).
		pragmas += fmt.Sprintf("&_pragma=max_page_count(%d)", max(1, o.maxSize/4096))
	}
	if path == Memory || path == "" {
		// One connection: every connection to :memory: is its own database.
		name := fmt.Sprintf("file:loci-mem-%d?mode=memory&%s&_txlock=immediate", memorySeq.Add(1), pragmas)
		w, err := sql.Open("sqlite", name)
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		w.SetConnMaxLifetime(0)
		db.writer, db.reader = w, w
	} else {
		if err := preflight(ctx, path); err != nil {
			return nil, err
		}
		u := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas + "&_pragma=journal_mode(WAL)"
		// The writer's page cache starts small and grows for batches
		// (writerCacheKiB, sqlite/tx.go); the OS page cache serves the
		// rest, outside the process.
		w, err := sql.Open("sqlite", u+fmt.Sprintf("&_pragma=cache_size(-%d)&_pragma=wal_autocheckpoint(%d)&_txlock=immediate", writerCacheKiB, backstopCheckpointPages))
		if err != nil {
			return nil, fmt.Errorf("open sqlite writer: %w", err)
		}
		w.SetMaxOpenConns(1)
		db.cacheKiB.Store(writerCacheKiB)
		// Readers keep a small page cache: they read records by id and
		// scan a scope once when a search index loads it; the OS page
		// cache serves repeated reads, outside the process's memory.
		r, err := sql.Open("sqlite", u+"&_pragma=cache_size(-256)&_txlock=deferred")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("open sqlite readers: %w", err)
		}
		r.SetMaxOpenConns(max(4, runtime.NumCPU()))
		db.writer, db.reader = w, r
	}
	if err := db.migrateRetry(ctx); err != nil {
		db.Close()
		return nil, db.classify(err)
	}
	if err := db.prepareStatements(ctx); err != nil {
		db.Close()
		return nil, db.classify(err)
	}
	if db.reader != db.writer {
		db.startCheckpointer()
	}
	return db, nil
}

// migrateRetry migrates, retrying while the database is busy. Processes
// that open the same new file at once race to switch it to WAL, and the
// losers can get SQLITE_BUSY without the busy timeout being waited;
// migrating is idempotent, so they try again.
func (db *DB) migrateRetry(ctx context.Context) error {
	deadline := time.Now().Add(db.timeout)
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		err := db.migrate(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// Close closes the database.
func (db *DB) Close() error {
	db.stopCheckpointer()
	db.writeStmts.close()
	if db.reader != db.writer {
		db.readStmts.close()
	}
	err := db.writer.Close()
	if db.reader != db.writer {
		if rerr := db.reader.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// Ping reports whether the database answers (EUNAVAILABLE when it does
// not), and ESTORAGEFULL after a write failed for a full disk, until a
// write succeeds again (at most a minute).
func (db *DB) Ping(ctx context.Context) error {
	var n int
	if err := db.reader.QueryRowContext(ctx, `SELECT 1`).Scan(&n); err != nil {
		return db.classify(fmt.Errorf("ping sqlite: %w", err))
	}
	return db.fullError()
}

// Update runs fn in an immediate (write-locked) transaction on the writer.
func (db *DB) Update(ctx context.Context, fn func(loci.Tx) error) error {
	return db.run(ctx, db.writer, fn)
}

// View runs fn in a transaction on the reader pool.
func (db *DB) View(ctx context.Context, fn func(loci.Tx) error) error {
	return db.run(ctx, db.reader, fn)
}

// Snapshot runs fn in a read transaction, as View does: a deferred
// transaction in WAL mode reads one snapshot, taken at its first read,
// until it ends (in memory, the one connection keeps writes out).
func (db *DB) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	return db.run(ctx, db.reader, fn)
}

func (db *DB) run(ctx context.Context, pool *sql.DB, fn func(loci.Tx) error) error {
	conn, err := db.conn(ctx, pool)
	if err != nil {
		return err
	}
	write := pool == db.writer
	tx, err := func() (*Tx, error) {
		defer conn.Close()
		return db.runOn(ctx, conn, write, fn)
	}()
	if err != nil {
		return db.classify(err)
	}
	if write {
		// A write found room: the disk is no longer reported full.
		db.full.Succeeded()
	}
	if write && len(tx.unprepared) > 0 {
		// The writer is free again: prepare what the transaction ran
		// unprepared, for the next one (stmts.go). A failure only means
		// it is prepared where it runs.
		_ = db.writeStmts.prepare(ctx, tx.unprepared...)
	}
	return nil
}

func (db *DB) runOn(ctx context.Context, conn *sql.Conn, write bool, fn func(loci.Tx) error) (*Tx, error) {
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, translate(fmt.Errorf("begin: %w", err))
	}
	tx := &Tx{tx: sqlTx, db: db, write: write}
	defer func() {
		// Once the transaction has ended (the defer below runs first),
		// the next one checkpoints as usual; a bulk load raises it
		// again (bulkCheckpoint). Failing, the connection is failing:
		// its next statement reports it.
		if tx.bulk {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, backstopCheckpointPages))
		}
	}()
	// Rolls back if fn panics (a no-op once committed), so the
	// connection, the only writer, is not kept by a dead transaction.
	defer sqlTx.Rollback()
	tx.Rows = sqltable.Rows{Dialect: dialect, Runner: runner{tx}}
	if err := fn(loci.Tx{StoreTx: tx}); err != nil {
		sqlTx.Rollback()
		return tx, err
	}
	if err := sqlTx.Commit(); err != nil {
		return tx, translate(fmt.Errorf("commit: %w", err))
	}
	if write {
		threshold := int64(walCheckpointPages)
		if tx.bulk {
			threshold = bulkCheckpointPages
		}
		db.wrote(conn, threshold)
	}
	return tx, nil
}

// latestMigration is the highest migration number this binary knows.
func latestMigration() int {
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	latest := 0
	for _, name := range names {
		var v int
		if _, err := fmt.Sscanf(filepath.Base(name), "%d_", &v); err == nil {
			latest = max(latest, v)
		}
	}
	return latest
}

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, in order, one transaction each.
func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	created := false
	for _, name := range names {
		base := filepath.Base(name)
		var version int
		if _, err := fmt.Sscanf(base, "%d_", &version); err != nil {
			return fmt.Errorf("migration %s: name must start with its number: %w", base, err)
		}
		if applied[version] {
			continue // no write lock needed: a database another process writes opens at once
		}
		if !created {
			if _, err := db.writer.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
				return fmt.Errorf("create schema_migrations: %w", err)
			}
			created = true
		}
		if err := db.applyMigration(ctx, version, base, name); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations reads the versions schema_migrations records (none
// when it does not exist yet), without taking the write lock.
func (db *DB) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	var n int
	if err := db.writer.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	} else if n == 0 {
		return nil, nil
	}
	rows, err := db.writer.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

func (db *DB) applyMigration(ctx context.Context, version int, base, name string) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	} else if n > 0 {
		return nil
	}
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	}
	if version == contentHashMigration {
		if err := backfillContentHash(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	if version == contentKeyMigration {
		if err := backfillContentKey(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		version, strings.TrimSuffix(base, ".sql"), time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("record migration %s: %w", base, err)
	}
	return tx.Commit()
}

// translate turns driver errors into domain errors, once, at the boundary.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return loci.Errorf(loci.ENOTFOUND, "not found")
	}
	var serr *sqlite.Error
	if errors.As(err, &serr) {
		switch serr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return loci.Errorf(loci.ECONFLICT, "already exists")
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY: // what the row refers to is gone
			return loci.Errorf(loci.ENOTFOUND, "what it refers to does not exist")
		}
	}
	return err
}

// contentHashMigration is the migration that adds records.content_hash;
// backfillContentHash then hashes the rows written before, in Go.
const contentHashMigration = 9

// contentKeyMigration is the migration that adds records.content_key;
// backfillContentKey then keys the rows written before from their hash.
const contentKeyMigration = 13

// backfillContentKey sets the content_key of every record that has a
// content_hash (contentKey of it) and clears the hash, in batches in seq
// order, in the migration's transaction.
func backfillContentKey(ctx context.Context, tx *sql.Tx) error {
	upd, err := tx.PrepareContext(ctx, `UPDATE records SET content_key = ?, content_hash = NULL WHERE seq = ?`)
	if err != nil {
		return fmt.Errorf("backfill content keys: %w", err)
	}
	defer upd.Close()
	type row struct {
		seq  int64
		hash string
	}
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT seq, content_hash FROM records WHERE seq > ? AND content_hash IS NOT NULL ORDER BY seq LIMIT 1000`, after)
		if err != nil {
			return fmt.Errorf("backfill content keys: %w", err)
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.hash); err != nil {
				rows.Close()
				return fmt.Errorf("backfill content keys: %w", err)
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("backfill content keys: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			if _, err := upd.ExecContext(ctx, loci.ContentKey(r.hash), r.seq); err != nil {
				return fmt.Errorf("backfill content keys: %w", err)
			}
		}
		after = batch[len(batch)-1].seq
	}
}

// backfillContentHash sets the content_hash of every record without one
// (loci.ContentHash), in batches, in the migration's transaction.
func backfillContentHash(ctx context.Context, tx *sql.Tx) error {
	for {
		rows, err := tx.QueryContext(ctx, `SELECT seq, content FROM records WHERE content_hash IS NULL ORDER BY seq LIMIT 1000`)
		if err != nil {
			return fmt.Errorf("backfill content hashes: %w", err)
		}
		type row struct {
			seq     int64
			content string
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.content); err != nil {
				rows.Close()
				return fmt.Errorf("backfill content hashes: %w", err)
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("backfill content hashes: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			if _, err := tx.ExecContext(ctx, `UPDATE records SET content_hash = ? WHERE seq = ?`, loci.ContentHash(r.content), r.seq); err != nil {
				return fmt.Errorf("backfill content hashes: %w", err)
			}
		}
	}
}
