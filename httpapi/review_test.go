package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestAgentBoundBodyKeyCase: a body's member is its exact name, so
// "AGENT_ID" is an unknown field (encoding/json alone would take it as
// agent_id), and a bound key never writes into another agent through it.
func TestAgentBoundBodyKeyCase(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		bound, _ := e.key(t, loci.RoleEditor, "a1")
		tests := []struct {
			name, method, path, body string
			want                     int
		}{
			{"OwnEpisode", "POST", "/v1/episodes", `{"user_id":"u1","agent_id":"a1","action_type":"t","action_description":"d","outcome":"success"}`, http.StatusCreated},
			{"ErrEpisodeOtherUpperKey", "POST", "/v1/episodes", `{"user_id":"u1","agent_id":"a1","AGENT_ID":"a2","action_type":"t","action_description":"d","outcome":"success"}`, http.StatusBadRequest},
			{"ErrEpisodeOnlyUpperKey", "POST", "/v1/episodes", `{"user_id":"u1","Agent_Id":"a2","action_type":"t","action_description":"d","outcome":"success"}`, http.StatusBadRequest},
			{"ErrFactOtherUpperKey", "POST", "/v1/facts", `{"user_id":"u1","AGENT_ID":"a2","category":"skill_assessment","fact":"f"}`, http.StatusBadRequest},
			{"ErrWorkingOtherUpperKey", "PUT", "/v1/tasks/t1/working/k", `{"agent_id":"a1","Agent_ID":"a2","value":"v"}`, http.StatusBadRequest},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, out, _ := e.call(t, tt.method, tt.path, bound, []byte(tt.body))
				if status != tt.want {
					t.Errorf("status %d (%v), want %d", status, out, tt.want)
				}
			})
		}
		ctx := context.Background()
		eps, _, err := e.svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a2"})
		if err != nil || len(eps) != 0 {
			t.Errorf("a2's episodes = %d, %v; want none", len(eps), err)
		}
		if _, err := e.svc.GetWorking(ctx, "t1", "k", loci.WorkingFilter{AgentID: "a2"}); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("a2's working memory: %v, want not found", err)
		}
	})
}
