package httpapi

import (
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestFactKeysAndReviewRoles: a creator may store a new keyed fact but not
// supersede one (that changes the old fact); deleting a global fact and
// resolving need editor; a key bound to an agent may read a fact and the
// review queue by id but not an episode (which it cannot be checked
// against).
func TestFactKeysAndReviewRoles(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		creator, _ := e.key(t, loci.RoleCreator, "")
		editor, _ := e.key(t, loci.RoleEditor, "")
		bound, _ := e.key(t, loci.RoleEditor, "a1")
		store := func(key, body string) (int, map[string]any) {
			status, out, _ := e.call(t, "POST", "/v1/facts", key, []byte(body))
			return status, out
		}
		status, first := store(creator, `{"user_id":"u","category":"general_fact","fact":"lives in Paris","key":"home_city"}`)
		if status != http.StatusCreated {
			t.Fatalf("creator stores a new key: %d %v", status, first)
		}
		if status, out := store(creator, `{"user_id":"u","category":"general_fact","fact":"lives in Berlin","key":"home_city"}`); status != http.StatusForbidden {
			t.Errorf("creator supersedes: %d %v, want 403", status, out)
		}
		if status, out := store(editor, `{"user_id":"u","category":"general_fact","fact":"lives in Rome","key":"home_city"}`); status != http.StatusCreated || out["supersedes"] != first["id"] {
			t.Errorf("editor supersedes: %d %v, want 201 superseding %v", status, out, first["id"])
		}
		status, global := store(creator, `{"category":"general_fact","fact":"water is wet"}`)
		if status != http.StatusCreated {
			t.Fatalf("global fact: %d", status)
		}
		gid, _ := global["id"].(string)
		ep, err := e.svc.RecordEpisode(t.Context(), loci.EpisodeInput{UserID: "u", AgentID: "a1", ActionType: "t", ActionDescription: "d", Outcome: loci.OutcomeSuccess})
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name, method, path, key, body string
			want                          int
		}{
			{"ErrCreatorDeletesGlobal", "DELETE", "/v1/facts/" + gid, creator, "", http.StatusForbidden},
			{"ErrCreatorInvalidates", "POST", "/v1/facts/" + gid + "/invalidate", creator, "", http.StatusForbidden},
			{"ErrCreatorResolves", "POST", "/v1/facts/" + gid + "/resolve", creator, `{"keep":true}`, http.StatusForbidden},
			{"BoundGetsFact", "GET", "/v1/facts/" + gid, bound, "", http.StatusOK},
			{"BoundReadsReview", "GET", "/v1/users/u/review", bound, "", http.StatusOK},
			{"ErrBoundGetsEpisode", "GET", "/v1/episodes/" + ep.ID, bound, "", http.StatusForbidden},
			{"ErrBoundDeletesEpisode", "DELETE", "/v1/episodes/" + ep.ID, bound, "", http.StatusForbidden},
			{"EditorDeletesGlobal", "DELETE", "/v1/facts/" + gid, editor, "", http.StatusOK},
			{"EditorDeletesEpisode", "DELETE", "/v1/episodes/" + ep.ID, editor, "", http.StatusOK},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				if status, out, _ := e.call(t, tt.method, tt.path, tt.key, body); status != tt.want {
					t.Errorf("status %d (%v), want %d", status, out, tt.want)
				}
			})
		}
	})
}
