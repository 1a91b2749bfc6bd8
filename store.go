package loci

import (
	"context"
	"time"
)

// Store is a storage backend: SQLite (sqlite/) or PostgreSQL (postgres/).
// It knows records, not rules: the rules live once, above the backends, in
// rules/, and run inside the transactions Store hands out.
//
// A backend implements Store and StoreTx (what only it can do; the rest is
// derived once, on Tx). Another backend is a package of its own that
// passes the conformance suite (storetest.Run and storetest.RunIndex in
// its tests), wired in where a store is opened (cmd/loci/store.go) and
// where the rules' tests open each backend (internal/testdb).
type Store interface {
	// Update runs fn in a read-write transaction, committed when fn returns
	// nil and rolled back otherwise. fn's error is returned as is.
	// The backend hands fn its StoreTx wrapped in a Tx.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction. Each statement sees what
	// was committed when it began (PostgreSQL's READ COMMITTED), or the
	// whole transaction one snapshot (SQLite).
	View(ctx context.Context, fn func(Tx) error) error
	// Snapshot runs fn in a read-only transaction that sees one snapshot
	// of the store, from its first read to its end, whatever commits
	// meanwhile: reads that span statements never mix two states (an
	// export). Its Changes answers Dirty on a backend whose change feed
	// needs the latest commits.
	Snapshot(ctx context.Context, fn func(Tx) error) error
	// Ping reports whether storage answers reads (readiness): nil, or
	// EUNAVAILABLE when it does not; ESTORAGEFULL when it does but the
	// last write failed for a full disk and none has succeeded since.
	Ping(ctx context.Context) error
	// Close releases the store's connections.
	Close() error
}

// StoreTx is the storage interface: what a backend implements for one
// transaction, and only what a backend alone can do. The records have
// methods of their own (their indexes, change feed and embeddings are
// where a backend earns its keep); the plain tables (agents, block links,
// users, keys, the audit log, record versions) are stored through five
// generic ones (InsertRow, FindRows, CountRows, UpdateRows, DeleteRows),
// whose SQL internal/sqltable writes for the SQL backends. What can be
// derived (a record by id, the records of a filter as a slice, every
// typed method of the plain tables) is written once, on Tx. Its methods
// return domain errors (ENOTFOUND, ECONFLICT, EINVALID) where the listed
// cases occur and internal errors otherwise. The conformance suite
// (storetest/) checks every method on every backend.
type StoreTx interface {
	// Lock takes an exclusive lock named name until the transaction ends,
	// so read-modify-write rules are safe across processes that share one
	// database. On SQLite (one writer) it does nothing.
	Lock(ctx context.Context, name string) error
	// LockRecords locks the records of workspace with the given ids
	// against every other writer until the transaction ends: an update
	// or delete of one waits, and a read after it sees each as last
	// committed. A delete that decides on what it read (a forget's match)
	// locks before it reads again. Ids absent are ignored. On SQLite (one
	// writer) it does nothing.
	LockRecords(ctx context.Context, workspace string, ids []string) error

	// InsertRecords stores new records in as few round trips as the
	// backend allows (an import's batches; one record: Tx.InsertRecord).
	// ECONFLICT when an id, or a key in the same workspace, kind and
	// scope, already exists. It returns the error of the first that
	// fails; the caller then rolls the transaction back, as some of the
	// others may be stored in it.
	InsertRecords(ctx context.Context, rs []*Record) error
	// UpdateRecord overwrites every mutable field of the record with r's id
	// (all but id, workspace, kind, created_at) if its stored version is
	// prevVersion. ENOTFOUND when absent, ECONFLICT when the version differs.
	// access_count and last_accessed_at never go down: TouchRecords may have
	// raised them since r was read (it does not change the version), and an
	// update must not lose those accesses.
	UpdateRecord(ctx context.Context, r *Record, prevVersion int) error
	// ScanRecords calls fn with each record that matches f, in f.Order
	// (honouring f.Limit and f.Offset), without holding them all in
	// memory; it stops at fn's first error and returns it. Search indexes
	// are loaded with it, and Tx.FindRecords and Tx.GetRecord read
	// through it.
	ScanRecords(ctx context.Context, f RecordFilter, fn func(*Record) error) error
	// CountRecords returns how many records match f, ignoring its limit
	// and offset.
	CountRecords(ctx context.Context, f RecordFilter) (int, error)
	// CountRecordsBy counts the records that match f (its order, limit and
	// offset ignored) per group of by, most records first (ties by value),
	// at most limit groups (0: all), and returns how many groups there are
	// in all.
	CountRecordsBy(ctx context.Context, f RecordFilter, by Grouping, limit int) ([]GroupCount, int, error)
	// DeleteRecords deletes the records that match f (limit and offset
	// ignored) with their versions, index entries and embeddings, and
	// returns how many it deleted.
	DeleteRecords(ctx context.Context, f RecordFilter) (int, error)
	// TouchRecords adds one to access_count and sets last_accessed_at for
	// the given records.
	TouchRecords(ctx context.Context, workspace string, ids []string, at time.Time) error

	// Changes returns what changed among the workspace's records after
	// the cursor since, as of this transaction's snapshot, and the cursor
	// to pass next time (since nil: only the current cursor, no changes).
	// It is how a process keeps in-memory search indexes exact while other
	// processes write: every insert, update of searchable fields or
	// embedding, move and delete is reported (access counts are not).
	// ChangeSet.Reset says changes may be missing (pruned: drop what was
	// derived from the workspace); ChangeSet.Dirty says this transaction
	// has written records itself and cannot read the feed.
	Changes(ctx context.Context, workspace string, since *Cursor) (*ChangeSet, error)
	// SetEmbedding stores a record's embedding and the model that made it,
	// if the record is still at version (its content unchanged since it
	// was read), without changing its version or updated_at. It reports
	// whether it stored it; a missing record is not an error.
	SetEmbedding(ctx context.Context, workspace, id string, version int, model string, vec []float32) (bool, error)
	// PendingEmbeddings returns up to limit records of any workspace
	// whose embedding was not made by model (none yet, or another
	// model's), oldest first.
	PendingEmbeddings(ctx context.Context, model string, limit int) ([]*Record, error)
	// CountPendingEmbeddings counts the records that match f whose
	// embedding was not made by model. An empty f.Workspace counts every
	// workspace's (the embedding queue's depth), ignoring the rest of f.
	// (Searches count their scope's pending records from the index.)
	CountPendingEmbeddings(ctx context.Context, f RecordFilter, model string) (int, error)

	// FindAgents returns the agents f selects by id, and how many it
	// selects ignoring its limit and offset: those of the agents table
	// and, with f.Known, the agents the workspace's records name (a join
	// with the records, as ListUserSummaries is, which is why it is not
	// derived from the plain table).
	FindAgents(ctx context.Context, f AgentFilter) ([]*Agent, int, error)
	// ListUserSummaries returns the users f selects: those of the users
	// table and every user_id the workspace's records name, newest first
	// (by the earlier of registration and oldest record, then id), and how
	// many f selects ignoring its limit and offset.
	ListUserSummaries(ctx context.Context, f UserFilter) ([]*UserSummary, int, error)

	// The plain tables (rowquery.go, tables.go) are stored through these
	// five; Tx derives their typed methods.

	// InsertRow adds row to t unless a row with the same primary key or
	// unique column exists, and reports whether it added it. A serial
	// column's value is ignored: the store numbers it.
	InsertRow(ctx context.Context, t *Table, row Row) (bool, error)
	// FindRows calls fn with each row q selects, in q.Order, and stops at
	// fn's first error and returns it.
	FindRows(ctx context.Context, q RowQuery, fn func(Row) error) error
	// CountRows returns how many rows q selects, ignoring its order,
	// limit and offset.
	CountRows(ctx context.Context, q RowQuery) (int, error)
	// UpdateRows sets the columns of set in the rows q selects (its order,
	// limit and offset ignored) and returns how many it updated.
	UpdateRows(ctx context.Context, q RowQuery, set []Assign) (int, error)
	// DeleteRows deletes the rows q selects (its order, limit and offset
	// ignored) and returns how many it deleted.
	DeleteRows(ctx context.Context, q RowQuery) (int, error)
}
