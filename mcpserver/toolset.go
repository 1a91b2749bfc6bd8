package mcpserver

import (
	"strings"

	"github.com/loci-memory/loci"
)

// ToolSet is which tools a server lists. The default set is compact: the note
// tools remember and recall and one verb set over every kind (the memories
// API), so that an agent's context holds a few short tools. The full set has
// a tool per kind and operation.
type ToolSet string

// Tool sets.
const (
	// ToolsDefault: remember, recall, add_memory, search_memory,
	// update_memory, delete_memory.
	ToolsDefault ToolSet = "default"
	// ToolsAll: every kind's own tools (notes, core memory blocks,
	// passages, working memory, episodes, facts, preferences, search).
	// Its update_memory is the core memory block edit.
	ToolsAll ToolSet = "all"
)

// The HTTP header and query parameter that choose the tool set of an HTTP
// session (/mcp?tools=all), and the environment variable of loci mcp and
// loci serve.
const (
	ToolsHeader = "X-Loci-Tools"
	ToolsParam  = "tools"
	ToolsEnv    = "LOCI_MCP_TOOLS"
)

// ParseToolSet reads a tool set name: "default" (also "") or "all".
// EINVALID for anything else.
func ParseToolSet(s string) (ToolSet, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", string(ToolsDefault):
		return ToolsDefault, nil
	case string(ToolsAll):
		return ToolsAll, nil
	}
	return "", loci.Errorf(loci.EINVALID, "tools must be default or all, not %q", s)
}

// WithTools sets the tool set (default ToolsDefault). For an HTTP handler
// it is the set of a session that does not choose one.
func WithTools(t ToolSet) Option { return func(c *config) { c.tools = t } }
