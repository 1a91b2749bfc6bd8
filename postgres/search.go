package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
)

// SetEmbedding stores a record's embedding if it is still at version and
// no other transaction holds it.
func (tx *Tx) SetEmbedding(ctx context.Context, workspace, id string, version int, model string, vec []float32) (bool, error) {
	tx.wroteRecords = true
	if err := tx.ensureVectorIndex(ctx, vec); err != nil {
		return false, err
	}
	var arr any // the real[] form, only for the pgvector column
	if vec != nil && tx.db.vector {
		arr = vec
	}
	// A row another transaction holds (a delete, an edit) is skipped, not
	// waited for: it stays pending, and the embedder, which sets a batch
	// of rows in one transaction, never waits on a writer that may be
	// waiting on a row of that batch (a deadlock).
	tag, err := tx.tx.Exec(ctx, `WITH l AS (
			SELECT ctid FROM records WHERE workspace = $4 AND id = $5 AND version = $6 FOR UPDATE SKIP LOCKED
		)
		UPDATE records SET embedding = $1::real[], embedding_f32 = $2, embedding_model = $3
		FROM l WHERE records.ctid = l.ctid`, arr, embeddingBytes(vec), model, workspace, id, version)
	if err != nil {
		return false, fmt.Errorf("set embedding: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// PendingEmbeddings returns records of any workspace whose embedding is not
// model's, oldest first.
func (tx *Tx) PendingEmbeddings(ctx context.Context, model string, limit int) ([]*loci.Record, error) {
	if limit <= 0 {
		return nil, nil
	}
	// Each branch reads at most limit pending rows in (created_at, id)
	// order from the records_pending index: never embedded (''), then
	// other models' on either side of model. Planned for the model at
	// hand each time (an unnamed statement): the generic plan of a
	// prepared one guessed a third of the table above model and scanned
	// it whole (13 ms at 30,000 records, every second when idle).
	rows, err := tx.tx.Query(ctx, `SELECT `+selectColumns+` FROM (
			(SELECT * FROM records WHERE embedding_model = '' ORDER BY created_at, id LIMIT $2)
			UNION ALL
			(SELECT * FROM records WHERE embedding_model > '' AND embedding_model < $1 ORDER BY created_at, id LIMIT $2)
			UNION ALL
			(SELECT * FROM records WHERE embedding_model > $1 ORDER BY created_at, id LIMIT $2)) AS p
		ORDER BY created_at, id LIMIT $2`, tx.db.unnamed, model, limit)
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return scanRecords(rows)
}

// CountPendingEmbeddings counts the records of f whose embedding is not
// model's.
func (tx *Tx) CountPendingEmbeddings(ctx context.Context, f loci.RecordFilter, model string) (int, error) {
	var a args
	where := "true" // every workspace: the embedding queue's depth
	if f.Workspace != "" {
		where = whereClause(f, "", &a)
	}
	var n int
	err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM records WHERE `+where+` AND embedding_model <> `+a.add(model), a...).Scan(&n)
	if err != nil && err != pgx.ErrNoRows {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}

// ReadVectors calls fn with the embedding model and vector of each record
// of workspace among ids (what a search's exact rescoring reads: the
// index's VectorReader), in no order: three columns of the rows, not
// their records (content, text, metadata), the vector decoded into one
// buffer that fn may not keep. A record without an embedding has a nil
// vector.
func (tx *Tx) ReadVectors(ctx context.Context, workspace string, ids []string, fn func(id, model string, vec []float32) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, embedding_model, CASE WHEN embedding_f32 IS NULL THEN embedding END, embedding_f32
		FROM records WHERE id = ANY($1) AND `+workspaceByID("", "$2"), ids, workspace)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var buf []float32
	for rows.Next() {
		var id, model string
		var arr []float32
		var f32 []byte
		if err := rows.Scan(&id, &model, &arr, &f32); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		vec := arr
		if f32 != nil {
			if buf, err = embeddingInto(buf, f32); err != nil {
				return fmt.Errorf("read vectors: %w", err)
			}
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
