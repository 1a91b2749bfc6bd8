package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

// TestToolArgumentNamesExact: a tool argument is its exact name; the same
// name in another case is refused, and nothing is stored.
func TestToolArgumentNamesExact(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
	for _, args := range []map[string]any{
		{"Content": "x"},
		{"content": "x", "KIND": "passage"},
		{"content": "x", "Metadata": map[string]any{"k": "v"}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_memory", Arguments: args})
		if err == nil && !res.IsError {
			t.Errorf("add_memory %v succeeded, want it refused", args)
		} else if err == nil {
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.Contains(text, "unexpected additional properties") && !strings.Contains(text, "unknown") {
				t.Errorf("add_memory %v: %s, want the argument named as unknown", args, text)
			}
		}
	}
	if _, n, err := svc.ListMemories(context.Background(), loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}}); err != nil || n != 0 {
		t.Errorf("refused calls stored %d memories (%v)", n, err)
	}
}
