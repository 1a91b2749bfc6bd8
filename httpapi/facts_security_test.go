package httpapi

import (
	"net/http"
	"strings"
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

// TestFactsOfAnotherAgent: a key bound to agent a1 finds a2's facts by no
// route: by id they are not found (and stay unchanged), and listings, the
// fact search and the review queue leave them out; a key bound to no agent
// reads every agent's facts of the user.
func TestFactsOfAnotherAgent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		a1, _ := e.key(t, loci.RoleEditor, "a1")
		a2, _ := e.key(t, loci.RoleEditor, "a2")
		unbound, _ := e.key(t, loci.RoleEditor, "")
		status, out, _ := e.call(t, "POST", "/v1/facts", a2, []byte(`{"user_id":"u","agent_id":"a2","category":"general_fact","fact":"a2 secret: lives in Paris","keywords":["home"]}`))
		if status != http.StatusCreated {
			t.Fatalf("a2 stores a fact: %d %v", status, out)
		}
		theirs, _ := out["id"].(string)
		if status, out, _ := e.call(t, "POST", "/v1/facts/"+theirs+"/contradict", a2, nil); status != http.StatusOK {
			t.Fatalf("a2 contradicts its fact: %d %v", status, out)
		}
		if status, out, _ := e.call(t, "POST", "/v1/facts", a1, []byte(`{"user_id":"u","agent_id":"a1","category":"general_fact","fact":"lives in Rome","keywords":["home"]}`)); status != http.StatusCreated {
			t.Fatalf("a1 stores a fact: %d %v", status, out)
		}
		tests := []struct {
			name, method, path, key, body string
			want                          int
			seen                          bool // a2's fact is in the answer
		}{
			{"ErrGet", "GET", "/v1/facts/" + theirs, a1, "", http.StatusNotFound, false},
			{"ErrHistory", "GET", "/v1/facts/" + theirs + "/history", a1, "", http.StatusNotFound, false},
			{"ErrValidate", "POST", "/v1/facts/" + theirs + "/validate", a1, "", http.StatusNotFound, false},
			{"ErrContradict", "POST", "/v1/facts/" + theirs + "/contradict", a1, "", http.StatusNotFound, false},
			{"ErrInvalidate", "POST", "/v1/facts/" + theirs + "/invalidate", a1, "", http.StatusNotFound, false},
			{"ErrResolve", "POST", "/v1/facts/" + theirs + "/resolve", a1, `{"keep":false}`, http.StatusNotFound, false},
			{"ErrDelete", "DELETE", "/v1/facts/" + theirs, a1, "", http.StatusNotFound, false},
			{"ListLeavesOut", "GET", "/v1/facts?user_id=u&keyword=home", a1, "", http.StatusOK, false},
			{"DisputedLeavesOut", "GET", "/v1/facts?user_id=u&status=disputed", a1, "", http.StatusOK, false},
			{"SearchLeavesOut", "GET", "/v1/facts/search?user_id=u&q=secret+lives+Paris", a1, "", http.StatusOK, false},
			{"ReviewLeavesOut", "GET", "/v1/users/u/review", a1, "", http.StatusOK, false},
			{"UnboundGets", "GET", "/v1/facts/" + theirs, unbound, "", http.StatusOK, true},
			{"UnboundLists", "GET", "/v1/facts?user_id=u&keyword=home", unbound, "", http.StatusOK, true},
			{"UnboundSearches", "GET", "/v1/facts/search?user_id=u&q=secret+lives+Paris", unbound, "", http.StatusOK, true},
			{"UnboundReviews", "GET", "/v1/users/u/review", unbound, "", http.StatusOK, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				status, out, rec := e.call(t, tt.method, tt.path, tt.key, body)
				if status != tt.want {
					t.Errorf("status %d (%v), want %d", status, out, tt.want)
				}
				if seen := strings.Contains(rec.Body.String(), theirs); seen != tt.seen {
					t.Errorf("a2's fact in the answer: %v, want %v: %s", seen, tt.seen, rec.Body.String())
				}
			})
		}
		t.Run("TheirsUnchanged", func(t *testing.T) {
			f, err := e.svc.GetFact(t.Context(), theirs)
			if err != nil || f.Status != loci.FactDisputed || f.IsValidated || f.ContradictionCount != 1 || f.AccessCount != 2 {
				t.Errorf("a2's fact: %+v (%v), want disputed once, accessed by the unbound listing and search only", f, err)
			}
		})
	})
}

// TestKeyedFactsOfAnotherAgent: a keyed fact's slot is the user's,
// whichever agent writes it (API.md v1.1: "per user or global"), so a key
// bound to agent a1 that writes the key of a fact a2 stored supersedes it,
// but is told nothing of it: the answer names no previous id, a repeat of
// a2's content is no repeat (a2's record, its metadata, stay as they
// were), and the history of a1's fact holds a1's versions alone, with no
// link to a2's. A key bound to no agent reads the whole slot.
func TestKeyedFactsOfAnotherAgent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		admin, _ := e.key(t, loci.RoleAdmin, "")
		a1, _ := e.key(t, loci.RoleEditor, "a1")
		a1Creator, _ := e.key(t, loci.RoleCreator, "a1")
		a2, _ := e.key(t, loci.RoleEditor, "a2")
		add := func(key, path, body string) (int, map[string]any) {
			t.Helper()
			status, out, _ := e.call(t, "POST", path, key, []byte(body))
			return status, out
		}
		_, paris := add(a2, "/v1/memories", `{"content":"a2 secret: lives in Paris","user_id":"u","agent_id":"a2","key":"home_city"}`)
		_, acme := add(a2, "/v1/memories", `{"content":"a2 secret: works at Acme","user_id":"u","agent_id":"a2","key":"employer","metadata":{"source":"a2"}}`)

		status, rome := add(a1, "/v1/memories", `{"content":"lives in Rome","user_id":"u","agent_id":"a1","key":"home_city"}`)
		if status != http.StatusCreated || rome["event"] != "UPDATE" || rome["previous_id"] != nil {
			t.Errorf("a1 writes a2's key: %d %v, want an UPDATE naming no previous id", status, rome)
		}
		// a2's content again, from a1: no repeat of a2's record.
		status, out := add(a1Creator, "/v1/memories", `{"content":"a2 secret: works at Acme","user_id":"u","agent_id":"a1","key":"employer","metadata":{"source":"a1"}}`)
		if out["id"] == acme["id"] || out["previous_id"] != nil {
			t.Errorf("a1's creator key repeats a2's content: %d %v, want no answer naming a2's record", status, out)
		}
		_, got, _ := e.call(t, "GET", "/v1/memories/"+acme["id"].(string), admin, nil)
		if meta, _ := got["metadata"].(map[string]any); meta["source"] != "a2" || got["version"] != float64(1) {
			t.Errorf("a2's record after a1's repeat: %v, want its own metadata, version 1", got)
		}
		status, lyon := add(a1, "/v1/facts", `{"user_id":"u","agent_id":"a1","category":"general_fact","key":"home_city","fact":"lives in Lyon"}`)
		if status != http.StatusCreated || lyon["supersedes"] != rome["id"] {
			t.Errorf("a1 stores a fact of its key: %d %v, want it to supersede a1's", status, lyon)
		}
		for _, path := range []string{"/v1/memories/" + rome["id"].(string) + "/history", "/v1/facts/" + lyon["id"].(string) + "/history"} {
			status, out, rec := e.call(t, "GET", path, a1, nil)
			if body := rec.Body.String(); status != http.StatusOK || strings.Contains(body, "a2 secret") || strings.Contains(body, paris["id"].(string)) {
				t.Errorf("GET %s with a1's key: %d %v, want a1's versions alone", path, status, out)
			}
			if status, _, rec := e.call(t, "GET", path, admin, nil); status != http.StatusOK || !strings.Contains(rec.Body.String(), "a2 secret") {
				t.Errorf("GET %s unbound: %d %s, want every version of the slot", path, status, rec.Body.String())
			}
		}
	})
}
