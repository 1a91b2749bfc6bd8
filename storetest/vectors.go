package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/loci-memory/loci"
)

// unit returns v scaled to unit length.
func unit(v ...float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(ss))
	}
	return out
}

func scoredIDs(rs []loci.ScoredRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Record.ID
	}
	return out
}

func mustSetEmbedding(t testing.TB, s loci.Store, r *loci.Record, model string, vec []float32) bool {
	t.Helper()
	var ok bool
	if err := s.Update(context.Background(), func(tx loci.Tx) (err error) {
		ok, err = tx.SetEmbedding(context.Background(), r.Workspace, r.ID, r.Version, model, vec)
		return err
	}); err != nil {
		t.Fatalf("set embedding: %v", err)
	}
	return ok
}

func testVectors(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	const model = "test-model"
	agentA := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}

	recs, vecs := vectorRecords(model)
	MustInsert(t, s, recs...)
	q := unit(1, 2, 3, 4, 5, 6, 7, 8)

	t.Run("Exact", func(t *testing.T) {
		got := searchVector(t, s, agentA, model, q, 10)
		if want := bruteForce(t, s, agentA, model, q, 10); !slices.Equal(scoredIDs(got), want) {
			t.Fatalf("got %v, want %v", scoredIDs(got), want)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Fatalf("not best first: %v", got)
			}
		}
		var want float64
		for i := range q {
			want += float64(q[i]) * float64(vecs[got[0].Record.ID][i])
		}
		if math.Abs(got[0].Score-want) > 1e-5 {
			t.Errorf("score = %v, want cosine %v", got[0].Score, want)
		}
	})
	t.Run("ScopeBeforeRanking", func(t *testing.T) {
		got := searchVector(t, s, agentA, model, q, 1000)
		if len(got) != 28 {
			t.Errorf("got %d results, want agent a's 28 embedded records", len(got))
		}
		for _, r := range got {
			if r.Record.AgentID != "a" {
				t.Fatalf("agent b's record leaked: %s", r.Record.ID)
			}
			if r.Record.ID == recs[0].ID || r.Record.ID == recs[2].ID {
				t.Fatalf("record without a %s embedding found: %s", model, r.Record.ID)
			}
		}
	})
	t.Run("FilterBeforeTruncation", func(t *testing.T) { testFilterBeforeTruncation(t, s, recs, agentA, model, q) })
	t.Run("SetEmbedding", func(t *testing.T) { testSetEmbedding(t, s, recs, agentA, model, q) })
	t.Run("SetEmbeddingStaleVersion", func(t *testing.T) {
		stale := *recs[6]
		stale.Version = 99
		if mustSetEmbedding(t, s, &stale, model, q) {
			t.Fatal("SetEmbedding at a stale version stored")
		}
		missing := *recs[6]
		missing.ID = "0190a000-0000-7000-8000-999999999999"
		if mustSetEmbedding(t, s, &missing, model, q) {
			t.Fatal("SetEmbedding of a missing record stored")
		}
	})
	t.Run("UpdateClearsEmbedding", func(t *testing.T) {
		u := *recs[0]
		u.Content, u.Embedding, u.EmbeddingModel, u.Version = "changed", nil, "", 2
		if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) }); err != nil {
			t.Fatal(err)
		}
		for _, r := range searchVector(t, s, agentA, model, q, 100) {
			if r.Record.ID == recs[0].ID {
				t.Fatal("record whose embedding was cleared is still found by vector")
			}
		}
	})
	t.Run("DeleteUnindexes", func(t *testing.T) { testDeleteUnindexes(t, s, recs, agentA, model, q) })
	t.Run("RollbackLeavesIndex", func(t *testing.T) { testRollbackLeavesIndex(t, s, recs, agentA, model, q) })
	t.Run("OtherModelNotCompared", func(t *testing.T) { testOtherModelNotCompared(t, s, recs, agentA, model, q) })
	t.Run("EmptyQuery", func(t *testing.T) {
		if got := searchVector(t, s, agentA, model, nil, 10); len(got) != 0 {
			t.Fatalf("got %v", scoredIDs(got))
		}
	})
}

// testFilterBeforeTruncation: a filter applies before the limit, so the one
// tagged record is found at limit 1 even if far from the query.
func testFilterBeforeTruncation(t *testing.T, s loci.Store, recs []*loci.Record, agentA loci.RecordFilter, model string, q []float32) {
	ctx := context.Background()
	// Only one record carries the tag; it must be found at limit 1
	// even if it is far from the query.
	tagged := recs[4]
	u := *tagged
	u.Tags, u.Version = []string{"rare"}, 2
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) }); err != nil {
		t.Fatal(err)
	}
	*tagged = u
	f := agentA
	f.Tags = []string{"rare"}
	got := searchVector(t, s, f, model, q, 1)
	if len(got) != 1 || got[0].Record.ID != tagged.ID {
		t.Fatalf("got %v, want [%s]", scoredIDs(got), tagged.ID)
	}
}

// testSetEmbedding stores an embedding for agent a's record that had
// none, which then ranks first for its own vector.
func testSetEmbedding(t *testing.T, s loci.Store, recs []*loci.Record, agentA loci.RecordFilter, model string, q []float32) {
	if !mustSetEmbedding(t, s, recs[0], model, q) {
		t.Fatal("SetEmbedding at the current version did not store")
	}
	got := searchVector(t, s, agentA, model, q, 1)
	if len(got) != 1 || got[0].Record.ID != recs[0].ID || math.Abs(got[0].Score-1) > 1e-5 {
		t.Fatalf("got %+v, want %s at 1", scoredIDs(got), recs[0].ID)
	}
	r := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{recs[0].ID}})[0]
	if r.Version != 1 || r.EmbeddingModel != model || len(r.Embedding) != 8 {
		t.Errorf("record after SetEmbedding: version %d model %q len %d", r.Version, r.EmbeddingModel, len(r.Embedding))
	}
}

// testDeleteUnindexes: a deleted record is no longer found, and the rest
// still rank exactly.
func testDeleteUnindexes(t *testing.T, s loci.Store, recs []*loci.Record, agentA loci.RecordFilter, model string, q []float32) {
	ctx := context.Background()
	top := searchVector(t, s, agentA, model, q, 1)[0].Record.ID
	if err := s.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{top}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := searchVector(t, s, agentA, model, q, 100); slices.Contains(scoredIDs(got), top) {
		t.Fatal("deleted record found")
	}
	if got, want := scoredIDs(searchVector(t, s, agentA, model, q, 10)), bruteForce(t, s, agentA, model, q, 10); !slices.Equal(got, want) {
		t.Fatalf("after delete got %v, want %v", got, want)
	}
}

// testRollbackLeavesIndex: a record inserted by a transaction rolled back
// is never found.
func testRollbackLeavesIndex(t *testing.T, s loci.Store, recs []*loci.Record, agentA loci.RecordFilter, model string, q []float32) {
	ctx := context.Background()
	r := NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "rolled back")
	r.Embedding, r.EmbeddingModel = q, model
	err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertRecord(ctx, r); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	if err == nil {
		t.Fatal("want the error back")
	}
	if got := searchVector(t, s, agentA, model, q, 100); slices.Contains(scoredIDs(got), r.ID) {
		t.Fatal("rolled-back record found")
	}
}

// testOtherModelNotCompared: a search compares the query with the
// embeddings of its model only.
func testOtherModelNotCompared(t *testing.T, s loci.Store, recs []*loci.Record, agentA loci.RecordFilter, model string, q []float32) {
	if got := searchVector(t, s, agentA, "no-such-model", q, 10); len(got) != 0 {
		t.Fatalf("got %v, want nothing", scoredIDs(got))
	}
	if got := searchVector(t, s, agentA, "other-model", q, 10); len(got) != 1 || got[0].Record.ID != recs[2].ID {
		t.Fatalf("got %v, want [%s]", scoredIDs(got), recs[2].ID)
	}
	// And back to the main model.
	if got, want := scoredIDs(searchVector(t, s, agentA, model, q, 10)), bruteForce(t, s, agentA, model, q, 10); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// vectorRecords are testVectors' records: random unit vectors in 8
// dimensions, half for agent a, half for b; one of agent a's records has
// no embedding yet, one has another model's.
func vectorRecords(model string) ([]*loci.Record, map[string][]float32) {
	rng := rand.New(rand.NewSource(7))
	var recs []*loci.Record
	vecs := map[string][]float32{}
	for i := range 60 {
		agent := "a"
		if i%2 == 1 {
			agent = "b"
		}
		r := NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", fmt.Sprintf("passage %d", i))
		v := make([]float32, 8)
		for d := range v {
			v[d] = float32(rng.NormFloat64())
		}
		r.Embedding, r.EmbeddingModel = unit(v...), model
		vecs[r.ID] = r.Embedding
		recs = append(recs, r)
	}
	recs[0].Embedding, recs[0].EmbeddingModel = nil, ""
	recs[2].EmbeddingModel = "other-model"
	return recs, vecs
}

// bruteForce is the exact answer of a vector search of f for q: the ids of
// its records embedded by model, best first, at most limit.
func bruteForce(t testing.TB, s loci.Store, f loci.RecordFilter, model string, q []float32, limit int) []string {
	type sc struct {
		id string
		s  float64
	}
	var all []sc
	for _, r := range MustFind(t, s, f) {
		if r.Embedding == nil || r.EmbeddingModel != model {
			continue
		}
		var d float64
		for i := range q {
			d += float64(q[i]) * float64(r.Embedding[i])
		}
		all = append(all, sc{r.ID, d})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	var out []string
	for i := 0; i < len(all) && i < limit; i++ {
		out = append(out, all[i].id)
	}
	return out
}

func testLexicalRanking(t *testing.T, open Opener) {
	s := open(t)
	scope := loci.Scope{AgentID: "a"}
	docs := []string{
		"apple banana", "apple apple apple cherry", "banana cherry date", "elderberry fig grape",
		"apple", "fig fig fig fig fig fig fig fig fig fig fig fig fig fig", "grape", "date",
	}
	var recs []*loci.Record
	for _, d := range docs {
		r := NewRecord(loci.KindPassage, scope, "", d)
		r.SearchText = d
		recs = append(recs, r)
	}
	other := NewRecord(loci.KindPassage, loci.Scope{AgentID: "b"}, "", "apple apple apple apple")
	other.SearchText = other.Content
	MustInsert(t, s, append(recs, other)...)
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
	search := func(limit int, terms ...string) []string {
		t.Helper()
		out := SearchLexical(t, s, f, terms, limit)
		for i := 1; i < len(out); i++ {
			if out[i].Score > out[i-1].Score {
				t.Fatalf("not best first")
			}
		}
		return scoredIDs(out)
	}
	tests := []struct {
		name  string
		terms []string
		limit int
		want  []string
	}{
		// BM25 (k1 1.2, b 0.75): three occurrences in four words beat one
		// in one word, which beats one in two.
		{"TermFrequency", []string{"apple"}, 10, []string{recs[1].ID, recs[4].ID, recs[0].ID}},
		{"Limit", []string{"apple"}, 1, []string{recs[1].ID}},
		// A rare term outweighs a frequent one.
		{"IDF", []string{"elderberry", "apple"}, 1, []string{recs[3].ID}},
		// A document with two query terms beats one with one.
		{"MoreTerms", []string{"banana", "cherry"}, 1, []string{recs[2].ID}},
		{"Unknown", []string{"zucchini"}, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := search(tt.limit, tt.terms...); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func testPendingEmbeddings(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	const model = "m1"
	a := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k1", "one")
	b := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k2", "two")
	b.Embedding, b.EmbeddingModel = unit(1, 0), model
	c := NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k3", "three")
	c.Embedding, c.EmbeddingModel = unit(0, 1), "m0"
	d := NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k4", "four")
	d.Workspace = "other"
	MustInsert(t, s, a, b, c, d)

	pending := func(limit int) []string {
		t.Helper()
		var out []*loci.Record
		if err := s.View(ctx, func(tx loci.Tx) (err error) {
			out, err = tx.PendingEmbeddings(ctx, model, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids(out)
	}
	count := func(f loci.RecordFilter) int {
		t.Helper()
		var n int
		if err := s.View(ctx, func(tx loci.Tx) (err error) {
			n, err = tx.CountPendingEmbeddings(ctx, f, model)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	t.Run("OldestFirstAcrossWorkspaces", func(t *testing.T) {
		if got, want := pending(10), []string{a.ID, c.ID, d.ID}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if got, want := pending(2), []string{a.ID, c.ID}; !slices.Equal(got, want) {
			t.Fatalf("limit 2: got %v, want %v", got, want)
		}
	})
	t.Run("Count", func(t *testing.T) {
		ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
		if got := count(ws); got != 2 {
			t.Errorf("workspace: %d, want 2", got)
		}
		f := ws
		f.AgentID = loci.Ptr("a")
		if got := count(f); got != 1 {
			t.Errorf("agent a: %d, want 1", got)
		}
		// The index's count of a scope agrees with the store's.
		if got := countPending(t, s, ws, model); got != 2 {
			t.Errorf("index, workspace: %d, want 2", got)
		}
		if got := countPending(t, s, f, model); got != 1 {
			t.Errorf("index, agent a: %d, want 1", got)
		}
		if got := count(loci.RecordFilter{}); got != 3 {
			t.Errorf("every workspace: %d, want 3", got)
		}
	})
	t.Run("SetEmbeddingClears", func(t *testing.T) {
		mustSetEmbedding(t, s, a, model, unit(1, 1))
		mustSetEmbedding(t, s, c, model, unit(1, 1))
		mustSetEmbedding(t, s, d, model, unit(1, 1))
		if got := pending(10); len(got) != 0 {
			t.Fatalf("still pending: %v", got)
		}
		if got := count(loci.RecordFilter{Workspace: loci.DefaultWorkspace}); got != 0 {
			t.Errorf("count = %d, want 0", got)
		}
		if got := count(loci.RecordFilter{}); got != 0 {
			t.Errorf("count of every workspace = %d, want 0", got)
		}
	})
}
