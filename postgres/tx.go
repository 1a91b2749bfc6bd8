package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/sqltable"
)

var _ loci.StoreTx = (*Tx)(nil)

// Tx is a transaction on a PostgreSQL store.
type Tx struct {
	// Rows stores the plain tables (loci.Table) for the transaction.
	sqltable.Rows
	tx pgx.Tx
	db *DB
	// newIndexes are the vector dimensions this transaction built an HNSW
	// index for; the DB remembers them once it commits.
	newIndexes []int
	// wroteRecords is set by the first write to records: from then on
	// vector search runs in SQL, to see the transaction's own writes.
	wroteRecords bool
	// feedLSN is the log position of the change feed read in it (when
	// reads may go to standbys, replicas.go).
	feedLSN uint64
}

// Lock takes a transaction-scoped advisory lock on name, released when the
// transaction ends. Names map to 64-bit keys by FNV-1a; two names that
// collide only serialize more than needed.
func (tx *Tx) Lock(ctx context.Context, name string) error {
	if _, err := tx.tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(name)); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	return nil
}

// recordColumns are the columns a record is written to, in recordArgs'
// order.
const recordColumns = `id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
	data, tags, category, action_type, outcome, confidence, access_count, last_accessed_at,
	created_at, updated_at, expires_at, version, embedding, embedding_model, valid_at, invalid_at, review, metadata, content_key,
	embedding_f32`

// selectColumns are what a record is read from, in recordScan's order:
// the embedding as bytes (embedding_f32), or, for a row written before
// those, as real[] (which is not read, nor detoasted, when it has bytes).
const selectColumns = `id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
	data, tags, category, action_type, outcome, confidence, access_count, last_accessed_at,
	created_at, updated_at, expires_at, version, CASE WHEN embedding_f32 IS NULL THEN embedding END, embedding_model,
	valid_at, invalid_at, review, metadata, embedding_f32`

// selectColumnsNoEmbedding are selectColumns without the embedding (NULL
// for both forms), the model blank for a record without one.
const selectColumnsNoEmbedding = `id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
	data, tags, category, action_type, outcome, confidence, access_count, last_accessed_at,
	created_at, updated_at, expires_at, version, NULL::real[],
	CASE WHEN embedding_f32 IS NULL AND embedding IS NULL THEN '' ELSE embedding_model END,
	valid_at, invalid_at, review, metadata, NULL::bytea`

// insertRecord stores a new record (InsertRecords of one: one statement,
// no batch). It inserts with ON CONFLICT DO NOTHING rather than raising a
// unique violation, so that ECONFLICT leaves the transaction usable, as it
// is on SQLite.
func (tx *Tx) insertRecord(ctx context.Context, r *loci.Record) error {
	tx.wroteRecords = true
	if err := tx.ensureVectorIndex(ctx, r.Embedding); err != nil {
		return err
	}
	args := tx.recordArgs(r)
	tag, err := tx.tx.Exec(ctx, insertRecordSQL, args...)
	if err != nil {
		return translate(fmt.Errorf("insert record: %w", err))
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ECONFLICT, "record %s already exists", r.ID)
	}
	return nil
}

const insertRecordSQL = `INSERT INTO records (` + recordColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::json, $12::text[], $13, $14, $15, $16, $17, $18,
	$19, $20, $21, $22, $23::real[], $24, $25, $26, $27, $28::json, $29, $30)
	ON CONFLICT DO NOTHING`

// insertManyRows bounds the records of one InsertRecords statement: a
// statement's arguments are the records encoded again (an import's batch
// of 25,000 in one took 250 MB more of the process than in five).
const insertManyRows = 5000

// InsertRecords stores new records with one statement per insertManyRows.
func (tx *Tx) InsertRecords(ctx context.Context, rs []*loci.Record) error {
	for len(rs) > insertManyRows {
		if err := tx.insertMany(ctx, rs[:insertManyRows]); err != nil {
			return err
		}
		rs = rs[insertManyRows:]
	}
	return tx.insertMany(ctx, rs)
}

// insertMany stores new records with one statement.
func (tx *Tx) insertMany(ctx context.Context, rs []*loci.Record) error {
	switch len(rs) {
	case 0:
		return nil
	case 1:
		return tx.insertRecord(ctx, rs[0])
	}
	tx.wroteRecords = true
	dims := map[int]bool{}
	for _, r := range rs {
		if len(r.Embedding) > 0 && !dims[len(r.Embedding)] {
			dims[len(r.Embedding)] = true
			if err := tx.ensureVectorIndex(ctx, r.Embedding); err != nil {
				return err
			}
		}
	}
	// One statement for the batch, a column of it per parameter: the
	// server parses, plans and executes once, not once a record.
	rows, err := tx.tx.Query(ctx, insertManySQL, tx.recordColumnsOf(rs)...)
	if err != nil {
		return translate(fmt.Errorf("insert records: %w", err))
	}
	stored := make(map[string]bool, len(rs))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("insert records: %w", err)
		}
		stored[id] = true
	}
	if err := rows.Err(); err != nil {
		return translate(fmt.Errorf("insert records: %w", err))
	}
	for _, r := range rs {
		if !stored[r.ID] {
			return loci.Errorf(loci.ECONFLICT, "record %s already exists", r.ID)
		}
	}
	return nil
}

// insertManySQL is InsertRecords' statement: insertRecordSQL's columns,
// each an array of the batch's values, unnested into rows. A text array
// stands for the columns whose values are arrays or JSON (tags,
// embedding, data, metadata): each row's value in its text form, cast.
const insertManySQL = `INSERT INTO records (` + recordColumns + `)
	SELECT id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
		data::json, tags::text[], category, action_type, outcome, confidence, access_count, last_accessed_at,
		created_at, updated_at, expires_at, version, embedding::real[], embedding_model, valid_at, invalid_at, review,
		metadata::json, content_key, embedding_f32
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		$9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::float8[],
		$17::int8[], $18::timestamptz[], $19::timestamptz[], $20::timestamptz[], $21::timestamptz[], $22::int8[],
		$23::text[], $24::text[], $25::timestamptz[], $26::timestamptz[], $27::text[], $28::text[], $29::int8[],
		$30::bytea[])
	AS b(id, workspace, kind, agent_id, user_id, session_id, task_id, key, content, search_text,
		data, tags, category, action_type, outcome, confidence, access_count, last_accessed_at,
		created_at, updated_at, expires_at, version, embedding, embedding_model, valid_at, invalid_at, review,
		metadata, content_key, embedding_f32)
	ON CONFLICT DO NOTHING
	RETURNING id`

// recordColumnsOf is insertManySQL's arguments for rs: recordArgs' values,
// a column at a time.
func (tx *Tx) recordColumnsOf(rs []*loci.Record) []any {
	n := len(rs)
	var (
		text                = make([][]string, 16) // the text columns, in recordColumns' order
		keys, embs, meta    = make([]*string, n), make([]*string, n), make([]*string, n)
		conf                = make([]float64, n)
		access, version, ck = make([]int64, n), make([]int64, n), make([]int64, n)
		lastAccess, expires = make([]*time.Time, n), make([]*time.Time, n)
		validAt, invalidAt  = make([]*time.Time, n), make([]*time.Time, n)
		created, updated    = make([]time.Time, n), make([]time.Time, n)
		f32                 = make([][]byte, n)
	)
	for c := range text {
		text[c] = make([]string, n)
	}
	for i, r := range rs {
		search := r.SearchText
		if search == "" {
			search = r.Content
		}
		for c, v := range []string{r.ID, r.Workspace, string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID,
			r.Content, cleanText(search), jsonText(r.Data), textArray(nonNil(r.Tags)), r.Category, r.ActionType,
			r.Outcome, r.EmbeddingModel, r.Review} {
			text[c][i] = v
		}
		if r.Key != "" {
			keys[i] = &r.Key
		}
		if r.Embedding != nil && tx.db.vector {
			e := realArray(r.Embedding)
			embs[i] = &e
		}
		if len(r.Metadata) > 0 {
			m := string(r.Metadata)
			meta[i] = &m
		}
		conf[i], access[i], version[i] = r.Confidence, int64(r.AccessCount), int64(r.Version)
		ck[i] = loci.ContentKey(loci.ContentHash(r.Content))
		lastAccess[i], expires[i] = timePtr(r.LastAccessedAt), timePtr(r.ExpiresAt)
		validAt[i], invalidAt[i] = timePtr(r.ValidAt), timePtr(r.InvalidAt)
		created[i], updated[i] = r.CreatedAt, r.UpdatedAt
		if r.Embedding != nil {
			f32[i] = f32Bytes(r.Embedding)
		}
	}
	return []any{text[0], text[1], text[2], text[3], text[4], text[5], text[6], keys, text[7], text[8],
		text[9], text[10], text[11], text[12], text[13], conf, access, lastAccess,
		created, updated, expires, version, embs, text[14], validAt, invalidAt, text[15], meta, ck, f32}
}

// timePtr is a time for a nullable column: nil for the zero time.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// textArray is ss as a text[] literal.
func textArray(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, c := range s {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// realArray is v as a real[] literal.
func realArray(v []float32) string {
	b := make([]byte, 0, len(v)*10+2)
	b = append(b, '{')
	for i, f := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	}
	return string(append(b, '}'))
}

// UpdateRecord overwrites the mutable fields of a record at prevVersion. A
// key that another record of the scope holds is checked in the statement,
// not left to the unique index, so that ECONFLICT leaves the transaction
// usable.
func (tx *Tx) UpdateRecord(ctx context.Context, r *loci.Record, prevVersion int) error {
	tx.wroteRecords = true
	if err := tx.ensureVectorIndex(ctx, r.Embedding); err != nil {
		return err
	}
	args := tx.recordArgs(r)
	// args[0:3] are id, workspace, kind; created_at is args[18]. The access
	// fields never go down: TouchRecords may have raised them since r was
	// read, without changing the version.
	// The key check mirrors the unique indexes: a key is unique among the
	// records that are not history (invalid_at unset) of its scope, and a
	// fact's among the open facts of its user, whichever agent.
	tag, err := tx.tx.Exec(ctx, `UPDATE records SET agent_id = $1, user_id = $2, session_id = $3, task_id = $4,
		key = $5, content = $6, search_text = $7, data = $8::json, tags = $9::text[], category = $10, action_type = $11,
		outcome = $12, confidence = $13, access_count = GREATEST(access_count, $14),
		last_accessed_at = GREATEST(last_accessed_at, $15), updated_at = $16,
		expires_at = $17, version = $18, embedding = $19::real[], embedding_model = $20,
		valid_at = $21, invalid_at = $22, review = $23, metadata = $24::json, content_key = $25, embedding_f32 = $26
		WHERE id = $27 AND workspace = $28 AND version = $29
		AND ($5::text IS NULL OR $22::timestamptz IS NOT NULL OR NOT EXISTS (SELECT 1 FROM records o
			WHERE o.workspace = $28 AND o.kind = records.kind AND o.user_id = $2 AND o.key = $5 AND o.id <> $27
			AND o.invalid_at IS NULL
			AND ((o.agent_id = $1 AND o.session_id = $3 AND o.task_id = $4) OR records.kind = 'fact')))`,
		append(append(append([]any{}, args[3:18]...), args[19:]...), r.ID, r.Workspace, prevVersion)...)
	if err != nil {
		return translate(fmt.Errorf("update record: %w", err))
	}
	if tag.RowsAffected() == 0 {
		var v int
		err := tx.tx.QueryRow(ctx, `SELECT version FROM records WHERE id = $1 AND workspace = $2`, r.ID, r.Workspace).Scan(&v)
		if err == pgx.ErrNoRows {
			return loci.Errorf(loci.ENOTFOUND, "record %s not found", r.ID)
		} else if err != nil {
			return fmt.Errorf("update record: %w", err)
		}
		if v != prevVersion {
			return loci.Errorf(loci.ECONFLICT, "version conflict: expected %d, found %d", prevVersion, v)
		}
		return loci.Errorf(loci.ECONFLICT, "key %q already exists", r.Key)
	}
	return nil
}

// selectRecords is the query of ScanRecords and its arguments.
func selectRecords(f loci.RecordFilter) (string, []any) {
	var a args
	q := `SELECT ` + selectColumns + ` FROM records WHERE ` + whereClause(f, "", &a)
	if o := orderClause(f.Order); o != "" {
		q += ` ORDER BY ` + o
	}
	return q + limitClause(f.Limit, f.Offset), a
}

// ScanRecords calls fn with each record that matches f, in f.Order.
func (tx *Tx) ScanRecords(ctx context.Context, f loci.RecordFilter, fn func(*loci.Record) error) error {
	q, a := selectRecords(f)
	return tx.scan(ctx, q, a, sameHash(f, fn))
}

// sameHash is fn, skipping the records whose content key is f's
// ContentHash's but not their whole hash (none unless 64 bits collide).
func sameHash(f loci.RecordFilter, fn func(*loci.Record) error) func(*loci.Record) error {
	if f.ContentHash == nil {
		return fn
	}
	return func(r *loci.Record) error {
		if loci.ContentHash(r.Content) != *f.ContentHash {
			return nil
		}
		return fn(r)
	}
}

// scan calls fn with each record that q (selecting selectColumns or
// selectColumnsNoEmbedding) returns.
func (tx *Tx) scan(ctx context.Context, q string, a []any, fn func(*loci.Record) error) error {
	rows, err := tx.tx.Query(ctx, q, a...)
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
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find records: %w", err)
	}
	return nil
}

// CountRecords counts the records that match f.
func (tx *Tx) CountRecords(ctx context.Context, f loci.RecordFilter) (int, error) {
	if f.ContentHash != nil {
		// The candidates of a key, each checked against the hash.
		n := 0
		err := tx.ScanRecords(ctx, f, func(*loci.Record) error { n++; return nil })
		return n, err
	}
	var a args
	where := whereClause(f, "", &a)
	var n int
	if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM records WHERE `+where, a...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count records: %w", err)
	}
	return n, nil
}

// DeleteRecords deletes the records that match f; versions and links go
// with them (ON DELETE CASCADE), index entries with the rows.
func (tx *Tx) DeleteRecords(ctx context.Context, f loci.RecordFilter) (int, error) {
	tx.wroteRecords = true
	var a args
	where := whereClause(f, "", &a)
	tag, err := tx.tx.Exec(ctx, `DELETE FROM records WHERE `+where, a...)
	if err != nil {
		return 0, fmt.Errorf("delete records: %w", err)
	}
	if tag.RowsAffected() > 0 {
		// The deletes left tombstones for the change feed (feed.go).
		// Prune those whose transaction finished before the newest
		// horizon sampled over an hour ago, raising the floor to it, so
		// that only a process that has not read the feed since then
		// starts over; sample a horizon every ten minutes, and forget
		// those older than the one used.
		if _, err := tx.tx.Exec(ctx, `WITH h AS (
				SELECT taken_at, horizon FROM record_feed_horizons
				WHERE taken_at < now() - interval '1 hour' ORDER BY taken_at DESC LIMIT 1
			), p AS (
				DELETE FROM record_tombstones
				WHERE deleted_at < now() - interval '1 hour' AND xid < (SELECT horizon FROM h) RETURNING xid
			), f AS (
				UPDATE record_feed SET floor = greatest(floor, (SELECT horizon FROM h))
				WHERE id = 1 AND EXISTS (SELECT 1 FROM p)
			), o AS (
				DELETE FROM record_feed_horizons WHERE taken_at < (SELECT taken_at FROM h)
			)
			INSERT INTO record_feed_horizons (taken_at, horizon)
			SELECT now(), pg_snapshot_xmin(pg_current_snapshot())::text::bigint
			WHERE NOT EXISTS (SELECT 1 FROM record_feed_horizons WHERE taken_at > now() - interval '10 minutes')`); err != nil {
			return 0, fmt.Errorf("prune tombstones: %w", err)
		}
	}
	return int(tag.RowsAffected()), nil
}

// LockRecords locks the rows of the records (FOR UPDATE: row locks, which
// take no room in the server's lock table however many there are).
func (tx *Tx) LockRecords(ctx context.Context, workspace string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.tx.Exec(ctx, `SELECT 1 FROM records WHERE `+workspaceByID("", "$1")+` AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`, workspace, ids)
	if err != nil {
		return fmt.Errorf("lock records: %w", err)
	}
	return nil
}

// TouchRecords bumps access_count and last_accessed_at.
func (tx *Tx) TouchRecords(ctx context.Context, workspace string, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.tx.Exec(ctx, `UPDATE records SET access_count = access_count + 1, last_accessed_at = $1
		WHERE `+workspaceByID("", "$2")+` AND id = ANY($3::text[])`, at, workspace, ids)
	if err != nil {
		return fmt.Errorf("touch records: %w", err)
	}
	return nil
}

// ensureVectorIndex builds the HNSW cosine index for vectors of v's
// dimension the first time one arrives, when the pgvector column exists.
// pgvector indexes need a fixed dimension, so each is a partial expression
// index over the rows of that dimension; a vector query of dimension n uses
// it with `embedding_vec::vector(n) <=> $1` and `vector_dims(embedding_vec) = n`.
// The build runs in the caller's transaction under an advisory lock, so
// concurrent first writers take turns and the second finds the index.
func (tx *Tx) ensureVectorIndex(ctx context.Context, v []float32) error {
	dims := len(v)
	if !tx.db.vector || dims == 0 || dims > maxIndexedDims {
		return nil
	}
	if _, ok := tx.db.vectorIndexes.Load(dims); ok {
		return nil
	}
	name := vectorIndexName(dims)
	if err := tx.Lock(ctx, "loci:vector-index"); err != nil {
		return err
	}
	var exists bool
	if err := tx.tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		return fmt.Errorf("find vector index: %w", err)
	}
	if !exists {
		// The extension's schema is looked up through the type of the
		// column, so it need not be on search_path.
		var vectorType string
		if err := tx.tx.QueryRow(ctx, `SELECT format_type(atttypid, NULL) FROM pg_attribute
			WHERE attrelid = 'records'::regclass AND attname = 'embedding_vec'`).Scan(&vectorType); err != nil {
			return fmt.Errorf("find vector type: %w", err)
		}
		opclass := strings.TrimSuffix(vectorType, "vector") + "vector_cosine_ops"
		dimsFn := strings.TrimSuffix(vectorType, "vector") + "vector_dims"
		if _, err := tx.tx.Exec(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON records
			USING hnsw ((embedding_vec::%s(%d)) %s) WHERE %s(embedding_vec) = %d`,
			name, vectorType, dims, opclass, dimsFn, dims)); err != nil {
			return fmt.Errorf("create vector index: %w", err)
		}
	}
	tx.newIndexes = append(tx.newIndexes, dims)
	return nil
}

// maxIndexedDims is the most dimensions pgvector's HNSW indexes take;
// longer vectors are searched exactly.
const maxIndexedDims = 2000

// recordArgs returns r's column values in recordColumns order: its
// embedding as bytes, and as real[] only where the pgvector column is
// generated from it.
func (tx *Tx) recordArgs(r *loci.Record) []any {
	var key, emb any
	if r.Key != "" {
		key = r.Key
	}
	search := r.SearchText
	if search == "" {
		search = r.Content
	}
	if r.Embedding != nil && tx.db.vector {
		emb = r.Embedding
	}
	return []any{
		r.ID, r.Workspace, string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, key, r.Content, cleanText(search),
		jsonText(r.Data), nonNil(r.Tags), r.Category, r.ActionType, r.Outcome, r.Confidence, r.AccessCount, nullTime(r.LastAccessedAt),
		r.CreatedAt, r.UpdatedAt, nullTime(r.ExpiresAt), r.Version, emb, r.EmbeddingModel,
		nullTime(r.ValidAt), nullTime(r.InvalidAt), r.Review, nullJSON(r.Metadata), loci.ContentKey(loci.ContentHash(r.Content)),
		embeddingBytes(r.Embedding),
	}
}

// nullJSON stores absent JSON (metadata) as NULL.
func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

func scanRecords(rows pgx.Rows) ([]*loci.Record, error) {
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
// (a row's 29 columns and extra, once allocated), copying each into a new
// record: an index's load scans a scope's every record.
type recordScan struct {
	r                                         loci.Record
	kind, data                                string
	key, meta                                 *string
	lastAccessed, expires, validAt, invalidAt *time.Time
	f32                                       []byte
	dest                                      []any
}

// scan reads rows' current row into a new record, and its columns after
// the record's into extra (the same extra on every call: the first one's
// are kept).
func (sc *recordScan) scan(rows pgx.Rows, extra ...any) (*loci.Record, error) {
	if sc.dest == nil {
		r := &sc.r
		sc.dest = append([]any{&r.ID, &r.Workspace, &sc.kind, &r.AgentID, &r.UserID, &r.SessionID, &r.TaskID, &sc.key, &r.Content, &r.SearchText,
			&sc.data, &r.Tags, &r.Category, &r.ActionType, &r.Outcome, &r.Confidence, &r.AccessCount, &sc.lastAccessed,
			&r.CreatedAt, &r.UpdatedAt, &sc.expires, &r.Version, &r.Embedding, &r.EmbeddingModel, &sc.validAt, &sc.invalidAt, &r.Review, &sc.meta, &sc.f32},
			extra...)
	}
	// Nothing of the last row is left for this one to append to or keep.
	sc.r, sc.f32 = loci.Record{}, nil
	if err := rows.Scan(sc.dest...); err != nil {
		return nil, fmt.Errorf("scan record: %w", err)
	}
	r := new(loci.Record)
	*r = sc.r
	if sc.f32 != nil {
		v, err := embeddingInto(nil, sc.f32)
		if err != nil {
			return nil, fmt.Errorf("scan record: %w", err)
		}
		r.Embedding = v
	}
	r.Kind, r.Data = loci.Kind(sc.kind), json.RawMessage(sc.data)
	if sc.meta != nil && *sc.meta != "" {
		r.Metadata = json.RawMessage(*sc.meta)
	}
	if sc.key != nil {
		r.Key = *sc.key
	}
	if len(r.Tags) == 0 {
		r.Tags = nil
	}
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if sc.lastAccessed != nil {
		r.LastAccessedAt = sc.lastAccessed.UTC()
	}
	if sc.expires != nil {
		r.ExpiresAt = sc.expires.UTC()
	}
	if sc.validAt != nil {
		r.ValidAt = sc.validAt.UTC()
	}
	if sc.invalidAt != nil {
		r.InvalidAt = sc.invalidAt.UTC()
	}
	return r, nil
}

// args collects query parameters and names them $1, $2, ….
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// workspaceByID is the workspace condition of a statement that selects
// records by id: an expression no index answers, so that the records are
// looked up by id alone (the primary key) and their workspace checked,
// whatever the planner's statistics say.
func workspaceByID(p, param string) string {
	return "(" + p + "workspace || '') = " + param + "::text"
}

// whereClause renders f as a SQL condition on columns prefixed by p,
// adding its parameters to a.
func whereClause(f loci.RecordFilter, p string, a *args) string {
	ws := p + "workspace = " + a.add(f.Workspace)
	if len(f.IDs) > 0 {
		// With ids, the workspace is only checked (workspaceByID): the
		// planner, with statistics older than a bulk load, combined the
		// id index with a workspace index and read the whole workspace's
		// entries (3 ms at 30,000 records, growing with them).
		ws = workspaceByID(p, "$"+strconv.Itoa(len(*a)))
	}
	conds := []string{ws}
	eq := func(col string, v *string) {
		if v != nil {
			conds = append(conds, p+col+" = "+a.add(*v))
		}
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		conds = append(conds, p+"kind = ANY("+a.add(kinds)+"::text[])")
	}
	if f.IDs != nil {
		switch len(f.IDs) {
		case 0:
			conds = append(conds, "false")
		case 1: // one record (Tx.GetRecord): a plain equality, planned as such
			conds = append(conds, p+"id = "+a.add(f.IDs[0]))
		default:
			conds = append(conds, p+"id = ANY("+a.add(f.IDs)+"::text[])")
		}
	}
	eq("agent_id", f.AgentID)
	if f.UserID != nil && f.OrGlobalUser {
		conds = append(conds, "("+p+"user_id = "+a.add(*f.UserID)+" OR "+p+"user_id = '')")
	} else {
		eq("user_id", f.UserID)
	}
	// The session and task indexes hold only the records that have one
	// (migration 0020): a filter naming one says so, for the planner.
	sparse := func(col string, v *string) {
		eq(col, v)
		if v != nil && *v != "" {
			conds = append(conds, p+col+" <> ''")
		}
	}
	sparse("session_id", f.SessionID)
	sparse("task_id", f.TaskID)
	eq("key", f.Key)
	if f.Keyed {
		conds = append(conds, p+"key IS NOT NULL")
	}
	eq("category", f.Category)
	eq("action_type", f.ActionType)
	eq("outcome", f.Outcome)
	if len(f.Tags) > 0 {
		conds = append(conds, p+"tags @> "+a.add(f.Tags)+"::text[]")
	}
	conds = append(conds, whereValues(f, p, a)...)
	return strings.Join(conds, " AND ")
}

// whereValues is the rest of whereClause: f's creation bounds, content
// hash, expiry, validity, review and confidence.
func whereValues(f loci.RecordFilter, p string, a *args) []string {
	var conds []string
	if !f.CreatedAfter.IsZero() {
		conds = append(conds, p+"created_at > "+a.add(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		conds = append(conds, p+"created_at < "+a.add(f.CreatedBefore))
	}
	if f.ContentHash != nil {
		// The index of content keys (migration 0019): the hash's first
		// 64 bits; a scan checks the whole hash of each candidate.
		conds = append(conds, p+"content_key = "+a.add(loci.ContentKey(*f.ContentHash)))
	}
	if !f.LiveAt.IsZero() {
		at := a.add(f.LiveAt)
		lasting := ""
		if len(f.Lasting) > 0 {
			kinds := make([]string, len(f.Lasting))
			for i, k := range f.Lasting {
				kinds[i] = string(k)
			}
			lasting = " OR " + p + "kind = ANY(" + a.add(kinds) + "::text[])"
		}
		conds = append(conds, "("+p+"expires_at IS NULL OR "+p+"expires_at > "+at+lasting+")")
	}
	if !f.ExpiredAt.IsZero() {
		conds = append(conds, p+"expires_at <= "+a.add(f.ExpiredAt))
	}
	if !f.AsOf.IsZero() {
		at := a.add(f.AsOf)
		conds = append(conds, "("+p+"valid_at IS NULL OR "+p+"valid_at <= "+at+") AND ("+p+"invalid_at IS NULL OR "+p+"invalid_at > "+at+")")
	}
	if len(f.Review) > 0 {
		conds = append(conds, p+"review = ANY("+a.add(f.Review)+"::text[])")
		if !slices.Contains(f.Review, "") {
			// Lets a generic plan read records_review, which holds only
			// the records waiting for review (migration 0021).
			conds = append(conds, p+"review <> ''")
		}
	}
	if f.MinConfidence != nil {
		conds = append(conds, p+"confidence >= "+a.add(*f.MinConfidence))
	}
	if f.MaxConfidence != nil {
		conds = append(conds, p+"confidence < "+a.add(*f.MaxConfidence))
	}
	return conds
}

// orderClause matches SQLite's orders: NULL keys first, ties on id.
func orderClause(o loci.Order) string {
	switch o {
	case loci.OrderCreatedAsc:
		return "created_at, id"
	case loci.OrderUpdatedDesc:
		return "updated_at DESC, id DESC"
	case loci.OrderKeyAsc:
		return "key NULLS FIRST, id"
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
	l := "ALL"
	if limit > 0 {
		l = strconv.Itoa(limit)
	}
	return fmt.Sprintf(" LIMIT %s OFFSET %d", l, max(offset, 0))
}

func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// cleanText drops what PostgreSQL text cannot hold: NUL bytes and invalid
// UTF-8.
func cleanText(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
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

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
