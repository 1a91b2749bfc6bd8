package memory_test

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/memory"
)

// BenchmarkSearch measures one hybrid search (BM25 and hash vectors, limit
// 10) of one agent's passages on a SQLite file, as `loci bench` does:
// passages of 12 to 41 words drawn from a Zipf distribution, queries of
// three such words.
//
//	go test -run '^$' -bench 'Search$' -benchmem ./memory/
func BenchmarkSearch(b *testing.B) {
	b.Run("10k", func(b *testing.B) { benchSearch(b, 10_000) })
}

func benchSearch(b *testing.B, n int) {
	ctx := context.Background()
	store := testdb.OpenSQLite(b)
	svc := memory.New(store, memory.WithEmbedder(embed.NewHash(256)))
	b.Cleanup(func() { svc.FlushAudit(ctx) })
	rng := rand.New(rand.NewSource(1))
	vocab := make([]string, 30_000)
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "bar", "con", "tel", "mor", "ist"}
	for i := range vocab {
		var sb strings.Builder
		for range 2 + rng.Intn(3) {
			sb.WriteString(syl[rng.Intn(len(syl))])
		}
		vocab[i] = sb.String()
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	const agent = "bench-agent"
	for start := 0; start < n; start += 1000 {
		err := store.Update(ctx, func(tx loci.Tx) error {
			for range min(1000, n-start) {
				content := words(12 + rng.Intn(30))
				now := time.Now().UTC()
				r := &loci.Record{
					ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
					Scope: loci.Scope{AgentID: agent}, Content: content, SearchText: analysis.SearchText(content),
					CreatedAt: now, UpdatedAt: now, Version: 1,
				}
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := svc.Reindex(ctx, nil); err != nil {
		b.Fatal(err)
	}
	queries := make([]loci.SearchQuery, 1024)
	for i := range queries {
		queries[i] = loci.SearchQuery{Query: words(3), AgentID: agent, Kinds: []loci.Kind{loci.KindPassage}, Limit: 10}
	}
	if _, err := svc.Search(ctx, queries[0]); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := svc.Search(ctx, queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
