package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// getText GETs path and returns the status and the body as text.
func getText(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := patient.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPromptLeavesOutEmptyBlocks: the rendered prompt has no heading of an
// empty block: a new agent's (three empty blocks) is empty, and once one
// block has content the prompt is that block alone.
func TestPromptLeavesOutEmptyBlocks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		if st, _, out := call(t, srv.URL, "POST", "/v1/agents", `{"id":"m"}`); st != http.StatusCreated {
			t.Fatalf("create agent: %d %v", st, out)
		}
		if st, text := getText(t, srv.URL, "/v1/agents/m/prompt"); st != http.StatusOK || text != "" {
			t.Errorf("prompt of an agent with only empty blocks: %d %q, want 200 and empty", st, text)
		}
		if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/m/blocks/personality", `{"content":"World's best boss"}`); st >= 300 {
			t.Fatalf("set block: %d %v", st, out)
		}
		if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/m/blocks/current_state", `{"content":"  \n "}`); st >= 300 {
			t.Fatalf("set block: %d %v", st, out)
		}
		if st, text := getText(t, srv.URL, "/v1/agents/m/prompt"); st != http.StatusOK || text != "### personality\nWorld's best boss" {
			t.Errorf("prompt: %d %q, want the personality block alone", st, text)
		}
	})
}

// TestAgentWithOnlyNotesIsListed: an agent that has only notes is listed
// by GET /v1/agents (as it is counted by /v1/stats), beside the agents
// created with blocks, by id.
func TestAgentWithOnlyNotesIsListed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		if st, _, out := call(t, srv.URL, "POST", "/v1/agents", `{"id":"b-blocks"}`); st != http.StatusCreated {
			t.Fatalf("create agent: %d %v", st, out)
		}
		for _, k := range []string{"k1", "k2"} {
			if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a-notes/notes/"+k, `{"value":"v"}`); st != http.StatusCreated {
				t.Fatalf("remember: %d %v", st, out)
			}
		}
		st, _, out := call(t, srv.URL, "GET", "/v1/agents", "")
		agents, _ := out["agents"].([]any)
		var ids []any
		for _, a := range agents {
			ids = append(ids, a.(map[string]any)["id"])
		}
		if st != http.StatusOK || out["count"] != 2.0 || len(ids) != 2 || ids[0] != "a-notes" || ids[1] != "b-blocks" {
			t.Errorf("GET /v1/agents: %d count %v, ids %v; want a-notes and b-blocks", st, out["count"], ids)
		}
	})
}

// TestUnknownFieldNamesTheFields: a body with a field its route does not
// take is refused naming that field, plainly, and the fields it takes.
func TestUnknownFieldNamesTheFields(t *testing.T) {
	srv, _ := newServer(t, testdb.Backends()[0].Open)
	for _, tc := range []struct{ method, path, body, want string }{
		{"PUT", "/v1/agents/a/notes/k", `{"val":"x"}`, "unknown field val; this body takes value"},
		{"PUT", "/v1/agents/a/blocks/persona", `{"content":"x","expected":1}`, "unknown field expected; this body takes content, expected_version, limit"},
	} {
		st, _, out := call(t, srv.URL, tc.method, tc.path, tc.body)
		if st != http.StatusBadRequest || out["error"] != tc.want {
			t.Errorf("%s %s %s: %d %q, want 400 %q", tc.method, tc.path, tc.body, st, out["error"], tc.want)
		}
	}
}
