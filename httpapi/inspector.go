package httpapi

import "net/http"

// WithInspector serves h, the web inspector (package web), at GET / and
// its static assets at GET /ui/{asset}. The routes run behind the guard
// like every other (limits, rate limit, metrics) and are public: the page
// and its assets hold no data, and every /v1 call the page makes needs a
// key like any client's. They are not audited.
func WithInspector(h http.Handler) Option { return func(s *Server) { s.inspector = h } }

// inspectorRoutes registers the inspector's routes when the server was
// given one.
func (s *Server) inspectorRoutes() {
	if s.inspector == nil {
		return
	}
	serve := func(w http.ResponseWriter, r *http.Request) { s.inspector.ServeHTTP(w, r) }
	s.handle("GET /{$}", serve)
	s.handle("GET /ui/{asset}", serve)
}
