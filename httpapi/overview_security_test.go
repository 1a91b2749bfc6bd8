package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestOverviewKeys: the overview's routes under authentication: a viewer
// reads them; a key bound to an agent reads its own agent's stats and
// timeline only and never the user list; who-am-I tells each key its
// role and agent.
func TestOverviewKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		ctx := context.Background()
		if _, err := e.svc.Remember(ctx, "a1", "k", json.RawMessage(`"v"`)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Remember(ctx, "a2", "k", json.RawMessage(`"v"`)); err != nil {
			t.Fatal(err)
		}
		viewer, viewerID := e.key(t, loci.RoleViewer, "")
		bound, boundID := e.key(t, loci.RoleEditor, "a1")
		tests := []struct {
			name, path, key string
			want            int
		}{
			{"ViewerUsers", "/v1/users", viewer, http.StatusOK},
			{"ViewerStats", "/v1/stats", viewer, http.StatusOK},
			{"ViewerMemories", "/v1/memories", viewer, http.StatusOK},
			{"ErrNoKeyUsers", "/v1/users", "", http.StatusUnauthorized},
			{"ErrNoKeyWhoami", "/v1/whoami", "", http.StatusUnauthorized},
			{"ErrBoundUsers", "/v1/users", bound, http.StatusForbidden},
			{"ErrBoundStatsUnnamed", "/v1/stats", bound, http.StatusForbidden},
			{"ErrBoundStatsOther", "/v1/stats?agent_id=a2", bound, http.StatusForbidden},
			{"BoundStatsOwn", "/v1/stats?agent_id=a1", bound, http.StatusOK},
			{"ErrBoundMemoriesUnnamed", "/v1/memories?user_id=u1", bound, http.StatusForbidden},
			{"ErrBoundMemoriesOther", "/v1/memories?agent_id=a2", bound, http.StatusForbidden},
			{"BoundMemoriesOwn", "/v1/memories?agent_id=a1", bound, http.StatusOK},
			{"BoundBlockHistoryOwn", "/v1/agents/a1/blocks/personality/history", bound, http.StatusNotFound}, // no agent row: notes do not make one
			{"ErrBoundBlockHistoryOther", "/v1/agents/a2/blocks/personality/history", bound, http.StatusForbidden},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, out, _ := e.call(t, "GET", tt.path, tt.key, nil)
				if status != tt.want {
					t.Fatalf("status %d (%v), want %d", status, out, tt.want)
				}
			})
		}
		t.Run("BoundMemoriesSeeOnlyTheirAgent", func(t *testing.T) {
			_, out, _ := e.call(t, "GET", "/v1/memories?agent_id=a1", bound, nil)
			if out["count"] != float64(1) {
				t.Errorf("a1's memories = %v, want its one note", out)
			}
		})
		t.Run("Whoami", func(t *testing.T) {
			for _, tc := range []struct {
				key, id, role, agent string
			}{{viewer, viewerID, "viewer", ""}, {bound, boundID, "editor", "a1"}} {
				status, out, _ := e.call(t, "GET", "/v1/whoami", tc.key, nil)
				if status != http.StatusOK || out["auth"] != true || out["key_id"] != tc.id || out["role"] != tc.role || out["agent_id"] != tc.agent {
					t.Errorf("whoami = %d %v, want key %s, role %s, agent %q", status, out, tc.id, tc.role, tc.agent)
				}
			}
		})
	})
}
