package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// MustConnectHTTP opens a streamable HTTP client session to url with the
// given headers.
func MustConnectHTTP(t *testing.T, url string, header http.Header) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: headerTransport{header}},
		MaxRetries: -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func agentHeader(agent string) http.Header {
	return http.Header{mcpserver.AgentHeader: {agent}}
}

func TestHTTP(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ts := httptest.NewServer(mcpserver.NewHandler(svc, mcpserver.HeaderIdentity, mcpserver.WithLogger(quiet)))
		t.Cleanup(ts.Close)

		t.Run("OK", func(t *testing.T) {
			cs := MustConnectHTTP(t, ts.URL, agentHeader("writer"))
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) < 3 {
				t.Errorf("listed %d tools, want remember, recall, forget", len(tools.Tools))
			}
			if r := MustCall(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"}); r.isError || r.out["action"] != "created" {
				t.Fatalf("remember: %s", r.text)
			}
			if r := MustCall(t, cs, "recall", map[string]any{"key": "tone"}); r.out["value"] != "friendly" {
				t.Errorf("recall: %s", r.text)
			}
			n, err := svc.Recall(context.Background(), "writer", "tone")
			if err != nil || string(n.Value) != `"friendly"` {
				t.Errorf("stored for agent writer: %v, %v", n, err)
			}
			wantError(t, MustCall(t, cs, "recall", map[string]any{"key": "missing"}), loci.ENOTFOUND, "Memory not found")
		})

		t.Run("OKIsolated", func(t *testing.T) {
			a := MustConnectHTTP(t, ts.URL, agentHeader("a"))
			b := MustConnectHTTP(t, ts.URL, agentHeader("b"))
			MustCall(t, a, "remember", map[string]any{"key": "secret", "value": "a's"})
			wantError(t, MustCall(t, b, "recall", map[string]any{"key": "secret"}), loci.ENOTFOUND, "Memory not found")
			if r := MustCall(t, b, "recall", nil); r.out["count"] != float64(0) {
				t.Errorf("b sees %s", r.text)
			}
		})

		t.Run("ErrNoAgentHeader", func(t *testing.T) {
			resp := post(t, ts.URL, nil, initialize)
			if resp.status != http.StatusBadRequest || resp.body["code"] != loci.EINVALID ||
				!strings.Contains(resp.body["error"].(string), mcpserver.AgentHeader) {
				t.Errorf("got %d %v, want 400 naming the %s header", resp.status, resp.body, mcpserver.AgentHeader)
			}
		})

		t.Run("OKAgentParam", func(t *testing.T) {
			cs := MustConnectHTTP(t, ts.URL+"?agent=byparam", nil)
			MustCall(t, cs, "remember", map[string]any{"key": "k", "value": "v"})
			if _, err := svc.Recall(context.Background(), "byparam", "k"); err != nil {
				t.Errorf("note of agent byparam: %v", err)
			}
		})

		t.Run("ErrAgentHeaderAndParamDiffer", func(t *testing.T) {
			if resp := post(t, ts.URL+"?agent=b", agentHeader("a"), initialize); resp.status != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.status)
			}
		})

		t.Run("ErrBlankAgentHeader", func(t *testing.T) {
			if resp := post(t, ts.URL, agentHeader(" "), initialize); resp.status != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.status)
			}
		})

		// A session opened for agent a cannot be used by a request that
		// resolves to agent b, even with a's session id.
		t.Run("ErrSessionOfAnotherAgent", func(t *testing.T) {
			a := MustConnectHTTP(t, ts.URL, agentHeader("a"))
			MustCall(t, a, "remember", map[string]any{"key": "pinned", "value": "a's"})
			h := agentHeader("b")
			h.Set("Mcp-Session-Id", a.ID())
			resp := post(t, ts.URL, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"key":"pinned"}}}`)
			if resp.status != http.StatusForbidden || resp.body["code"] != loci.EFORBIDDEN {
				t.Errorf("got %d %v, want 403 forbidden", resp.status, resp.body)
			}
			// The owner still uses it.
			if r := MustCall(t, a, "recall", map[string]any{"key": "pinned"}); r.out["value"] != "a's" {
				t.Errorf("owner's recall: %s", r.text)
			}
		})

		t.Run("ErrUnknownSession", func(t *testing.T) {
			h := agentHeader("a")
			h.Set("Mcp-Session-Id", "no-such-session")
			if resp := post(t, ts.URL, h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.status != http.StatusNotFound {
				t.Errorf("status = %d, want 404 (the client starts a new session)", resp.status)
			}
		})
	})
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

type response struct {
	status int
	body   map[string]any
}

// post sends one raw JSON-RPC message to the MCP endpoint.
func post(t *testing.T, url string, header http.Header, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r response
	r.status = resp.StatusCode
	json.NewDecoder(resp.Body).Decode(&r.body)
	return r
}
