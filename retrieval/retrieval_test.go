package retrieval_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/retrieval"
)

func ids(rs []retrieval.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func hits(ids ...string) []retrieval.Hit {
	out := make([]retrieval.Hit, len(ids))
	for i, id := range ids {
		out[i] = retrieval.Hit{ID: id, Score: float64(len(ids) - i)}
	}
	return out
}

func TestFuse(t *testing.T) {
	tests := []struct {
		name    string
		lists   map[string][]retrieval.Hit
		k       float64
		weights map[string]float64
		want    []string
		scores  map[string]float64
	}{
		{
			name:  "AgreementWins",
			lists: map[string][]retrieval.Hit{"lexical": hits("a", "b", "c"), "vector": hits("b", "a", "d")},
			k:     1,
			// a: 1/2 + 1/3, b: 1/3 + 1/2, c: 1/4, d: 1/4; norm 1.
			want:   []string{"a", "b", "c", "d"},
			scores: map[string]float64{"a": 5.0 / 6, "b": 5.0 / 6, "c": 0.25, "d": 0.25},
		},
		{
			name:   "FirstEverywhereScoresOne",
			lists:  map[string][]retrieval.Hit{"lexical": hits("x", "y"), "vector": hits("x")},
			want:   []string{"x", "y"},
			scores: map[string]float64{"x": 1, "y": (1.0 / 62) / (2.0 / 61)},
		},
		{
			name:    "Weights",
			lists:   map[string][]retrieval.Hit{"lexical": hits("a", "b"), "vector": hits("b", "a")},
			k:       1,
			weights: map[string]float64{"lexical": 3, "vector": 1},
			want:    []string{"a", "b"},
			scores:  map[string]float64{"a": (3.0/2 + 1.0/3) / 2, "b": (3.0/3 + 1.0/2) / 2},
		},
		{
			name:    "ZeroWeightIgnored",
			lists:   map[string][]retrieval.Hit{"lexical": hits("a"), "vector": hits("b")},
			weights: map[string]float64{"vector": 0},
			want:    []string{"a"},
		},
		{
			name:  "DuplicateCountsOnce",
			lists: map[string][]retrieval.Hit{"lexical": hits("a", "a", "b")},
			k:     1,
			want:  []string{"a", "b"},
			// b is third in the list: 1/4 over norm 1/2.
			scores: map[string]float64{"a": 1, "b": 0.5},
		},
		{name: "Empty", lists: map[string][]retrieval.Hit{}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieval.Fuse(tt.lists, tt.k, tt.weights)
			if !slices.Equal(ids(got), tt.want) {
				t.Fatalf("order = %v, want %v", ids(got), tt.want)
			}
			for _, r := range got {
				if want, ok := tt.scores[r.ID]; ok && !near(r.Score, want) {
					t.Errorf("score(%s) = %v, want %v", r.ID, r.Score, want)
				}
			}
		})
	}
	t.Run("Explain", func(t *testing.T) {
		got := retrieval.Fuse(map[string][]retrieval.Hit{
			"lexical": {{ID: "a", Score: 7.5}, {ID: "b", Score: 2}},
			"vector":  {{ID: "b", Score: 0.9}},
		}, 60, nil)
		b := got[0]
		if b.ID != "b" {
			t.Fatalf("first = %s, want b", b.ID)
		}
		want := map[string]loci.SignalScore{"lexical": {Rank: 2, Score: 2}, "vector": {Rank: 1, Score: 0.9}}
		if len(b.Explain.Signals) != 2 || b.Explain.Signals["lexical"] != want["lexical"] || b.Explain.Signals["vector"] != want["vector"] {
			t.Errorf("signals = %v, want %v", b.Explain.Signals, want)
		}
		if _, ok := got[1].Explain.Signals["vector"]; ok {
			t.Errorf("a has a vector signal it did not get")
		}
	})
}

func TestRescore(t *testing.T) {
	now := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	fused := func(pairs ...any) []retrieval.Result {
		var out []retrieval.Result
		for i := 0; i < len(pairs); i += 2 {
			s := pairs[i+1].(float64)
			out = append(out, retrieval.Result{ID: pairs[i].(string), Score: s, Explain: loci.Explanation{Fused: s}})
		}
		return out
	}
	tests := []struct {
		name   string
		in     []retrieval.Result
		cands  map[string]retrieval.Candidate
		p      retrieval.Params
		want   []string
		scores map[string]float64
	}{
		{
			name: "NoWeightsKeepsFused",
			in:   fused("a", 0.9, "b", 0.5),
			cands: map[string]retrieval.Candidate{
				"a": {ID: "a", At: now.Add(-300 * day)}, "b": {ID: "b", At: now},
			},
			p:      retrieval.Params{Now: now},
			want:   []string{"a", "b"},
			scores: map[string]float64{"a": 0.9, "b": 0.5},
		},
		{
			name: "RecencyHalves",
			in:   fused("old", 1.0, "new", 0.8),
			cands: map[string]retrieval.Candidate{
				"old": {ID: "old", At: now.Add(-30 * day)}, "new": {ID: "new", At: now},
			},
			p:    retrieval.Params{Now: now, RecencyWeight: 0.5, HalfLife: 30 * day},
			want: []string{"new", "old"},
			// old: 1 × (0.5 + 0.5·0.5) = 0.75; new: 0.8 × 1.
			scores: map[string]float64{"old": 0.75, "new": 0.8},
		},
		{
			name: "Confidence",
			in:   fused("weak", 1.0, "strong", 0.7, "none", 0.6),
			cands: map[string]retrieval.Candidate{
				"weak":   {ID: "weak", Confidence: 0.2, HasConfidence: true},
				"strong": {ID: "strong", Confidence: 1, HasConfidence: true},
				"none":   {ID: "none"},
			},
			p:      retrieval.Params{Now: now, ConfidenceWeight: 0.5},
			want:   []string{"strong", "none", "weak"},
			scores: map[string]float64{"weak": 0.6, "strong": 0.7, "none": 0.6},
		},
		{
			name:   "FutureIsFresh",
			in:     fused("a", 1.0),
			cands:  map[string]retrieval.Candidate{"a": {ID: "a", At: now.Add(day)}},
			p:      retrieval.Params{Now: now, RecencyWeight: 1},
			want:   []string{"a"},
			scores: map[string]float64{"a": 1},
		},
		{
			name:   "WeightsOverOneScaled",
			in:     fused("a", 1.0),
			cands:  map[string]retrieval.Candidate{"a": {ID: "a", At: now.Add(-30 * day), Confidence: 0, HasConfidence: true}},
			p:      retrieval.Params{Now: now, RecencyWeight: 1, ConfidenceWeight: 1, HalfLife: 30 * day},
			want:   []string{"a"},
			scores: map[string]float64{"a": 0.25},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieval.Rescore(tt.in, tt.cands, tt.p)
			if !slices.Equal(ids(got), tt.want) {
				t.Fatalf("order = %v, want %v", ids(got), tt.want)
			}
			for _, r := range got {
				if want, ok := tt.scores[r.ID]; ok && !near(r.Score, want) {
					t.Errorf("score(%s) = %v, want %v", r.ID, r.Score, want)
				}
				if r.Score != r.Explain.Rank {
					t.Errorf("explain score %v != score %v", r.Explain.Rank, r.Score)
				}
			}
		})
	}
}

func TestMMR(t *testing.T) {
	in := []retrieval.Result{{ID: "a", Score: 1}, {ID: "a2", Score: 0.95}, {ID: "b", Score: 0.9}}
	cands := map[string]retrieval.Candidate{
		"a": {ID: "a", Vector: []float32{1, 0}}, "a2": {ID: "a2", Vector: []float32{1, 0.01}}, "b": {ID: "b", Vector: []float32{0, 1}},
	}
	tests := []struct {
		name   string
		lambda float64
		want   []string
	}{
		{"Off", 0, []string{"a", "a2", "b"}},
		{"Diverse", 0.5, []string{"a", "b", "a2"}},
		{"MostlyRelevance", 0.99, []string{"a", "a2", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := retrieval.MMR(in, cands, tt.lambda)
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("order = %v, want %v", ids(got), tt.want)
			}
		})
	}
}

func TestRank(t *testing.T) {
	lists := map[string][]retrieval.Hit{"lexical": hits("a", "b", "c", "d"), "vector": hits("c", "a")}
	got := retrieval.Rank(lists, nil, retrieval.Params{Limit: 2, K: 1})
	if want := []string{"a", "c"}; !slices.Equal(ids(got), want) {
		t.Errorf("order = %v, want %v", ids(got), want)
	}
}

// TestRankExplain: a ranking not asked to explain orders and scores the
// same as one that is, without each result's signals and confidence.
func TestRankExplain(t *testing.T) {
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	lists := map[string][]retrieval.Hit{
		"lexical": hits("a", "b", "c", "d", "b"), "vector": hits("c", "a", "e"), "date": hits("d"),
	}
	cands := map[string]retrieval.Candidate{
		"a": {ID: "a", At: now.AddDate(0, 0, -40), Confidence: 0.5, HasConfidence: true},
		"c": {ID: "c", At: now.AddDate(0, 0, -1)},
		"d": {ID: "d", At: now.AddDate(0, 0, -3), Confidence: 0.9, HasConfidence: true},
	}
	p := retrieval.Params{K: 10, Weights: map[string]float64{"date": 0.5}, Now: now, RecencyWeight: 0.1, ConfidenceWeight: 0.2}
	quiet := retrieval.Rank(lists, cands, p)
	p.Explain = true
	told := retrieval.Rank(lists, cands, p)
	if len(quiet) != 5 || len(told) != 5 {
		t.Fatalf("ranked %d and %d, want 5", len(quiet), len(told))
	}
	for i := range told {
		q, e := quiet[i], told[i]
		if q.ID != e.ID || q.Score != e.Score || q.Explain.Fused != e.Explain.Fused {
			t.Errorf("result %d: %s %v (fused %v) without explain, %s %v (fused %v) with", i, q.ID, q.Score, q.Explain.Fused, e.ID, e.Score, e.Explain.Fused)
		}
		if q.Explain.Signals != nil || q.Explain.Confidence != nil {
			t.Errorf("result %s without explain: signals %v, confidence %v", q.ID, q.Explain.Signals, q.Explain.Confidence)
		}
		if len(e.Explain.Signals) == 0 || (e.ID == "a" || e.ID == "d") != (e.Explain.Confidence != nil) {
			t.Errorf("result %s with explain: signals %v, confidence %v", e.ID, e.Explain.Signals, e.Explain.Confidence)
		}
	}
	if s := told[slices.IndexFunc(told, func(r retrieval.Result) bool { return r.ID == "b" })].Explain.Signals["lexical"]; s.Rank != 2 {
		t.Errorf("b's lexical rank = %d, want its best, 2", s.Rank)
	}
}
