package index

import "github.com/loci-memory/loci/retrieval"

// What a search's results are scored by, beside their rank: the share of
// the query's weighted terms each holds, and its similarity to the
// query's vector. Each is asked for the few candidates returned only, so
// a search pays for it in proportion to its limit.

// TermWeights returns the query's distinct terms, in the order of Holds'
// bits (at most 64), and each one's inverse document frequency in the
// statistics the search scored by: a term no record holds weighs most.
func (r *Result) TermWeights() ([]string, []float64) {
	terms := r.terms[:min(len(r.terms), 64)]
	ws := make([]float64, len(terms))
	for i, t := range terms {
		ws[i] = r.stats.idf(r.stats.DF[t])
	}
	return terms, ws
}

// HoldsOf is Holds for the candidates ids (lexical hits, neighbours,
// vector hits) only: bit i for TermWeights' term i.
func (r *Result) HoldsOf(ids []string) map[string]uint64 {
	if len(r.terms) == 0 || len(ids) == 0 {
		return nil
	}
	return holdsOf(ids, r.owner, r.terms)
}

// Similarities returns the cosine similarity to the query's vector of each
// of the candidates ids that has a vector by the cache's model: the
// vector signal's score for its hits, else from the vector its part
// holds. Nil for a search without a vector.
func (r *Result) Similarities(ids []string) map[string]float64 {
	if r.qvec == nil {
		return nil
	}
	out := make(map[string]float64, len(ids))
	for _, h := range r.Vector {
		out[h.Doc.Meta.ID] = h.Score
	}
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		p := r.owner[id]
		var v []float32
		switch {
		case p == nil:
		case p.e != nil:
			p.e.mu.RLock()
			v = p.e.vectorOf(id)
			p.e.mu.RUnlock()
		default:
			v = p.s.vectors[id]
		}
		if v != nil {
			out[id] = retrieval.Cosine(r.qvec, v)
		}
	}
	return out
}
