package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MustBuild builds the loci binary once per test run and returns its path.
func MustBuild(t *testing.T) string {
	t.Helper()
	return lociBinary(t)
}

// callTool calls a tool and returns its output (or error envelope) as a
// map, and whether it was a tool error.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var out map[string]any
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			json.Unmarshal([]byte(tc.Text), &out)
		}
	}
	return out, res.IsError
}

// TestMCPStdio runs the built binary as an MCP server over stdio with the
// SDK's client: initialize, tools/list, remember, recall.
func TestMCPStdio(t *testing.T) {
	bin := MustBuild(t)
	db := filepath.Join(t.TempDir(), "loci.db")
	ctx := context.Background()
	connect := func(t *testing.T, agent string, flags ...string) *mcp.ClientSession {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"mcp", "--agent", agent, "--db", db}, flags...)...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("initialize: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	cs := connect(t, "writer")
	if got := cs.InitializeResult().ServerInfo.Name; got != "loci" {
		t.Errorf("server name = %q, want loci", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	// The default set is the compact one.
	slices.Sort(names)
	if got, want := strings.Join(names, " "), "add_memory delete_memory recall remember search_memory update_memory"; got != want {
		t.Errorf("tools/list = %s, want %s", got, want)
	}
	out, isErr := callTool(t, cs, "remember", map[string]any{"key": "best_posting_time", "value": "Thursday 9am EST"})
	if isErr || out["message"] != "Remembered: best_posting_time" || out["action"] != "created" {
		t.Fatalf("remember = %v (isError %v)", out, isErr)
	}
	out, isErr = callTool(t, cs, "recall", map[string]any{"key": "best_posting_time"})
	if isErr || out["value"] != "Thursday 9am EST" {
		t.Fatalf("recall = %v (isError %v)", out, isErr)
	}
	out, isErr = callTool(t, cs, "recall", map[string]any{"key": "nope"})
	if !isErr || out["error"] != "Memory not found" {
		t.Errorf("recall of a missing key = %v (isError %v), want Memory not found", out, isErr)
	}
	cs.Close()

	// The note persisted in the database, for this agent only.
	out, _ = callTool(t, connect(t, "writer"), "recall", nil)
	if out["count"] != float64(1) {
		t.Errorf("writer's recall in a new process = %v, want 1 memory", out)
	}
	out, _ = callTool(t, connect(t, "other"), "recall", nil)
	if out["count"] != float64(0) {
		t.Errorf("another agent's recall = %v, want 0 memories", out)
	}

	// The stdio server embeds what it stores in the background: the
	// passage is found at once (lexically) and its embedding arrives.
	cs = connect(t, "archivist", "--tools", "all")
	if out, isErr := callTool(t, cs, "store_memory", map[string]any{"content": "Michael grilled his foot"}); isErr {
		t.Fatalf("store_memory = %v", out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, isErr := callTool(t, cs, "search_memory", map[string]any{"query": "grilled foot", "kinds": []string{"passage"}})
		if isErr {
			t.Fatalf("search_memory = %v", out)
		}
		if results, _ := out["results"].([]any); len(results) != 1 {
			t.Fatalf("search_memory = %v, want the passage just stored", out)
		}
		if out["pending_embeddings"] == float64(0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("embedding still pending after 20 s: %v", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMCPStdioToolSets: --tools all (or $LOCI_MCP_TOOLS) lists every
// kind's tools, those that need a user only with --user; the default set's
// memory tools work end to end.
func TestMCPStdioToolSets(t *testing.T) {
	bin := MustBuild(t)
	db := filepath.Join(t.TempDir(), "loci.db")
	ctx := context.Background()
	connect := func(t *testing.T, env []string, args ...string) *mcp.ClientSession {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"mcp", "--db", db}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("initialize: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	count := func(t *testing.T, cs *mcp.ClientSession) int {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Tools)
	}
	if n := count(t, connect(t, nil, "--agent", "a", "--user", "u", "--tools", "all")); n != 16 {
		t.Errorf("--tools all --user u: %d tools, want 16", n)
	}
	if n := count(t, connect(t, []string{"LOCI_MCP_TOOLS=all"}, "--agent", "a")); n != 11 {
		t.Errorf("LOCI_MCP_TOOLS=all without a user: %d tools, want 11", n)
	}
	if n := count(t, connect(t, []string{"LOCI_MCP_TOOLS=all"}, "--agent", "a", "--tools", "default")); n != 6 {
		t.Errorf("--tools default over LOCI_MCP_TOOLS=all: %d tools, want 6", n)
	}

	cs := connect(t, nil, "--agent", "coder", "--user", "u")
	out, isErr := callTool(t, cs, "add_memory", map[string]any{"content": "the user reviews in the morning", "metadata": map[string]any{"team": "core"}})
	if isErr || out["event"] != "ADD" {
		t.Fatalf("add_memory = %v", out)
	}
	id := out["id"]
	out, isErr = callTool(t, cs, "search_memory", map[string]any{"query": "reviews morning", "filters": map[string]any{"metadata.team": "core"}})
	if results, _ := out["results"].([]any); isErr || len(results) != 1 || results[0].(map[string]any)["id"] != id {
		t.Fatalf("search_memory = %v, want the memory just added", out)
	}
	if out, isErr = callTool(t, cs, "update_memory", map[string]any{"id": id, "content": "the user reviews in the evening"}); isErr || out["event"] != "UPDATE" {
		t.Fatalf("update_memory = %v", out)
	}
	if out, isErr = callTool(t, cs, "delete_memory", map[string]any{"id": id}); isErr {
		t.Fatalf("delete_memory = %v", out)
	}
	if out, isErr = callTool(t, cs, "delete_memory", map[string]any{"id": id}); !isErr || out["code"] != "not_found" {
		t.Errorf("second delete_memory = %v, want not_found", out)
	}
}

func TestMCPUsage(t *testing.T) {
	bin := MustBuild(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ErrNoAgent", []string{"mcp"}},
		{"ErrExtraArgument", []string{"mcp", "--agent", "a", "extra"}},
		{"ErrUnknownFlag", []string{"mcp", "--agent", "a", "--nope"}},
		{"ErrToolSet", []string{"mcp", "--agent", "a", "--tools", "some"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := exec.Command(bin, tc.args...).Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
				t.Errorf("exit = %v, want status %d", err, exitUsage)
			}
		})
	}
}

// TestServeMCP runs loci serve and talks MCP to /mcp with the SDK's
// streamable HTTP client; REST still answers beside it.
func TestServeMCP(t *testing.T) {
	bin := MustBuild(t)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "loci.db"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read the address line: %v", err)
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "loci listening on "))

	tr := &mcp.StreamableClientTransport{
		Endpoint:   base + "/mcp",
		HTTPClient: &http.Client{Transport: agentTransport("writer"), Timeout: 30 * time.Second},
		MaxRetries: -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	defer cs.Close()
	if out, isErr := callTool(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"}); isErr {
		t.Fatalf("remember: %v", out)
	}
	// ?tools=all passes the REST guard and gives every kind's tools (no
	// user: those that need one are not listed).
	for url, want := range map[string]int{base + "/mcp": 6, base + "/mcp?tools=all": 11} {
		tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: agentTransport("writer"), Timeout: 30 * time.Second}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v", url, err)
		}
		if tools, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Errorf("%s: tools/list: %v", url, err)
		} else if len(tools.Tools) != want {
			t.Errorf("%s: tools/list = %d tools, want %d", url, len(tools.Tools), want)
		}
		cs.Close()
	}
	// The note is the same one REST serves.
	resp, err := http.Get(base + "/v1/agents/writer/notes/tone")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var note map[string]any
	json.NewDecoder(resp.Body).Decode(&note)
	if resp.StatusCode != http.StatusOK || note["value"] != "friendly" {
		t.Errorf("REST read = %d %v, want 200 with value friendly", resp.StatusCode, note)
	}
}

// agentTransport sets X-Loci-Agent on every request.
type agentTransport string

func (a agentTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Loci-Agent", string(a))
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPStdioInputEndsAtOnce: a client that writes its requests and closes
// stdin at once (a script) still gets every answer.
func TestMCPStdioInputEndsAtOnce(t *testing.T) {
	bin := MustBuild(t)
	db := filepath.Join(t.TempDir(), "loci.db")
	cmd := exec.Command(bin, "mcp", "--agent", "writer", "--db", db)
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"key":"k","value":"v"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("loci mcp: %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && len(m.ID) > 0 {
			ids[string(m.ID)] = true
		}
	}
	if !ids["1"] || !ids["2"] || !ids["3"] || !strings.Contains(string(out), "Remembered: k") {
		t.Fatalf("answers: %s; want the answers to requests 1, 2 and 3", out)
	}
	// The note was stored before the process ended.
	if code, stdout, stderr := runCLI(t, "recall", "k", "--agent", "writer", "--db", db); code != exitOK || stdout != "v\n" {
		t.Fatalf("recall after the piped session: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
