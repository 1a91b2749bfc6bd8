package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestForgetIncludeAgents: a forget says that agents' notes, blocks and
// passages were not searched; include_agents (editor) extends the query to
// them, a dry run previews it, a creator or a key bound to an agent is
// refused, and afterwards the agents' memory no longer names the user.
func TestForgetIncludeAgents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		admin, _ := e.key(t, loci.RoleAdmin, "")
		creator, _ := e.key(t, loci.RoleCreator, "")
		editor, _ := e.key(t, loci.RoleEditor, "")
		bound, _ := e.key(t, loci.RoleEditor, "a1")
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/v1/agents", `{"id":"a1"}`},
			{"PUT", "/v1/agents/a1/blocks/relationships", `{"content":"Alice: power user"}`},
			{"POST", "/v1/agents/a1/passages", `{"content":"Alice reported a failed deploy"}`},
			{"POST", "/v1/agents/a1/passages", `{"content":"Bob reported nothing"}`},
			{"POST", "/v1/facts", `{"user_id":"alice","category":"general_fact","fact":"Alice is a power user"}`},
		} {
			if status, out, _ := e.call(t, c.method, c.path, admin, []byte(c.body)); status >= 300 {
				t.Fatalf("%s %s: %d %v", c.method, c.path, status, out)
			}
		}
		tests := []struct {
			name, key, body string
			want            int
			count           float64
			agents          bool
		}{
			{"DryRunWithoutAgents", editor, `{"query":"Alice","dry_run":true}`, 200, 1, false},
			{"ErrCreator", creator, `{"query":"Alice","include_agents":true,"dry_run":true}`, 403, 0, false},
			{"ErrBound", bound, `{"query":"Alice","include_agents":true,"dry_run":true}`, 403, 0, false},
			{"ErrIDsOnly", editor, `{"ids":["x"],"include_agents":true}`, 400, 0, false},
			{"ErrNotBool", editor, `{"query":"Alice","include_agents":"yes"}`, 400, 0, false},
			{"DryRunWithAgents", editor, `{"query":"Alice","include_agents":true,"dry_run":true}`, 200, 3, true},
			{"Forget", editor, `{"query":"Alice","include_agents":true}`, 200, 3, true},
			{"NothingLeft", editor, `{"query":"Alice","include_agents":true}`, 200, 0, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, out, _ := e.call(t, "POST", "/v1/users/alice/forget", tt.key, []byte(tt.body))
				if status != tt.want {
					t.Fatalf("status %d (%v), want %d", status, out, tt.want)
				}
				if status != 200 {
					return
				}
				if out["count"] != tt.count || out["agents_searched"] != tt.agents {
					t.Errorf("count %v, agents_searched %v; want %v, %v", out["count"], out["agents_searched"], tt.count, tt.agents)
				}
				notice, _ := out["notice"].(string)
				if tt.agents != (notice == "") || (!tt.agents && !strings.Contains(notice, "include_agents")) {
					t.Errorf("notice %q with agents_searched %v: want one naming include_agents exactly when agents were not searched", notice, tt.agents)
				}
			})
		}
		status, out, rec := e.call(t, "GET", "/v1/agents/a1/passages", admin, nil)
		if status != http.StatusOK || out["count"] != float64(1) || strings.Contains(rec.Body.String(), "Alice") {
			t.Errorf("a1's passages after the forget: %d %s, want Bob's only", status, rec.Body)
		}
		if status, _, _ := e.call(t, "GET", "/v1/agents/a1/blocks/relationships", admin, nil); status != http.StatusNotFound {
			t.Errorf("the block naming Alice: %d, want 404", status)
		}
	})
}
