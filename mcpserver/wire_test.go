package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// wireClient speaks JSON-RPC to an MCP endpoint over streamable HTTP and
// returns what is on the wire, as a client that validates every answer
// (the official TypeScript SDK) reads it.
type wireClient struct {
	t       *testing.T
	url     string
	agent   string
	session string
}

// post sends one message and returns the HTTP status and the JSON-RPC
// answer (nil when the body holds none).
func (c *wireClient) post(msg string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest("POST", c.url, strings.NewReader(msg))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcpserver.AgentHeader, c.agent)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				body = []byte(data)
				break
			}
		}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return resp.StatusCode, nil
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		c.t.Fatalf("%s: status %d, %s %q is not a JSON-RPC answer", msg, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return resp.StatusCode, out
}

func (c *wireClient) initialize() {
	c.t.Helper()
	if st, out := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}}`); st != 200 || out["result"] == nil {
		c.t.Fatalf("initialize: %d %v", st, out)
	}
	if st, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: %d", st)
	}
}

// TestHTTPWire checks answers byte for byte where the SDK's defaults are
// not what clients accept.
func TestHTTPWire(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ts := httptest.NewServer(mcpserver.NewHandler(svc, mcpserver.HeaderIdentity, mcpserver.WithLogger(quiet)))
		t.Cleanup(ts.Close)

		// An agent without blocks reads its core memory as "" (README):
		// contents without text (or blob) fail the TypeScript SDK's schema.
		t.Run("EmptyCoreMemoryHasText", func(t *testing.T) {
			c := &wireClient{t: t, url: ts.URL, agent: "blank"}
			c.initialize()
			st, out := c.post(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + mcpserver.CoreMemoryURI + `"}}`)
			res, _ := out["result"].(map[string]any)
			contents, _ := res["contents"].([]any)
			if st != 200 || len(contents) != 1 {
				t.Fatalf("resources/read: %d %v", st, out)
			}
			c0 := contents[0].(map[string]any)
			if text, ok := c0["text"]; !ok || text != "" || c0["uri"] != mcpserver.CoreMemoryURI || c0["mimeType"] != "text/plain" {
				t.Errorf("contents: %v, want uri, mimeType text/plain and text \"\"", c0)
			}
		})
		t.Run("CoreMemoryText", func(t *testing.T) {
			if _, _, err := svc.SetBlock(t.Context(), "full", "personality", loci.BlockWrite{Content: "Curious <and> kind"}); err != nil {
				t.Fatal(err)
			}
			c := &wireClient{t: t, url: ts.URL, agent: "full"}
			c.initialize()
			_, out := c.post(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + mcpserver.CoreMemoryURI + `"}}`)
			res, _ := out["result"].(map[string]any)
			contents, _ := res["contents"].([]any)
			if len(contents) != 1 || !strings.Contains(contents[0].(map[string]any)["text"].(string), "### personality\nCurious <and> kind") {
				t.Errorf("resources/read: %v", out)
			}
		})

		// JSON-RPC: a call of a method the server does not have is answered
		// with error -32601; a notification it does not know is ignored.
		t.Run("UnknownMethod", func(t *testing.T) {
			c := &wireClient{t: t, url: ts.URL, agent: "a"}
			c.initialize()
			st, out := c.post(`{"jsonrpc":"2.0","id":"x7","method":"tools/frobnicate","params":{}}`)
			e, _ := out["error"].(map[string]any)
			if st != 200 || out["id"] != "x7" || e == nil || e["code"] != float64(-32601) {
				t.Errorf("unknown method: %d %v, want a JSON-RPC error -32601 for id x7", st, out)
			}
			if st, out := c.post(`{"jsonrpc":"2.0","method":"notifications/frobnicated"}`); st != http.StatusAccepted || out != nil {
				t.Errorf("unknown notification: %d %v, want 202 and no body", st, out)
			}
			// The session still works.
			if st, out := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); st != 200 || out["result"] == nil {
				t.Errorf("tools/list after: %d %v", st, out)
			}
		})
		t.Run("UnknownMethodWithoutSession", func(t *testing.T) {
			c := &wireClient{t: t, url: ts.URL, agent: "a"}
			st, out := c.post(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
			if e, _ := out["error"].(map[string]any); st != 200 || e == nil || e["code"] != float64(-32601) {
				t.Errorf("unknown method: %d %v, want a JSON-RPC error -32601", st, out)
			}
		})
	})
}
