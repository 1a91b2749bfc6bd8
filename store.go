package loci

import (
	"context"
	"encoding/json"
	"time"
)

// Store is a storage backend: SQLite (sqlite/) or PostgreSQL (postgres/).
// It knows records, not rules: the rules live once, above the backends, in
// memory/, and run inside the transactions Store hands out.
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
// transaction, and only what a backend alone can do. What can be derived
// from it (a record by id, the records of a filter as a slice, an agent,
// a user or a key by id or hash) is written once, on Tx. Its methods
// return domain errors (ENOTFOUND, ECONFLICT, EINVALID) where the listed
// cases occur and internal errors otherwise. The conformance suite
// (storetest/) checks every method on every backend.
type StoreTx interface {
	// Lock takes an exclusive lock named name until the transaction ends,
	// so read-modify-write rules are safe across processes that share one
	// database. On SQLite (one writer) it does nothing.
	Lock(ctx context.Context, name string) error

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

	// InsertVersion keeps a previous value of a record.
	InsertVersion(ctx context.Context, v RecordVersion) error
	// ListVersions returns a record's kept versions, newest first.
	ListVersions(ctx context.Context, recordID string) ([]RecordVersion, error)

	// Changes returns what changed among the workspace's records after
	// the cursor since, as of this transaction's snapshot, and the cursor
	// to pass next time (NoCursor: only the current cursor, no changes).
	// It is how a process keeps in-memory search indexes exact while other
	// processes write: every insert, update of searchable fields or
	// embedding, move and delete is reported (access counts are not).
	// ChangeSet.Reset says changes may be missing (pruned: drop what was
	// derived from the workspace); ChangeSet.Dirty says this transaction
	// has written records itself and cannot read the feed.
	Changes(ctx context.Context, workspace string, since int64) (*ChangeSet, error)
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

	// InsertAgent creates an agent. ECONFLICT when it exists.
	InsertAgent(ctx context.Context, a *Agent) error
	// FindAgents returns the agents f selects by id, and how many it
	// selects ignoring its limit and offset.
	FindAgents(ctx context.Context, f AgentFilter) ([]*Agent, int, error)
	// DeleteAgent deletes an agent row and its block links (not its
	// records: the rules above do that). ENOTFOUND when absent.
	DeleteAgent(ctx context.Context, workspace, id string) error

	// AttachBlock links a shared block to a consuming agent; attaching
	// twice is not an error.
	AttachBlock(ctx context.Context, workspace, blockID, agentID string, at time.Time) error
	// DetachBlock removes a link and reports whether there was one.
	DetachBlock(ctx context.Context, workspace, blockID, agentID string) (bool, error)
	// ListBlockLinks returns the links of a block (blockID set) or of a
	// consuming agent (agentID set), oldest first.
	ListBlockLinks(ctx context.Context, workspace, blockID, agentID string) ([]BlockLink, error)

	// EnsureUser creates the user with empty defaults unless it exists, and
	// returns it with whether it was created.
	EnsureUser(ctx context.Context, workspace, id string, at time.Time) (*User, bool, error)
	// FindUsers returns the users of the table f selects (Workspace, ID
	// when set, Limit, Offset; not Match) by id, and how many it selects
	// ignoring its limit and offset.
	FindUsers(ctx context.Context, f UserFilter) ([]*User, int, error)
	// UpdateUser replaces a user's defaults. ENOTFOUND when absent.
	UpdateUser(ctx context.Context, u *User) error
	// DeleteUser deletes a user row (not its records) and reports whether
	// it existed.
	DeleteUser(ctx context.Context, workspace, id string) (bool, error)
	// ListUserSummaries returns the users f selects: those of the users
	// table and every user_id the workspace's records name, newest first
	// (by the earlier of registration and oldest record, then id), and how
	// many f selects ignoring its limit and offset.
	ListUserSummaries(ctx context.Context, f UserFilter) ([]*UserSummary, int, error)

	// InsertKey stores an API key (its hash, never its secret). ECONFLICT
	// when the id or the hash exists.
	InsertKey(ctx context.Context, k *APIKey) error
	// FindKeys returns the keys f selects, active or revoked, oldest
	// first.
	FindKeys(ctx context.Context, f KeyFilter) ([]*APIKey, error)
	// RevokeKey marks an active key of the workspace ("" for any) revoked
	// at at. ENOTFOUND when there is no such active key.
	RevokeKey(ctx context.Context, workspace, id string, at time.Time) error

	// InsertAudit appends an entry to the access log.
	InsertAudit(ctx context.Context, e *AuditEntry) error
	// FindAudit returns the entries that match f, newest first, and how
	// many match ignoring f's limit and offset.
	FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, int, error)
	// PruneAudit deletes the entries of every workspace older than before
	// (unless zero) and then the oldest beyond the newest keep (unless 0;
	// in the order they were written, a backend may keep a few fewer), and
	// returns how many it deleted.
	PruneAudit(ctx context.Context, before time.Time, keep int) (int, error)
}

// AgentFilter selects agents of one workspace: those of the agents table
// or, with Known, besides them every agent id the workspace's records
// name that has no agent (an agent with only notes), with no name and its
// first record's time.
type AgentFilter struct {
	Workspace string
	ID        string // when set, only this agent
	Known     bool
	Limit     int // 0: no limit
	Offset    int
}

// KeyFilter selects API keys: those of Workspace ("" for every
// workspace), or the one whose secret hashes to Hash (in any workspace)
// when Hash is set.
type KeyFilter struct {
	Workspace string
	Hash      string
}

// Agent is an agent that owns memory: blocks, notes, passages.
type Agent struct {
	Workspace string    `json:"-"`
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// BlockLink attaches a shared block to an agent that is not its owner.
type BlockLink struct {
	BlockID   string    `json:"block_id"`
	AgentID   string    `json:"agent_id"`
	CreatedAt time.Time `json:"created_at"`
}

// MaxUserIDBytes bounds a user id.
const MaxUserIDBytes = 256

// User is a person whose preferences and sessions are remembered. Defaults
// holds the user's standing defaults (seed 001) as a JSON object.
type User struct {
	Workspace string          `json:"-"`
	ID        string          `json:"id"`
	Defaults  json.RawMessage `json:"defaults"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}
