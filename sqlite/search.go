package sqlite

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// SearchLexical ranks the records that match f by BM25 over their analyzed
// text, from the in-memory search index (see index.go).
func (tx *Tx) SearchLexical(ctx context.Context, f loci.RecordFilter, terms []string, limit int) ([]loci.ScoredRecord, error) {
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	sp, release, err := tx.db.index.acquire(ctx, tx.tx, f.Workspace, len(tx.ops) > 0)
	if err != nil {
		return nil, err
	}
	hits := sp.lexical(&f, terms, limit)
	ids := sp.ids(hits)
	release()
	return tx.scoredRecords(ctx, f.Workspace, ids, hits)
}

// SearchVector ranks the records that match f by cosine similarity of
// their embedding to query, exactly, from the in-memory search index.
func (tx *Tx) SearchVector(ctx context.Context, f loci.RecordFilter, model string, query []float32, limit int) ([]loci.ScoredRecord, error) {
	if len(query) == 0 || limit <= 0 {
		return nil, nil
	}
	sp, release, err := tx.db.index.acquire(ctx, tx.tx, f.Workspace, len(tx.ops) > 0)
	if err != nil {
		return nil, err
	}
	if sp.model != model && sp.model != "" {
		// The index holds another model's vectors: rebuild it for this one.
		release()
		sp, err = loadSpaceFor(ctx, tx, f.Workspace, model)
		if err != nil {
			return nil, err
		}
		sp.mu.RLock()
		release = sp.mu.RUnlock
	}
	hits := sp.vector(&f, model, query, limit)
	ids := sp.ids(hits)
	release()
	return tx.scoredRecords(ctx, f.Workspace, ids, hits)
}

// loadSpaceFor loads a workspace's space whose vectors are model's and
// installs it when the index is current.
func loadSpaceFor(ctx context.Context, tx *Tx, workspace, model string) (*space, error) {
	ix := tx.db.index
	gen, err := readGen(ctx, tx.tx)
	if err != nil {
		return nil, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	sp, err := loadSpaceModel(ctx, tx.tx, workspace, model)
	if err != nil {
		return nil, err
	}
	if gen == ix.gen && len(tx.ops) == 0 { // not with tx's own uncommitted changes
		ix.spaces[workspace] = sp
	}
	return sp, nil
}

func (sp *space) ids(hits []scored) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = sp.metas[h.slot].ID
	}
	return ids
}

// scoredRecords reads the records with ids and pairs them with the hits'
// scores, in order; a record gone from tx's snapshot is left out.
func (tx *Tx) scoredRecords(ctx context.Context, workspace string, ids []string, hits []scored) ([]loci.ScoredRecord, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var args []any
	for _, id := range ids {
		args = append(args, id)
	}
	// "+workspace" keeps the planner on the id index.
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+recordColumns+` FROM records WHERE id IN (`+placeholders(len(ids))+`) AND +workspace = ?`,
		append(args, workspace)...)
	if err != nil {
		return nil, fmt.Errorf("read ranked records: %w", err)
	}
	recs, err := scanRecords(rows)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*loci.Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	out := make([]loci.ScoredRecord, 0, len(ids))
	for i, id := range ids {
		if r := byID[id]; r != nil {
			out = append(out, loci.ScoredRecord{Record: r, Score: hits[i].score})
		}
	}
	return out, nil
}

// SetEmbedding stores a record's embedding if it is still at version.
func (tx *Tx) SetEmbedding(ctx context.Context, workspace, id string, version int, model string, vec []float32) (bool, error) {
	res, err := tx.tx.ExecContext(ctx, `UPDATE records SET embedding = ?, embedding_model = ?
		WHERE workspace = ? AND id = ? AND version = ?`, encodeVector(vec), model, workspace, id, version)
	if err != nil {
		return false, fmt.Errorf("set embedding: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	tx.ops = append(tx.ops, indexOp{setWorkspace: workspace, setID: id, setModel: model, setVec: vec})
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
	rows, err := tx.tx.QueryContext(ctx, `SELECT `+recordColumns+` FROM records
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
	var n int
	if f.Workspace == "" {
		// Every workspace: two ranges of the embedding_model index.
		err := tx.tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM records WHERE embedding_model < ?1)
			+ (SELECT count(*) FROM records WHERE embedding_model > ?1)`, model).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("count pending embeddings: %w", err)
		}
		return n, nil
	}
	// Cheap first: usually nothing in the workspace is pending.
	if err := tx.tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM records WHERE workspace = ? AND embedding_model < ?)
		+ (SELECT count(*) FROM records WHERE workspace = ? AND embedding_model > ?)`,
		f.Workspace, model, f.Workspace, model).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	} else if n == 0 {
		return 0, nil
	}
	where, args := whereClause(f, "")
	if err := tx.tx.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE `+where+` AND embedding_model != ?`,
		append(args, model)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending embeddings: %w", err)
	}
	return n, nil
}
