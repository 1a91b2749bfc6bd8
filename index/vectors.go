package index

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/loci-memory/loci"
)

// An entry keeps its vectors compact: per slot, one sign bit per
// dimension and a 4-bit code per dimension with a scale (about 0.63 bytes
// a dimension, against 4 for float32: a 100,000-record scope of
// 1536-dimension vectors holds 97 MB of them instead of 614 MB). A vector
// search scans them in three passes, each over fewer candidates and more
// exact: the Hamming distance of the sign bits (a few instructions per 64
// dimensions) over every slot, when there are more than hammingPool; the
// 4-bit dot product over the best hammingPool of those; and the exact
// float32 dot product, over the best rescorePool(limit), of the vectors
// read from the store (rescore). What a search returns is scored
// exactly; compact scores only choose what is rescored.
//
// A scope whose full vectors are small beside the budget (fullShare of
// it, such as 10,000 records of 256 dimensions, or a hundred of 1,536)
// keeps them too, and is rescored from them, without reading the store:
// the store's read costs more than the vectors save there.

// hammingPool is how many slots the sign-bit pass keeps for the 4-bit
// pass. The sign bits estimate the angle to the query within a few
// degrees at 1,536 dimensions: the pool is wide enough that the exact top
// results are in it unless they differ by less than that.
const hammingPool = 1024

// rescorePool is how many candidates of the 4-bit pass are rescored
// exactly for a search of limit: enough beyond limit that a candidate the
// 4-bit error (about 0.005 of similarity at 1,536 dimensions) ranked just
// outside is rescored too (limit+20 missed such a close call at 384
// dimensions, where the error is larger).
func rescorePool(limit int) int { return max(2*limit, limit+40) }

// fullShare: an entry keeps its full vectors while they take at most
// 1/fullShare of the budget.
const fullShare = 16

// vecs holds an entry's vectors by slot, compactly.
type vecs struct {
	dims  int
	words int       // uint64s of sign bits per slot
	half  int       // bytes of 4-bit codes per slot
	bits  []uint64  // sign bits: slot s at [s*words:(s+1)*words]
	nib   []byte    // 4-bit codes, two per byte: slot s at [s*half:(s+1)*half]
	scale []float32 // by slot: a code times its scale is the value; 0 when empty
	// full holds the vectors as given, slot s at [s*dims:(s+1)*dims],
	// while the entry is small enough (fullShare); nil otherwise.
	full []float32
}

func newVecs(dims, n, capacity int, full bool) *vecs {
	v := &vecs{dims: dims, words: (dims + 63) / 64, half: (dims + 1) / 2}
	v.bits = make([]uint64, n*v.words, capacity*v.words)
	v.nib = make([]byte, n*v.half, capacity*v.half)
	v.scale = make([]float32, n, capacity)
	if full {
		v.full = make([]float32, n*dims, capacity*dims)
	}
	return v
}

// slotBytes is what a slot costs.
func (v *vecs) slotBytes() int64 {
	n := int64(8*v.words + v.half + 4)
	if v.full != nil {
		n += int64(4 * v.dims)
	}
	return n
}

// grow adds an empty slot.
func (v *vecs) grow() {
	v.bits = append(v.bits, make([]uint64, v.words)...)
	v.nib = append(v.nib, make([]byte, v.half)...)
	v.scale = append(v.scale, 0)
	if v.full != nil {
		v.full = append(v.full, make([]float32, v.dims)...)
	}
}

// keepsFull reports whether an entry of n slots of dims keeps its full
// vectors under budget.
func keepsFull(n, dims int, budget int64) bool {
	return int64(n)*int64(dims)*4 <= budget/fullShare
}

// set stores x, of v.dims, in slot s.
func (v *vecs) set(s int, x []float32) {
	var m float32
	for _, f := range x {
		m = max(m, float32(math.Abs(float64(f))))
	}
	b := v.bits[s*v.words : (s+1)*v.words]
	nib := v.nib[s*v.half : (s+1)*v.half]
	clear(b)
	clear(nib)
	if v.full != nil {
		copy(v.full[s*v.dims:(s+1)*v.dims], x)
	}
	v.scale[s] = m / 7
	if m == 0 {
		return
	}
	inv := 7 / m
	for d, f := range x {
		if f > 0 {
			b[d/64] |= 1 << (d % 64)
		}
		c := int8(math.Round(float64(f * inv)))
		c = max(-7, min(7, c))
		if d%2 == 0 {
			nib[d/2] |= byte(c) & 0x0f
		} else {
			nib[d/2] |= byte(c) << 4
		}
	}
}

// reset empties slot s.
func (v *vecs) reset(s int) {
	clear(v.bits[s*v.words : (s+1)*v.words])
	clear(v.nib[s*v.half : (s+1)*v.half])
	v.scale[s] = 0
	if v.full != nil {
		clear(v.full[s*v.dims : (s+1)*v.dims])
	}
}

// get returns slot s's vector: as given when full, else as its codes
// give it back.
func (v *vecs) get(s int) []float32 {
	if v.full != nil {
		return slices.Clone(v.full[s*v.dims : (s+1)*v.dims])
	}
	out := make([]float32, v.dims)
	nib, sc := v.nib[s*v.half:(s+1)*v.half], v.scale[s]
	for d := range out {
		b := nib[d/2]
		if d%2 == 0 {
			out[d] = float32(int8(b<<4)>>4) * sc
		} else {
			out[d] = float32(int8(b)>>4) * sc
		}
	}
	return out
}

// compact keeps the slots newSlot maps (to their new place, in order),
// n of them.
func (v *vecs) compact(newSlot []int32, n int) {
	out := newVecs(v.dims, n, n, v.full != nil)
	for s, ns := range newSlot {
		if ns < 0 || s >= len(v.scale) {
			continue
		}
		copy(out.bits[int(ns)*v.words:], v.bits[s*v.words:(s+1)*v.words])
		copy(out.nib[int(ns)*v.half:], v.nib[s*v.half:(s+1)*v.half])
		out.scale[ns] = v.scale[s]
		if v.full != nil {
			copy(out.full[int(ns)*v.dims:], v.full[s*v.dims:(s+1)*v.dims])
		}
	}
	*v = *out
}

// query is a query vector prepared for the compact passes: as given, and
// its sign bits.
type query struct {
	x    []float32
	bits []uint64
}

func (v *vecs) prepare(x []float32) query {
	q := query{x: x, bits: make([]uint64, v.words)}
	for d, f := range x {
		if f > 0 {
			q.bits[d/64] |= 1 << (d % 64)
		}
	}
	return q
}

// hammingAll writes, for each slot s of ok, the number of dimensions
// whose sign differs between q and slot s into ham[s] (none where !ok),
// and counts each distance in hist. One pass over the sign bits, in order.
func (v *vecs) hammingAll(q *query, ok []bool, ham []uint16, none uint16, hist []int) {
	qb := q.bits
	w := v.words
	for s, live := range ok {
		if !live {
			ham[s] = none
			continue
		}
		b := v.bits[s*w : s*w+len(qb)]
		n, i := 0, 0
		for ; i+4 <= len(qb); i += 4 {
			q4, b4 := qb[i:i+4:i+4], b[i:i+4:i+4]
			n += bits.OnesCount64(q4[0]^b4[0]) + bits.OnesCount64(q4[1]^b4[1]) +
				bits.OnesCount64(q4[2]^b4[2]) + bits.OnesCount64(q4[3]^b4[3])
		}
		for ; i < len(qb); i++ {
			n += bits.OnesCount64(qb[i] ^ b[i])
		}
		ham[s] = uint16(n)
		hist[n]++
	}
}

// nibValue is a 4-bit code's value: its low or high half of a byte, as
// a two's complement in -8..7 (codes are -7..7).
var nibValue = func() (t [16]float32) {
	for i := range t {
		t[i] = float32(int8(i<<4) >> 4)
	}
	return t
}()

// dot4 returns the dot product of q with slot s's 4-bit codes, each
// code's value looked up (measured 30% faster than sign-extending it, and
// than integer products with a quantized query).
func (v *vecs) dot4(q *query, s int) float32 {
	nib := v.nib[s*v.half : (s+1)*v.half]
	x := q.x
	var a0, a1, a2, a3 float32
	d, i := 0, 0
	for ; i+1 < v.dims/2; i += 2 {
		bs := nib[i : i+2 : i+2]
		b0, b1 := bs[0], bs[1]
		xs := x[d : d+4 : d+4]
		a0 += xs[0] * nibValue[b0&15]
		a1 += xs[1] * nibValue[b0>>4]
		a2 += xs[2] * nibValue[b1&15]
		a3 += xs[3] * nibValue[b1>>4]
		d += 4
	}
	for ; d < v.dims; d++ {
		b := nib[d/2]
		if d%2 == 0 {
			a0 += x[d] * nibValue[b&15]
		} else {
			a1 += x[d] * nibValue[b>>4]
		}
	}
	return (a0 + a1 + a2 + a3) * v.scale[s]
}

// vector returns the docs that m selects and that hold a vector, up to
// rescorePool(limit) of them, best first by their similarity to q, and
// whether that similarity is exact: it is when the entry keeps its full
// vectors (then those under min are left out), else it is the compact
// one, which rescore makes exact (and min, here, turns away only those
// far below it).
func (e *entry) vector(m *matcher, q []float32, limit int, min float64) (hits []Hit, exact bool) {
	if e.vecs == nil || len(q) != e.dims || limit <= 0 {
		return nil, false
	}
	v := e.vecs
	n := len(e.docs)
	vecOK := e.vecOK[:n]
	if v.full != nil {
		// A sparse query (the hash embedder's) or a small scope is
		// scored exactly, on the query's non-zero dimensions: fewer
		// operations than the compact passes.
		var nz []int
		for d, x := range q {
			if x != 0 {
				nz = append(nz, d)
			}
		}
		if len(nz) <= v.dims/4 || e.live <= hammingPool {
			return e.exactAll(m, q, nz, limit, min), true
		}
	}
	pq := v.prepare(q)
	var pool []int32
	if e.live-e.pending > hammingPool {
		pool = e.nearestBySign(m, &pq)
	} else {
		for s := range n {
			if vecOK[s] && m.match(e.docs[s]) {
				pool = append(pool, int32(s))
			}
		}
	}
	// The 4-bit pass.
	top := newTopK(rescorePool(limit))
	floor := min - 0.1
	for _, s := range pool {
		x := float64(v.dot4(&pq, int(s)))
		if x < floor || !top.wantsScore(x) {
			continue
		}
		if id := e.docs[s].id; top.wants(x, id) {
			top.push(cand{score: x, id: id, slot: s})
		}
	}
	if v.full == nil {
		return e.hits(top), false
	}
	// Rescored from the full vectors.
	best := newTopK(limit)
	for _, c := range top.h {
		var dot float32
		for d, y := range v.full[int(c.slot)*v.dims : (int(c.slot)+1)*v.dims] {
			dot += q[d] * y
		}
		if x := float64(dot); x >= min {
			best.offer(cand{score: x, id: c.id, slot: c.slot})
		}
	}
	return e.hits(best), true
}

// exactAll returns the best limit docs that m selects by the dot product
// of q with their full vectors, on q's non-zero dimensions nz (in order,
// so the sums are a plain loop's), of at least min.
func (e *entry) exactAll(m *matcher, q []float32, nz []int, limit int, min float64) []Hit {
	v := e.vecs
	top := newTopK(limit)
	thr := min
	for s, ok := range e.vecOK[:len(e.docs)] {
		if !ok {
			continue
		}
		row := v.full[s*v.dims : (s+1)*v.dims]
		var dot float32
		for _, d := range nz {
			dot += q[d] * row[d]
		}
		x := float64(dot)
		if x < thr {
			continue
		}
		d := e.docs[s]
		if top.wants(x, d.id) && m.match(d) {
			top.push(cand{score: x, id: d.id, slot: int32(s)})
			if len(top.h) == top.k {
				thr = max(min, top.worst)
			}
		}
	}
	return e.hits(top)
}

// hamPool holds the sign-bit pass's distances, by slot.
var hamPool = sync.Pool{New: func() any { return new([]uint16) }}

// nearestBySign returns the slots that m selects and that hold a vector,
// about hammingPool of them: those nearest q by the Hamming distance of
// their sign bits, up to the distance that reaches hammingPool, every tie
// at it included (so the pool does not depend on the order of the slots).
// The filter is checked only on slots near enough.
func (e *entry) nearestBySign(m *matcher, q *query) []int32 {
	v := e.vecs
	n := len(e.docs)
	bufp := hamPool.Get().(*[]uint16)
	defer hamPool.Put(bufp)
	if cap(*bufp) < n {
		*bufp = make([]uint16, n)
	}
	ham := (*bufp)[:n]
	none := uint16(v.dims + 1) // no vector
	hist := make([]int, v.dims+1)
	v.hammingAll(q, e.vecOK[:n], ham, none, hist)
	var pool []int32
	for lo := 0; lo <= v.dims && len(pool) < hammingPool; {
		// The least hi from lo whose distances lo..hi reach what the
		// pool lacks (some may fail the filter: then the next round
		// goes on from hi+1).
		hi, c := lo, hist[lo]
		for c < hammingPool-len(pool) && hi < v.dims {
			hi++
			c += hist[hi]
		}
		for s, h := range ham {
			if int(h) >= lo && int(h) <= hi && m.match(e.docs[s]) {
				pool = append(pool, int32(s))
			}
		}
		lo = hi + 1
	}
	return pool
}

// vectorOf returns slot id's vector as its codes give it back, or nil.
func (e *entry) vectorOf(id string) []float32 {
	slot, ok := e.slotOf[id]
	if !ok || !e.docs[slot].hasVec {
		return nil
	}
	return e.vecs.get(int(slot))
}

// setVector stores vec in slot, if it has the entry's dimensions (the
// first vector stored sets them).
func (e *entry) setVector(slot int32, d *doc, vec []float32) {
	if e.vecs == nil {
		e.dims = len(vec)
		capacity := max(len(e.docs), e.capHint, 16)
		e.vecs = newVecs(len(vec), len(e.docs), capacity, keepsFull(capacity, len(vec), e.cfg.budget))
		e.bytes += e.vecs.slotBytes() * int64(len(e.docs)-1)
	}
	if len(vec) != e.dims {
		return // another shape: it counts as pending
	}
	e.vecs.set(int(slot), vec)
	d.hasVec = true
	e.vecOK[slot] = true
}

// growVecs adds an empty slot to the vectors, if any; an entry that
// outgrows its share of the budget for full vectors drops them.
func (e *entry) growVecs() {
	v := e.vecs
	if v == nil {
		return
	}
	if v.full != nil && !keepsFull(len(v.scale)+1, v.dims, e.cfg.budget) {
		e.bytes -= int64(4*v.dims) * int64(len(v.scale))
		v.full = nil
	}
	v.grow()
}

// vecBytes is what a slot's vector costs (0 without vectors).
func (e *entry) vecBytes() int64 {
	if e.vecs == nil {
		return 0
	}
	return e.vecs.slotBytes()
}

// VectorReader is what a loci.Tx may also offer the index: the stored
// embeddings of some records of a workspace, by id, without the rest of
// the records (rescore reads only these; a Tx without it is read with
// ScanRecords). fn gets each record found, in no order, with its
// embedding model and vector; vec is only valid during the call (a reader
// may decode each row into one buffer). A record without an embedding
// has a nil vec.
type VectorReader interface {
	ReadVectors(ctx context.Context, workspace string, ids []string, fn func(id, model string, vec []float32) error) error
}

// rescore scores hits, a scope's candidates by compact similarity,
// exactly: by the dot product of q with their vectors as the store holds
// them (read in tx, which the index is current with). It returns those of
// at least min, best first, and, when keep, their vectors. A candidate
// whose vector is gone is dropped.
func rescore(ctx context.Context, tx loci.Tx, model string, q []float32, hits []Hit, min float64, keep bool) ([]Hit, map[string][]float32, error) {
	if len(hits) == 0 {
		return nil, nil, nil
	}
	byID := make(map[string]*Hit, len(hits))
	ids := make([]string, len(hits))
	for i := range hits {
		byID[hits[i].Doc.Meta.ID] = &hits[i]
		ids[i] = hits[i].Doc.Meta.ID
	}
	var vecs map[string][]float32
	if keep {
		vecs = make(map[string][]float32, len(hits))
	}
	out := make([]Hit, 0, len(hits))
	score := func(id, m string, vec []float32) error {
		h := byID[id]
		if h == nil || m != model || len(vec) != len(q) {
			return nil
		}
		var dot32 float32 // a plain loop's sum, as every exact path sums
		for i, x := range q {
			dot32 += x * vec[i]
		}
		if dot := float64(dot32); dot >= min {
			out = append(out, Hit{Doc: h.Doc, Score: dot})
			if keep {
				vecs[id] = slices.Clone(vec)
			}
		}
		return nil
	}
	ws := hits[0].Doc.Meta.Workspace
	var err error
	if vr, ok := tx.StoreTx.(VectorReader); ok {
		err = vr.ReadVectors(ctx, ws, ids, score)
	} else {
		f := loci.RecordFilter{Workspace: ws, IDs: ids, Order: loci.OrderNone}
		err = tx.ScanRecords(ctx, f, func(r *loci.Record) error { return score(r.ID, r.EmbeddingModel, r.Embedding) })
	}
	if err != nil {
		return nil, nil, fmt.Errorf("rescore vectors: %w", err)
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if better(a.Score, a.Doc.Meta.ID, b.Score, b.Doc.Meta.ID) {
			return -1
		}
		return 1
	})
	return out, vecs, nil
}
