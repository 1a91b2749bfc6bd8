package index

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/loci-memory/loci"
)

// An entry keeps its vectors compact: per slot, one sign bit per
// dimension and a 4-bit code per dimension with a scale (about 0.63 bytes
// a dimension, against 4 for float32: a 100,000-record scope of
// 1536-dimension vectors holds 97 MB of them instead of 614 MB). A vector
// search scans them in passes, each over fewer candidates and more
// exact: the Hamming distance of the sign bits (a few instructions per 64
// dimensions) over every slot, when there are more than hammingPool (of
// the first headWords×64 dimensions' bits, when there are more, then of
// all of them over the best headPool of those); the 4-bit dot product over
// the best hammingPool of those; and the exact float32 dot product, over
// the best rescorePool(limit), of the vectors read from the store
// (rescore). What a search returns is scored exactly; compact scores only
// choose what is rescored.
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

// headWords is how many words of sign bits (64 dimensions each) the first
// sign-bit pass reads of every slot, where a vector has more: the first
// 512 dimensions' bits, a third of a 1,536-dimension vector's, estimate
// the angle within about twice the error of all of them (the error falls
// as the square root of the bits), and the second pass reads the rest of
// the bits of the best headPool only. The head bits of the slots lie
// together, apart from the rest, so the first pass reads a third of the
// memory the full bits take at 1,536 dimensions (measured over 100,000
// slots: 0.52 ms of CPU for the head's pass, against 1.87 ms for every
// bit's; the compact passes of a search, BenchmarkEntryVector, 4.8 ms
// against 6.0).
const headWords = 8

// headPool is how many slots the first sign-bit pass keeps for the full
// distance: eight times hammingPool, so that a slot among the best
// hammingPool by all its bits is dropped only when its head's error is
// several times the full bits' (on the bench's clustered 1,536-dimension
// vectors, every one of the exact top 10 was kept even at 1,024).
const headPool = 8 * hammingPool

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
	words int // uint64s of sign bits per slot: hw in head, the rest in tail
	hw    int
	half  int // bytes of 4-bit codes per slot
	// The sign bits: slot s's first hw words at head[s*hw:(s+1)*hw], its
	// other words-hw at tail[s*(words-hw):(s+1)*(words-hw)].
	head, tail []uint64
	nib        []byte    // 4-bit codes, two per byte: slot s at [s*half:(s+1)*half]
	scale      []float32 // by slot: a code times its scale is the value; 0 when empty
	// full holds the vectors as given, slot s at [s*dims:(s+1)*dims],
	// while the entry is small enough (fullShare); nil otherwise.
	full []float32
}

func newVecs(dims, n, capacity int, full bool) *vecs {
	v := &vecs{dims: dims, words: (dims + 63) / 64, half: (dims + 1) / 2}
	v.hw = min(v.words, headWords)
	tw := v.words - v.hw
	v.head = make([]uint64, n*v.hw, capacity*v.hw)
	v.tail = make([]uint64, n*tw, capacity*tw)
	v.nib = make([]byte, n*v.half, capacity*v.half)
	v.scale = make([]float32, n, capacity)
	if full {
		v.full = make([]float32, n*dims, capacity*dims)
	}
	return v
}

// signs returns slot s's sign bits: the head's words and the tail's.
func (v *vecs) signs(s int) (head, tail []uint64) {
	tw := v.words - v.hw
	return v.head[s*v.hw : (s+1)*v.hw], v.tail[s*tw : (s+1)*tw]
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
	v.head = append(v.head, make([]uint64, v.hw)...)
	v.tail = append(v.tail, make([]uint64, v.words-v.hw)...)
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
		m = max(m, f, -f)
	}
	head, tail := v.signs(s)
	nib := v.nib[s*v.half : (s+1)*v.half]
	clear(head)
	clear(tail)
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
			if w := d / 64; w < v.hw {
				head[w] |= 1 << (d % 64)
			} else {
				tail[w-v.hw] |= 1 << (d % 64)
			}
		}
		c := roundCode(f * inv)
		if d%2 == 0 {
			nib[d/2] |= byte(c) & 0x0f
		} else {
			nib[d/2] |= byte(c) << 4
		}
	}
}

// roundCode rounds x, within -7..7 but for float error, to the nearest
// code, halves away from zero: math.Round's result (adding a half to a
// float32 is exact in float64, and the conversion truncates), without its
// bit work, which took a third of a scope's load.
func roundCode(x float32) int8 {
	var c int32
	if x < 0 {
		c = int32(float64(x) - 0.5)
	} else {
		c = int32(float64(x) + 0.5)
	}
	return int8(max(-7, min(7, c)))
}

// reset empties slot s.
func (v *vecs) reset(s int) {
	head, tail := v.signs(s)
	clear(head)
	clear(tail)
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
		head, tail := v.signs(s)
		outHead, outTail := out.signs(int(ns))
		copy(outHead, head)
		copy(outTail, tail)
		copy(out.nib[int(ns)*v.half:], v.nib[s*v.half:(s+1)*v.half])
		out.scale[ns] = v.scale[s]
		if v.full != nil {
			copy(out.full[int(ns)*v.dims:], v.full[s*v.dims:(s+1)*v.dims])
		}
	}
	*v = *out
}

// query is a query vector prepared for the compact passes: as given, its
// sign bits (as a slot's, head and tail), and the table of its products
// with the 4-bit codes (dot4).
type query struct {
	x          []float32
	head, tail []uint64
	// lut holds, for each byte i of a slot's codes (dimensions 2i and
	// 2i+1) and each value b of it, x[2i]×(b's low code) + x[2i+1]×(b's
	// high code), at [i*256+b].
	lut []float32
}

// lutPool holds the queries' tables (768 KB each at 1,536 dimensions).
var lutPool = sync.Pool{New: func() any { return new([]float32) }}

// prepare returns x prepared; release gives back its table.
func (v *vecs) prepare(x []float32) (q query, release func()) {
	bits := make([]uint64, v.words)
	for d, f := range x {
		if f > 0 {
			bits[d/64] |= 1 << (d % 64)
		}
	}
	q = query{x: x, head: bits[:v.hw], tail: bits[v.hw:]}
	bufp := lutPool.Get().(*[]float32)
	if cap(*bufp) < v.half*256 {
		*bufp = make([]float32, v.half*256)
	}
	q.lut = (*bufp)[:v.half*256]
	var lo, hi [16]float32
	for i := range v.half {
		x0, x1 := x[2*i], float32(0)
		if 2*i+1 < len(x) {
			x1 = x[2*i+1]
		}
		for c := range 16 {
			lo[c], hi[c] = x0*nibValue[c], x1*nibValue[c]
		}
		row := q.lut[i*256 : (i+1)*256 : (i+1)*256]
		for h := range 16 {
			r, y := row[h*16:(h+1)*16:(h+1)*16], hi[h]
			for l := range 16 {
				r[l] = lo[l] + y
			}
		}
	}
	return q, func() { lutPool.Put(bufp) }
}

// hamming returns the number of dimensions whose sign differs between
// bits a and b, of the same length.
func hamming(a, b []uint64) int {
	b = b[:len(a)]
	n, i := 0, 0
	for ; i+4 <= len(a); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		n += bits.OnesCount64(a4[0]^b4[0]) + bits.OnesCount64(a4[1]^b4[1]) +
			bits.OnesCount64(a4[2]^b4[2]) + bits.OnesCount64(a4[3]^b4[3])
	}
	for ; i < len(a); i++ {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// hammingHead writes, for each slot s of ok, the Hamming distance of its
// head's sign bits to q's into ham[s] (none where !ok), and counts each
// distance in hist. One pass over the head bits, in order.
func (v *vecs) hammingHead(q *query, ok []bool, ham []uint16, none uint16, hist []int) {
	w := v.hw
	ham = ham[:len(ok)]
	if w == headWords {
		// The usual case, unrolled, with q's words in registers (1.6×
		// as fast as the loop over a slot's 8 words).
		q0, q1, q2, q3 := q.head[0], q.head[1], q.head[2], q.head[3]
		q4, q5, q6, q7 := q.head[4], q.head[5], q.head[6], q.head[7]
		head := v.head[:len(ok)*headWords]
		for s, live := range ok {
			if !live {
				ham[s] = none
				continue
			}
			b := head[s*headWords : (s+1)*headWords : (s+1)*headWords]
			n := bits.OnesCount64(q0^b[0]) + bits.OnesCount64(q1^b[1]) +
				bits.OnesCount64(q2^b[2]) + bits.OnesCount64(q3^b[3]) +
				bits.OnesCount64(q4^b[4]) + bits.OnesCount64(q5^b[5]) +
				bits.OnesCount64(q6^b[6]) + bits.OnesCount64(q7^b[7])
			ham[s] = uint16(n)
			hist[n]++
		}
		return
	}
	for s, live := range ok {
		if !live {
			ham[s] = none
			continue
		}
		n := hamming(q.head, v.head[s*w:(s+1)*w])
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

// dot4 returns the dot product of q with slot s's 4-bit codes: one
// lookup in q's table per byte of codes, two dimensions (measured 1.5×
// as fast as looking up each code's value and multiplying, over 1,024
// slots of 1,536 dimensions, the table's making counted).
func (v *vecs) dot4(q *query, s int) float32 {
	nib := v.nib[s*v.half : (s+1)*v.half]
	t := q.lut
	var a0, a1, a2, a3 float32
	i := 0
	for ; i+4 <= len(nib); i += 4 {
		b := nib[i : i+4 : i+4]
		r := t[i*256 : (i+4)*256 : (i+4)*256]
		a0 += r[b[0]]
		a1 += r[256+int(b[1])]
		a2 += r[512+int(b[2])]
		a3 += r[768+int(b[3])]
	}
	for ; i < len(nib); i++ {
		a0 += t[i*256+int(nib[i])]
	}
	return (a0 + a1 + a2 + a3) * v.scale[s]
}

// vector returns the docs that m selects and that hold a vector, up to
// rescorePool(limit) of them, best first by their similarity to q, and
// whether that similarity is exact: it is when the entry keeps its full
// vectors (then those under min are left out), else it is the compact
// one, which rescore makes exact (and min, here, turns away only those
// far below it).
func (e *entry) vector(m *matcher, q []float32, limit int, min float64, ar *arena) (hits []Hit, exact bool) {
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
			return e.exactAll(m, q, nz, limit, min, ar), true
		}
	}
	pq, release := v.prepare(q)
	defer release()
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
		return e.hits(top, nil, ar), false
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
	return e.hits(best, nil, ar), true
}

// exactAll returns the best limit docs that m selects by the dot product
// of q with their full vectors, on q's non-zero dimensions nz (in order,
// so the sums are a plain loop's), of at least min.
func (e *entry) exactAll(m *matcher, q []float32, nz []int, limit int, min float64, ar *arena) []Hit {
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
	return e.hits(top, nil, ar)
}

// hamPool holds the sign-bit pass's distances, by slot.
var hamPool = sync.Pool{New: func() any { return new([]uint16) }}

// nearestBySign returns the slots that m selects and that hold a vector,
// about hammingPool of them: those nearest q by the Hamming distance of
// their sign bits, up to the distance that reaches hammingPool, every tie
// at it included (so the pool does not depend on the order of the slots).
// Where the vectors have more than headWords of bits, those are chosen
// among the headPool nearest by the head's bits (chosen the same way,
// before the filter; all of them, when fewer than hammingPool of those
// pass it). The filter is checked only on slots near enough.
func (e *entry) nearestBySign(m *matcher, q *query) []int32 {
	v := e.vecs
	n := len(e.docs)
	bufp := hamPool.Get().(*[]uint16)
	defer hamPool.Put(bufp)
	if cap(*bufp) < n {
		*bufp = make([]uint16, n)
	}
	ham := (*bufp)[:n]
	hist := make([]int, v.dims+1)
	v.hammingHead(q, e.vecOK[:n], ham, uint16(v.dims+1), hist)
	match := func(s int32) bool { return m.match(e.docs[s]) }
	if v.hw == v.words {
		return nearestOf(ham, hist, hammingPool, match, nil)
	}
	tw := v.words - v.hw
	tailOf := func(s int32) int { return hamming(q.tail, v.tail[int(s)*tw:(int(s)+1)*tw]) }
	if near := nearestOf(ham, hist, headPool, nil, nil); len(near) < e.live {
		// The full distance of those: the head's plus the tail's.
		clear(hist)
		full := make([]uint16, len(near))
		for i, s := range near {
			d := int(ham[s]) + tailOf(s)
			full[i] = uint16(d)
			hist[d]++
		}
		if pool := nearestOf(full, hist, hammingPool, match, near); len(pool) >= hammingPool {
			return pool
		}
	}
	// Every slot's full distance.
	clear(hist)
	for s, d := range ham {
		if int(d) < len(hist) {
			d += uint16(tailOf(int32(s)))
			ham[s] = d
			hist[d]++
		}
	}
	return nearestOf(ham, hist, hammingPool, match, nil)
}

// nearestOf returns the indexes of dist (or, given slots, slots[i] for
// index i) that ok accepts (every one, for a nil ok), nearest first by
// distance band: those of distances up to the least at which want are
// accepted (all there are, if fewer), every tie at it included. hist
// counts dist's values below len(hist); a distance of len(hist) or more
// is never taken. ok runs only on indexes near enough.
func nearestOf(dist []uint16, hist []int, want int, ok func(i int32) bool, slots []int32) []int32 {
	var out []int32
	for lo := 0; lo < len(hist) && len(out) < want; {
		// The least hi from lo whose distances lo..hi reach what out
		// lacks (some may fail ok: then the next round goes on from
		// hi+1).
		hi, c := lo, hist[lo]
		for c < want-len(out) && hi < len(hist)-1 {
			hi++
			c += hist[hi]
		}
		for i, d := range dist {
			if int(d) < lo || int(d) > hi {
				continue
			}
			s := int32(i)
			if slots != nil {
				s = slots[i]
			}
			if ok == nil || ok(s) {
				out = append(out, s)
			}
		}
		lo = hi + 1
	}
	return out
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
