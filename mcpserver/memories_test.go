package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

var defaultTools = []string{"remember", "recall", "add_memory", "search_memory", "update_memory", "delete_memory"}

// toolsListBytes lists the tools of a session and returns their names and
// the size of the tools/list result as JSON.
func toolsListBytes(t *testing.T, cs *mcp.ClientSession) ([]string, int) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names, len(mustJSON(t, res))
}

// TestToolsListBytes reports what tools/list costs a model's context in
// each set (go test ./mcpserver -run TestToolsListBytes -v): the default
// set is the compact one.
func TestToolsListBytes(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	sizes := map[mcpserver.ToolSet]int{}
	for _, set := range toolSets {
		for _, id := range []mcpserver.Identity{{AgentID: "a"}, {AgentID: "a", UserID: "u"}} {
			cs := MustConnectTools(t, svc, id, set)
			names, n := toolsListBytes(t, cs)
			t.Logf("tools=%s user=%q: %d tools, %d bytes", set, id.UserID, len(names), n)
			if testing.Verbose() && set == mcpserver.ToolsDefault && id.UserID == "" {
				res, _ := cs.ListTools(context.Background(), nil)
				for _, tool := range res.Tools {
					t.Logf("  %s: %d bytes (input schema %d, output schema %d)", tool.Name, len(mustJSON(t, tool)), len(mustJSON(t, tool.InputSchema)), len(mustJSON(t, tool.OutputSchema)))
				}
			}
			sizes[set] = max(sizes[set], n)
		}
	}
	if sizes[mcpserver.ToolsDefault]*3 > sizes[mcpserver.ToolsAll] {
		t.Errorf("default tools/list is %d bytes, the full one %d: want the default at most a third", sizes[mcpserver.ToolsDefault], sizes[mcpserver.ToolsAll])
	}
}

func TestDefaultToolsList(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	for _, id := range []mcpserver.Identity{{AgentID: "a"}, {AgentID: "a", UserID: "u"}} {
		srv, err := mcpserver.New(svc, id, mcpserver.WithLogger(quiet)) // no WithTools: the default
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			text := tool.Description + string(mustJSON(t, tool.InputSchema))
			for _, word := range []string{"career", "interview", "job_market", "salar", "Retail", "campaign", "user_preference", "skill_assessment"} {
				if strings.Contains(text, word) {
					t.Errorf("%s: description or schema holds the domain word %q", tool.Name, word)
				}
			}
			in := schemaOf(t, tool.InputSchema)
			for p, prop := range in.Properties {
				if prop.Description == "" {
					t.Errorf("%s: input property %q has no description", tool.Name, p)
				}
				if strings.Contains(p, "agent") || p == "user_id" || p == "user" {
					t.Errorf("%s: input property %q: the identity must come from the connection", tool.Name, p)
				}
			}
		}
		slices.Sort(names)
		want := slices.Clone(defaultTools)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("user %q: default tools = %v, want %v", id.UserID, names, want)
		}
	}
}

func TestAddMemory(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "coder", UserID: "u"}, mcpserver.ToolsDefault)
		r := MustCall(t, cs, "add_memory", map[string]any{"content": "The user prefers tabs", "tags": []any{"style"}, "metadata": map[string]any{"project": "billing", "priority": 2}})
		wantOK(t, r)
		id, _ := r.out["id"].(string)
		if r.out["event"] != loci.EventAdd || r.out["kind"] != "fact" || id == "" {
			t.Fatalf("add = %v, want an ADD of a fact", r.out)
		}
		m, err := svc.GetMemory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.AgentID != "coder" || m.UserID != "u" || m.Content != "The user prefers tabs" {
			t.Errorf("stored %+v, want the connection's agent and user", m)
		}
		var meta map[string]any
		json.Unmarshal(m.Metadata, &meta)
		if meta["project"] != "billing" || meta["priority"] != float64(2) {
			t.Errorf("metadata = %s", m.Metadata)
		}

		t.Run("NOOP", func(t *testing.T) {
			r := MustCall(t, cs, "add_memory", map[string]any{"content": "the user  PREFERS tabs"})
			if wantOK(t, r); r.out["event"] != loci.EventNoop || r.out["id"] != id {
				t.Errorf("repeat = %v, want NOOP with id %s", r.out, id)
			}
		})
		t.Run("KeyUpdates", func(t *testing.T) {
			a := MustCall(t, cs, "add_memory", map[string]any{"content": "lives in Lyon", "key": "city"})
			b := MustCall(t, cs, "add_memory", map[string]any{"content": "lives in Paris", "key": "city"})
			if wantOK(t, b); b.out["event"] != loci.EventUpdate || b.out["previous_id"] != a.out["id"] {
				t.Errorf("second add under the key = %v, want UPDATE of %v", b.out, a.out["id"])
			}
		})
		t.Run("PassageIsTheAgents", func(t *testing.T) {
			r := MustCall(t, cs, "add_memory", map[string]any{"content": "We shipped v2 on Friday.", "kind": "passage", "ttl_seconds": 3600})
			wantOK(t, r)
			m, err := svc.GetMemory(ctx, r.out["id"].(string))
			if err != nil || m.Kind != loci.KindPassage || m.UserID != "" || m.AgentID != "coder" || m.ExpiresAt.IsZero() {
				t.Errorf("passage = %+v, %v; want the agent's, expiring", m, err)
			}
		})
		t.Run("Note", func(t *testing.T) {
			wantOK(t, MustCall(t, cs, "add_memory", map[string]any{"content": "main", "kind": "note", "key": "branch"}))
			if r := MustCall(t, cs, "recall", map[string]any{"key": "branch"}); r.out["value"] != "main" {
				t.Errorf("recall = %s", r.text)
			}
		})
		t.Run("ErrNoteWithoutKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "x", "kind": "note"}), loci.EINVALID, "")
		})
		t.Run("ErrKind", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "x", "kind": "episode"}), "kind")
		})
		t.Run("ErrEmpty", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "  "}), loci.EINVALID, "")
		})
		t.Run("MetadataAnyJSON", func(t *testing.T) {
			r := MustCall(t, cs, "add_memory", map[string]any{"content": "Cooks lentil stew", "metadata": map[string]any{
				"topicName": "food", "recipe": map[string]any{"kind": "Stew", "serves": 4}, "source": nil}})
			wantOK(t, r)
			m, err := svc.GetMemory(ctx, r.out["id"].(string))
			if err != nil || string(m.Metadata) != `{"recipe":{"kind":"Stew","serves":4},"source":null,"topicName":"food"}` {
				t.Fatalf("metadata = %s, %v", m.Metadata, err)
			}
			s := MustCall(t, cs, "search_memory", map[string]any{"query": "stew", "filters": map[string]any{"metadata.recipe.kind": map[string]any{"icontains": "STEW"}}})
			if wantOK(t, s); !strings.Contains(s.text, r.out["id"].(string)) {
				t.Errorf("search_memory on metadata.recipe.kind icontains STEW = %s", s.text)
			}
		})
		t.Run("ErrMetadataKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "x", "metadata": map[string]any{"bad.key": 1}}), loci.EINVALID, "")
		})
		t.Run("ErrMetadataNotObject", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "x", "metadata": []any{1}}), "metadata")
		})
		t.Run("ErrMetadataTooLarge", func(t *testing.T) {
			r := MustCall(t, cs, "add_memory", map[string]any{"content": "x", "metadata": map[string]any{"a": strings.Repeat("x", loci.MaxMetadataBytes)}})
			wantError(t, r, loci.ETOOLARGE, "")
		})
		t.Run("ErrTTL", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "add_memory", map[string]any{"content": "x", "ttl_seconds": 0}), "ttl_seconds")
		})
		t.Run("NoUserFactIsTheAgents", func(t *testing.T) {
			nu := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "solo"}, mcpserver.ToolsDefault)
			r := MustCall(t, nu, "add_memory", map[string]any{"content": "the build uses make"})
			wantOK(t, r)
			if m, err := svc.GetMemory(ctx, r.out["id"].(string)); err != nil || m.AgentID != "solo" || m.UserID != "" {
				t.Errorf("stored %+v, %v", m, err)
			}
		})
	})
}

func TestSearchMemoryFilters(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "coder", UserID: "u"}, mcpserver.ToolsDefault)
		billing := MustCall(t, cs, "add_memory", map[string]any{"content": "deploys run on Tuesday", "metadata": map[string]any{"project": "billing"}})
		MustCall(t, cs, "add_memory", map[string]any{"content": "deploys run on Friday", "metadata": map[string]any{"project": "search"}})
		MustCall(t, cs, "add_memory", map[string]any{"content": "deploys run on Monday", "kind": "passage"})

		ids := func(r result) []string {
			var out []string
			for _, x := range r.out["results"].([]any) {
				out = append(out, x.(map[string]any)["id"].(string))
			}
			return out
		}
		r := MustCall(t, cs, "search_memory", map[string]any{"query": "deploys", "filters": map[string]any{"metadata.project": "billing"}})
		if wantOK(t, r); !slices.Equal(ids(r), []string{billing.out["id"].(string)}) {
			t.Errorf("filtered search = %s, want the billing memory only", r.text)
		}
		r = MustCall(t, cs, "search_memory", map[string]any{"query": "deploys"})
		if len(ids(r)) != 3 {
			t.Errorf("unfiltered search = %s, want 3", r.text)
		}
		r = MustCall(t, cs, "search_memory", map[string]any{"query": "deploys", "filters": map[string]any{"or": []any{
			map[string]any{"metadata.project": map[string]any{"in": []any{"search"}}}, map[string]any{"kind": "passage"}}}})
		if len(ids(r)) != 2 {
			t.Errorf("or filter = %s, want 2", r.text)
		}
		t.Run("ErrUnknownField", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "search_memory", map[string]any{"query": "deploys", "filters": map[string]any{"colour": "red"}}), loci.EINVALID, "")
		})
		t.Run("ErrUnknownOperator", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "search_memory", map[string]any{"query": "deploys", "filters": map[string]any{"kind": map[string]any{"like": "x"}}}), loci.EINVALID, "")
		})
		t.Run("NeverWidens", func(t *testing.T) {
			other := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "other", UserID: "u2"}, mcpserver.ToolsDefault)
			r := MustCall(t, other, "search_memory", map[string]any{"query": "deploys", "filters": map[string]any{"or": []any{
				map[string]any{"user_id": "u"}, map[string]any{"agent_id": "coder"}}}})
			if wantOK(t, r); len(ids(r)) != 0 {
				t.Errorf("another agent's filtered search = %s, want nothing", r.text)
			}
		})
	})
}

func TestUpdateDeleteMemory(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "coder", UserID: "u"}, mcpserver.ToolsDefault)
		add := MustCall(t, cs, "add_memory", map[string]any{"content": "uses Go 1.22"})
		id := add.out["id"].(string)

		r := MustCall(t, cs, "update_memory", map[string]any{"id": id, "content": "uses Go 1.24", "metadata": map[string]any{"checked": true}})
		if wantOK(t, r); r.out["event"] != loci.EventUpdate || r.out["id"] != id {
			t.Fatalf("update = %v, want UPDATE of %s", r.out, id)
		}
		if m, _ := svc.GetMemory(ctx, id); m.Content != "uses Go 1.24" || !strings.Contains(string(m.Metadata), "checked") {
			t.Errorf("after update: %+v", m)
		}
		if vs, err := svc.MemoryHistory(ctx, id); err != nil || len(vs) < 2 || vs[0].Content != "uses Go 1.24" || vs[len(vs)-1].Content != "uses Go 1.22" {
			t.Errorf("history = %+v, %v; want the old value kept", vs, err)
		}
		r = MustCall(t, cs, "update_memory", map[string]any{"id": id, "content": "uses Go 1.24"})
		if wantOK(t, r); r.out["event"] != loci.EventNoop {
			t.Errorf("same content again = %v, want NOOP", r.out)
		}

		// Another agent's and another user's memories are out of reach:
		// not found, as if absent, and unchanged.
		theirs, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "secret plan", AgentID: "other", UserID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		otherUser, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "other user", AgentID: "coder", UserID: "u2"})
		if err != nil {
			t.Fatal(err)
		}
		for _, foreign := range []string{theirs.ID, otherUser.ID} {
			wantError(t, MustCall(t, cs, "update_memory", map[string]any{"id": foreign, "content": "hijacked"}), loci.ENOTFOUND, "memory not found")
			wantError(t, MustCall(t, cs, "delete_memory", map[string]any{"id": foreign}), loci.ENOTFOUND, "memory not found")
			if m, err := svc.GetMemory(ctx, foreign); err != nil || m.Content == "hijacked" {
				t.Errorf("foreign memory after the calls: %+v, %v", m, err)
			}
		}
		// The user's own records (a preference: no agent) are in reach.
		if _, _, err := svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: json.RawMessage(`"terse"`), Source: "explicit"}); err != nil {
			t.Fatal(err)
		}
		s := MustCall(t, cs, "search_memory", map[string]any{"query": "terse", "kinds": []any{"preference"}})
		if res, _ := s.out["results"].([]any); len(res) != 1 {
			t.Fatalf("search for the preference = %s", s.text)
		} else {
			pid := res[0].(map[string]any)["id"].(string)
			wantOK(t, MustCall(t, cs, "delete_memory", map[string]any{"id": pid}))
		}

		t.Run("ErrUnknownID", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "update_memory", map[string]any{"id": "nope", "content": "x"}), loci.ENOTFOUND, "memory not found")
			wantError(t, MustCall(t, cs, "delete_memory", map[string]any{"id": "nope"}), loci.ENOTFOUND, "memory not found")
		})
		t.Run("ErrNoID", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "update_memory", map[string]any{"content": "x"}), "id")
			wantError(t, MustCall(t, cs, "delete_memory", map[string]any{"id": " "}), loci.EINVALID, "")
		})
		t.Run("ErrBadMetadata", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "update_memory", map[string]any{"id": id, "metadata": map[string]any{"BAD.KEY": 1}}), loci.EINVALID, "")
		})
		t.Run("Delete", func(t *testing.T) {
			r := MustCall(t, cs, "delete_memory", map[string]any{"id": id})
			if wantOK(t, r); r.out["id"] != id {
				t.Errorf("delete = %v", r.out)
			}
			if _, err := svc.GetMemory(ctx, id); loci.ErrorCode(err) != loci.ENOTFOUND {
				t.Errorf("after delete: %v, want not found", err)
			}
			wantError(t, MustCall(t, cs, "delete_memory", map[string]any{"id": id}), loci.ENOTFOUND, "memory not found")
		})
	})
}

// TestHTTPToolSet: an HTTP session chooses its tool set with ?tools= or
// the X-Loci-Tools header; the handler's own is the default.
func TestHTTPToolSet(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	ts := httptest.NewServer(mcpserver.NewHandler(svc, mcpserver.HeaderIdentity, mcpserver.WithLogger(quiet)))
	t.Cleanup(ts.Close)
	all := httptest.NewServer(mcpserver.NewHandler(svc, mcpserver.HeaderIdentity, mcpserver.WithLogger(quiet), mcpserver.WithTools(mcpserver.ToolsAll)))
	t.Cleanup(all.Close)
	count := func(t *testing.T, url string, h http.Header) int {
		names, _ := toolsListBytes(t, MustConnectHTTP(t, url, h))
		return len(names)
	}
	withUser := http.Header{mcpserver.AgentHeader: {"a"}, mcpserver.UserHeader: {"u"}}
	if n := count(t, ts.URL, withUser); n != len(defaultTools) {
		t.Errorf("default: %d tools, want %d", n, len(defaultTools))
	}
	if n := count(t, ts.URL+"?tools=all", withUser); n != 16 {
		t.Errorf("?tools=all: %d tools, want 16", n)
	}
	if n := count(t, ts.URL+"?tools=all", agentHeader("a")); n != 11 {
		t.Errorf("?tools=all without a user: %d tools, want 11 (no episode, preference, context or review tools)", n)
	}
	h := http.Header{mcpserver.AgentHeader: {"a"}, mcpserver.UserHeader: {"u"}, mcpserver.ToolsHeader: {"all"}}
	if n := count(t, ts.URL, h); n != 16 {
		t.Errorf("X-Loci-Tools: all: %d tools, want 16", n)
	}
	if n := count(t, all.URL, withUser); n != 16 {
		t.Errorf("a handler WithTools(all): %d tools, want 16", n)
	}
	if n := count(t, all.URL+"?tools=default", withUser); n != len(defaultTools) {
		t.Errorf("?tools=default on it: %d tools, want %d", n, len(defaultTools))
	}
	t.Run("ErrUnknownSet", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.URL+"?tools=some", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
		req.Header.Set(mcpserver.AgentHeader, "a")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e map[string]any
		json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != http.StatusBadRequest || e["code"] != loci.EINVALID || !strings.Contains(e["error"].(string), "default or all") {
			t.Errorf("?tools=some: %d %v, want 400 invalid", resp.StatusCode, e)
		}
	})
	t.Run("ErrHeaderAndParamDiffer", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.URL+"?tools=all", strings.NewReader(`{}`))
		req.Header.Set(mcpserver.AgentHeader, "a")
		req.Header.Set(mcpserver.ToolsHeader, "default")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400", resp.StatusCode)
		}
	})
}

func TestParseToolSet(t *testing.T) {
	for in, want := range map[string]mcpserver.ToolSet{"": mcpserver.ToolsDefault, "default": mcpserver.ToolsDefault, "ALL": mcpserver.ToolsAll, " all ": mcpserver.ToolsAll} {
		if got, err := mcpserver.ParseToolSet(in); err != nil || got != want {
			t.Errorf("ParseToolSet(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := mcpserver.ParseToolSet("full"); loci.ErrorCode(err) != loci.EINVALID {
		t.Errorf("ParseToolSet(full) = %v, want invalid", err)
	}
}
