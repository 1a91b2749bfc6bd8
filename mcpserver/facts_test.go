package mcpserver_test

import (
	"context"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// TestStoreFactKeyAndAsOf: store_fact takes key and valid_at (a new fact
// of a key supersedes the current one), search_facts takes as_of.
func TestStoreFactKeyAndAsOf(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "assistant", UserID: "u"})
		r := MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "User lives in Paris",
			"key": "home_city", "valid_at": "2020-01-01T00:00:00Z"})
		wantOK(t, r)
		paris, _ := r.out["id"].(string)
		if r.out["key"] != "home_city" || r.out["valid_at"] != "2020-01-01T00:00:00Z" || r.out["status"] != "current" {
			t.Fatalf("first version: %s", r.text)
		}
		r = MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "User lives in Berlin", "key": "home_city"})
		wantOK(t, r)
		if r.out["supersedes"] != paris {
			t.Fatalf("second version: %s, want it to supersede %s", r.text, paris)
		}
		t.Run("SearchNow", func(t *testing.T) {
			r := MustCall(t, cs, "search_facts", map[string]any{"query": "user lives"})
			facts, _ := r.out["facts"].([]any)
			if len(facts) != 1 || facts[0].(map[string]any)["fact"] != "User lives in Berlin" || facts[0].(map[string]any)["status"] != "current" {
				t.Fatalf("got %s, want Berlin only", r.text)
			}
		})
		t.Run("SearchAsOf", func(t *testing.T) {
			r := MustCall(t, cs, "search_facts", map[string]any{"query": "user lives", "as_of": "2021-06-01T00:00:00Z"})
			facts, _ := r.out["facts"].([]any)
			if len(facts) != 1 {
				t.Fatalf("got %s, want Paris only", r.text)
			}
			f := facts[0].(map[string]any)
			// Current as of then; invalid_at says it ended since.
			if f["fact"] != "User lives in Paris" || f["status"] != "current" || f["invalid_at"] == nil || f["key"] != "home_city" {
				t.Fatalf("got %v, want Paris, current as of then and ended since", f)
			}
		})
		t.Run("ErrValidAt", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "x", "valid_at": "soon"}),
				loci.EINVALID, "valid_at must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z")
		})
		t.Run("ErrAsOf", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "search_facts", map[string]any{"query": "x", "as_of": "2021-06-01"}),
				loci.EINVALID, "as_of must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z")
		})
		t.Run("ErrBlankKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "x", "key": " "}),
				loci.EINVALID, "key must not be empty")
		})
		if _, n, _ := svc.FactsByKeyword(context.Background(), loci.FactQuery{UserID: "u", IncludeHistory: true}); n != 2 {
			t.Errorf("u's facts = %d, want the two versions", n)
		}
	})
}

// TestListReview: list_review lists the connection's user's disputed facts
// and preferences flagged for removal, no one else's.
func TestListReview(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		if r := MustCall(t, cs, "list_review", map[string]any{}); r.out["count"] != float64(0) {
			t.Fatalf("empty queue: %s", r.text)
		}
		f, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryCareerGoal, Fact: "wants to manage a team"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ContradictFact(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: []byte(`"formal"`), Source: loci.SourceExplicit}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ContradictPreference(ctx, "u", "tone", "", loci.SourceExplicit); err != nil {
			t.Fatal(err)
		}
		r := MustCall(t, cs, "list_review", nil)
		wantOK(t, r)
		items, _ := r.out["items"].([]any)
		if r.out["count"] != float64(2) || len(items) != 2 {
			t.Fatalf("queue: %s, want 2 items", r.text)
		}
		byKind := map[string]map[string]any{}
		for _, it := range items {
			m := it.(map[string]any)
			byKind[m["kind"].(string)] = m
		}
		if fi := byKind["fact"]; fi == nil || fi["id"] != f.ID || fi["reason"] != "disputed" || fi["text"] != "wants to manage a team" {
			t.Errorf("fact item: %v", fi)
		}
		if pi := byKind["preference"]; pi == nil || pi["type"] != "tone" || pi["reason"] != "flagged_for_removal" || pi["text"] != `"formal"` {
			t.Errorf("preference item: %v", pi)
		}
		if r := MustCall(t, cs, "list_review", map[string]any{"limit": 1}); len(r.out["items"].([]any)) != 1 || r.out["count"] != float64(2) {
			t.Errorf("limit 1: %s", r.text)
		}
		other := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "v"})
		if r := MustCall(t, other, "list_review", nil); r.out["count"] != float64(0) {
			t.Errorf("another user's queue: %s", r.text)
		}
		t.Run("ErrNoUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
			wantUnlisted(t, noUser, "list_review", nil)
		})
		t.Run("ErrLimit", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "list_review", map[string]any{"limit": 101}), "limit")
		})
	})
}

// TestFactToolsKeepToTheAgent: a connection (bound to agent a1) searches and
// lists for review a1's facts of its user and those of no agent, never
// another agent's, and its search counts as no access of another agent's fact.
func TestFactToolsKeepToTheAgent(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		store := func(agent, text string) string {
			t.Helper()
			f, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", AgentID: agent, Category: loci.CategoryGeneralFact, Fact: text})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.ContradictFact(ctx, f.ID); err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		theirs := store("a2", "a2 secret: lives in Paris")
		own := store("a1", "lives in Rome")
		none := store("", "lives near the sea")
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a1", UserID: "u"})
		ids := func(r result, list string) []string {
			t.Helper()
			wantOK(t, r)
			var out []string
			items, _ := r.out[list].([]any)
			for _, it := range items {
				out = append(out, it.(map[string]any)["id"].(string))
			}
			slices.Sort(out)
			return out
		}
		want := []string{own, none}
		slices.Sort(want)
		t.Run("SearchFacts", func(t *testing.T) {
			if got := ids(MustCall(t, cs, "search_facts", map[string]any{"query": "secret lives Paris"}), "facts"); !slices.Equal(got, want) {
				t.Errorf("a1's search: %v, want %v (its own and no agent's)", got, want)
			}
			if f, err := svc.GetFact(ctx, theirs); err != nil || f.AccessCount != 0 {
				t.Errorf("a2's fact after a1's search: %+v (%v), want access_count 0", f, err)
			}
		})
		t.Run("ListReview", func(t *testing.T) {
			r := MustCall(t, cs, "list_review", nil)
			if got := ids(r, "items"); !slices.Equal(got, want) || r.out["count"] != float64(2) {
				t.Errorf("a1's review queue: %v (count %v), want %v", got, r.out["count"], want)
			}
		})
	})
}
