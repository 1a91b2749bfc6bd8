package index

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestRoundCode: a value's code is math.Round's, clamped to -7..7,
// halves and the floats next to them included.
func TestRoundCode(t *testing.T) {
	xs := []float32{0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 6.5, -6.5, 7, -7, 7.4, -7.4, 7.6, -7.6}
	for _, x := range slices.Clone(xs) {
		xs = append(xs, math.Nextafter32(x, 10), math.Nextafter32(x, -10))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		xs = append(xs, float32(rng.Float64()*16-8))
	}
	for _, x := range xs {
		want := int8(max(-7, min(7, math.Round(float64(x)))))
		if got := roundCode(x); got != want {
			t.Errorf("roundCode(%v) = %d, want %d", x, got, want)
		}
	}
}

// TestDot4: the 4-bit pass's dot product, by the query's table, is the dot
// product of the query with the vector the codes give back (get), for
// even and odd dimensions, within float32 rounding.
func TestDot4(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, dims := range []int{1, 7, 8, 129, 640, 1536} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			v := newVecs(dims, 20, 20, false)
			x := make([]float32, dims)
			for s := range 20 {
				for d := range x {
					x[d] = float32(rng.NormFloat64())
				}
				v.set(s, x)
			}
			q, release := v.prepare(x)
			defer release()
			for s := range 20 {
				var want float64
				for d, y := range v.get(s) {
					want += float64(x[d]) * float64(y)
				}
				if got := float64(v.dot4(&q, s)); math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
					t.Errorf("slot %d: dot4 %v, want %v", s, got, want)
				}
			}
		})
	}
}

// TestNearestOf: the indexes up to the distance that reaches want of those
// ok takes, every tie at it included; ok runs only on those near enough;
// slots name what is returned.
func TestNearestOf(t *testing.T) {
	dist := []uint16{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 10} // 10: none, beyond hist
	hist := make([]int, 10)
	for _, d := range dist {
		if int(d) < len(hist) {
			hist[d]++
		}
	}
	even := func(i int32) bool { return i%2 == 0 }
	tests := map[string]struct {
		want  int
		ok    func(int32) bool
		slots []int32
		out   []int32
	}{
		"OK":       {want: 3, out: []int32{1, 3, 6}},
		"Ties":     {want: 4, out: []int32{0, 1, 3, 6, 9}},
		"All":      {want: 20, out: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		"Filtered": {want: 3, ok: even, out: []int32{0, 2, 6}},
		"Slots":    {want: 2, slots: []int32{30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}, out: []int32{31, 33}},
		"None":     {want: 0},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var asked []int32
			ok := tt.ok
			if ok != nil {
				ok = func(i int32) bool { asked = append(asked, i); return tt.ok(i) }
			}
			got := nearestOf(dist, slices.Clone(hist), tt.want, ok, tt.slots)
			if slices.Sort(got); !slices.Equal(got, tt.out) {
				t.Errorf("got %v, want %v", got, tt.out)
			}
			if slices.Contains(asked, 5) || slices.Contains(asked, 10) {
				t.Errorf("ok asked of %v: the far ones too", asked)
			}
		})
	}
}

// TestNearestBySign: the sign-bit pool of a scope of more than headPool
// vectors of more than headWords of bits is, by its definition written
// plainly: the slots whose full distance is at most the one that reaches
// hammingPool of the filter's, among those whose head's distance is at
// most the one that reaches headPool; when fewer than hammingPool of those
// pass the filter, the same over every slot. It holds the exact top 10.
func TestNearestBySign(t *testing.T) {
	const n, dims = headPool + 2000, 640 // 10 words: a head of 8, a tail of 2
	rng := rand.New(rand.NewPCG(3, 3))
	centers := make([][]float64, 64)
	for i := range centers {
		centers[i] = make([]float64, dims)
		for d := range centers[i] {
			centers[i][d] = rng.NormFloat64() / math.Sqrt(dims)
		}
	}
	near := func() []float32 {
		c := centers[rng.IntN(len(centers))]
		x := make([]float32, dims)
		for d := range x {
			x[d] = float32(c[d] + 0.75/math.Sqrt(dims)*rng.NormFloat64())
		}
		return x
	}
	agent := "a"
	scope := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: &agent}
	e := newEntry(&config{model: "m", budget: 1 << 20}, keyOf(scope), scope)
	e.reserve(n)
	now := time.Now()
	vecs := map[int32][]float32{}
	for i := range n {
		kind := loci.KindPassage
		if i%40 == 0 {
			kind = loci.KindNote // one in 40: fewer than hammingPool of the head's pool
		}
		r := &loci.Record{ID: fmt.Sprintf("r%06d", i), Workspace: loci.DefaultWorkspace, Kind: kind,
			Scope: loci.Scope{AgentID: agent}, Content: "words", CreatedAt: now, UpdatedAt: now,
			Embedding: near(), EmbeddingModel: "m"}
		e.put(r)
		vecs[e.slotOf[r.ID]] = r.Embedding
	}
	v := e.vecs
	if v.full != nil || v.hw != headWords || v.words != 10 {
		t.Fatalf("vecs: full %v, %d words, head %d: want compact, 10, %d", v.full != nil, v.words, v.hw, headWords)
	}
	// upTo returns the slots of cand (with dist) that keep takes, up to
	// the least distance at which want are taken.
	upTo := func(cand []int32, dist func(int32) int, keep func(int32) bool, want int) []int32 {
		var ds []int
		for _, s := range cand {
			if keep(s) {
				ds = append(ds, dist(s))
			}
		}
		slices.Sort(ds)
		var out []int32
		for _, s := range cand {
			if keep(s) && (len(ds) <= want || dist(s) <= ds[want-1]) {
				out = append(out, s)
			}
		}
		return out
	}
	for _, kind := range []loci.Kind{loci.KindPassage, loci.KindNote} {
		t.Run(string(kind), func(t *testing.T) {
			f := scope
			f.Kinds = []loci.Kind{kind}
			m := e.matcher(&f)
			for range 5 {
				x := near()
				q, release := v.prepare(x)
				got := e.nearestBySign(m, &q)
				release()
				qbits := make([]uint64, v.words)
				for d, y := range x {
					if y > 0 {
						qbits[d/64] |= 1 << (d % 64)
					}
				}
				dist := func(words int) func(int32) int {
					return func(s int32) int {
						var sbits [10]uint64
						for d, y := range vecs[s] {
							if y > 0 {
								sbits[d/64] |= 1 << (d % 64)
							}
						}
						h := 0
						for w := range words {
							h += bits.OnesCount64(qbits[w] ^ sbits[w])
						}
						return h
					}
				}
				all := make([]int32, n)
				for i := range all {
					all[i] = int32(i)
				}
				match := func(s int32) bool { return e.str(e.docs[s], sKind) == e.strIdx[string(kind)] }
				headNear := upTo(all, dist(headWords), func(int32) bool { return true }, headPool)
				want := upTo(headNear, dist(10), match, hammingPool)
				if len(want) < hammingPool {
					want = upTo(all, dist(10), match, hammingPool)
				}
				if slices.Sort(got); !slices.Equal(got, want) {
					t.Fatalf("pool of %d, want %d: %v…, want %v…", len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
				}
				// The exact top 10 of the filter's are in it.
				type sc struct {
					s   int32
					dot float32
				}
				var exact []sc
				for s, y := range vecs {
					if match(s) {
						var dot float32
						for d := range y {
							dot += x[d] * y[d]
						}
						exact = append(exact, sc{s, dot})
					}
				}
				slices.SortFunc(exact, func(a, b sc) int {
					if a.dot > b.dot {
						return -1
					}
					return 1
				})
				for _, c := range exact[:10] {
					if !slices.Contains(got, c.s) {
						t.Errorf("exact top 10 slot %d (%.3f) not in the pool", c.s, c.dot)
					}
				}
			}
		})
	}
}
