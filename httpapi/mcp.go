package httpapi

import (
	"net/http"
	"time"

	"github.com/loci-memory/loci"
)

// WithMCP serves h, MCP's streamable HTTP handler, at /mcp behind the
// guard, like every other route: with authentication on, a request needs
// a valid key (401 otherwise), is rate limited, and reaches h with the
// key's principal and workspace in its context (loci.PrincipalFrom), which
// h turns into the session's identity (mcpserver.KeyIdentity). The guard
// does not audit /mcp requests: the MCP server audits each tool call.
func WithMCP(h http.Handler) Option { return func(s *Server) { s.mcpHandler = h } }

var _ = addRoutes(mcpRoutes)

// mcpRoutes are /mcp, registered when the server was given an MCP
// handler. They are not audited here (the MCP server audits each tool
// call) and not in the OpenAPI document.
func mcpRoutes() []endpoint {
	var eps []endpoint
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		eps = append(eps, endpoint{pattern: method + " /mcp", handler: (*Server).serveMCP,
			op:           loci.OpMCP,
			undocumented: "MCP's streamable HTTP transport, described by MCP, not by this API",
			enabled:      func(s *Server) bool { return s.mcpHandler != nil }})
	}
	return eps
}

// serveMCP serves MCP. Its responses may be long-lived event streams, so
// /mcp is exempt from the HTTP server's write timeout. The stream a client
// holds open for the server's messages (GET) lasts until the client lets
// go or the server drains: the client opens it again, elsewhere.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	if r.Method == http.MethodGet {
		ctx, cancel := s.untilDrained(r)
		defer cancel()
		r = r.WithContext(ctx)
	}
	s.mcpHandler.ServeHTTP(w, r)
}
