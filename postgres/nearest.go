package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/loci-memory/loci"
)

var _ loci.NearestTx = (*Tx)(nil)

// NearestRecords answers a scope's vector search through pgvector's HNSW
// index for q's dimensions (see loci.NearestTx), where the server has
// pgvector 0.8 or later and the index exists; it reports false otherwise
// (no pgvector, an older one, more dimensions than HNSW takes), and the
// caller scans the scope.
//
// The filter is applied in the index scan: with hnsw.iterative_scan set
// (relaxed_order, which finds more of the true neighbours than
// strict_order; each read's rows are sorted after), pgvector goes on
// through the graph until the LIMIT is met by rows that pass it, so a
// scope among many gets its own nearest records, not what is left of the
// table's after filtering. The first read asks for twice want; if fn takes
// them all, the next asks for four times as many, and so on, rows already
// given skipped, until fn stops or a read comes back short (the scope has
// no more). hnsw.ef_search is twice the read's limit, at least 400 (at
// 200, a 1,200-record test corpus of six clusters missed one of a top 10
// in about one search in twenty; at 400, none in 240) and at most
// pgvector's 1,000.
func (tx *Tx) NearestRecords(ctx context.Context, f loci.RecordFilter, model string, q []float32, want int, vectors bool,
	fn func(r *loci.Record, score float64) bool) (bool, error) {
	dims := len(q)
	if !tx.db.vector || !tx.db.iterative || dims == 0 || dims > maxIndexedDims {
		return false, nil
	}
	if ok, err := tx.hasVectorIndex(ctx, dims); err != nil || !ok {
		return false, err
	}
	f.Where, f.Order, f.Limit, f.Offset = nil, loci.OrderNone, 0, 0
	var a args
	where := whereClause(f, "", &a)
	s := tx.db.vectorSchema
	col := fmt.Sprintf("embedding_vec::%s.vector(%d)", s, dims)
	qv := fmt.Sprintf("%s::real[]::%s.vector(%d)", a.add(q), s, dims)
	cols := selectColumnsNoEmbedding
	if vectors {
		cols = selectColumns
	}
	// The condition on vector_dims is the index's predicate, with its
	// dimensions as a constant, so that the planner can use it. The index
	// scan's rows (relaxed_order: about in order) are sorted by distance
	// once found.
	dist := col + ` OPERATOR(` + s + `.<=>) ` + qv
	query := `WITH c AS MATERIALIZED (SELECT ` + cols + `, -(` + col + ` OPERATOR(` + s + `.<#>) ` + qv + `) AS score,
		` + dist + ` AS distance
		FROM records WHERE ` + where + ` AND embedding_model = ` + a.add(model) +
		` AND ` + s + `.vector_dims(embedding_vec) = ` + strconv.Itoa(dims) +
		` ORDER BY ` + dist + ` LIMIT `
	const sorted = `) SELECT * FROM c ORDER BY distance`
	seen := map[string]bool{}
	for limit := 2 * max(want, 10); ; limit *= 4 {
		if _, err := tx.tx.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
			set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(min(max(2*limit, 400), 1000))); err != nil {
			return false, fmt.Errorf("nearest records: %w", err)
		}
		rows, err := tx.tx.Query(ctx, query+strconv.Itoa(limit)+sorted, a...)
		if err != nil {
			return false, fmt.Errorf("nearest records: %w", err)
		}
		n, more := 0, true
		var sc recordScan
		var score, distance float64
		for rows.Next() {
			n++
			r, err := sc.scan(rows, &score, &distance)
			if err != nil {
				rows.Close()
				return false, err
			}
			if more && !seen[r.ID] {
				seen[r.ID] = true
				more = fn(r, score)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("nearest records: %w", err)
		}
		if !more || n < limit {
			return true, nil
		}
	}
}

// ScanRecordsWithoutEmbeddings is ScanRecords reading no embedding (see
// loci.NearestTx): a row's embedding is neither sent nor detoasted.
func (tx *Tx) ScanRecordsWithoutEmbeddings(ctx context.Context, f loci.RecordFilter, fn func(*loci.Record) error) error {
	q, a := selectRecords(f)
	q = strings.Replace(q, selectColumns, selectColumnsNoEmbedding, 1)
	return tx.scan(ctx, q, a, sameHash(f, fn))
}

// hasVectorIndex reports whether the HNSW index for dims exists.
func (tx *Tx) hasVectorIndex(ctx context.Context, dims int) (bool, error) {
	if _, ok := tx.db.vectorIndexes.Load(dims); ok {
		return true, nil
	}
	var exists bool
	if err := tx.tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, vectorIndexName(dims)).Scan(&exists); err != nil {
		return false, fmt.Errorf("find vector index: %w", err)
	}
	if exists && !tx.wroteRecords { // not one this transaction may yet roll back
		tx.db.vectorIndexes.Store(dims, true)
	}
	return exists, nil
}

// vectorIndexName names the HNSW index for dims.
func vectorIndexName(dims int) string { return "records_embedding_hnsw_" + strconv.Itoa(dims) }

// versionAtLeast reports whether an extension version such as "0.8.1" is
// major.minor or later.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
