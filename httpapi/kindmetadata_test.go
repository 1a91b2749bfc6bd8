package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestKindsAnswerMetadata: a record's metadata is in its kind's own answers,
// every kind (the facts, passages and notes routes once answered a record
// without the metadata it was given), and absent where the record has none; a
// search result carries it ({} when none).
func TestKindsAnswerMetadata(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		must := func(method, path, body string) map[string]any {
			t.Helper()
			st, b := do(t, srv, method, path, body)
			if st/100 != 2 {
				t.Fatalf("%s %s %s: %d %s", method, path, body, st, b)
			}
			return decodeExact(t, b)
		}
		meta := func(kind string) string { return fmt.Sprintf(`{"n":9007199254740993,"topicName":"%s"}`, kind) }
		ids := map[string]string{}
		ids["fact"] = must("POST", "/v1/memories", `{"content": "eats no meat", "user_id": "u", "key": "diet", "metadata": `+meta("fact")+`}`)["id"].(string)
		ids["passage"] = must("POST", "/v1/memories", `{"content": "a passage on soup", "agent_id": "a", "kind": "passage", "metadata": `+meta("passage")+`}`)["id"].(string)
		ids["note"] = must("POST", "/v1/memories", `{"content": "a note on soup", "agent_id": "a", "kind": "note", "key": "soup", "metadata": `+meta("note")+`}`)["id"].(string)
		ids["block"] = must("POST", "/v1/agents/a/blocks", `{"label": "persona", "content": "a cook"}`)["id"].(string)
		ids["episode"] = must("POST", "/v1/episodes", `{"user_id": "u", "agent_id": "a", "action_type": "cook", "action_description": "made soup", "outcome": "success"}`)["id"].(string)
		must("POST", "/v1/users/u/preferences", `{"type": "tone", "value": "warm", "source": "explicit"}`)
		must("PUT", "/v1/sessions/s1", `{"user_id": "u", "summary": "talked soup"}`)
		must("PUT", "/v1/tasks/t1/working/step", `{"value": 2, "agent_id": "a"}`)
		// Kinds written by their own routes take metadata through the
		// memories API.
		for _, q := range []string{"user_id=u", "task_id=t1"} {
			for _, m := range must("GET", "/v1/memories?"+q, "")["memories"].([]any) {
				m := m.(map[string]any)
				if k := m["kind"].(string); ids[k] == "" {
					ids[k] = m["id"].(string)
				}
			}
		}
		for _, k := range []string{"block", "episode", "preference", "session", "working"} {
			if ids[k] == "" {
				t.Fatalf("no %s among the memories: %v", k, ids)
			}
			must("PATCH", "/v1/memories/"+ids[k], `{"metadata": `+meta(k)+`}`)
		}

		for _, c := range []struct{ kind, method, path, body string }{
			{"fact", "GET", "/v1/facts/" + ids["fact"], ""},
			{"fact", "GET", "/v1/facts?user_id=u", ""},
			{"fact", "GET", "/v1/facts/" + ids["fact"] + "/history", ""},
			{"fact", "POST", "/v1/facts/" + ids["fact"] + "/validate", ""},
			{"fact", "GET", "/v1/facts/search?user_id=u&q=meat", ""},
			{"passage", "GET", "/v1/agents/a/passages", ""},
			{"passage", "GET", "/v1/agents/a/passages/search?q=soup", ""},
			{"note", "GET", "/v1/agents/a/notes/soup", ""},
			{"note", "GET", "/v1/agents/a/notes", ""},
			{"block", "GET", "/v1/agents/a/blocks/persona", ""},
			{"block", "GET", "/v1/agents/a/blocks", ""},
			{"episode", "GET", "/v1/episodes/" + ids["episode"], ""},
			{"episode", "GET", "/v1/episodes?user_id=u&agent_id=a", ""},
			{"preference", "GET", "/v1/users/u/preferences", ""},
			{"session", "GET", "/v1/sessions/s1", ""},
			{"session", "GET", "/v1/users/u/sessions", ""},
			{"working", "GET", "/v1/tasks/t1/working/step", ""},
			{"working", "GET", "/v1/tasks/t1/working", ""},
			{"fact", "POST", "/v1/search", `{"query": "meat", "user_id": "u"}`},
		} {
			st, b := do(t, srv, c.method, c.path, c.body)
			if want := `"metadata":` + meta(c.kind); st != 200 || !strings.Contains(string(b), want) {
				t.Errorf("%s: %s %s: %d %s\nwant %s", c.kind, c.method, c.path, st, b, want)
			}
		}

		// A record without metadata answers none, and a search result {}.
		must("POST", "/v1/memories", `{"content": "a passage on bread", "agent_id": "a", "kind": "passage"}`)
		st, b := do(t, srv, "GET", "/v1/agents/a/passages?tag=", "")
		if st == 200 && strings.Contains(string(b), `"metadata":{}`) {
			t.Errorf("a passage without metadata answers {}: %s", b)
		}
		st, b = do(t, srv, "GET", "/v1/agents/a/passages/search?q=bread", "")
		if st != 200 || !strings.Contains(string(b), `"metadata":{}`) {
			t.Errorf("a search result without metadata: %d %s, want metadata {}", st, b)
		}
	})
}
