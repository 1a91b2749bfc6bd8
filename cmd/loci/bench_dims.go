package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
)

// synthEmbedder is the embedder loci bench --dims plugs in: the vectors
// of a real embedder's size, without one. A text's vector is one of
// synthClusters seeded unit centres plus Gaussian noise, normalised, all
// drawn from a generator seeded by the text, so it is deterministic, and
// texts of a cluster are each other's nearest neighbours: a vector search
// has a true top 10 to find, separated by margins like a real model's
// (the noise sets them), not a uniform cloud where every neighbour is
// as far as any other.
type synthEmbedder struct {
	dims    int
	centers [][]float32
}

const (
	// synthClusters is how many clusters the vectors fall in.
	synthClusters = 256
	// synthNoise is the length of a vector's noise beside its unit
	// centre: the cosine of two vectors of a cluster is about
	// 1/(1+synthNoise²), 0.64.
	synthNoise = 0.75
)

var _ loci.Embedder = (*synthEmbedder)(nil)

func newSynthEmbedder(dims int) *synthEmbedder {
	rng := rand.New(rand.NewPCG(1, uint64(dims)))
	s := &synthEmbedder{dims: dims, centers: make([][]float32, synthClusters)}
	buf := make([]float64, dims)
	for i := range s.centers {
		for d := range buf {
			buf[d] = rng.NormFloat64()
		}
		s.centers[i] = unit(buf)
	}
	return s
}

func (s *synthEmbedder) Model() string   { return fmt.Sprintf("bench-synthetic-v1-%d", s.dims) }
func (s *synthEmbedder) Dimensions() int { return s.dims }

// Embed returns each text's vector (see synthEmbedder).
func (s *synthEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	buf := make([]float64, s.dims)
	sd := synthNoise / math.Sqrt(float64(s.dims))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		rng := rand.New(rand.NewPCG(h.Sum64(), 7))
		c := s.centers[rng.IntN(len(s.centers))]
		for d := range buf {
			buf[d] = float64(c[d]) + sd*rng.NormFloat64()
		}
		out[i] = unit(buf)
	}
	return out, nil
}

// unit returns v scaled to unit length, as float32s.
func unit(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// recallAt is how many results the vector recall compares.
const recallAt = 10

// vectorRecall measures the in-memory index's vector search (what the
// service searches with: compact vectors rescored in full precision, or
// a streaming pass for a scope over budget) against an exact float32
// search of the scope's stored vectors, one scan of the store per scope:
// the mean recall@10 over queries, with how many queries were asked.
// Each query is one of the scopes, embedded by emb.
func vectorRecall(ctx context.Context, store loci.Store, emb loci.Embedder, budget int64, scopes []loci.RecordFilter, texts []string) (recall float64, n int, err error) {
	qvecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return 0, 0, err
	}
	// The queries by scope, so that each scope is scanned once.
	byScope := map[int][]int{}
	for i := range texts {
		byScope[i%len(scopes)] = append(byScope[i%len(scopes)], i)
	}
	cache := index.New(index.WithModel(emb.Model()), index.WithBudget(budget))
	var sum float64
	for si, qs := range byScope {
		f := scopes[si]
		f.Order, f.Limit, f.Offset = loci.OrderNone, 0, 0
		exact := make([]*exactTop, len(qs))
		for j := range exact {
			exact[j] = &exactTop{}
		}
		err := store.View(ctx, func(tx loci.Tx) error {
			return tx.ScanRecords(ctx, f, func(r *loci.Record) error {
				if r.EmbeddingModel != emb.Model() || len(r.Embedding) != emb.Dimensions() {
					return nil
				}
				for j, qi := range qs {
					var dot float32
					for d, x := range qvecs[qi] {
						dot += x * r.Embedding[d]
					}
					exact[j].offer(r.ID, dot)
				}
				return nil
			})
		})
		if err != nil {
			return 0, 0, err
		}
		for j, qi := range qs {
			var res *index.Result
			err := store.View(ctx, func(tx loci.Tx) (err error) {
				res, err = cache.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Vector: qvecs[qi], N: recallAt})
				return err
			})
			if err != nil {
				return 0, 0, err
			}
			want := exact[j].ids()
			if len(want) == 0 {
				continue
			}
			hit := 0
			for _, h := range res.Vector {
				if slices.Contains(want, h.Doc.Meta.ID) {
					hit++
				}
			}
			sum += float64(hit) / float64(len(want))
			n++
		}
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}

// exactTop keeps the best recallAt (id, similarity) pairs offered.
type exactTop struct {
	id  []string
	sim []float32
}

func (t *exactTop) offer(id string, sim float32) {
	if len(t.id) == recallAt && sim <= t.sim[recallAt-1] {
		return
	}
	i := len(t.id)
	for i > 0 && t.sim[i-1] < sim {
		i--
	}
	t.id, t.sim = slices.Insert(t.id, i, id), slices.Insert(t.sim, i, sim)
	if len(t.id) > recallAt {
		t.id, t.sim = t.id[:recallAt], t.sim[:recallAt]
	}
}

func (t *exactTop) ids() []string { return t.id }
