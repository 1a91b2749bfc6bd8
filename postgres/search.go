package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
)

// SearchVector ranks the records of f that hold an embedding by model by
// cosine similarity to query, exactly. Stored vectors and queries are unit
// length, so the similarity is the dot product. Where the pgvector column
// exists, pgvector computes it (1 - cosine distance); elsewhere SQL sums
// the products of the real[] elements. Both scan every candidate of the
// scope after the filter, so both give the same, exact answer.
func (tx *Tx) SearchVector(ctx context.Context, f loci.RecordFilter, model string, query []float32, limit int) ([]loci.ScoredRecord, error) {
	if limit <= 0 || len(query) == 0 {
		return nil, nil
	}
	var a args
	where := whereClause(f, "r.", &a)
	model, dims := a.add(model), a.add(len(query))
	var score string
	if tx.db.vector {
		score = "1 - (r.embedding_vec <=> " + a.add(vectorLiteral(query)) + "::vector)"
		where += " AND r.embedding_vec IS NOT NULL AND vector_dims(r.embedding_vec) = " + dims
	} else {
		score = "(SELECT sum(e * q) FROM unnest(r.embedding, " + a.add(query) + "::real[]) AS t(e, q))"
		where += " AND cardinality(r.embedding) = " + dims
	}
	q := `SELECT ` + prefixed("r.", recordColumns) + `, ` + score + ` AS score
		FROM records r WHERE r.embedding_model = ` + model + ` AND ` + where + `
		ORDER BY score DESC, r.id LIMIT ` + a.add(limit)
	rows, err := tx.tx.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("search vector: %w", err)
	}
	defer rows.Close()
	var out []loci.ScoredRecord
	for rows.Next() {
		var s float64
		r, err := scanRecord(rows, &s)
		if err != nil {
			return nil, err
		}
		out = append(out, loci.ScoredRecord{Record: r, Score: s})
	}
	return out, rows.Err()
}

// vectorLiteral writes v in pgvector's text form, "[x,y,…]".
func vectorLiteral(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%g", x)
	}
	b.WriteByte(']')
	return b.String()
}

// SetEmbedding stores a record's embedding if it is still at version.
func (tx *Tx) SetEmbedding(ctx context.Context, workspace, id string, version int, model string, vec []float32) (bool, error) {
	if err := tx.ensureVectorIndex(ctx, vec); err != nil {
		return false, err
	}
	tag, err := tx.tx.Exec(ctx, `UPDATE records SET embedding = $1, embedding_model = $2
		WHERE workspace = $3 AND id = $4 AND version = $5`, vec, model, workspace, id, version)
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
	rows, err := tx.tx.Query(ctx, `SELECT `+recordColumns+` FROM records
		WHERE embedding_model <> $1 ORDER BY created_at, id LIMIT $2`, model, limit)
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return scanRecords(rows)
}

// CountPendingEmbeddings counts the records of f whose embedding is not
// model's.
func (tx *Tx) CountPendingEmbeddings(ctx context.Context, f loci.RecordFilter, model string) (int, error) {
	var a args
	where := whereClause(f, "", &a)
	var n int
	err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM records WHERE `+where+` AND embedding_model <> `+a.add(model), a...).Scan(&n)
	if err != nil && err != pgx.ErrNoRows {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}
