package index

import "slices"

// cand is a candidate for a top-k: its score and id, and where its doc is
// (a slot of an entry, materialized only if it is kept to the end, or a
// doc already made).
type cand struct {
	score float64
	id    string
	slot  int32
	doc   *Doc
}

// topK keeps the k best candidates offered: by score, then by id
// (ascending) so that ties break the same way on every backend, whatever
// the order the records were loaded in. Callers ask wantsScore, then
// wants, before checking the filter, so the filter runs only on candidates
// good enough to enter.
type topK struct {
	k int
	// h is a binary heap with the worst kept candidate at h[0].
	h []cand
	// worst is the score of the worst candidate kept, once full: most
	// are turned away on it alone, without reading their id.
	worst float64
}

// newTopK returns a top-k, which allocates its room for k at the first
// candidate it keeps (a search's signals that find nothing allocate none).
func newTopK(k int) *topK { return &topK{k: k} }

// better orders candidates best first.
func better(as float64, aid string, bs float64, bid string) bool {
	if as != bs {
		return as > bs
	}
	return aid < bid
}

// wantsScore reports whether a candidate with score could be kept, before
// its id is known: a tie with the worst may be, by id.
func (t *topK) wantsScore(score float64) bool {
	return t.k > 0 && (len(t.h) < t.k || score >= t.worst)
}

// wants reports whether a candidate with score and id would be kept.
func (t *topK) wants(score float64, id string) bool {
	if t.k <= 0 {
		return false
	}
	if len(t.h) < t.k {
		return true
	}
	if score != t.worst {
		return score > t.worst
	}
	return id < t.h[0].id
}

// worse reports whether h[i] ranks below h[j].
func (t *topK) worse(i, j int) bool {
	return better(t.h[j].score, t.h[j].id, t.h[i].score, t.h[i].id)
}

// push keeps c, dropping the worst if full. Call it only when wants.
func (t *topK) push(c cand) {
	if len(t.h) < t.k {
		if t.h == nil {
			t.h = make([]cand, 0, t.k)
		}
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.worse(i, p) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
	} else {
		t.h[0] = c
		for i, n := 0, len(t.h); ; {
			w := i
			if l := 2*i + 1; l < n && t.worse(l, w) {
				w = l
			}
			if r := 2*i + 2; r < n && t.worse(r, w) {
				w = r
			}
			if w == i {
				break
			}
			t.h[i], t.h[w] = t.h[w], t.h[i]
			i = w
		}
	}
	t.worst = t.h[0].score
}

// offer pushes c if it would be kept.
func (t *topK) offer(c cand) {
	if t.wants(c.score, c.id) {
		t.push(c)
	}
}

// sorted returns the kept candidates, best first, and empties t.
func (t *topK) sorted() []cand {
	out := t.h
	slices.SortFunc(out, func(a, b cand) int {
		if better(a.score, a.id, b.score, b.id) {
			return -1
		}
		if better(b.score, b.id, a.score, a.id) {
			return 1
		}
		return 0
	})
	t.h = nil
	return out
}

// hits returns the kept candidates, best first, as hits of their docs.
func (t *topK) hits() []Hit {
	cs := t.sorted()
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{Doc: c.doc, Score: c.score}
	}
	return out
}
