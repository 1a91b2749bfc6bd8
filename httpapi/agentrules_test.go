package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestAgentRulesBound checks the agent rules of working memory and block
// consumers: a key bound to agent a1 reaches a1's data and gets 403 on
// a2's.
func TestAgentRulesBound(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		e := newSecEnv(t, open)
		bound, _ := e.key(t, loci.RoleEditor, "a1")
		for _, agent := range []string{"a1", "a2"} {
			if _, _, err := e.svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: agent, Key: "k", Value: json.RawMessage(`"` + agent + `'s plan"`)}); err != nil {
				t.Fatal(err)
			}
		}
		own, err := e.svc.CreateBlock(ctx, "a1", loci.BlockSpec{Label: "team1", Content: "a1's"}, true)
		if err != nil {
			t.Fatal(err)
		}
		other, err := e.svc.CreateBlock(ctx, "a2", loci.BlockSpec{Label: "team2", Content: "a2's"}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{own.ID, other.ID} {
			for _, consumer := range []string{"a1", "z3"} {
				if b == own.ID && consumer == "a1" {
					continue
				}
				if err := e.svc.AttachBlock(ctx, b, consumer); err != nil {
					t.Fatal(err)
				}
			}
		}
		tests := []struct {
			name, method, path string
			want               int
			hide               string // text the answer must not hold
		}{
			{"WorkingGetOwn", "GET", "/v1/tasks/t1/working/k?agent_id=a1", http.StatusOK, "a2's"},
			{"ErrWorkingGetOther", "GET", "/v1/tasks/t1/working/k?agent_id=a2", http.StatusForbidden, "a2's"},
			{"ErrWorkingGetUnnamed", "GET", "/v1/tasks/t1/working/k", http.StatusForbidden, "a2's"},
			{"WorkingListOwn", "GET", "/v1/tasks/t1/working?agent_id=a1", http.StatusOK, "a2's"},
			{"ErrWorkingListOther", "GET", "/v1/tasks/t1/working?agent_id=a2", http.StatusForbidden, "a2's"},
			{"ErrWorkingClearOther", "DELETE", "/v1/tasks/t1/working?agent_id=a2", http.StatusForbidden, ""},
			{"WorkingClearOwn", "DELETE", "/v1/tasks/t1/working?agent_id=a1", http.StatusOK, ""},
			{"ConsumersOwn", "GET", "/v1/blocks/" + own.ID + "/consumers", http.StatusOK, ""},
			{"ErrConsumersOther", "GET", "/v1/blocks/" + other.ID + "/consumers", http.StatusForbidden, "z3"},
			// A parameter the route does not take names no agent.
			{"ConsumersOwnUnusedQuery", "GET", "/v1/blocks/" + own.ID + "/consumers?agent_id=a2", http.StatusOK, ""},
			{"ErrAttachOtherToSelf", "PUT", "/v1/blocks/" + other.ID + "/consumers/a1", http.StatusForbidden, ""},
			{"ErrAttachOwnToOther", "PUT", "/v1/blocks/" + own.ID + "/consumers/a2", http.StatusForbidden, ""},
			{"ErrDetachOther", "DELETE", "/v1/blocks/" + other.ID + "/consumers/z3", http.StatusForbidden, ""},
			{"DetachFromSelf", "DELETE", "/v1/blocks/" + other.ID + "/consumers/a1", http.StatusOK, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.method == "PUT" {
					body = []byte(`{}`)
				}
				status, out, rec := e.call(t, tt.method, tt.path, bound, body)
				if status != tt.want {
					t.Errorf("status %d (%v), want %d", status, out, tt.want)
				}
				if tt.hide != "" && strings.Contains(rec.Body.String(), tt.hide) {
					t.Errorf("answer holds %q: %s", tt.hide, rec.Body)
				}
			})
		}
		// The refused calls changed nothing of a2's; the allowed ones
		// changed a1's only.
		if _, err := e.svc.GetWorking(ctx, "t1", "k", loci.WorkingFilter{AgentID: "a2"}); err != nil {
			t.Errorf("a2's working memory: %v", err)
		}
		if _, err := e.svc.GetWorking(ctx, "t1", "k", loci.WorkingFilter{AgentID: "a1"}); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("a1's working memory after clearing: %v, want not found", err)
		}
		links, err := e.svc.ListBlockConsumers(ctx, other.ID)
		if err != nil || len(links) != 1 || links[0].AgentID != "z3" {
			t.Errorf("consumers of a2's block = %+v, %v; want a3 only", links, err)
		}
	})
}
