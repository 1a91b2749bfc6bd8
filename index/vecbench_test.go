package index

import (
	"math/rand"
	"testing"
)

// go test ./index -run XXX -bench CompactPasses
func BenchmarkCompactPasses(b *testing.B) {
	const n, dims = 20000, 1536
	rng := rand.New(rand.NewSource(1))
	v := newVecs(dims, n, n, false)
	x := make([]float32, dims)
	for s := range n {
		for d := range x {
			x[d] = float32(rng.NormFloat64())
		}
		v.set(s, x)
	}
	q := v.prepare(x)
	ok := make([]bool, n)
	for i := range ok {
		ok[i] = true
	}
	ham := make([]uint16, n)
	hist := make([]int, dims+1)
	b.Run("hamming", func(b *testing.B) {
		for range b.N {
			v.hammingAll(&q, ok, ham, dims+1, hist)
		}
	})
	b.Run("dot4int", func(b *testing.B) {
		for range b.N {
			for s := range 1024 {
				v.dot4(&q, s)
			}
		}
	})
	b.Run("dot4float", func(b *testing.B) {
		for range b.N {
			for s := range 1024 {
				v.dot4Float(&q, s)
			}
		}
	})
}
