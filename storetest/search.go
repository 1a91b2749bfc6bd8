package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
)

// Search in the conformance suite runs the one ranking index (package
// index) on the store under test, twice: on an index kept for the store
// across the test's writes (so the store's change feed must tell it every
// change), and on one loaded afresh; both must agree exactly.

type cacheKey struct {
	s     loci.Store
	model string
}

var caches sync.Map // cacheKey -> *index.Cache

func cacheFor(s loci.Store, model string) *index.Cache {
	c, _ := caches.LoadOrStore(cacheKey{s, model}, index.New(index.WithModel(model)))
	return c.(*index.Cache)
}

// search runs q on the store's kept index and on a fresh one, checks they
// agree, and returns the kept one's result.
func search(t testing.TB, s loci.Store, model string, q index.Query) *index.Result {
	t.Helper()
	ctx := context.Background()
	run := func(c *index.Cache) *index.Result {
		var res *index.Result
		if err := s.View(ctx, func(tx loci.Tx) (err error) {
			res, err = c.Search(ctx, tx, q)
			return err
		}); err != nil {
			t.Fatalf("search: %v", err)
		}
		return res
	}
	kept, fresh := run(cacheFor(s, model)), run(index.New(index.WithModel(model)))
	for _, l := range [][2][]index.Hit{{kept.Lexical, fresh.Lexical}, {kept.Vector, fresh.Vector}} {
		if !slices.EqualFunc(l[0], l[1], func(a, b index.Hit) bool { return a.Doc.Meta.ID == b.Doc.Meta.ID && a.Score == b.Score }) {
			t.Fatalf("the kept index answers %v, a fresh one %v", hitIDs(l[0]), hitIDs(l[1]))
		}
	}
	if kept.Pending != fresh.Pending {
		t.Fatalf("the kept index counts %d pending, a fresh one %d", kept.Pending, fresh.Pending)
	}
	return kept
}

func hitIDs(hs []index.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Doc.Meta.ID
	}
	return out
}

func scored(hs []index.Hit) []loci.ScoredRecord {
	out := make([]loci.ScoredRecord, len(hs))
	for i, h := range hs {
		out[i] = loci.ScoredRecord{Record: h.Doc.Meta, Score: h.Score}
	}
	return out
}

// SearchLexical ranks f's records by BM25 against terms on the store's
// search index (and checks a fresh index agrees).
func SearchLexical(t testing.TB, s loci.Store, f loci.RecordFilter, terms []string, limit int) []loci.ScoredRecord {
	t.Helper()
	return scored(search(t, s, "", index.Query{Filters: []loci.RecordFilter{f}, Terms: terms, N: limit}).Lexical)
}

// searchVector ranks f's records with a vector of model by cosine
// similarity to q.
func searchVector(t testing.TB, s loci.Store, f loci.RecordFilter, model string, q []float32, limit int) []loci.ScoredRecord {
	t.Helper()
	return scored(search(t, s, model, index.Query{Filters: []loci.RecordFilter{f}, Vector: q, N: limit}).Vector)
}

// countPending counts f's records without a vector of model.
func countPending(t testing.TB, s loci.Store, f loci.RecordFilter, model string) int {
	t.Helper()
	return search(t, s, model, index.Query{Filters: []loci.RecordFilter{f}, N: 1}).Pending
}
