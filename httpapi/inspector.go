package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
)

// WithInspector serves h, the web inspector (package web), at GET / and
// its static assets at GET /ui/{asset}. The routes run behind the guard
// like every other (limits, rate limit, metrics) and are public: the page
// and its assets hold no data, and every /v1 call the page makes needs a
// key like any client's. They are not audited.
func WithInspector(h http.Handler) Option { return func(s *Server) { s.inspector = h } }

var _ = addRoutes(inspectorRoutes)

// inspectorRoutes are the inspector's page and assets, registered when
// the server was given one: for browsers, not part of the REST API.
func inspectorRoutes() []endpoint {
	const why = "web inspector page and assets"
	enabled := func(s *Server) bool { return s.inspector != nil }
	return []endpoint{
		{pattern: "GET /{$}", handler: (*Server).serveInspector,
			op: loci.OpInspector, undocumented: why, enabled: enabled},
		{pattern: "GET /ui/{asset}", handler: (*Server).serveInspector,
			op: loci.OpInspector, undocumented: why, enabled: enabled},
	}
}

func (s *Server) serveInspector(w http.ResponseWriter, r *http.Request) { s.inspector.ServeHTTP(w, r) }
