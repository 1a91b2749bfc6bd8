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

// BenchmarkEdits measures an edit and a delete by id through the memories
// API on every configured backend, in a user holding 1,000 facts (a tenth
// of them keyed): a metadata patch, a content patch of a keyed fact (a new
// version of its slot), a delete.
//
//	go test -run '^$' -bench Edits -benchtime 500x ./rules/
func BenchmarkEdits(b *testing.B) {
	ctx := context.Background()
	for _, be := range testdb.Backends() {
		svc := rules.New(be.Open(b))
		var batch loci.MemoryBatch
		for i := range 1000 {
			in := loci.MemoryInput{Content: fmt.Sprintf("fact number %d", i), UserID: "u"}
			if i%10 == 0 {
				in.Key = fmt.Sprint("k", i)
			}
			batch.Add = append(batch.Add, in)
		}
		evs, err := svc.BatchMemories(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(be.Name+"/Metadata", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				meta := json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))
				if _, err := svc.UpdateMemory(ctx, evs[i%len(evs)].ID, loci.MemoryPatch{Metadata: meta}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(be.Name+"/KeyedContent", func(b *testing.B) {
			id := evs[0].ID
			for i := 0; b.Loop(); i++ {
				ev, err := svc.UpdateMemory(ctx, id, loci.MemoryPatch{Content: loci.Ptr(fmt.Sprintf("fact version %d", i))})
				if err != nil {
					b.Fatal(err)
				}
				id = ev.ID
			}
		})
		b.Run(be.Name+"/Delete", func(b *testing.B) {
			var ids []string
			for i := 0; i < b.N; i += loci.MaxBatchOps {
				var more loci.MemoryBatch
				for j := i; j < min(b.N, i+loci.MaxBatchOps); j++ {
					more.Add = append(more.Add, loci.MemoryInput{Content: fmt.Sprintf("gone %d", j), UserID: "u"})
				}
				evs, err := svc.BatchMemories(ctx, more)
				if err != nil {
					b.Fatal(err)
				}
				for _, ev := range evs {
					ids = append(ids, ev.ID)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				if err := svc.DeleteMemory(ctx, ids[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
