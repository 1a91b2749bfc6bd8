package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// addMemory adds a general memory (a fact about the user) and returns its
// id.
func addMemory(t *testing.T, svc *rules.Service, in loci.MemoryInput) string {
	t.Helper()
	ev, err := svc.AddMemory(context.Background(), in)
	if err != nil {
		t.Fatalf("add %q: %v", in.Content, err)
	}
	return ev.ID
}

// scoreOf returns the score of the result with content c, and whether
// there is one.
func scoreOf(res *loci.SearchResults, c string) (float64, bool) {
	for _, r := range res.Results {
		if r.Content == c {
			return r.Score, true
		}
	}
	return 0, false
}

// TestSearchScoreIsRelevance: a result's score is its relevance, 0..1,
// not its position: every record that holds all of the query's words
// scores 1, whatever its rank and whatever the scope; one that holds part
// of them scores the IDF-weighted share it holds; a threshold drops those
// below it. The scores of the past (1 for the first result, 0.9167 for
// the second) said nothing about the match.
func TestSearchScoreIsRelevance(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t))
		for _, c := range []string{"Alice is allergic to nuts", "Alice keeps nuts out of the kitchen because she is allergic",
			"Alice is vegetarian", "Alice loves hiking in the Alps", "Alice plays the cello"} {
			addMemory(t, svc, loci.MemoryInput{Content: c, UserID: "alice"})
		}
		for _, c := range []string{"Bob is allergic to nuts", "Bob is a pilot", "Bob has two cats", "Bob lives in Oslo", "Bob reads poetry",
			"Bob runs marathons", "Bob bakes sourdough"} {
			addMemory(t, svc, loci.MemoryInput{Content: c, UserID: "bob"})
		}

		res := mustSearch(t, svc, loci.SearchQuery{Query: "allergic to nuts", UserID: "alice", Explain: true})
		if len(res.Results) < 2 {
			t.Fatalf("results %+v, want both allergy memories", res.Results)
		}
		for _, r := range res.Results[:2] {
			if r.Score != 1 || r.Explain.Words != 1 || r.Explain.Score != 1 || r.Explain.Meaning != nil {
				t.Errorf("%q: score %v (explain %+v), want 1: it holds every word of the query", r.Content, r.Score, r.Explain)
			}
			if r.Explain.Rank <= 0 || r.Explain.Rank > 1 {
				t.Errorf("%q: rank %v, want the fusion's score in (0, 1]", r.Content, r.Explain.Rank)
			}
		}
		for _, r := range res.Results {
			if r.Score < 0 || r.Score > 1 || math.IsNaN(r.Score) {
				t.Errorf("%q: score %v out of [0, 1]", r.Content, r.Score)
			}
		}
		if res.Retrieval.Mode != loci.RetrievalLexical || res.Retrieval.Model != nil {
			t.Errorf("retrieval %+v, want lexical with no model", res.Retrieval)
		}

		// The same match scores the same in another scope, of another
		// size, with other words.
		bob := mustSearch(t, svc, loci.SearchQuery{Query: "allergic to nuts", UserID: "bob"})
		if s, ok := scoreOf(bob, "Bob is allergic to nuts"); !ok || s != 1 {
			t.Errorf("bob's allergy: score %v (found %v), want 1", s, ok)
		}

		// Part of the query: the share it holds, the rarer word weighing
		// more. "peanuts" is held by none, so nothing is complete.
		part := mustSearch(t, svc, loci.SearchQuery{Query: "allergic to peanuts", UserID: "alice"})
		s, ok := scoreOf(part, "Alice is allergic to nuts")
		if !ok || s <= 0 || s >= 1 {
			t.Errorf("a partial match: score %v (found %v), want strictly between 0 and 1", s, ok)
		}
		rare := mustSearch(t, svc, loci.SearchQuery{Query: "alice cello", UserID: "alice"})
		cello, _ := scoreOf(rare, "Alice plays the cello")
		vegetarian, _ := scoreOf(rare, "Alice is vegetarian")
		if cello != 1 || vegetarian <= 0 || vegetarian >= 0.5 {
			t.Errorf("alice cello: cello %v, vegetarian %v; want 1, and below half (alice is in every memory, cello in one)", cello, vegetarian)
		}

		// A threshold drops what is below it, and keeps the order.
		th := mustSearch(t, svc, loci.SearchQuery{Query: "alice cello", UserID: "alice", Threshold: 0.9})
		if len(th.Results) != 1 || th.Results[0].Content != "Alice plays the cello" {
			t.Errorf("threshold 0.9: %+v, want only the cello", th.Results)
		}
		all := mustSearch(t, svc, loci.SearchQuery{Query: "alice cello", UserID: "alice", Threshold: 0.0001})
		if len(all.Results) != len(rare.Results) {
			t.Errorf("a threshold below every score: %d results, want %d", len(all.Results), len(rare.Results))
		}
		none := mustSearch(t, svc, loci.SearchQuery{Query: "allergic to peanuts", UserID: "alice", Threshold: 1})
		if len(none.Results) != 0 {
			t.Errorf("threshold 1 with no complete match: %+v, want none", none.Results)
		}
	})
}

// TestSearchThresholdKeepsLimit: a threshold is applied before the
// limit, so a search answers up to its limit of results that reach it,
// from further down the ranking when the best ranked do not.
func TestSearchThresholdKeepsLimit(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	// Many records hold the common word; a few hold both.
	for i := range 30 {
		addMemory(t, svc, loci.MemoryInput{Content: "note about the garden number " + string(rune('a'+i%26)) + string(rune('a'+i/26)), UserID: "u"})
	}
	for _, c := range []string{"the garden roses bloomed", "roses in the garden need water"} {
		addMemory(t, svc, loci.MemoryInput{Content: c, UserID: "u"})
	}
	res := mustSearch(t, svc, loci.SearchQuery{Query: "garden roses", UserID: "u", Limit: 1, Threshold: 1})
	if len(res.Results) != 1 || res.Results[0].Score != 1 {
		t.Fatalf("limit 1, threshold 1: %+v, want one complete match", res.Results)
	}
	res = mustSearch(t, svc, loci.SearchQuery{Query: "garden roses", UserID: "u", Limit: 5, Threshold: 1})
	if len(res.Results) != 2 {
		t.Errorf("limit 5, threshold 1: %d results, want the 2 complete matches", len(res.Results))
	}
}

// TestSearchReferenceDate: reference_date is when the question is asked:
// "10 days ago" and "last weekend" are read from it, and recency is
// measured from it.
func TestSearchReferenceDate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		clock := loci.NewFakeClock(time.Date(2024, 3, 3, 15, 0, 0, 0, time.UTC)) // a Sunday
		svc := rules.New(open(t), rules.WithClock(clock))
		addMemory(t, svc, loci.MemoryInput{Content: "Visited the dentist", UserID: "u"})
		clock.Set(time.Date(2024, 3, 10, 15, 0, 0, 0, time.UTC)) // the Sunday after
		addMemory(t, svc, loci.MemoryInput{Content: "Visited the museum", UserID: "u"})
		clock.Set(time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)) // asked months later

		first := func(q loci.SearchQuery) string {
			t.Helper()
			res := mustSearch(t, svc, q)
			if len(res.Results) == 0 {
				t.Fatalf("%+v: no result", q)
			}
			return res.Results[0].Content
		}
		for _, tc := range []struct{ query, ref, want string }{
			{"What did I visit 10 days ago?", "2024-03-13", "Visited the dentist"},
			{"What did I visit 10 days ago?", "2024-03-20T12:00:00Z", "Visited the museum"},
			{"What did I visit last weekend?", "2024-03-06", "Visited the dentist"},
			{"What did I visit last weekend?", "2024-03-13", "Visited the museum"},
			{"What did I visit a couple of days ago?", "2024-03-12T08:00:00+02:00", "Visited the museum"},
			{"What did I visit a week ago?", "2024-03-10", "Visited the dentist"},
		} {
			if got := first(loci.SearchQuery{Query: tc.query, UserID: "u", ReferenceDate: tc.ref}); got != tc.want {
				t.Errorf("%q asked on %s: first %q, want %q", tc.query, tc.ref, got, tc.want)
			}
		}
		// Recency is measured from it: a record written at the moment
		// asked is as recent as can be.
		res := mustSearch(t, svc, loci.SearchQuery{Query: "dentist", UserID: "u", ReferenceDate: "2024-03-03T15:00:00Z", Explain: true})
		if len(res.Results) != 1 || res.Results[0].Explain.Recency != 1 {
			t.Errorf("recency from the reference date: %+v, want 1", res.Results)
		}
		res = mustSearch(t, svc, loci.SearchQuery{Query: "dentist", UserID: "u", Explain: true})
		if len(res.Results) != 1 || res.Results[0].Explain.Recency >= 0.5 {
			t.Errorf("recency from now (three months on): %+v, want below a half", res.Results)
		}
	})
}

// TestSearchQueryErrors: a threshold out of 0..1 and a reference date
// that is not one are refused, naming the field.
func TestSearchQueryErrors(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	for _, tc := range []struct {
		name string
		q    loci.SearchQuery
		says string
	}{
		{"ErrThresholdNegative", loci.SearchQuery{Query: "x", Threshold: -0.01}, "threshold"},
		{"ErrThresholdAbove1", loci.SearchQuery{Query: "x", Threshold: 1.01}, "threshold"},
		{"ErrThresholdNaN", loci.SearchQuery{Query: "x", Threshold: math.NaN()}, "threshold"},
		{"ErrReferenceDate", loci.SearchQuery{Query: "x", ReferenceDate: "last Tuesday"}, "reference_date"},
		{"ErrReferenceDateDay", loci.SearchQuery{Query: "x", ReferenceDate: "2024-02-30"}, "reference_date"},
		{"ErrReferenceDateNoZone", loci.SearchQuery{Query: "x", ReferenceDate: "2024-02-03T10:00:00"}, "reference_date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Search(context.Background(), tc.q)
			if loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(loci.ErrorMessage(err), tc.says) {
				t.Errorf("err = %v, want invalid naming %s", err, tc.says)
			}
		})
	}
}

// TestSearchWordlessQuery: a query with no word left to search ("What
// do you know about me?") in a user's or an agent's scope answers the
// scope's memories, most important first (the more confident, then the
// more recent), each a complete match (score 1) with match "scope"; an
// empty scope answers none; a query of the whole workspace is searched
// as before.
func TestSearchWordlessQuery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		clock := loci.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		svc := rules.New(open(t), rules.WithClock(clock))
		doubted := addMemory(t, svc, loci.MemoryInput{Content: "Alex is allergic to nuts", UserID: "alex", Metadata: json.RawMessage(`{"topic":"food"}`)})
		clock.Add(time.Hour)
		addMemory(t, svc, loci.MemoryInput{Content: "Alex is vegetarian", UserID: "alex"})
		clock.Add(time.Hour)
		addMemory(t, svc, loci.MemoryInput{Content: "Alex lives in Lisbon", UserID: "alex"})
		addMemory(t, svc, loci.MemoryInput{Content: "Sam likes chess", UserID: "sam"})
		if _, err := svc.ContradictFact(ctx, doubted); err != nil {
			t.Fatal(err)
		}
		clock.Add(time.Hour)

		for _, q := range []string{"What do you know about me?", "what do you remember about me", "Tell me everything you know.", "Who am I?"} {
			res := mustSearch(t, svc, loci.SearchQuery{Query: q, UserID: "alex", Explain: true})
			var got []string
			for _, r := range res.Results {
				got = append(got, r.Content)
				if r.Match != loci.MatchScope || r.Score != 1 || r.Scope.UserID != "alex" {
					t.Errorf("%q: %q match %q score %v user %q, want match scope, score 1, alex's", q, r.Content, r.Match, r.Score, r.Scope.UserID)
				}
			}
			want := []string{"Alex lives in Lisbon", "Alex is vegetarian", "Alex is allergic to nuts"}
			if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Errorf("%q: %q, want alex's memories, the most important first: %q", q, got, want)
			}
			if string(res.Results[2].Metadata) != `{"topic":"food"}` || string(res.Results[0].Metadata) != `{}` {
				t.Errorf("%q: metadata %s and %s, want the record's, {} for none", q, res.Results[2].Metadata, res.Results[0].Metadata)
			}
		}
		if res := mustSearch(t, svc, loci.SearchQuery{Query: "What do you know about me?", UserID: "alex", Limit: 1}); len(res.Results) != 1 {
			t.Errorf("limit 1: %d results", len(res.Results))
		}
		if res := mustSearch(t, svc, loci.SearchQuery{Query: "What do you know about me?", UserID: "nobody"}); len(res.Results) != 0 {
			t.Errorf("an empty scope: %+v, want none", res.Results)
		}
		// A query with a word left is searched: only what holds it.
		if res := mustSearch(t, svc, loci.SearchQuery{Query: "What do you know about my diet? vegetarian", UserID: "alex"}); len(res.Results) != 1 || res.Results[0].Match != "" {
			t.Errorf("a query with words: %+v, want the vegetarian memory, searched", res.Results)
		}
		// Without a user or an agent, the workspace is not answered
		// whole.
		for _, r := range mustSearch(t, svc, loci.SearchQuery{Query: "What do you know about me?"}).Results {
			if r.Match == loci.MatchScope {
				t.Errorf("a workspace-wide wordless query answered %q as its scope", r.Content)
			}
		}
		// The agent's search (search_memory) answers the same way.
		if _, err := svc.AddPassage(ctx, "helper", "The user prefers short answers", nil); err != nil {
			t.Fatal(err)
		}
		ares, err := svc.SearchAgentMemory(ctx, loci.AgentSearchQuery{Query: "what do you know about me?", AgentID: "helper", UserID: "alex"})
		if err != nil {
			t.Fatal(err)
		}
		if len(ares.Results) != 4 {
			t.Errorf("agent search: %d results, want the agent's passage and alex's 3 memories", len(ares.Results))
		}
		for _, r := range ares.Results {
			if r.Match != loci.MatchScope {
				t.Errorf("agent search: %q match %q", r.Content, r.Match)
			}
		}
	})
}

// TestSearchWordlessQueryKeepsFilters: a wordless query answers only what
// its filters select (the condition is checked above the backends, which
// do not read it): another user's records under the same agent, or
// records without the metadata asked for, are not answered, and the pool
// the answer is chosen from is of the selected records (those written
// before many others are still found).
func TestSearchWordlessQueryKeepsFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		clock := loci.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		svc := rules.New(open(t), rules.WithClock(clock))
		addMemory(t, svc, loci.MemoryInput{Content: "u1 likes tea", UserID: "u1", AgentID: "a1", Metadata: json.RawMessage(`{"topic":"food"}`)})
		clock.Add(time.Minute)
		var batch []loci.MemoryInput
		for i := range 1100 { // more than the scope's pool, written later
			batch = append(batch, loci.MemoryInput{Content: fmt.Sprintf("u2 private note %d", i), UserID: "u2", AgentID: "a1"})
		}
		for len(batch) > 0 {
			n := min(len(batch), loci.MaxBatchOps)
			if _, err := svc.BatchMemories(context.Background(), loci.MemoryBatch{Add: batch[:n]}); err != nil {
				t.Fatal(err)
			}
			batch = batch[n:]
		}
		for _, tc := range []struct{ name, filters string }{
			{"user", `{"user_id":"u1"}`},
			{"user in", `{"user_id":{"in":["u1"]}}`},
			{"metadata", `{"metadata.topic":"food"}`},
		} {
			res := mustSearch(t, svc, loci.SearchQuery{Query: "What do you know about me?", AgentID: "a1", Filters: json.RawMessage(tc.filters)})
			if len(res.Results) != 1 || res.Results[0].Content != "u1 likes tea" || res.Results[0].Match != loci.MatchScope {
				var got []string
				for _, r := range res.Results[:min(3, len(res.Results))] {
					got = append(got, r.Content)
				}
				t.Errorf("%s: %d results (%q…), want u1's memory alone", tc.name, len(res.Results), got)
			}
		}
	})
}

// TestSearchResultsCarryMetadata: every search answer's results carry
// their record's metadata ({} for none), the kinds' searches too.
func TestSearchResultsCarryMetadata(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		addMemory(t, svc, loci.MemoryInput{Content: "Dana owns a red kayak", UserID: "dana", Metadata: json.RawMessage(`{"source":"chat","n":12345678901234567}`)})
		addMemory(t, svc, loci.MemoryInput{Content: "the kayak club meets on Fridays", AgentID: "coach", Kind: loci.KindPassage,
			Metadata: json.RawMessage(`{"club":"north"}`)})
		res := mustSearch(t, svc, loci.SearchQuery{Query: "kayak", UserID: "dana"})
		if len(res.Results) != 1 || string(res.Results[0].Metadata) != `{"n":12345678901234567,"source":"chat"}` {
			t.Errorf("search: %+v", res.Results)
		}
		facts, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "dana", Query: "kayak"})
		if err != nil || len(facts.Results) != 1 || string(facts.Results[0].Metadata) != `{"n":12345678901234567,"source":"chat"}` || facts.Retrieval.Mode != loci.RetrievalLexical {
			t.Errorf("fact search: %+v %v", facts, err)
		}
		ps, err := svc.SearchPassages(ctx, "coach", "kayak club", loci.PassageFilter{})
		if err != nil || len(ps.Results) != 1 || string(ps.Results[0].Metadata) != `{"club":"north"}` || ps.Results[0].Score != 1 || ps.Retrieval.Mode != loci.RetrievalLexical {
			t.Errorf("passage search: %+v %v", ps, err)
		}
	})
}

// TestHashVectorsAreLexical: the built-in hash embedder's vectors find
// shared words, not meaning: a search with them says lexical, and its
// scores are the words' alone.
func TestHashVectorsAreLexical(t *testing.T) {
	ctx := context.Background()
	svc := rules.New(testdb.OpenSQLite(t), rules.WithEmbedder(embed.NewHash(64)))
	addMemory(t, svc, loci.MemoryInput{Content: "Alex paints watercolours", UserID: "alex"})
	if _, err := svc.Reindex(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res := mustSearch(t, svc, loci.SearchQuery{Query: "painting lessons", UserID: "alex", Explain: true})
	if res.Retrieval.Mode != loci.RetrievalLexical || svc.Retrieval().Mode != loci.RetrievalLexical {
		t.Errorf("retrieval %+v (service %+v), want lexical", res.Retrieval, svc.Retrieval())
	}
	for _, r := range res.Results {
		if r.Explain.Meaning != nil || r.Score != r.Explain.Words {
			t.Errorf("%q: score %v, explain %+v: want the words' share alone", r.Content, r.Score, r.Explain)
		}
	}
}
