//go:build linux

package index

import (
	"fmt"
	"math"
	"math/rand"
	mrand "math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/loci-memory/loci"
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
	q, release := v.prepare(x)
	defer release()
	ok := make([]bool, n)
	for i := range ok {
		ok[i] = true
	}
	ham := make([]uint16, n)
	hist := make([]int, dims+1)
	b.Run("hamming-head", func(b *testing.B) {
		cpuTimed(b, func() { v.hammingHead(&q, ok, ham, dims+1, hist) })
	})
	b.Run("dot4", func(b *testing.B) {
		cpuTimed(b, func() {
			q, release := v.prepare(x)
			for s := range 1024 {
				v.dot4(&q, s)
			}
			release()
		})
	})
}

// cpuTimed runs fn b.N times and reports the thread's CPU time per run
// (cpu-us/op) beside the wall time: on a shared machine the wall time
// counts the waits for a core.
func cpuTimed(b *testing.B, fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &r0)
	for range b.N {
		fn()
	}
	syscall.Getrusage(syscall.RUSAGE_THREAD, &r1)
	cpu := time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) + time.Duration(r1.Stime.Nano()-r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
}

func benchUnit(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / math.Sqrt(ss))
	}
	return out
}

// BenchmarkEntryVector times the compact passes of a vector search (sign
// bits, 4-bit codes; no rescoring) of 50,000 clustered vectors of 1,536
// dimensions under a search's filter.
//
//	go test ./index -run XXX -bench EntryVector -benchtime 200x
func BenchmarkEntryVector(b *testing.B) {
	const n, dims = 50000, 1536
	rng := mrand.New(mrand.NewPCG(1, 2))
	centers := make([][]float32, 256)
	for i := range centers {
		v := make([]float64, dims)
		for d := range v {
			v[d] = rng.NormFloat64()
		}
		centers[i] = benchUnit(v)
	}
	near := func() []float32 {
		c := centers[rng.IntN(len(centers))]
		v := make([]float64, dims)
		for d := range v {
			v[d] = float64(c[d]) + 0.75/math.Sqrt(dims)*rng.NormFloat64()
		}
		return benchUnit(v)
	}
	agent := "a"
	scope := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: &agent}
	cfg := &config{model: "m", budget: 256 << 20}
	e := newEntry(cfg, keyOf(scope), scope)
	e.reserve(n)
	now := time.Now()
	for i := range n {
		e.put(&loci.Record{ID: fmt.Sprintf("r%06d", i), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
			Scope: loci.Scope{AgentID: agent}, Content: "some words here", CreatedAt: now, UpdatedAt: now,
			Embedding: near(), EmbeddingModel: "m"})
	}
	e.loaded()
	var qs [][]float32
	for range 50 {
		qs = append(qs, near())
	}
	f := scope
	f.Kinds = []loci.Kind{loci.KindPassage}
	f.AsOf = now
	b.ResetTimer()
	i := 0
	cpuTimed(b, func() {
		m := e.matcher(&f)
		e.vector(m, qs[i%len(qs)], 50, math.Inf(-1), nil)
		i++
	})
}
