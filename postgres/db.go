// Package postgres is loci's shared backend: PostgreSQL through pgx, for
// stateless `loci serve` replicas on one database. Read-modify-write rules
// serialize on transaction-scoped advisory locks (Tx.Lock), so replicas never
// lose an update. Lexical search is PostgreSQL's full-text search over a
// generated tsvector column with a GIN index; embeddings are kept as real[]
// (exact search on any server) and, where the pgvector extension is
// available, also as a generated pgvector column with per-dimension HNSW
// cosine indexes.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/diskfull"
	"github.com/loci-memory/loci/internal/sqltable"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

var _ loci.Store = (*DB)(nil)

// migrationLock is the advisory lock key migrations run under. It is one
// key per database, not per schema: creating the vector extension is a
// database-wide act that two schemas migrating at once must not race on.
var migrationLock = lockKey("loci:migrate")

// DB is a PostgreSQL store.
type DB struct {
	pool *pgxpool.Pool
	// vector reports whether records have the pgvector column.
	vector bool
	// vectorSchema is the quoted schema of the vector extension, which
	// queries name its type, operator and functions by, so that it need
	// not be on search_path.
	vectorSchema string
	// vectorIndexes holds the dimensions known to have an HNSW index.
	vectorIndexes sync.Map
	// vectorStatus is VectorStatus.
	vectorStatus string
	// iterative reports whether pgvector scans its HNSW indexes
	// iteratively (0.8 and later), so that a filtered search finds as
	// many rows as asked (NearestRecords).
	iterative bool
	// timeout bounds every wait for the database (WithTimeout).
	timeout time.Duration
	// full is what writes met of a full disk (Ping reports it).
	full diskfull.State
	// pooled reports transaction pooling (PgBouncer's pool_mode =
	// transaction): consecutive transactions of one connection may run on
	// different server sessions, so nothing is prepared by name and no
	// session state is relied on (WithTransactionPooling).
	pooled bool
	// setPath, when pooled, is the statement each transaction begins with
	// to set the search_path the DSN named (a pooler does not pass it on
	// at connection time, and a session's setting would reach other
	// clients).
	setPath string
	// unnamed is the exec mode of statements planned for their parameters
	// each time: describe-exec (an unnamed statement) on a server
	// connection of loci's own, the pool's no-prepare mode when pooled.
	unnamed pgx.QueryExecMode
	// replicas are the hot standbys reads may go to (replicas.go); nil
	// without.
	replicas *replicaSet
}

// Open connects to the database that dsn names (a postgres:// URL or a
// key=value connection string) and applies pending migrations. loci's
// tables live in the first schema of the connection's search_path
// (`?search_path=loci` gives loci a schema of its own, created if absent).
// It refuses (EINVALID, changing nothing) a schema that holds tables not
// loci's, and one that a newer loci migrated.
func Open(ctx context.Context, dsn string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, loci.Errorf(loci.EINVALID, "invalid PostgreSQL DSN: %v", err)
	}
	return OpenConfig(ctx, cfg, opts...)
}

// OpenConfig is Open with a parsed pool configuration, for callers that set
// connection parameters (such as search_path) in code.
func OpenConfig(ctx context.Context, cfg *pgxpool.Config, opts ...Option) (*DB, error) {
	o := options{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	given := cfg
	cfg = cfg.Copy()
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = o.timeout
	}
	dial := cfg.ConnConfig.DialFunc
	if dial == nil {
		dial = (&net.Dialer{KeepAlive: 5 * time.Minute}).DialContext
	}
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &deadlineConn{Conn: c, timeout: o.timeout}, nil
	}
	db := &DB{timeout: o.timeout, unnamed: pgx.QueryExecModeCacheDescribe}
	if o.pooled && cfg.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	if mode := cfg.ConnConfig.DefaultQueryExecMode; mode != pgx.QueryExecModeCacheStatement {
		// The DSN asked for no named statements (default_query_exec_mode
		// exec, simple_protocol or describe_exec): that is a pooler's DSN.
		db.pooled, db.unnamed = true, mode
		if path, ok := cfg.ConnConfig.RuntimeParams["search_path"]; ok {
			delete(cfg.ConnConfig.RuntimeParams, "search_path")
			db.setPath = `SELECT set_config('search_path', '` + strings.ReplaceAll(path, "'", "''") + `', true)`
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	db.pool = pool
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		if !db.pooled && refusedSearchPath(err) {
			// A transaction pooler (PgBouncer) refuses the search_path
			// the DSN names at connection time: go through it as one.
			return OpenConfig(ctx, given, append(opts, WithTransactionPooling())...)
		}
		if code := loci.ErrorCode(err); code != loci.EINTERNAL {
			return nil, err
		}
		return nil, db.classify(ctx, err)
	}
	if err := pgx.BeginTxFunc(ctx, pool, db.txOptions(pgx.TxOptions{AccessMode: pgx.ReadOnly}),
		func(tx pgx.Tx) error { return db.inspect(ctx, tx) }); err != nil {
		pool.Close()
		return nil, err
	}
	if err := db.openReplicas(cfg, o); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// inspect reads what the migrated schema offers: the pgvector column, and
// the extension's version.
func (db *DB) inspect(ctx context.Context, tx pgx.Tx) error {
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'records'::regclass AND attname = 'embedding_vec' AND NOT attisdropped)`).Scan(&db.vector); err != nil {
		return fmt.Errorf("inspect schema: %w", err)
	}
	if !db.vector {
		var available, installed bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),
			EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&available, &installed); err != nil {
			return fmt.Errorf("inspect pgvector: %w", err)
		}
		switch {
		case installed:
			db.vectorStatus = "off: the vector extension was created in this database after loci's schema was migrated; exact vector search"
		case available:
			db.vectorStatus = "off: the server has the vector extension but this database has not created it, and loci's role may not " +
				"(CREATE EXTENSION takes a superuser, or a role with CREATE on the database where the extension is trusted); exact vector search. " +
				"Have an administrator run CREATE EXTENSION vector SCHEMA public in this database before loci first migrates a schema"
		default:
			db.vectorStatus = "off: the server has no vector extension; exact vector search"
		}
	}
	if db.vector {
		if err := tx.QueryRow(ctx, `SELECT quote_ident(n.nspname) FROM pg_attribute a
			JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace
			WHERE a.attrelid = 'records'::regclass AND a.attname = 'embedding_vec'`).Scan(&db.vectorSchema); err != nil {
			return fmt.Errorf("inspect schema: %w", err)
		}
		var version string
		if err := tx.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&version); err != nil {
			return fmt.Errorf("inspect pgvector: %w", err)
		}
		db.iterative = versionAtLeast(version, 0, 8)
		db.vectorStatus = "on: pgvector " + version + " in schema " + db.vectorSchema
	}
	return nil
}

// VectorStatus says whether embeddings also go through pgvector, and when
// not, why (the server lacks it, or loci's role may not create it).
func (db *DB) VectorStatus() string { return db.vectorStatus }

// refusedSearchPath reports whether err is a server's refusal of the
// search_path startup parameter, as PgBouncer answers it.
func refusedSearchPath(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "08P01" &&
		strings.Contains(pgErr.Message, "unsupported startup parameter: search_path")
}

// txOptions is opts for this store: when pooled, the transaction begins
// by setting the search_path (one round trip: BEGIN and the setting go as
// one simple-protocol query).
func (db *DB) txOptions(opts pgx.TxOptions, then ...string) pgx.TxOptions {
	if db.setPath != "" {
		then = append([]string{db.setPath}, then...)
	}
	if len(then) == 0 {
		return opts
	}
	begin := "BEGIN"
	switch opts.IsoLevel {
	case pgx.Serializable:
		begin += " ISOLATION LEVEL SERIALIZABLE"
	case pgx.RepeatableRead:
		begin += " ISOLATION LEVEL REPEATABLE READ"
	case pgx.ReadCommitted:
		begin += " ISOLATION LEVEL READ COMMITTED"
	}
	switch opts.AccessMode {
	case pgx.ReadOnly:
		begin += " READ ONLY"
	case pgx.ReadWrite:
		begin += " READ WRITE"
	}
	opts.BeginQuery = begin + "; " + strings.Join(then, "; ")
	return opts
}

// Close closes the pools' connections.
func (db *DB) Close() error {
	if db.replicas != nil {
		db.replicas.close()
	}
	db.pool.Close()
	return nil
}

// Ping reports whether the database answers (EUNAVAILABLE when it does not
// in time), and ESTORAGEFULL after a write failed for a full disk, until a
// write succeeds again (at most a minute).
func (db *DB) Ping(ctx context.Context) error {
	conn, err := db.acquire(ctx, db.pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := conn.Ping(ctx); err != nil {
		return db.classify(ctx, fmt.Errorf("ping postgres: %w", err))
	}
	return db.fullError()
}

// acquire takes a pooled connection, waiting at most the store's timeout
// (for a free connection, or a new one to connect).
func (db *DB) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	conn, err := pool.Acquire(actx)
	if err == nil {
		return conn, nil
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, loci.Transient(loci.WrapError(err, loci.EUNAVAILABLE,
			"the database does not answer: no connection within %s; retry later", db.timeout))
	}
	return nil, db.classify(ctx, fmt.Errorf("connect: %w", err))
}

// HasPGVector reports whether the records table has the pgvector column
// embedding_vec (the vector extension was available when it migrated).
func (db *DB) HasPGVector() bool { return db.vector }

// Update runs fn in a read-write transaction.
func (db *DB) Update(ctx context.Context, fn func(loci.Tx) error) error {
	return db.run(ctx, db.pool, pgx.TxOptions{AccessMode: pgx.ReadWrite}, fn)
}

// View runs fn in a read-only transaction.
func (db *DB) View(ctx context.Context, fn func(loci.Tx) error) error {
	return db.read(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, fn)
}

// Snapshot runs fn in a read-only transaction at REPEATABLE READ: one
// snapshot, taken at its first statement. A read-only transaction at this
// level never fails to serialize. (The change feed needs READ COMMITTED:
// Changes answers Dirty here.)
func (db *DB) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	return db.read(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// run runs fn in a transaction. The wait for a connection and the BEGIN
// share one timeout: a database that does not answer fails the
// transaction within it, not once for the pool and again for the BEGIN
// (a connection given back healthy just before a partition is handed out
// without a ping). What fn runs is bounded by the connection's progress
// bound instead, so a long transaction that makes progress is not cut,
// and by ctx's deadline when it has one: a transaction given a deadline
// (the retry policy's retry) ends by it.
func (db *DB) run(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(loci.Tx) error, then ...string) error {
	wctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	conn, err := db.acquire(wctx, pool)
	if err != nil {
		return err
	}
	defer conn.Release()
	// A transaction ends by its context's deadline, the statements fn
	// runs (with whatever context fn gives them) included: a retry cut at
	// its budget does not wait for an answer past it.
	if end, ok := ctx.Deadline(); ok {
		if d := deadlineConnOf(conn.Conn().PgConn().Conn()); d != nil {
			d.endBy(end)
			defer d.endBy(time.Time{})
		}
	}
	pgTx, err := conn.BeginTx(wctx, db.txOptions(opts, then...))
	if err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			return db.noAnswer(err)
		}
		return db.classify(ctx, fmt.Errorf("begin: %w", err))
	}
	tx, err := db.runOn(ctx, pgTx, fn)
	if err != nil {
		return db.classify(ctx, err)
	}
	if rs := db.replicas; rs != nil {
		if tx.feedLSN != 0 {
			rs.noteFeed(tx.feedLSN)
		}
		if opts.AccessMode == pgx.ReadWrite {
			// Where the primary's log is now, its commit included: a
			// standby serves this client's reads once it has replayed it.
			var lsn uint64
			if err := conn.QueryRow(ctx, `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&lsn); err != nil {
				// Committed, position unknown: the client's reads go to the
				// primary until it is known.
				lsn = ^uint64(0) >> 1
			}
			rs.noteWrite(ctx, lsn)
		}
	}
	if opts.AccessMode == pgx.ReadWrite {
		// A write found room: the disk is no longer reported full.
		db.full.Succeeded()
	}
	return nil
}

// noAnswer is EUNAVAILABLE for a transaction whose BEGIN found no answer
// within the timeout: transient, as nothing of it ran.
func (db *DB) noAnswer(err error) error {
	return loci.Transient(loci.WrapError(err, loci.EUNAVAILABLE,
		"the database does not answer (within %s): retry later", db.timeout))
}

func (db *DB) runOn(ctx context.Context, pgTx pgx.Tx, fn func(loci.Tx) error) (*Tx, error) {
	// Rolled back on every way out but a commit, a panic in fn included:
	// a transaction left open would keep its connection and its locks.
	defer pgTx.Rollback(context.WithoutCancel(ctx))
	tx := &Tx{tx: pgTx, db: db}
	tx.Rows = sqltable.Rows{Dialect: dialect, Runner: runner{tx}}
	if err := fn(loci.Tx{StoreTx: tx}); err != nil {
		return nil, err
	}
	if err := pgTx.Commit(ctx); err != nil {
		return nil, translate(fmt.Errorf("commit: %w", err))
	}
	for _, dims := range tx.newIndexes {
		db.vectorIndexes.Store(dims, true)
	}
	return tx, nil
}

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, in order, one transaction each. Each transaction
// holds the migration lock (a transaction-scoped advisory lock, which a
// transaction pooler keeps on one server session, unlike a session lock),
// so that processes starting together take turns.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Release()
	// Migrations may take long on a large database: the connection's
	// progress bound does not apply to them.
	if d := deadlineConnOf(conn.Conn().PgConn().Conn()); d != nil {
		d.suspend(true)
		defer d.suspend(false)
	}
	if err := pgx.BeginTxFunc(ctx, conn, db.txOptions(pgx.TxOptions{}), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		schema, err := targetSchema(ctx, tx)
		if err != nil {
			return err
		}
		if err := checkOwnership(ctx, tx, schema); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		return nil
	}); err != nil {
		return err
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := path.Base(name)
		var version int
		if _, err := fmt.Sscanf(base, "%d_", &version); err != nil {
			return fmt.Errorf("migration %s: name must start with its number: %w", base, err)
		}
		if err := db.applyMigration(ctx, conn.Conn(), version, base, name); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) applyMigration(ctx context.Context, conn *pgx.Conn, version int, base, name string) error {
	tx, err := conn.BeginTx(ctx, db.txOptions(pgx.TxOptions{}))
	if err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migration %s: take migration lock: %w", base, err)
	}
	var applied bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&applied); err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	} else if applied {
		return nil
	}
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	// No parameters: the simple protocol, which runs several statements.
	if _, err := tx.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("migration %s: %w", base, err)
	}
	if version == contentHashMigration {
		if err := backfillContentHash(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	if version == embeddingBytesMigration {
		if err := backfillEmbeddingBytes(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`,
		version, strings.TrimSuffix(base, ".sql")); err != nil {
		return fmt.Errorf("record migration %s: %w", base, err)
	}
	return tx.Commit(ctx)
}

// lockKey maps a lock name to an advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// translate turns driver errors into domain errors, once, at the boundary.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return loci.Errorf(loci.ENOTFOUND, "not found")
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return loci.Errorf(loci.ECONFLICT, "already exists")
		case "23503": // foreign_key_violation: what the row refers to is gone
			return loci.Errorf(loci.ENOTFOUND, "what it refers to does not exist")
		}
	}
	return err
}

// contentHashMigration is the migration that adds records.content_hash;
// backfillContentHash then hashes the rows written before, in Go.
const contentHashMigration = 10

// backfillContentHash sets the content_hash of every record without one
// (loci.ContentHash), in batches, in the migration's transaction.
func backfillContentHash(ctx context.Context, tx pgx.Tx) error {
	for {
		rows, err := tx.Query(ctx, `SELECT id, content FROM records WHERE content_hash IS NULL ORDER BY id LIMIT 1000`)
		if err != nil {
			return fmt.Errorf("backfill content hashes: %w", err)
		}
		var ids, hashes []string
		for rows.Next() {
			var id, content string
			if err := rows.Scan(&id, &content); err != nil {
				rows.Close()
				return fmt.Errorf("backfill content hashes: %w", err)
			}
			ids, hashes = append(ids, id), append(hashes, loci.ContentHash(content))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("backfill content hashes: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE records r SET content_hash = v.h FROM unnest($1::text[], $2::text[]) AS v(id, h) WHERE r.id = v.id`, ids, hashes); err != nil {
			return fmt.Errorf("backfill content hashes: %w", err)
		}
	}
}
