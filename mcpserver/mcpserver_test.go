package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// eachService runs fn once per backend with a fresh service.
func eachService(t *testing.T, fn func(t *testing.T, svc loci.Service)) {
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		fn(t, rules.New(open(t)))
	})
}

// MustConnect opens a client session to a server for id over in-memory
// transports, with the full tool set (the per-kind tools' tests).
func MustConnect(t *testing.T, svc loci.Service, id mcpserver.Identity) *mcp.ClientSession {
	t.Helper()
	return MustConnectTools(t, svc, id, mcpserver.ToolsAll)
}

// MustConnectTools is MustConnect with the tool set named.
func MustConnectTools(t *testing.T, svc loci.Service, id mcpserver.Identity, set mcpserver.ToolSet) *mcp.ClientSession {
	t.Helper()
	srv, err := mcpserver.New(svc, id, mcpserver.WithLogger(quiet), mcpserver.WithTools(set))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// result is a tool call's outcome as the client sees it.
type result struct {
	isError bool
	text    string         // the first text content
	out     map[string]any // the structured content, or the text parsed as JSON
}

// MustCall calls a tool and fails the test on a protocol error (not on a
// tool error: that is a result).
func MustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var r result
	r.isError = res.IsError
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.text = tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &r.out)
	} else {
		json.Unmarshal([]byte(r.text), &r.out)
	}
	return r
}

// wantError checks that r is a tool error with the REST envelope.
func wantError(t *testing.T, r result, code, msg string) {
	t.Helper()
	if !r.isError {
		t.Fatalf("isError = false, want a tool error; text %s", r.text)
	}
	if got := r.out["success"]; got != false {
		t.Errorf("success = %v, want false", got)
	}
	if got := r.out["code"]; got != code {
		t.Errorf("code = %v, want %q", got, code)
	}
	if msg != "" && r.out["error"] != msg {
		t.Errorf("error = %v, want %q", r.out["error"], msg)
	}
}

func TestNew(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	for _, tc := range []struct {
		name string
		id   mcpserver.Identity
		code string
	}{
		{"OK", mcpserver.Identity{AgentID: "a"}, ""},
		{"OKWithUser", mcpserver.Identity{AgentID: "a", UserID: "u"}, ""},
		{"ErrNoAgent", mcpserver.Identity{}, loci.EINVALID},
		{"ErrBlankAgent", mcpserver.Identity{AgentID: "  "}, loci.EINVALID},
		{"ErrBlankUser", mcpserver.Identity{AgentID: "a", UserID: " "}, loci.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcpserver.New(svc, tc.id)
			if got := loci.ErrorCode(err); got != tc.code {
				t.Errorf("code = %q, want %q (err %v)", got, tc.code, err)
			}
		})
	}
}
