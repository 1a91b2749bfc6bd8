package rules_test

import (
	"context"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// Facts and the binding of a key to an agent (docs/rules.md, "Memory is
// isolated by workspace and scope"): a key bound to an agent reaches its
// agent's facts and those of no agent, never another agent's, which are
// "not found".

// boundTo returns a context acting for an editor key bound to agent.
func boundTo(agent string) context.Context {
	return loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "k-" + agent, Role: loci.RoleEditor, AgentID: agent, Workspace: loci.DefaultWorkspace})
}

// storeAgentFact stores a fact of user u by agent (unbound), under key.
func (e *lcEnv) storeAgentFact(t *testing.T, agent, key, text string) *loci.Fact {
	t.Helper()
	f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", AgentID: agent, Category: loci.CategoryGeneralFact, Fact: text, Key: key})
	if err != nil {
		t.Fatalf("store %q: %v", text, err)
	}
	return f
}

// TestFactByIDOutOfReach: every fact route by id answers another agent's
// fact to a key bound to a1 as absent, and changes nothing of it; a1's own
// fact and a fact of no agent are in reach.
func TestFactByIDOutOfReach(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		theirs := e.storeAgentFact(t, "a2", "home_city", "a2 secret: lives in Paris")
		disputed := e.storeAgentFact(t, "a2", "", "a2 secret: likes opera")
		if _, err := e.svc.ContradictFact(e.ctx, disputed.ID); err != nil {
			t.Fatal(err)
		}
		before := map[string]*loci.Fact{theirs.ID: e.fact(t, theirs.ID), disputed.ID: e.fact(t, disputed.ID)}
		own := e.storeAgentFact(t, "a1", "", "likes tea")
		none := e.storeAgentFact(t, "", "", "water is wet")
		a1 := boundTo("a1")
		calls := []struct {
			name string
			call func(id string) error
		}{
			{"Get", func(id string) error { _, err := e.svc.GetFact(a1, id); return err }},
			{"History", func(id string) error { _, err := e.svc.FactHistory(a1, id); return err }},
			{"Validate", func(id string) error { _, err := e.svc.ValidateFact(a1, id); return err }},
			{"Contradict", func(id string) error { _, err := e.svc.ContradictFact(a1, id); return err }},
			{"Resolve", func(id string) error { _, err := e.svc.ResolveFact(a1, id, false); return err }},
			{"Invalidate", func(id string) error { _, err := e.svc.InvalidateFact(a1, id, lcT0); return err }},
			{"Delete", func(id string) error { return e.svc.DeleteFact(a1, id) }},
		}
		for _, c := range calls {
			t.Run("Err"+c.name+"OtherAgents", func(t *testing.T) {
				for _, f := range []*loci.Fact{theirs, disputed} {
					lcCode(t, c.call(f.ID), loci.ENOTFOUND)
				}
			})
		}
		t.Run("OtherAgentsUnchanged", func(t *testing.T) {
			for id, want := range before {
				got := e.fact(t, id)
				if got.Status != want.Status || got.RelevanceScore != want.RelevanceScore || got.IsValidated ||
					got.ContradictionCount != want.ContradictionCount || !got.InvalidAt.IsZero() || !got.UpdatedAt.Equal(want.UpdatedAt) {
					t.Errorf("%q after a1's calls: %+v, want %+v", want.Fact, got, want)
				}
			}
		})
		t.Run("OwnAndNoAgentsInReach", func(t *testing.T) {
			for _, f := range []*loci.Fact{own, none} {
				if _, err := e.svc.GetFact(a1, f.ID); err != nil {
					t.Errorf("get %q: %v", f.Fact, err)
				}
				if _, err := e.svc.ValidateFact(a1, f.ID); err != nil {
					t.Errorf("validate %q: %v", f.Fact, err)
				}
				if err := e.svc.DeleteFact(a1, f.ID); err != nil {
					t.Errorf("delete %q: %v", f.Fact, err)
				}
			}
		})
	})
}

// TestFactReadsKeepToTheAgent: a fact search, a fact listing (by keyword,
// or the disputed ones) and the review queue answer a key bound to a1 with
// a1's facts and those of no agent, and count only those; a search does not
// count as an access of another agent's fact. An unbound key still reads
// every agent's facts of the user.
func TestFactReadsKeepToTheAgent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		store := func(agent, text string) string {
			t.Helper()
			f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", AgentID: agent, Category: loci.CategoryGeneralFact, Fact: text, Keywords: []string{"home"}})
			if err != nil {
				t.Fatalf("store %q: %v", text, err)
			}
			if _, err := e.svc.ContradictFact(e.ctx, f.ID); err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		theirs := store("a2", "a2 secret: lives in Paris")
		own := store("a1", "lives in Rome")
		none := store("", "lives near the sea")
		reads := []struct {
			name string
			read func(ctx context.Context) ([]string, int)
		}{
			{"Search", func(ctx context.Context) ([]string, int) {
				res, err := e.svc.SearchFacts(ctx, loci.FactQuery{UserID: "u", Query: "lives"})
				if err != nil {
					t.Fatal(err)
				}
				return scoredIDs(res.Results), len(res.Results)
			}},
			{"Keyword", func(ctx context.Context) ([]string, int) {
				facts, n, err := e.svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u", Keyword: "home"})
				if err != nil {
					t.Fatal(err)
				}
				return factIDs(facts), n
			}},
			{"Disputed", func(ctx context.Context) ([]string, int) {
				facts, n, err := e.svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u", Status: loci.FactDisputed, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				for offset := 1; offset < n; offset++ { // a page at a time
					more, _, err := e.svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u", Status: loci.FactDisputed, Limit: 1, Offset: offset})
					if err != nil {
						t.Fatal(err)
					}
					facts = append(facts, more...)
				}
				return factIDs(facts), n
			}},
			{"Review", func(ctx context.Context) ([]string, int) {
				items, n, err := e.svc.ReviewQueue(ctx, loci.ReviewQuery{UserID: "u"})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, it := range items {
					ids = append(ids, it.Fact.ID)
				}
				return ids, n
			}},
		}
		for _, r := range reads {
			t.Run(r.name+"Bound", func(t *testing.T) {
				ids, n := r.read(boundTo("a1"))
				slices.Sort(ids)
				want := []string{own, none}
				slices.Sort(want)
				if !slices.Equal(ids, want) || n != len(want) {
					t.Errorf("a1's key reads %v (count %d), want %v (its own and no agent's)", ids, n, want)
				}
			})
			t.Run(r.name+"Unbound", func(t *testing.T) {
				ids, n := r.read(e.ctx)
				if len(ids) != 3 || n != 3 || !slices.Contains(ids, theirs) {
					t.Errorf("an unbound read: %v (count %d), want every agent's facts of the user", ids, n)
				}
			})
		}
		t.Run("SearchTouchesNoOtherAgents", func(t *testing.T) {
			before := e.fact(t, theirs).AccessCount
			e.search(t, loci.FactQuery{UserID: "u", Query: "secret Paris"}) // unbound: counts
			counted := e.fact(t, theirs).AccessCount
			if counted != before+1 {
				t.Fatalf("an unbound search: access_count %d, want %d", counted, before+1)
			}
			if _, err := e.svc.SearchFacts(boundTo("a1"), loci.FactQuery{UserID: "u", Query: "secret Paris"}); err != nil {
				t.Fatal(err)
			}
			if got := e.fact(t, theirs).AccessCount; got != counted {
				t.Errorf("a2's fact after a1's search: access_count %d, want %d", got, counted)
			}
		})
	})
}
