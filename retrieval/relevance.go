package retrieval

// A result's score is its relevance to the query, 0..1, made to mean the
// same whatever the query and the scope, so that a threshold does: the
// share of the query's words (weighted by their IDF) that the record
// holds, and in hybrid mode its similarity to the query. The fusion's
// score, which orders the results, is a function of ranks and of the
// other candidates: the same record can be first with 0.3 of the query's
// words or with all of them.

// Coverage is the share of a query's weight that a record covers: Σ
// weights[i]·covered[i] / Σ weights[i], covered[i] in [0, 1] being how far
// the record covers term i (1: it holds the term). A query with no
// weight (no term) is covered completely: 1.
func Coverage(weights, covered []float64) float64 {
	var sum, got float64
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		sum += w
		if i < len(covered) {
			got += w * clamp01(covered[i])
		}
	}
	if sum == 0 {
		return 1
	}
	return clamp01(got / sum)
}

// Lent returns what each neighbour of a hit is lent by the hit's
// coverage, as Converse lends scores: the most, over the hits next to it,
// of p.Context (p.Answer for the record right after a hit that asks a
// question) times the hit's coverage. cover holds the hits' coverage;
// links and questions are Converse's.
func Lent(cover map[string]float64, links map[string][]Link, questions map[string]bool, p ConverseParams) map[string]float64 {
	out := map[string]float64{}
	for id, nbs := range links {
		c := cover[id]
		if c <= 0 {
			continue
		}
		for _, l := range nbs {
			if l.ID == id {
				continue
			}
			w := p.Context
			if l.After && questions[id] {
				w = p.Answer
			}
			if v := clamp01(w) * c; v > out[l.ID] {
				out[l.ID] = v
			}
		}
	}
	return out
}

// Relevance is a result's score from its words (Coverage, or what a
// neighbour lends when more) and, in hybrid mode, its meaning (the cosine
// similarity of its vector to the query's; nil in lexical mode): the
// greater of the two, in [0, 1]. An exact, complete match scores 1 by
// either.
func Relevance(words float64, meaning *float64) float64 {
	r := clamp01(words)
	if meaning != nil {
		r = max(r, clamp01(*meaning))
	}
	return r
}
