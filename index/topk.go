package index

import "container/heap"

// topK keeps the k best hits offered: by score, then by id (ascending) so
// that ties break the same way on every backend, whatever the order the
// records were loaded in. wants tells, before the filter is checked, whether
// a hit would enter, so the filter runs only on hits good enough.
type topK struct {
	k int
	h hitHeap
	// worst is the score of the worst hit kept, once full: most
	// candidates are turned away on it alone, without reading their id.
	worst float64
}

func newTopK(k int) *topK { return &topK{k: k} }

// better orders hits best first.
func better(as float64, aid string, bs float64, bid string) bool {
	if as != bs {
		return as > bs
	}
	return aid < bid
}

// wants reports whether a hit with score and id would be kept.
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
	return id < t.h[0].Doc.Meta.ID
}

// push keeps the hit, dropping the worst if full. Call it only when wants.
func (t *topK) push(d *Doc, score float64) {
	if len(t.h) < t.k {
		heap.Push(&t.h, Hit{Doc: d, Score: score})
	} else {
		t.h[0] = Hit{Doc: d, Score: score}
		heap.Fix(&t.h, 0)
	}
	t.worst = t.h[0].Score
}

// wantsScore reports whether a hit with score could be kept, before its id
// is known: a tie with the worst may be, by id.
func (t *topK) wantsScore(score float64) bool {
	return t.k > 0 && (len(t.h) < t.k || score >= t.worst)
}

// offer pushes the hit if it would be kept.
func (t *topK) offer(d *Doc, score float64) {
	if t.wants(score, d.Meta.ID) {
		t.push(d, score)
	}
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []Hit {
	out := make([]Hit, len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(Hit)
	}
	return out
}

// hitHeap keeps the worst kept hit on top.
type hitHeap []Hit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	return better(h[j].Score, h[j].Doc.Meta.ID, h[i].Score, h[i].Doc.Meta.ID)
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
