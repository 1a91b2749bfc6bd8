package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

// toolDescription returns the description of the tool name, and the
// server's instructions.
func toolDescription(t *testing.T, cs *mcp.ClientSession, name string) (string, string) {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == name {
			return tl.Description, cs.InitializeResult().Instructions
		}
	}
	t.Fatalf("no tool %s", name)
	return "", ""
}

// TestSearchToolsSayHowTheySearch: the tools and instructions say "by
// words" when searches are lexical (the default, no model), and "by
// meaning and by words" only with an embedding model; search answers say
// how they ranked, and a wordless question answers the memories.
func TestSearchToolsSayHowTheySearch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		lexical := rules.New(store)
		// A model server the test never calls: the tools are described
		// from the configuration alone.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("the model server was called: %s %s", r.Method, r.URL.Path)
			http.Error(w, "no", http.StatusServiceUnavailable)
		}))
		defer srv.Close()
		emb, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "nomic-embed-text"})
		if err != nil {
			t.Fatal(err)
		}
		hybrid := rules.New(store, rules.WithEmbedder(emb))
		for _, set := range []mcpserver.ToolSet{mcpserver.ToolsDefault, mcpserver.ToolsAll} {
			id := mcpserver.Identity{AgentID: "a", UserID: "alex"}
			desc, instr := toolDescription(t, MustConnectTools(t, lexical, id, set), "search_memory")
			if strings.Contains(desc, "by meaning") || strings.Contains(instr, "by meaning") || !strings.Contains(desc, "by words") || !strings.Contains(instr, "by words") {
				t.Errorf("%s, lexical: the description or instructions claim meaning or do not say words:\n%s\n%s", set, desc, instr)
			}
			desc, instr = toolDescription(t, MustConnectTools(t, hybrid, id, set), "search_memory")
			if !strings.Contains(desc, "by meaning and by words") || !strings.Contains(instr, "by meaning and by words") {
				t.Errorf("%s, hybrid: the description or instructions do not say meaning:\n%s\n%s", set, desc, instr)
			}
		}

		cs := MustConnectTools(t, lexical, mcpserver.Identity{AgentID: "a", UserID: "alex"}, mcpserver.ToolsDefault)
		for _, c := range []string{"Alex is allergic to nuts", "Alex is vegetarian"} {
			if r := MustCall(t, cs, "add_memory", map[string]any{"content": c, "metadata": map[string]any{"topic": "food"}}); r.isError {
				t.Fatalf("add_memory: %s", r.text)
			}
		}
		r := MustCall(t, cs, "search_memory", map[string]any{"query": "Does the user have any nut allergies?"})
		if r.isError {
			t.Fatal(r.text)
		}
		ret, _ := r.out["retrieval"].(map[string]any)
		if ret["mode"] != "lexical" || ret["model"] != nil {
			t.Errorf("retrieval %v, want lexical", r.out["retrieval"])
		}
		r = MustCall(t, cs, "search_memory", map[string]any{"query": "What do you know about me?"})
		results, _ := r.out["results"].([]any)
		if len(results) != 2 {
			t.Fatalf("a wordless question: %v, want alex's 2 memories", r.out)
		}
		for _, x := range results {
			res := x.(map[string]any)
			if res["match"] != "scope" || res["score"] != 1.0 || res["metadata"].(map[string]any)["topic"] != "food" {
				t.Errorf("result %v: want match scope, score 1, its metadata", res)
			}
		}
		full := MustConnect(t, lexical, mcpserver.Identity{AgentID: "a", UserID: "alex"})
		r = MustCall(t, full, "search_facts", map[string]any{"query": "vegetarian"})
		if ret, _ := r.out["retrieval"].(map[string]any); r.isError || ret["mode"] != "lexical" {
			t.Errorf("search_facts: %v %s", r.out, r.text)
		}
	})
}
