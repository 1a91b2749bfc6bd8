package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/rules"
)

// BenchmarkMemories measures the memories API on every configured backend
// (PostgreSQL when LOCI_TEST_POSTGRES_DSN is set): a batch add of 1000,
// and a filtered listing and a filtered search in one user holding N
// memories (LOCI_BENCH_MEMORIES, default 10000), reporting p50 and p95:
//
//	LOCI_BENCH_MEMORIES=100000 go test -run '^$' -bench Memories -benchtime 30x ./rules/
func BenchmarkMemories(b *testing.B) {
	ctx := context.Background()
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("LOCI_BENCH_MEMORIES")); err == nil && v > 0 {
		n = v
	}
	gen := textgen.New(1)
	for _, be := range testdb.Backends() {
		b.Run(be.Name+"/BatchAdd1000", func(b *testing.B) {
			svc := rules.New(be.Open(b), rules.WithAudit(false))
			for i := 0; b.Loop(); i++ {
				batch := loci.MemoryBatch{}
				for j := range 1000 {
					batch.Add = append(batch.Add, loci.MemoryInput{Content: fmt.Sprintf("%d-%d %s", i, j, gen.Passage()), UserID: "u",
						Metadata: json.RawMessage(fmt.Sprintf(`{"topic":"t%d"}`, j%10))})
				}
				if _, err := svc.BatchMemories(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
		svc := rules.New(be.Open(b), rules.WithAudit(false))
		for i := 0; i < n; i += 1000 {
			batch := loci.MemoryBatch{}
			for j := i; j < min(n, i+1000); j++ {
				batch.Add = append(batch.Add, loci.MemoryInput{Content: fmt.Sprintf("%d %s", j, gen.Passage()), UserID: "u",
					Metadata: json.RawMessage(fmt.Sprintf(`{"topic":"t%d","stars":%d}`, j%10, j%5))})
			}
			if _, err := svc.BatchMemories(ctx, batch); err != nil {
				b.Fatal(err)
			}
		}
		where, _ := loci.ParseMemoryFilter([]byte(`{"and": [{"metadata.topic": "t3"}, {"metadata.stars": {"gte": 2}}]}`))
		b.Run(fmt.Sprintf("%s/ListFiltered/%d", be.Name, n), func(b *testing.B) {
			timed(b, func() {
				if _, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}, Filters: where, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("%s/SearchFiltered/%d", be.Name, n), func(b *testing.B) {
			q := loci.SearchQuery{UserID: "u", Limit: 10, Filters: json.RawMessage(`{"and": [{"metadata.topic": "t3"}, {"metadata.stars": {"gte": 2}}]}`)}
			timed(b, func() {
				q.Query = gen.Query()
				if _, err := svc.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// timed runs fn b.N times and reports its p50 and p95 in milliseconds.
func timed(b *testing.B, fn func()) {
	var ds []time.Duration
	for b.Loop() {
		t := time.Now()
		fn()
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	ms := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
}
