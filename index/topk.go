package index

import "container/heap"

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
	h candHeap
	// worst is the score of the worst candidate kept, once full: most
	// are turned away on it alone, without reading their id.
	worst float64
}

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

// push keeps c, dropping the worst if full. Call it only when wants.
func (t *topK) push(c cand) {
	if len(t.h) < t.k {
		heap.Push(&t.h, c)
	} else {
		t.h[0] = c
		heap.Fix(&t.h, 0)
	}
	t.worst = t.h[0].score
}

// offer pushes c if it would be kept.
func (t *topK) offer(c cand) {
	if t.wants(c.score, c.id) {
		t.push(c)
	}
}

// sorted returns the kept candidates, best first.
func (t *topK) sorted() []cand {
	out := make([]cand, len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(cand)
	}
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

// candHeap keeps the worst kept candidate on top.
type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	return better(h[j].score, h[j].id, h[i].score, h[i].id)
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
