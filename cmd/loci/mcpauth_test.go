package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// headerRT adds fixed headers to every request.
type headerRT http.Header

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectMCP opens an MCP session to base+"/mcp" with the headers, or
// returns the connection error.
func connectMCP(t *testing.T, base string, h http.Header) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: headerRT(h)}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// postMCP posts an initialize request and returns the status and the
// error envelope's code.
func postMCP(t *testing.T, base string, h http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewReader([]byte(initializeBody)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Code string `json:"code"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Code
}

func auth(key string, more ...string) http.Header {
	h := http.Header{"Authorization": {"Bearer " + key}}
	for i := 0; i+1 < len(more); i += 2 {
		h.Set(more[i], more[i+1])
	}
	return h
}

// TestServeMCPAuth: /mcp is behind the same guard as REST. With
// authentication on a session needs a valid key; a key bound to an agent
// acts for that agent only; the key's role limits the tools; each tool
// call is audited with the key.
func TestServeMCPAuth(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		ts := httptest.NewServer(newHandler(svc, slog.New(slog.NewTextHandler(io.Discard, nil)), true))
		t.Cleanup(ts.Close)
		key := func(role loci.Role, agent string) (string, string) {
			k, secret, err := svc.CreateKey(ctx, loci.KeySpec{Role: role, AgentID: agent})
			if err != nil {
				t.Fatal(err)
			}
			return secret, k.ID
		}

		// Authentication off (no key yet): the header names the agent.
		t.Run("OffHeader", func(t *testing.T) {
			cs, err := connectMCP(t, ts.URL, http.Header{"X-Loci-Agent": {"open"}})
			if err != nil {
				t.Fatal(err)
			}
			if out, isErr := callTool(t, cs, "remember", map[string]any{"key": "k", "value": "v"}); isErr {
				t.Fatalf("remember: %v", out)
			}
			if _, err := svc.Recall(ctx, "open", "k"); err != nil {
				t.Errorf("note of agent open: %v", err)
			}
		})

		bound, boundID := key(loci.RoleEditor, "a1")
		free, _ := key(loci.RoleEditor, "")
		viewer, _ := key(loci.RoleViewer, "")

		statusTests := []struct {
			name   string
			header http.Header
			status int
			code   string
		}{
			{"ErrNoKey", http.Header{"X-Loci-Agent": {"a1"}}, http.StatusUnauthorized, loci.EUNAUTHORIZED},
			{"ErrWrongKey", auth(bound + "x"), http.StatusUnauthorized, loci.EUNAUTHORIZED},
			{"ErrBoundOtherAgent", auth(bound, "X-Loci-Agent", "a2"), http.StatusForbidden, loci.EFORBIDDEN},
			{"ErrFreeNoAgent", auth(free), http.StatusBadRequest, loci.EINVALID},
		}
		for _, tt := range statusTests {
			t.Run(tt.name, func(t *testing.T) {
				if status, code := postMCP(t, ts.URL, tt.header); status != tt.status || code != tt.code {
					t.Errorf("status %d code %q, want %d %q", status, code, tt.status, tt.code)
				}
			})
		}

		t.Run("BoundKeyActsForItsAgent", func(t *testing.T) {
			cs, err := connectMCP(t, ts.URL, auth(bound))
			if err != nil {
				t.Fatal(err)
			}
			if out, isErr := callTool(t, cs, "remember", map[string]any{"key": "mine", "value": "a1's"}); isErr {
				t.Fatalf("remember: %v", out)
			}
			if _, err := svc.Recall(ctx, "a1", "mine"); err != nil {
				t.Errorf("note of agent a1: %v", err)
			}
			entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{Operation: "note.remember", KeyID: boundID})
			if err != nil || len(entries) != 1 || entries[0].AgentID != "a1" || entries[0].Role != loci.RoleEditor || entries[0].Via != loci.ViaMCP {
				t.Errorf("audit = %+v, %v; want one note.remember entry of the bound key for a1, via MCP", entries, err)
			}
		})

		t.Run("FreeKeyTakesTheHeader", func(t *testing.T) {
			cs, err := connectMCP(t, ts.URL, auth(free, "X-Loci-Agent", "b"))
			if err != nil {
				t.Fatal(err)
			}
			if out, isErr := callTool(t, cs, "remember", map[string]any{"key": "k", "value": "b's"}); isErr {
				t.Fatalf("remember: %v", out)
			}
			if _, err := svc.Recall(ctx, "b", "k"); err != nil {
				t.Errorf("note of agent b: %v", err)
			}
		})

		t.Run("ViewerCannotWrite", func(t *testing.T) {
			cs, err := connectMCP(t, ts.URL, auth(viewer, "X-Loci-Agent", "a1"))
			if err != nil {
				t.Fatal(err)
			}
			out, isErr := callTool(t, cs, "remember", map[string]any{"key": "v", "value": "x"})
			if !isErr || out["code"] != loci.EFORBIDDEN {
				t.Errorf("remember with a viewer key = %v (error %v), want forbidden", out, isErr)
			}
			if out, isErr := callTool(t, cs, "recall", map[string]any{"key": "mine"}); isErr {
				t.Errorf("recall with a viewer key: %v", out)
			}
		})

		// A session opened with one key cannot be used with another.
		t.Run("ErrSessionOfAnotherKey", func(t *testing.T) {
			var sid string
			tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1,
				HTTPClient: &http.Client{Transport: sessionSpy{headerRT(auth(free, "X-Loci-Agent", "a1")), &sid}}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if sid == "" {
				t.Fatal("no session id seen")
			}
			h := auth(viewer, "X-Loci-Agent", "a1")
			h.Set("Mcp-Session-Id", sid)
			if status, code := postMCP(t, ts.URL, h); status != http.StatusForbidden || code != loci.EFORBIDDEN {
				t.Errorf("status %d code %q, want 403 forbidden", status, code)
			}
		})
	})
}

// sessionSpy records the session id the server hands out.
type sessionSpy struct {
	rt  http.RoundTripper
	sid *string
}

func (s sessionSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(r)
	if err == nil && *s.sid == "" {
		*s.sid = resp.Header.Get("Mcp-Session-Id")
	}
	return resp, err
}
