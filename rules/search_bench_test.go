package rules_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/rules"
)

// BenchmarkSearch measures one hybrid search (BM25 and hash vectors, limit
// 10) of one agent's passages on a SQLite file, as `loci bench` does, with
// its passages and queries (package textgen).
//
//	go test -run '^$' -bench 'Search$' -benchmem ./rules/
func BenchmarkSearch(b *testing.B) {
	b.Run("10k", func(b *testing.B) { benchSearch(b, 10_000) })
	b.Run("Messages10k", func(b *testing.B) { benchSearchMessages(b, 10_000) })
}

// benchSearchMessages measures one lexical search (limit 10) of a user's
// n conversation messages, in sessions of 50 turns: the path that scores
// turns as conversation (context, sessions, participants).
func benchSearchMessages(b *testing.B, n int) {
	ctx := context.Background()
	store := testdb.OpenSQLite(b)
	svc := rules.New(store)
	b.Cleanup(func() { svc.FlushAudit(ctx) })
	gen := textgen.New(1)
	const user, turns = "bench-user", 50
	for s := 0; s*turns < n; s++ {
		msgs := make([]loci.Message, min(turns, n-s*turns))
		for i := range msgs {
			role := loci.MessageRoleUser
			if i%2 == 1 {
				role = loci.MessageRoleAssistant
			}
			msgs[i] = loci.Message{Role: role, Content: gen.Passage()}
		}
		if _, _, err := svc.PutSession(ctx, fmt.Sprint("s", s), loci.SessionPut{UserID: user, Messages: msgs}); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]loci.SearchQuery, 1024)
	for i := range queries {
		queries[i] = loci.SearchQuery{Query: gen.Query(), UserID: user, Limit: 10}
	}
	timeSearches(b, svc, queries)
}

func benchSearch(b *testing.B, n int) {
	ctx := context.Background()
	store := testdb.OpenSQLite(b)
	svc := rules.New(store, rules.WithEmbedder(embed.NewHash(256)))
	b.Cleanup(func() { svc.FlushAudit(ctx) })
	gen := textgen.New(1)
	const agent = "bench-agent"
	for start := 0; start < n; start += 1000 {
		err := store.Update(ctx, func(tx loci.Tx) error {
			for range min(1000, n-start) {
				content := gen.Passage()
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
		queries[i] = loci.SearchQuery{Query: gen.Query(), AgentID: agent, Kinds: []loci.Kind{loci.KindPassage}, Limit: 10}
	}
	timeSearches(b, svc, queries)
}

// timeSearches runs one search untimed (the index's load), then times
// queries in turn.
func timeSearches(b *testing.B, svc *rules.Service, queries []loci.SearchQuery) {
	ctx := context.Background()
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
