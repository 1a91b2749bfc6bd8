package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/loci-memory/loci"
)

// Changes reports the workspace's record changes after the cursor (see
// migration 0006): the rows stamped with a later generation, and the
// tombstones of deletes and moves. A write transaction takes the next
// generation, and SQLite runs one at a time, so a cursor is one more than
// the generation read (every change stamped below it is behind it), with
// no open transactions.
func (tx *Tx) Changes(ctx context.Context, workspace string, cursor *loci.Cursor) (*loci.ChangeSet, error) {
	if tx.gen != 0 {
		return &loci.ChangeSet{Dirty: true}, nil
	}
	var gen, floor int64
	if err := tx.queryRow(ctx, sqlReadGen).Scan(&gen, &floor); err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	cs := &loci.ChangeSet{Cursor: loci.Cursor{At: gen + 1}}
	if cursor == nil {
		return cs, nil
	}
	since := cursor.At - 1
	switch {
	case since >= gen:
		return cs, nil
	case since < floor:
		cs.Reset = true
		return cs, nil
	}
	rows, err := tx.query(ctx, `SELECT 0, id, kind, agent_id, user_id, session_id, task_id
			FROM records WHERE workspace = ?1 AND change_gen > ?2
		UNION ALL
		SELECT 1, id, kind, agent_id, user_id, session_id, task_id
			FROM record_tombstones WHERE workspace = ?1 AND gen > ?2`, workspace, since)
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var removed int
		var ch loci.Change
		var kind string
		if err := rows.Scan(&removed, &ch.ID, &kind, &ch.Scope.AgentID, &ch.Scope.UserID, &ch.Scope.SessionID, &ch.Scope.TaskID); err != nil {
			return nil, fmt.Errorf("read changes: %w", err)
		}
		ch.Kind = loci.Kind(kind)
		if removed == 1 {
			cs.Removed = append(cs.Removed, ch)
		} else {
			cs.Changed = append(cs.Changed, ch)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	return cs, nil
}

// SetEmbedding stores a record's embedding if it is still at version.
func (tx *Tx) SetEmbedding(ctx context.Context, workspace, id string, version int, model string, vec []float32) (bool, error) {
	gen, err := tx.stamp(ctx)
	if err != nil {
		return false, err
	}
	res, err := tx.exec(ctx, `UPDATE records SET embedding = ?, embedding_model = ?, change_gen = ?
		WHERE workspace = ? AND id = ? AND version = ?`, encodeVector(vec), model, gen, workspace, id, version)
	if err != nil {
		return false, fmt.Errorf("set embedding: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	return true, nil
}

// PendingEmbeddings returns records whose embedding is not model's, oldest
// first.
func (tx *Tx) PendingEmbeddings(ctx context.Context, model string, limit int) ([]*loci.Record, error) {
	if limit <= 0 {
		return nil, nil
	}
	// Each branch reads at most limit pending rows in seq order from the
	// (embedding_model, seq) index: never embedded (''), then other
	// models' on either side of model.
	rows, err := tx.query(ctx, `SELECT `+recordColumns+` FROM records
		WHERE seq IN (
			SELECT seq FROM (SELECT seq FROM records INDEXED BY records_embedding_model WHERE embedding_model = '' ORDER BY seq LIMIT ?1)
			UNION ALL
			SELECT seq FROM (SELECT seq FROM records INDEXED BY records_embedding_model WHERE embedding_model > '' AND embedding_model < ?2 ORDER BY seq LIMIT ?1)
			UNION ALL
			SELECT seq FROM (SELECT seq FROM records INDEXED BY records_embedding_model WHERE embedding_model > ?2 ORDER BY seq LIMIT ?1))
		ORDER BY seq LIMIT ?1`, limit, model)
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return scanRecords(rows)
}

// CountPendingEmbeddings counts the records of f whose embedding is not
// model's.
func (tx *Tx) CountPendingEmbeddings(ctx context.Context, f loci.RecordFilter, model string) (int, error) {
	// Every workspace's first, from two ranges of the embedding_model
	// index: the answer without a workspace, and with one, a bound that
	// is usually 0 (nothing pending anywhere).
	var n int
	err := tx.queryRow(ctx, `SELECT (SELECT count(*) FROM records WHERE embedding_model < ?1)
		+ (SELECT count(*) FROM records WHERE embedding_model > ?1)`, model).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	if f.Workspace == "" || n == 0 {
		return n, nil
	}
	where, args := whereClause(f, "")
	if err := tx.queryRow(ctx, `SELECT count(*) FROM records WHERE `+where+` AND embedding_model != ?`,
		append(args, model)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}

// ReadVectors calls fn with the embedding model and vector of each record
// of workspace among ids (index.VectorReader: what a search's exact
// rescoring reads), in no order: one prepared statement whatever the
// number of ids, reading three columns, each vector decoded into one
// buffer that fn may not keep.
func (tx *Tx) ReadVectors(ctx context.Context, workspace string, ids []string, fn func(id, model string, vec []float32) error) error {
	if len(ids) == 0 {
		return nil
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encode ids: %w", err)
	}
	rows, err := tx.query(ctx, sqlVectorsByID, string(js), workspace)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var buf []float32
	for rows.Next() {
		var id, model string
		var blob sql.RawBytes
		if err := rows.Scan(&id, &model, &blob); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		var vec []float32
		if blob != nil {
			buf = decodeVectorInto(buf, blob)
			vec = buf
		}
		if err := fn(id, model, vec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
}
