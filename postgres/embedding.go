package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
)

// embeddingBytes is v as embedding_f32 holds it: each float32 in 4 bytes,
// little-endian; NULL for no embedding, empty bytes for an empty one.
func embeddingBytes(v []float32) any {
	if v == nil {
		return nil
	}
	return f32Bytes(v)
}

// f32Bytes is v in embedding_f32's encoding.
func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// embeddingInto reads an embedding_f32 value back into buf, grown as
// needed (nil for a new slice; a reader of many vectors reuses one).
func embeddingInto(buf []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding of %d bytes, not a whole number of float32s", len(b))
	}
	n := len(b) / 4
	if buf == nil {
		buf = make([]float32, 0, n) // an empty embedding reads back empty, not nil
	}
	v := slices.Grow(buf[:0], n)[:n]
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// embeddingBytesMigration is the migration that adds embedding_f32;
// backfillEmbeddingBytes then converts the embeddings written before.
const embeddingBytesMigration = 13

// backfillEmbeddingBytes stores every real[] embedding as bytes too, in
// batches in id order, in the migration's transaction; without the
// pgvector column, which is generated from the real[], that copy goes.
func backfillEmbeddingBytes(ctx context.Context, tx pgx.Tx) error {
	var vector bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'records'::regclass AND attname = 'embedding_vec' AND NOT attisdropped)`).Scan(&vector); err != nil {
		return fmt.Errorf("backfill embeddings: %w", err)
	}
	set := `embedding_f32 = v.b, embedding = NULL`
	if vector {
		set = `embedding_f32 = v.b`
	}
	last := ""
	for {
		rows, err := tx.Query(ctx, `SELECT id, embedding FROM records
			WHERE id > $1 AND embedding IS NOT NULL AND embedding_f32 IS NULL ORDER BY id LIMIT 500`, last)
		if err != nil {
			return fmt.Errorf("backfill embeddings: %w", err)
		}
		var ids []string
		var bs [][]byte
		for rows.Next() {
			var id string
			var v []float32
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return fmt.Errorf("backfill embeddings: %w", err)
			}
			ids, bs = append(ids, id), append(bs, f32Bytes(v))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("backfill embeddings: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		last = ids[len(ids)-1]
		if _, err := tx.Exec(ctx, `UPDATE records r SET `+set+` FROM unnest($1::text[], $2::bytea[]) AS v(id, b)
			WHERE r.id = v.id`, ids, bs); err != nil {
			return fmt.Errorf("backfill embeddings: %w", err)
		}
	}
}
