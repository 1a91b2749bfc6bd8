package postgres

// topK keeps the best k items seen, by before (a ranks before b), in a
// heap whose root is the worst kept; both in-memory searches use it.
type topK[T any] struct {
	k      int
	before func(a, b T) bool
	h      []T
}

// wants reports whether c would be kept, before any costlier check.
func (t *topK[T]) wants(c T) bool {
	if t.k <= 0 {
		return false
	}
	return len(t.h) < t.k || t.before(c, t.h[0])
}

// push keeps c if it is among the best k so far.
func (t *topK[T]) push(c T) {
	if !t.wants(c) {
		return
	}
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		t.up(len(t.h) - 1)
		return
	}
	t.h[0] = c
	t.down(0)
}

// sorted returns the kept items, best first, and empties t.
func (t *topK[T]) sorted() []T {
	out := make([]T, len(t.h))
	for i := len(t.h) - 1; i >= 0; i-- {
		out[i] = t.h[0]
		t.h[0] = t.h[len(t.h)-1]
		t.h = t.h[:len(t.h)-1]
		t.down(0)
	}
	return out
}

func (t *topK[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(t.h[p], t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK[T]) down(i int) {
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t.h) && t.before(t.h[w], t.h[l]) {
			w = l
		}
		if r < len(t.h) && t.before(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[w], t.h[i] = t.h[i], t.h[w]
		i = w
	}
}
