package postgres

import (
	"context"
	"fmt"
	"strconv"
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
//
// Searches are answered from the process's vector cache (vectorcache.go),
// which scores the same way in Go, when the transaction can read the
// cache's change feed and has not written records itself; otherwise in SQL.
func (tx *Tx) SearchVector(ctx context.Context, f loci.RecordFilter, model string, query []float32, limit int) ([]loci.ScoredRecord, error) {
	if limit <= 0 || len(query) == 0 {
		return nil, nil
	}
	if tx.db.cache != nil && !tx.wroteRecords {
		out, ok, err := tx.searchCached(ctx, f, model, query, limit)
		if err != nil || ok {
			return out, err
		}
	}
	return tx.searchVectorSQL(ctx, f, model, query, limit)
}

// searchVectorSQL is SearchVector in SQL.
func (tx *Tx) searchVectorSQL(ctx context.Context, f loci.RecordFilter, model string, query []float32, limit int) ([]loci.ScoredRecord, error) {
	var a args
	where := whereClause(f, "r.", &a)
	model, dims := a.add(model), a.add(len(query))
	var score string
	if tx.db.vector {
		v := tx.db.vectorSchema
		score = "1 - (r.embedding_vec OPERATOR(" + v + ".<=>) " + a.add(vectorLiteral(query)) + "::" + v + ".vector)"
		where += " AND r.embedding_vec IS NOT NULL AND " + v + ".vector_dims(r.embedding_vec) = " + dims
	} else {
		// The products come from two set-returning functions in lockstep
		// in a select list, which PostgreSQL runs without materializing
		// them (faster than unnest(a, b) in FROM).
		score = "(SELECT sum(p) FROM (SELECT unnest(r.embedding) * unnest(" + a.add(query) + "::real[]) AS p) AS t)"
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
	tx.wroteRecords = true
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
	// Each branch reads at most limit pending rows in (created_at, id)
	// order from the records_pending index: never embedded (''), then
	// other models' on either side of model.
	rows, err := tx.tx.Query(ctx, `SELECT `+recordColumns+` FROM (
			(SELECT * FROM records WHERE embedding_model = '' ORDER BY created_at, id LIMIT $2)
			UNION ALL
			(SELECT * FROM records WHERE embedding_model > '' AND embedding_model < $1 ORDER BY created_at, id LIMIT $2)
			UNION ALL
			(SELECT * FROM records WHERE embedding_model > $1 ORDER BY created_at, id LIMIT $2)) AS p
		ORDER BY created_at, id LIMIT $2`, model, limit)
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

// BM25 parameters, as in the SQLite index (sqlite/index.go).
const (
	bm25K1 = 1.2
	bm25B  = 0.4
)

// maxLexemeBytes bounds a term: PostgreSQL's parser drops longer words, so
// no tsvector holds one.
const maxLexemeBytes = 2046

// SearchLexical ranks the records that match f by BM25 over their analyzed
// text, with the SQLite index's formula and parameters: over the records of
// the workspace, N is their number, the average length is the mean of
// search_len (whitespace-separated terms), and a term's document frequency
// is the number of them whose tsvector holds it; a record's term frequency
// is the number of positions of the term in its tsvector. Candidates come
// from the GIN index (any term) with the filter applied before the best
// are taken. Terms are matched as exact lexemes: each becomes a quoted
// tsquery lexeme in a bound parameter, so no text is read as query syntax.
//
// Searches are answered from the process's cache (lexcache.go), which
// ranks the same way in Go, when the transaction can read the cache's
// change feed and has not written records itself; otherwise in SQL.
func (tx *Tx) SearchLexical(ctx context.Context, f loci.RecordFilter, terms []string, limit int) ([]loci.ScoredRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	var cleaned, queries []string
	seen := map[string]bool{}
	for _, t := range terms {
		t = cleanText(t)
		if strings.TrimSpace(t) == "" || len(t) > maxLexemeBytes || seen[t] {
			continue
		}
		seen[t] = true
		cleaned = append(cleaned, t)
		queries = append(queries, tsLexeme(t))
	}
	if len(queries) == 0 {
		return nil, nil
	}
	if tx.db.cache != nil && !tx.wroteRecords {
		out, ok, err := tx.searchLexicalCached(ctx, f, cleaned, limit)
		if err != nil || ok {
			return out, err
		}
	}
	return tx.searchLexicalSQL(ctx, f, queries, limit)
}

// searchLexicalSQL is SearchLexical in SQL, for queries (quoted tsquery
// lexemes, distinct).
func (tx *Tx) searchLexicalSQL(ctx context.Context, f loci.RecordFilter, queries []string, limit int) ([]loci.ScoredRecord, error) {
	k1, b := floatLiteral(bm25K1), floatLiteral(bm25B)
	k1plus1 := floatLiteral(bm25K1 + 1)
	var a args
	ws := a.add(f.Workspace)
	// k holds N, the average length and each term's idf (idf1, idf2, …).
	var idfs, tfs, scores []string
	for i, q := range queries {
		qp := a.add(q) + "::tsquery"
		idfs = append(idfs, fmt.Sprintf(`(SELECT ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) FROM (SELECT count(*)::float8 AS df
			FROM records d WHERE d.workspace = %s AND d.search_vector @@ %s) d) AS idf%d`, ws, qp, i+1))
		// With every weight 1, ts_rank_cd of a one-lexeme query is the
		// number of its positions: the term frequency (0 when absent).
		tfs = append(tfs, fmt.Sprintf("ts_rank_cd('{1,1,1,1}', r.search_vector, %s)::float8 AS tf%d", qp, i+1))
		scores = append(scores, fmt.Sprintf("k.idf%d * t.tf%d * %s / (t.tf%d + %s * (1 - %s + %s * r.search_len / k.avgdl))",
			i+1, i+1, k1plus1, i+1, k1, b, b))
	}
	anyP := a.add(strings.Join(queries, " | "))
	where := whereClause(f, "r.", &a)
	q := `WITH k AS MATERIALIZED (
			SELECT s.n, s.avgdl, ` + strings.Join(idfs, ",\n\t\t\t\t") + `
			FROM (SELECT count(*)::float8 AS n, coalesce(nullif(avg(search_len)::float8, 0), 1) AS avgdl
				FROM records WHERE workspace = ` + ws + `) s
		), hits AS (
			SELECT r.id, ` + strings.Join(scores, "\n\t\t\t\t+ ") + ` AS score
			FROM records r CROSS JOIN k
			-- OFFSET 0 keeps the subquery, so each tf is computed once.
			CROSS JOIN LATERAL (SELECT ` + strings.Join(tfs, ", ") + ` OFFSET 0) t
			WHERE r.search_vector @@ ` + anyP + `::tsquery AND ` + where + `
			ORDER BY score DESC, r.id LIMIT ` + a.add(limit) + `
		)
		SELECT ` + prefixed("r.", recordColumns) + `, h.score
		FROM hits h JOIN records r ON r.id = h.id
		ORDER BY h.score DESC, r.id`
	rows, err := tx.tx.Query(ctx, q, a...)
	if err != nil {
		return nil, fmt.Errorf("search lexical: %w", err)
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

// tsLexeme quotes term as one tsquery lexeme, matched exactly: within
// quotes, tsquery's operators are plain characters; quotes and
// backslashes are doubled.
func tsLexeme(term string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(term) + "'"
}

// floatLiteral writes x as a float8 SQL literal (a bare 0.4 would be
// numeric).
func floatLiteral(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64) + "::float8"
}
