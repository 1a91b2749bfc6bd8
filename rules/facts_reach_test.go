package rules_test

import (
	"context"
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
