package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// nearestModel is the model of the vectors the nearest tests store.
const nearestModel = "test-nearest-32"

// unitVec is a seeded unit vector: one of a few centres plus noise, so
// that records of a cluster are each other's neighbours and other scopes'
// records lie among a scope's own.
func unitVec(rng *rand.Rand, centres [][]float64) []float32 {
	c := centres[rng.IntN(len(centres))]
	v := make([]float64, len(c))
	var ss float64
	for d := range v {
		v[d] = c[d] + 0.35*rng.NormFloat64()
		ss += v[d] * v[d]
	}
	out := make([]float32, len(v))
	for d := range v {
		out[d] = float32(v[d] / math.Sqrt(ss))
	}
	return out
}

// nearestCorpus stores 1,200 passages with 32-dimension vectors over
// agents a, b, c and users u, v (every 7th record tagged "seven"), and
// returns them with the query vectors.
func nearestCorpus(t *testing.T, db loci.Store) ([]*loci.Record, [][]float32) {
	rng := rand.New(rand.NewPCG(29, 1536))
	centres := make([][]float64, 6)
	for i := range centres {
		centres[i] = make([]float64, 32)
		for d := range centres[i] {
			centres[i][d] = rng.NormFloat64() / math.Sqrt(32)
		}
	}
	var recs []*loci.Record
	for i := range 1200 {
		scope := loci.Scope{AgentID: []string{"a", "b", "c"}[i%3], UserID: []string{"u", "v"}[i%2]}
		r := storetest.NewRecord(loci.KindPassage, scope, "", fmt.Sprintf("passage %d about topic%d", i, i%5))
		r.Embedding, r.EmbeddingModel = unitVec(rng, centres), nearestModel
		if i%7 == 0 {
			r.Tags = []string{"seven"}
		}
		recs = append(recs, r)
	}
	for i := 0; i < len(recs); i += 200 {
		storetest.MustInsert(t, db, recs[i:i+200]...)
	}
	queries := make([][]float32, 12)
	for i := range queries {
		queries[i] = unitVec(rng, centres)
	}
	return recs, queries
}

// exactTop is the best n of recs that f matches by the dot product with
// q (ties by id), as a stream of the scope ranks them.
func exactTop(recs []*loci.Record, f loci.RecordFilter, q []float32, n int) []string {
	type hit struct {
		id    string
		score float32
	}
	var hits []hit
	for _, r := range recs {
		if !f.Match(r) {
			continue
		}
		var dot float32
		for i, x := range q {
			dot += x * r.Embedding[i]
		}
		hits = append(hits, hit{r.ID, dot})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id < hits[j].id
	})
	var out []string
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.id)
	}
	return out
}

// countingTx counts the vector searches that the store's index answered.
type countingTx struct {
	*postgres.Tx
	answered *int
}

func (c countingTx) NearestRecords(ctx context.Context, f loci.RecordFilter, model string, q []float32, want int, vectors bool,
	fn func(*loci.Record, float64) bool) (bool, error) {
	ok, err := c.Tx.NearestRecords(ctx, f, model, q, want, vectors, fn)
	if ok {
		*c.answered++
	}
	return ok, err
}

// TestNearestOverBudget: a scope too large for the index budget is
// searched through pgvector's HNSW index where it exists (PGlite), and
// answers what an exact search of the scope answers, with the scope's
// filter (agent, user, tags, a filter-language condition) applied and no
// other scope's record; its lexical side is ranked as before. Plain
// PostgreSQL, without pgvector, streams the scope, with the same answers.
func TestNearestOverBudget(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testNearestOverBudget(t, postgresDSN(t), false) })
	t.Run("PGlite", func(t *testing.T) { testNearestOverBudget(t, pgliteDSN(t), true) })
}

func testNearestOverBudget(t *testing.T, dsn string, hnsw bool) {
	ctx := context.Background()
	db, pool := openWithPool(t, dsn)
	if db.HasPGVector() != hnsw {
		t.Fatalf("pgvector: %v, want %v", db.HasPGVector(), hnsw)
	}
	recs, queries := nearestCorpus(t, db)
	if _, err := pool.Exec(ctx, `ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	str := loci.Ptr[string]
	filters := map[string]loci.RecordFilter{
		"Agent":     {Workspace: loci.DefaultWorkspace, AgentID: str("a")},
		"AgentUser": {Workspace: loci.DefaultWorkspace, AgentID: str("b"), UserID: str("v")},
		"User":      {Workspace: loci.DefaultWorkspace, UserID: str("u"), Kinds: []loci.Kind{loci.KindPassage}},
		"Tagged":    {Workspace: loci.DefaultWorkspace, AgentID: str("c"), Tags: []string{"seven"}},
		"Where":     {Workspace: loci.DefaultWorkspace, AgentID: str("a"), Where: mustFilter(t, `{"tags": {"contains": "seven"}}`)},
	}
	// A budget no scope fits: every search streams its scope; and one
	// that holds them all, for the lexical side's reference.
	over := index.New(index.WithModel(nearestModel), index.WithBudget(1))
	held := index.New(index.WithModel(nearestModel))
	answered := 0
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			for qi, q := range queries {
				var res, ref *index.Result
				iq := index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{"topic3", "passage"}, Vector: q, N: 10}
				err := db.View(ctx, func(tx loci.Tx) error {
					var err error
					if res, err = over.Search(ctx, loci.Tx{StoreTx: countingTx{tx.StoreTx.(*postgres.Tx), &answered}}, iq); err != nil {
						return err
					}
					ref, err = held.Search(ctx, tx, iq)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range res.Vector {
					got = append(got, h.Doc.Meta.ID)
					if !f.Match(h.Doc.Meta) {
						t.Fatalf("query %d: %s is outside the scope %s", qi, h.Doc.Meta.ID, name)
					}
				}
				if want := exactTop(recs, f, q, 10); !slices.Equal(got, want) {
					t.Errorf("query %d: vector hits %v, want %v (exact)", qi, got, want)
				}
				if got, want := hitIDs(res.Lexical), hitIDs(ref.Lexical); len(got) == 0 || !slices.Equal(got, want) {
					t.Errorf("query %d: lexical hits %v, want %v (as a held index ranks them)", qi, got, want)
				}
				if res.Pending != 0 {
					t.Errorf("query %d: %d pending, want 0 (every record has its vector)", qi, res.Pending)
				}
			}
		})
	}
	if hnsw && answered == 0 {
		t.Errorf("no search was answered by the HNSW index")
	} else if !hnsw && answered != 0 {
		t.Errorf("%d searches answered by an index on a server without pgvector", answered)
	}
}

func hitIDs(hits []index.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s %.6f", h.Doc.Meta.ID, h.Score))
	}
	return out
}

func mustFilter(t *testing.T, raw string) *loci.MemoryFilter {
	f, err := loci.ParseMemoryFilter([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
