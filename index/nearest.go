package index

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// The hook for stores with a vector index of their own (loci.NearestTx:
// PostgreSQL with pgvector's HNSW). A scope over the budget is streamed on
// every search; with such a store, its vector side is asked of the store's
// index instead, with the scope's filter applied there, and the stream
// reads the scope without its embeddings, for the lexical side and the
// pending count only.

// nearestSlack is how far below the worst kept similarity a record may
// still tie with it, as the store computes it: the store's index orders by
// cosine distance, in its own arithmetic.
const nearestSlack = 1e-6

// nearest fills s.vec and s.vectors with f's best n vector hits from the
// store's index, of at least min, scored as a stream scores them (the dot
// product of q with the stored embedding). It reports false when the
// store cannot answer; exhausted reports that the store gave every record
// it had (fewer than n), which the stream checks against the scope.
func (c *Cache) nearest(ctx context.Context, nt loci.NearestTx, f loci.RecordFilter, q []float32, n int, min float64, s *streamed) (ok, exhausted bool, err error) {
	exhausted = true
	ok, err = nt.NearestRecords(ctx, f, c.cfg.model, q, n, true, func(r *loci.Record, score float64) bool {
		if len(r.Embedding) == len(q) {
			var dot float32
			for i, x := range q {
				dot += x * r.Embedding[i]
			}
			score = float64(dot)
		}
		// Nearest first: for unit vectors (what embedders give), by this
		// score too, so nothing after one under min or the worst kept
		// can enter.
		if score < min || len(s.vec.h) == n && score < s.vec.worst-nearestSlack {
			exhausted = false
			return false
		}
		meta := strip(r)
		if f.Match(meta) && s.vec.wants(score, r.ID) {
			s.vec.push(cand{score: score, id: r.ID, doc: c.newDoc(r, meta)})
			s.vectors[r.ID] = r.Embedding
		}
		return true
	})
	if err != nil {
		return false, false, fmt.Errorf("nearest vectors: %w", err)
	}
	return ok, exhausted, nil
}

// nonNearest is a StoreTx without its NearestTx methods: a scope
// streamed whole.
type nonNearest struct{ loci.StoreTx }
