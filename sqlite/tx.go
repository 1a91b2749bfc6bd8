package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/sqltable"
)

var _ loci.StoreTx = (*Tx)(nil)

// Tx is a transaction on a SQLite store.
type Tx struct {
	// Rows stores the plain tables (loci.Table) for the transaction.
	sqltable.Rows
	tx *sql.Tx
	db *DB
	// gen is the generation this transaction stamps its record changes
	// with (see migration 0006), taken at its first change; 0 before.
	gen int64
	// write: a transaction of the writer (Update).
	write bool
	// unprepared is the statements the transaction ran that the writer
	// had not prepared (stmts.go).
	unprepared []string
	// bound is the prepared statements the transaction ran, bound to it,
	// by text (stmts.go).
	bound map[string]*sql.Stmt
	// inserted counts the records the transaction inserted.
	inserted int
	// bulk: the transaction raised the checkpoint threshold
	// (bulkCheckpoint).
	bulk bool
}

// stamp returns the transaction's generation, taking the next one at the
// first change of a record.
func (tx *Tx) stamp(ctx context.Context) (int64, error) {
	if tx.gen == 0 {
		if err := tx.queryRow(ctx, sqlStamp).Scan(&tx.gen); err != nil {
			return 0, translate(fmt.Errorf("stamp change: %w", err))
		}
	}
	return tx.gen, nil
}

// Lock does nothing: SQLite has one writer, and Update holds it.
func (tx *Tx) Lock(ctx context.Context, name string) error { return nil }

// LockRecords does nothing: SQLite has one writer, and Update holds it.
func (tx *Tx) LockRecords(ctx context.Context, workspace string, ids []string) error { return nil }

const recordColumns = `id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
	data, tags, category, action_type, outcome, confidence, access_count, last_accessed_at,
	created_at, updated_at, expires_at, version, embedding, embedding_model, valid_at, invalid_at, review, metadata`

// insertRecord stores a new record, naming only the columns it does not
// leave at their default (insert.go).
func (tx *Tx) insertRecord(ctx context.Context, r *loci.Record) error {
	args, err := recordArgs(r)
	if err != nil {
		return err
	}
	gen, err := tx.stamp(ctx)
	if err != nil {
		return err
	}
	q, args := sparseInsert(append(args, gen))
	st, err := tx.insertStmt(ctx, q)
	if err == nil {
		_, err = st.ExecContext(ctx, args...)
	}
	if err != nil {
		return translate(fmt.Errorf("insert record: %w", err))
	}
	if tx.inserted++; tx.inserted == batchRecords {
		return tx.growCache(ctx, batchCacheKiB)
	}
	return nil
}

// The writer's page cache, in KiB. Every page cached is resident memory,
// so a process starts small and grows it for the writes that need more.
const (
	// writerCacheKiB is the cache at open: it holds the pages a single
	// write touches again (the records table's indexes, the audit log's
	// end). 256 KiB, not 1 MiB, left single writes over REST as fast (10k
	// passages, 4 clients) and the server 0.7 MB smaller.
	writerCacheKiB = 256
	// batchCacheKiB is the cache once a transaction has inserted
	// batchRecords records: a batch's dirty pages (a thousand passages
	// dirty a few hundred) stay in memory until it commits instead of
	// being spilled to the WAL and read back (a batched ingest ran 7%
	// faster with 1 MiB than with 256 KiB).
	batchCacheKiB = 2 << 10
	batchRecords  = 64
	// bulkCacheKiB is the cache during a bulk load (InsertRecords: an
	// import): its indexes' pages stay in memory between batches
	// instead of being read again, and more of a batch's dirty pages
	// until it commits instead of being spilled to the WAL and written
	// again (1M passages imported in 43.5 s with 64 MiB, 47.2 s with 32
	// MiB, peak RSS 340 MB and 275 MB).
	bulkCacheKiB = 64 << 10
)

// The WAL is checkpointed into the database once the writer's commits
// have written this many pages to it (checkpoint.go).
const (
	// walCheckpointPages is SQLite's default, 4 MiB: the WAL stays small.
	walCheckpointPages = 1000
	// backstopCheckpointPages is the writer's own checkpoint (PRAGMA
	// wal_autocheckpoint: when a commit leaves the WAL this many pages or
	// more), for a WAL that the checkpoints on the readers have not kept
	// small.
	backstopCheckpointPages = 4 * walCheckpointPages
	// bulkCheckpointPages is the threshold, and the writer's own, for
	// the commit of a bulk load (InsertRecords of more than one record).
	// Its random index inserts (a record's agent, user and content key)
	// dirty thousands of pages a batch, mostly the ones the batch before
	// dirtied; checkpointing after every batch copied each of them into
	// the database again, at every batch (12% of an import's CPU time at
	// 1M records). Once in 256 MiB, each page is copied once however many
	// batches wrote it.
	bulkCheckpointPages = 64 << 10
)

// growCache raises the writer's page cache to kib if it is smaller. The
// connection keeps it afterwards: a process that wrote a batch, or
// imported, once is likely to again.
func (tx *Tx) growCache(ctx context.Context, kib int64) error {
	if !tx.write || tx.db.cacheKiB.Load() >= kib {
		return nil
	}
	if _, err := tx.exec(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, kib)); err != nil {
		return fmt.Errorf("grow page cache: %w", err)
	}
	tx.db.cacheKiB.Store(kib)
	return nil
}

// bulkCheckpoint raises, for this transaction's commit, the WAL size
// that the commit checkpoints at to bulkCheckpointPages; runOn sets it
// back once the transaction has ended.
func (tx *Tx) bulkCheckpoint(ctx context.Context) error {
	if !tx.write || tx.bulk {
		return nil
	}
	// Not through tx.exec, which would have the statement prepared after
	// the transaction, and SQLite runs this pragma when it prepares it.
	if _, err := tx.tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, bulkCheckpointPages)); err != nil {
		return fmt.Errorf("raise the checkpoint threshold: %w", err)
	}
	tx.bulk = true
	return nil
}

// InsertRecords stores new records; a bulk load (import: more than one)
// grows the writer's page cache for it.
func (tx *Tx) InsertRecords(ctx context.Context, rs []*loci.Record) error {
	if len(rs) > 1 {
		if err := tx.growCache(ctx, bulkCacheKiB); err != nil {
			return err
		}
		if err := tx.bulkCheckpoint(ctx); err != nil {
			return err
		}
	}
	for _, r := range rs {
		if err := tx.insertRecord(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// UpdateRecord overwrites the mutable fields of a record at prevVersion.
func (tx *Tx) UpdateRecord(ctx context.Context, r *loci.Record, prevVersion int) error {
	args, err := recordArgs(r)
	if err != nil {
		return err
	}
	gen, err := tx.stamp(ctx)
	if err != nil {
		return err
	}
	// args[0:3] are id, workspace, kind; access_count and last_accessed_at
	// are args[16:18] (the latter passed twice); created_at is args[18].
	// The access fields never go down: TouchRecords may have raised them
	// since r was read, without changing the version.
	res, err := tx.exec(ctx, `UPDATE records SET agent_id = ?, user_id = ?, session_id = ?, task_id = ?,
		key = ?, content = ?, search_text = ?, data = ?, tags = ?, category = ?, action_type = ?, outcome = ?,
		confidence = ?, access_count = max(access_count, ?),
		last_accessed_at = CASE WHEN ? IS NULL THEN last_accessed_at ELSE max(coalesce(last_accessed_at, 0), ?) END,
		updated_at = ?, expires_at = ?, version = ?, embedding = ?, embedding_model = ?,
		valid_at = ?, invalid_at = ?, review = ?, metadata = ?, content_key = ?, change_gen = ?
		WHERE id = ? AND workspace = ? AND version = ?`,
		append(append(append(append([]any{}, args[3:18]...), args[17]), args[19:]...), gen, r.ID, r.Workspace, prevVersion)...)
	if err != nil {
		return translate(fmt.Errorf("update record: %w", err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var v int
		err := tx.queryRow(ctx, `SELECT version FROM records WHERE id = ? AND workspace = ?`, r.ID, r.Workspace).Scan(&v)
		if err == sql.ErrNoRows {
			return loci.Errorf(loci.ENOTFOUND, "record %s not found", r.ID)
		} else if err != nil {
			return fmt.Errorf("update record: %w", err)
		}
		return loci.Errorf(loci.ECONFLICT, "version conflict: expected %d, found %d", prevVersion, v)
	}
	return nil
}

// ScanRecords calls fn with each record that matches f, in f.Order.
func (tx *Tx) ScanRecords(ctx context.Context, f loci.RecordFilter, fn func(*loci.Record) error) error {
	if parts := scopeParts(f); parts != nil {
		for _, part := range parts {
			if err := tx.ScanRecords(ctx, part, fn); err != nil {
				return err
			}
		}
		return nil
	}
	q, args, err := selectRecords(f)
	if err != nil {
		return err
	}
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("find records: %w", err)
	}
	defer rows.Close()
	var sc recordScan
	for rows.Next() {
		r, err := sc.scan(rows)
		if err != nil {
			return err
		}
		if f.ContentHash != nil && loci.ContentHash(r.Content) != *f.ContentHash {
			continue // its key's 64 bits alike, not its hash
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find records: %w", err)
	}
	return nil
}

// sqlRecordByID reads one record by id (prepared when first run).
const sqlRecordByID = `SELECT ` + recordColumns + ` FROM records WHERE id = ? AND +workspace = ?`

// selectRecords is the query of ScanRecords.
func selectRecords(f loci.RecordFilter) (string, []any, error) {
	if onlyIDs(f) {
		if len(f.IDs) == 1 {
			// One record (Tx.GetRecord): its id's index, without
			// decoding a list.
			return sqlRecordByID, []any{f.IDs[0], f.Workspace}, nil
		}
		// Records by id, as searches read their results: one prepared
		// statement whatever the number of ids.
		ids, err := json.Marshal(f.IDs)
		if err != nil {
			return "", nil, fmt.Errorf("encode ids: %w", err)
		}
		return sqlRecordsByID, []any{string(ids), f.Workspace}, nil
	}
	where, args := whereClause(f, "")
	q := `SELECT ` + recordColumns + ` FROM ` + recordsFrom(f) + ` WHERE ` + where
	if o := orderClause(f.Order); o != "" {
		q += ` ORDER BY ` + o
	}
	return q + limitClause(f.Limit, f.Offset), args, nil
}

// recordsFrom is the FROM clause of a read of the records f selects. A
// filter naming a key and a user is answered from the key's versions:
// without statistics the planner preferred an index that returns the
// rows in order (every note of an agent, every fact of a user) and
// filtered them by key, a cost that grew with the scope (a note's write
// read every note of its agent).
func recordsFrom(f loci.RecordFilter) string {
	if f.ContentHash != nil {
		// A repeat's candidates: the few records whose content hashes
		// alike, whatever the size of the scope (the planner, without
		// statistics, preferred the scope's index and read all of it).
		return "records INDEXED BY records_content_key"
	}
	if (f.Key != nil || f.Keyed) && f.UserID != nil && !f.OrGlobalUser && len(f.Kinds) > 0 {
		// A user's keyed records (their sessions, without the
		// messages) too.
		return "records INDEXED BY records_key_versions"
	}
	if !f.ExpiredAt.IsZero() && len(f.IDs) == 0 {
		// An expiry sweep: the records whose time has passed, few
		// whatever the workspace holds. The planner preferred the
		// workspace's index of the kinds, and read all of them.
		return "records INDEXED BY records_expires"
	}
	return "records"
}

// scopeParts splits the read of a search index's scope (index/cache.go:
// an agent's records, of every kind, in no order) where the planner,
// without statistics, would read far more than the scope holds, into
// disjoint parts that it plans on their own indexes:
//   - an agent's records of a user or of none (OrGlobalUser: an agent's
//     search for a user) in the user's records and those of no user: read
//     whole, SQLite read every agent's records of no user beside the
//     user's (one agent's 1,000 records of a user, among 100,000 notes of
//     no user: 35 ms);
//   - an agent's records of no user in the agent's own kinds (notes,
//     blocks, passages), which carry no user and are read on
//     records_agent (whereClause), and the others: read whole, the planner
//     searched records_user for the empty user, every agent's own memory
//     (one agent's 100 notes among 1,000 agents': 27 ms, 1.3 ms in parts).
//
// It returns nil for any other filter.
func scopeParts(f loci.RecordFilter) []loci.RecordFilter {
	if f.AgentID == nil || *f.AgentID == "" || f.UserID == nil ||
		len(f.Kinds) > 0 || f.IDs != nil || f.Key != nil || f.ContentHash != nil || !f.ExpiredAt.IsZero() ||
		f.Order != loci.OrderNone || f.Limit > 0 || f.Offset > 0 {
		return nil
	}
	switch {
	case f.OrGlobalUser && *f.UserID != "":
		user, none := f, f
		user.OrGlobalUser, none.OrGlobalUser, none.UserID = false, false, loci.Ptr("")
		return append([]loci.RecordFilter{user}, scopeParts(none)...)
	case !f.OrGlobalUser && *f.UserID == "":
		own, other := f, f
		own.Kinds = loci.AgentScopedKinds()
		other.Kinds = loci.KindsWhere(func(t loci.KindTraits) bool { return !t.AgentScoped })
		return []loci.RecordFilter{own, other}
	}
	return nil
}

// onlyIDs reports whether f selects records by id alone, in no order.
func onlyIDs(f loci.RecordFilter) bool {
	if len(f.IDs) == 0 || f.Order != loci.OrderNone {
		return false
	}
	f.Workspace, f.IDs, f.Order = "", nil, 0
	return reflect.ValueOf(f).IsZero()
}

// CountRecords counts the records that match f.
func (tx *Tx) CountRecords(ctx context.Context, f loci.RecordFilter) (int, error) {
	if f.ContentHash != nil {
		// The candidates of a key, each checked against the hash.
		n := 0
		err := tx.ScanRecords(ctx, f, func(*loci.Record) error { n++; return nil })
		return n, err
	}
	if parts := scopeParts(f); parts != nil {
		total := 0
		for _, part := range parts {
			n, err := tx.CountRecords(ctx, part)
			if err != nil {
				return 0, err
			}
			total += n
		}
		return total, nil
	}
	where, args := whereClause(f, "")
	var n int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM `+recordsFrom(f)+` WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count records: %w", err)
	}
	return n, nil
}

// touchSQL is TouchRecords' statement for n ids; its arguments are the
// time, the ids and the workspace ("+workspace" keeps the planner on the
// id index).
func touchSQL(n int) string {
	return `UPDATE records SET access_count = access_count + 1, last_accessed_at = ?
		WHERE id IN (` + placeholders(n) + `) AND +workspace = ?`
}

// tombstoneRetention is how long deletes are kept in the change feed; a
// process that has not read the feed for longer reloads what it holds.
const tombstoneRetention = 10 * time.Minute

// DeleteRecords deletes the records that match f; versions and links go
// with them (foreign keys), and each leaves a tombstone in the change feed
// (a trigger).
func (tx *Tx) DeleteRecords(ctx context.Context, f loci.RecordFilter) (int, error) {
	if _, err := tx.stamp(ctx); err != nil {
		return 0, err
	}
	where, args := whereClause(f, "")
	res, err := tx.exec(ctx, `DELETE FROM `+recordsFrom(f)+` WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("delete records: %w", err)
	}
	n, _ := res.RowsAffected()
	// Prune old tombstones, raising the floor past them.
	old := micros(time.Now().Add(-tombstoneRetention))
	if _, err := tx.exec(ctx, `UPDATE search_generation SET floor = max(floor, coalesce(
		(SELECT max(gen) FROM record_tombstones WHERE deleted_at < ?), 0)) WHERE id = 1`, old); err != nil {
		return 0, fmt.Errorf("prune tombstones: %w", err)
	}
	if _, err := tx.exec(ctx, `DELETE FROM record_tombstones WHERE deleted_at < ?`, old); err != nil {
		return 0, fmt.Errorf("prune tombstones: %w", err)
	}
	return int(n), nil
}

// TouchRecords bumps access_count and last_accessed_at.
func (tx *Tx) TouchRecords(ctx context.Context, workspace string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	args := []any{micros(at)}
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, workspace)
	_, err := tx.exec(ctx, touchSQL(len(ids)), args...)
	if err != nil {
		return fmt.Errorf("touch records: %w", err)
	}
	return nil
}

// recordArgs returns r's column values in recordColumns order, then its
// content key.
func recordArgs(r *loci.Record) ([]any, error) {
	tags, err := json.Marshal(nonNil(r.Tags))
	if err != nil {
		return nil, fmt.Errorf("encode tags: %w", err)
	}
	var key any
	if r.Key != "" {
		key = r.Key
	}
	search := r.SearchText
	if search == "" {
		search = r.Content
	}
	var emb any
	if r.Embedding != nil {
		emb = encodeVector(r.Embedding)
	}
	// Room for the change generation that insertRecord appends.
	return append(make([]any, 0, 30),
		r.ID, r.Workspace, string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, key, r.Content, search,
		jsonText(r.Data), string(tags), r.Category, r.ActionType, r.Outcome, r.Confidence, r.AccessCount, nullMicros(r.LastAccessedAt),
		micros(r.CreatedAt), micros(r.UpdatedAt), nullMicros(r.ExpiresAt), r.Version, emb, r.EmbeddingModel,
		nullMicros(r.ValidAt), nullMicros(r.InvalidAt), r.Review, nullJSON(r.Metadata), loci.ContentKey(loci.ContentHash(r.Content)),
	), nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRecords(rows *sql.Rows) ([]*loci.Record, error) {
	defer rows.Close()
	var out []*loci.Record
	var sc recordScan
	for rows.Next() {
		r, err := sc.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// recordScan scans records row after row into the same destinations
// (a row's 28 columns, once allocated), copying each into a new record:
// an index's load scans a scope's every record.
type recordScan struct {
	r                                         loci.Record
	kind, data, tags                          string
	key, meta                                 sql.NullString
	lastAccessed, expires, validAt, invalidAt sql.NullInt64
	created, updated                          int64
	emb                                       []byte
	dest                                      []any
}

func (sc *recordScan) scan(s scanner) (*loci.Record, error) {
	if sc.dest == nil {
		r := &sc.r
		sc.dest = []any{&r.ID, &r.Workspace, &sc.kind, &r.AgentID, &r.UserID, &r.SessionID, &r.TaskID, &sc.key, &r.Content, &r.SearchText,
			&sc.data, &sc.tags, &r.Category, &r.ActionType, &r.Outcome, &r.Confidence, &r.AccessCount, &sc.lastAccessed,
			&sc.created, &sc.updated, &sc.expires, &r.Version, &sc.emb, &r.EmbeddingModel, &sc.validAt, &sc.invalidAt, &r.Review, &sc.meta}
	}
	sc.r = loci.Record{}
	if err := s.Scan(sc.dest...); err != nil {
		return nil, fmt.Errorf("scan record: %w", err)
	}
	r := new(loci.Record)
	*r = sc.r
	r.Kind, r.Key = loci.Kind(sc.kind), sc.key.String
	r.Data = json.RawMessage(sc.data)
	if sc.meta.Valid && sc.meta.String != "" {
		r.Metadata = json.RawMessage(sc.meta.String)
	}
	if sc.tags != "[]" { // most records have none: no decoding
		if err := json.Unmarshal([]byte(sc.tags), &r.Tags); err != nil {
			return nil, fmt.Errorf("decode tags of %s: %w", r.ID, err)
		}
		if len(r.Tags) == 0 {
			r.Tags = nil
		}
	}
	r.CreatedAt, r.UpdatedAt = fromMicros(sc.created), fromMicros(sc.updated)
	if sc.lastAccessed.Valid {
		r.LastAccessedAt = fromMicros(sc.lastAccessed.Int64)
	}
	if sc.expires.Valid {
		r.ExpiresAt = fromMicros(sc.expires.Int64)
	}
	if sc.validAt.Valid {
		r.ValidAt = fromMicros(sc.validAt.Int64)
	}
	if sc.invalidAt.Valid {
		r.InvalidAt = fromMicros(sc.invalidAt.Int64)
	}
	if sc.emb != nil {
		r.Embedding = decodeVector(sc.emb)
	}
	return r, nil
}

// whereClause renders f as a SQL condition on columns prefixed by p.
func whereClause(f loci.RecordFilter, p string) (string, []any) {
	// With ids, "+workspace" keeps the planner on the id index: a plain
	// workspace condition made it prefer the workspace indexes (scanning
	// the whole workspace, or the kind in it) as soon as a few ids were
	// given.
	ws := p + "workspace = ?"
	if len(f.IDs) > 0 {
		ws = "+" + ws
	}
	w := &filterSQL{p: p}
	w.add(ws, f.Workspace)
	w.scope(f)
	w.times(f)
	if len(f.Review) > 0 {
		w.in("review", f.Review)
		if !slices.Contains(f.Review, "") {
			// Lets the planner read records_review, which holds only
			// the records waiting for review (migration 0016).
			w.add(w.p + "review <> ''")
		}
	}
	if f.MinConfidence != nil {
		w.add(p+"confidence >= ?", *f.MinConfidence)
	}
	if f.MaxConfidence != nil {
		w.add(p+"confidence < ?", *f.MaxConfidence)
	}
	return strings.Join(w.conds, " AND "), w.args
}

// filterSQL collects the conditions of a filter on columns prefixed by p, and
// their arguments.
type filterSQL struct {
	p     string
	conds []string
	args  []any
}

func (w *filterSQL) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *filterSQL) in(col string, vals []string) {
	w.conds = append(w.conds, w.p+col+" IN ("+placeholders(len(vals))+")")
	for _, v := range vals {
		w.args = append(w.args, v)
	}
}

func (w *filterSQL) eq(col string, v *string) {
	if v != nil {
		w.add(w.p+col+" = ?", *v)
	}
}

// sparse is eq for a column whose index holds only the rows where it is
// not empty (records_session, records_task: migration 0014): a value
// that is not empty says so too, which the planner needs to use the
// index.
func (w *filterSQL) sparse(col string, v *string) {
	w.eq(col, v)
	if v != nil && *v != "" {
		w.add(w.p + col + " <> ''")
	}
}

// scope adds f's kinds, ids, scope, key, tags and labels.
func (w *filterSQL) scope(f loci.RecordFilter) {
	p := w.p
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		w.in("kind", kinds)
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			w.add("0")
		} else {
			w.in("id", f.IDs)
		}
	}
	w.eq("agent_id", f.AgentID)
	// An agent's own kinds (notes, blocks, passages) carry no user, so
	// their user '' spans every agent's: with an agent named, a user
	// condition ("+", no index) leaves the planner on records_agent, the
	// agent's records of the kind. Without statistics it chose
	// records_user, and listing one agent's notes read every agent's. (A
	// key's lookup keeps its index, records_key_versions: recordsFrom.)
	user := p + "user_id"
	if f.AgentID != nil && *f.AgentID != "" && f.Key == nil && agentScoped(f.Kinds) {
		user = "+" + user
	}
	if f.UserID != nil && f.OrGlobalUser {
		w.add("("+user+" = ? OR "+user+" = '')", *f.UserID)
	} else if f.UserID != nil {
		w.add(user+" = ?", *f.UserID)
	}
	w.sparse("session_id", f.SessionID)
	w.sparse("task_id", f.TaskID)
	w.eq("key", f.Key)
	if f.Keyed {
		w.add(p + "key IS NOT NULL")
	}
	w.eq("category", f.Category)
	w.eq("action_type", f.ActionType)
	w.eq("outcome", f.Outcome)
	for _, tag := range f.Tags {
		w.add("EXISTS (SELECT 1 FROM json_each("+p+"tags) WHERE value = ?)", tag)
	}
}

// agentScoped reports whether kinds are some kinds, each of an agent's
// own memory (loci.KindTraits.AgentScoped).
func agentScoped(kinds []loci.Kind) bool {
	for _, k := range kinds {
		if !k.Traits().AgentScoped {
			return false
		}
	}
	return len(kinds) > 0
}

// times adds f's creation bounds, content hash, expiry and validity.
func (w *filterSQL) times(f loci.RecordFilter) {
	p := w.p
	if !f.CreatedAfter.IsZero() {
		w.add(p+"created_at > ?", micros(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		w.add(p+"created_at < ?", micros(f.CreatedBefore))
	}
	if f.ContentHash != nil {
		// The index of content keys (migration 0013): the hash's first
		// 64 bits; ScanRecords checks the whole hash of each candidate.
		w.add(p+"content_key = ?", loci.ContentKey(*f.ContentHash))
	}
	if !f.LiveAt.IsZero() {
		live := "(" + p + "expires_at IS NULL OR " + p + "expires_at > ?"
		args := []any{micros(f.LiveAt)}
		for _, k := range f.Lasting {
			live += " OR " + p + "kind = ?"
			args = append(args, string(k))
		}
		w.add(live+")", args...)
	}
	if !f.ExpiredAt.IsZero() {
		w.add(p+"expires_at <= ?", micros(f.ExpiredAt))
	}
	if !f.AsOf.IsZero() {
		at := micros(f.AsOf)
		w.add("("+p+"valid_at IS NULL OR "+p+"valid_at <= ?) AND ("+p+"invalid_at IS NULL OR "+p+"invalid_at > ?)", at, at)
	}
}

func orderClause(o loci.Order) string {
	switch o {
	case loci.OrderCreatedAsc:
		return "created_at, id"
	case loci.OrderUpdatedDesc:
		return "updated_at DESC, id DESC"
	case loci.OrderKeyAsc:
		return "key, id"
	case loci.OrderConfidenceDesc:
		return "confidence DESC, id DESC"
	case loci.OrderValidDesc:
		return "coalesce(valid_at, created_at) DESC, id DESC"
	case loci.OrderNone:
		return ""
	default:
		return "created_at DESC, id DESC"
	}
}

func limitClause(limit, offset int) string {
	if limit <= 0 && offset <= 0 {
		return ""
	}
	if limit <= 0 {
		limit = -1
	}
	return fmt.Sprintf(" LIMIT %d OFFSET %d", limit, max(offset, 0))
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

func nonNil(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

// nullJSON stores absent JSON (metadata) as NULL.
func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func nullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	return decodeVectorInto(nil, b)
}

// decodeVectorInto decodes b into buf, grown if short, and returns it.
func decodeVectorInto(buf []float32, b []byte) []float32 {
	n := len(b) / 4
	if cap(buf) < n {
		buf = make([]float32, n)
	}
	v := buf[:n]
	b = b[:4*n]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
