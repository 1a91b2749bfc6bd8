package index_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// vecCorpus is a fixed corpus of one agent's records with clustered unit
// vectors (so that nearest neighbours are close calls inside a cluster),
// and queries near its clusters.
type vecCorpus struct {
	recs    []*loci.Record
	queries [][]float32
}

func newVecCorpus(n, dims, clusters, queries int, words int) *vecCorpus {
	rng := rand.New(rand.NewPCG(7, uint64(dims)))
	norm := func(v []float64) []float32 {
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
	centers := make([][]float64, clusters)
	for i := range centers {
		centers[i] = make([]float64, dims)
		for d := range centers[i] {
			centers[i][d] = rng.NormFloat64()
		}
		copy(centers[i], float64s(norm(centers[i])))
	}
	near := func() []float32 {
		c := centers[rng.IntN(clusters)]
		v := make([]float64, dims)
		for d := range v {
			v[d] = c[d] + 0.75/math.Sqrt(float64(dims))*rng.NormFloat64()
		}
		return norm(v)
	}
	c := &vecCorpus{}
	for i := range n {
		text := make([]string, words)
		for j := range text {
			text[j] = fmt.Sprintf("w%dq", rng.IntN(1_000_000))
		}
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", fmt.Sprintf("record %d", i))
		r.SearchText = strings.Join(text, " ")
		r.Embedding, r.EmbeddingModel = near(), "m"
		c.recs = append(c.recs, r)
	}
	for range queries {
		c.queries = append(c.queries, near())
	}
	return c
}

func float64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// exact returns the best k records by the float32 dot product of their
// vectors with q, ties by id, and their scores.
func (c *vecCorpus) exact(q []float32, k int) (ids []string, scores []float64) {
	type hit struct {
		id    string
		score float64
	}
	hits := make([]hit, len(c.recs))
	for i, r := range c.recs {
		var dot float32
		for d, x := range q {
			dot += x * r.Embedding[d]
		}
		hits[i] = hit{r.ID, float64(dot)}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	for _, h := range hits[:k] {
		ids, scores = append(ids, h.id), append(scores, h.score)
	}
	return ids, scores
}

// vectorSearch returns what c's vector search of agent a finds for q.
func vectorSearch(t *testing.T, store loci.Store, c *index.Cache, q []float32, k int) (ids []string, scores []float64) {
	t.Helper()
	ctx := context.Background()
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
	if err := store.View(ctx, func(tx loci.Tx) error {
		res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Vector: q, N: k})
		for _, h := range res.Vector {
			ids, scores = append(ids, h.Doc.Meta.ID), append(scores, h.Score)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return ids, scores
}

func insertAll(t *testing.T, store loci.Store, recs []*loci.Record) {
	t.Helper()
	if err := store.Update(context.Background(), func(tx loci.Tx) error {
		return tx.InsertRecords(context.Background(), recs)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestCompactVectorsMatchExact: on a fixed corpus, the index's search over
// compact vectors (sign bits over more than a thousand records, 4-bit
// codes, then rescoring) returns the exact float32 top results with their
// exact scores, wherever the exact 10th result is ahead of the 11th by
// more than the compact passes' error: rescored from the store, and from
// the full vectors a scope small beside the budget keeps; on both
// backends.
func TestCompactVectorsMatchExact(t *testing.T) {
	corpus := newVecCorpus(3000, 384, 8, 40, 4)
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		insertAll(t, store, corpus.recs)
		// 3,000 vectors of 384 float32s are 4.6 MB: more than a 16th of
		// 64 MB, less than one of 256 MB.
		for name, budget := range map[string]int64{"FromStore": 64 << 20, "InMemory": 256 << 20} {
			t.Run(name, func(t *testing.T) {
				c := index.New(index.WithModel("m"), index.WithBudget(budget))
				checked := 0
				for i, q := range corpus.queries {
					want, wantScores := corpus.exact(q, 11)
					if wantScores[9]-wantScores[10] < 1e-3 {
						continue // a near tie at the cut: either is right
					}
					checked++
					got, scores := vectorSearch(t, store, c, q, 10)
					if !slices.Equal(got, want[:10]) || !slices.Equal(scores, wantScores[:10]) {
						t.Errorf("query %d: compact top 10 %v %v,\nexact %v %v", i, got, scores, want[:10], wantScores[:10])
					}
				}
				if checked < len(corpus.queries)/2 {
					t.Errorf("only %d of %d queries had a margin", checked, len(corpus.queries))
				}
				st := c.Stats()
				if st.Streams != 0 || st.Entries != 1 {
					t.Errorf("stats %+v: want the scope held", st)
				}
				// What is held says which: the full vectors cost 4 bytes a
				// dimension, the compact ones under 1.
				if perDoc := st.Bytes / 3000; (perDoc > 1536) != (name == "InMemory") {
					t.Errorf("%d bytes a record held", perDoc)
				}
			})
		}
	})
}

// TestOverBudgetVectorsExact: a scope over the budget is answered exactly,
// by a streaming pass: one the record count turns away, and one whose
// load outgrows the budget (its records longer than estimated), which is
// not held; on both backends.
func TestOverBudgetVectorsExact(t *testing.T) {
	corpus := newVecCorpus(400, 64, 4, 10, 300)
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		insertAll(t, store, corpus.recs)
		for name, budget := range map[string]int64{
			"Counted": 64 << 10,
			// Above the count's estimate (2 KB a record), below what
			// 300 distinct words a record cost.
			"Outgrown": 4096 + 400*2048 + 1,
		} {
			t.Run(name, func(t *testing.T) {
				c := index.New(index.WithModel("m"), index.WithBudget(budget))
				for i, q := range corpus.queries {
					want, wantScores := corpus.exact(q, 10)
					got, scores := vectorSearch(t, store, c, q, 10)
					if !slices.Equal(got, want) || !slices.Equal(scores, wantScores) {
						t.Errorf("query %d: %v %v, exact %v %v", i, got, scores, want, wantScores)
					}
				}
				if st := c.Stats(); st.Streams != int64(len(corpus.queries)) || st.Entries != 0 || st.Bytes > budget {
					t.Errorf("stats %+v: want every search streamed, nothing held", st)
				}
			})
		}
	})
}
