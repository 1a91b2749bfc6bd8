package index

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestBudgetEstimate checks that what the cache counts against its budget
// is what its indexes really hold (the Go heap), within a band, for the
// shapes that matter: many small scopes and one large one, with and
// without vectors. An estimate far below the heap lets a process pass its
// memory budget; far above, it wastes it.
func TestBudgetEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 30000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dxq", i)
	}
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	text := func() string {
		w := make([]string, 12+rng.Intn(30))
		for j := range w {
			w[j] = vocab[z.Uint64()]
		}
		return strings.Join(w, " ")
	}
	for _, tc := range []struct {
		name          string
		scopes, docs  int
		dims          int
		conversations bool
		budget        int64 // whether full vectors are kept beside compact ones (fullShare)
	}{
		{"SmallScopes", 400, 100, 256, false, 0},
		{"SmallScopesFullVectors", 400, 100, 256, false, DefaultBudget},
		{"LargeScope", 1, 40000, 256, false, 0},
		{"SmallScopesNoVectors", 400, 100, 0, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config{model: "m", budget: tc.budget, conversational: func(r *loci.Record) bool { return tc.conversations }}
			runtime.GC()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			entries := make([]*entry, tc.scopes)
			var est int64
			n := 0
			for s := range entries {
				agent := fmt.Sprintf("agent-%05d", s)
				e := newEntry(cfg, agent, loci.RecordFilter{Workspace: "default", AgentID: &agent})
				e.reserve(tc.docs)
				for range tc.docs {
					r := &loci.Record{ID: fmt.Sprintf("01a20a2c-%04x-7000-8000-%012d", s%65536, n), Workspace: "default",
						Kind: loci.KindPassage, Scope: loci.Scope{AgentID: agent, UserID: "user-00001"}, SearchText: text(),
						CreatedAt: time.Now(), UpdatedAt: time.Now(), Version: 1}
					if tc.dims > 0 {
						r.Embedding, r.EmbeddingModel = make([]float32, tc.dims), "m"
						for d := range r.Embedding {
							r.Embedding[d] = rng.Float32()
						}
					}
					e.put(r)
					n++
				}
				e.loaded()
				entries[s] = e
				est += e.bytes
			}
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&after)
			heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			ratio := float64(est) / float64(heap)
			objects := float64(int64(after.HeapObjects)-int64(before.HeapObjects)) / float64(n)
			t.Logf("%d docs: estimate %d bytes/doc, heap %d bytes/doc (estimate/heap %.2f), %.1f heap objects/doc", n, est/int64(n), heap/int64(n), ratio, objects)
			if ratio < 0.85 || ratio > 1.3 {
				t.Errorf("estimate/heap = %.2f, want 0.85-1.3", ratio)
			}
			runtime.KeepAlive(entries)
		})
	}
}
