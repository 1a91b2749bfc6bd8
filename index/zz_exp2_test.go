package index

import (
	"fmt"
	mrand "math/rand/v2"
	"testing"
)

func BenchmarkExpHead(b *testing.B) {
	for _, n := range []int{100000} {
		const dims = 1536
		rng := mrand.New(mrand.NewPCG(1, 2))
		v := newVecs(dims, n, n, false)
		x := make([]float32, dims)
		for s := range n {
			for d := range x {
				x[d] = float32(rng.NormFloat64())
			}
			v.set(s, x)
		}
		q, _ := v.prepare(x)
		ok := make([]bool, n)
		for i := range ok {
			ok[i] = true
		}
		ham := make([]uint16, n)
		hist := make([]int, dims+1)
		for r := range 3 {
			b.Run(fmt.Sprint("head", r), func(b *testing.B) {
				cpuTimed(b, func() { v.hammingHead(&q, ok, ham, dims+1, hist) })
			})
			b.Run(fmt.Sprint("tail", r), func(b *testing.B) {
				tw := v.words - v.hw
				cpuTimed(b, func() {
					for s := range n {
						ham[s] = uint16(hamming(q.tail, v.tail[s*tw:(s+1)*tw]))
					}
				})
			})
		}
	}
}
