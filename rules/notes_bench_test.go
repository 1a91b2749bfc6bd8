package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// The benchmarks run on a SQLite file in a temp directory (WAL,
// synchronous=NORMAL), as `loci serve` does:
//
//	go test -run '^$' -bench . -benchmem ./rules/

var benchValue = json.RawMessage(`"Thursday 9am EST - 2x avg engagement on educational posts"`)

// BenchmarkRemember measures single-writer note writes: each a new key.
func BenchmarkRemember(b *testing.B) {
	svc := rules.New(testdb.OpenSQLite(b))
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := svc.Remember(ctx, "writer", fmt.Sprintf("key-%09d", i), benchValue); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkRememberUpdate measures updates of one note, each keeping the
// previous value as a version.
func BenchmarkRememberUpdate(b *testing.B) {
	svc := rules.New(testdb.OpenSQLite(b))
	ctx := context.Background()
	i := 0
	for b.Loop() {
		v, _ := json.Marshal(fmt.Sprintf("value %d", i))
		if _, err := svc.Remember(ctx, "writer", "key", v); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkRememberParallel measures note writes from GOMAXPROCS writers
// at once (they serialize on SQLite's one writer).
func BenchmarkRememberParallel(b *testing.B) {
	svc := rules.New(testdb.OpenSQLite(b))
	ctx := context.Background()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.Remember(ctx, "writer", fmt.Sprintf("key-%09d", n.Add(1)), benchValue); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkRecall measures the latency of recalling one existing note
// among 10,000 (of 100 agents).
func BenchmarkRecall(b *testing.B) {
	svc := rules.New(testdb.OpenSQLite(b))
	ctx := context.Background()
	for a := range 100 {
		for k := range 100 {
			if _, err := svc.Remember(ctx, fmt.Sprintf("agent-%03d", a), fmt.Sprintf("key-%03d", k), benchValue); err != nil {
				b.Fatal(err)
			}
		}
	}
	i := 0
	for b.Loop() {
		n, err := svc.Recall(ctx, fmt.Sprintf("agent-%03d", i%100), fmt.Sprintf("key-%03d", (i/100)%100))
		if err != nil || n == nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/recall")
}

// BenchmarkRecallAll measures recalling all 100 notes of an agent.
func BenchmarkRecallAll(b *testing.B) {
	svc := rules.New(testdb.OpenSQLite(b))
	ctx := context.Background()
	for k := range 100 {
		if _, err := svc.Remember(ctx, "writer", fmt.Sprintf("key-%03d", k), benchValue); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		notes, err := svc.RecallAll(ctx, "writer")
		if err != nil || len(notes) != 100 {
			b.Fatalf("got %d notes, %v", len(notes), err)
		}
	}
}
