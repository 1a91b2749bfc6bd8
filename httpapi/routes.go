package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

// endpoint is one entry of the route table: a route declared once, with
// its handler, its policy (what the guard enforces) and its documentation
// (the operation the OpenAPI document describes). The server registers it,
// the guard enforces its policy, and the OpenAPI document and the role
// matrix are derived from it (OpenAPI, Routes).
//
// Adding a route means adding one entry to the table of its file (the
// function named …Routes beside its handlers; a new file's function joins
// routeTable), then `go generate ./httpapi` to refresh openapi.json.
type endpoint struct {
	// pattern is the ServeMux pattern: "METHOD /path/{wildcards}".
	pattern string
	// handler serves the route, behind the guard.
	handler func(*Server, http.ResponseWriter, *http.Request)
	// policy is what the guard enforces. A zero policy (forgotten) fails
	// closed: the server applies fallbackPolicy, admin only.
	policy Policy
	// doc documents the route in the OpenAPI document; nil leaves it out,
	// for the reason undocumented gives.
	doc          *apidoc.Op
	undocumented string
	// enabled says whether a server registers the route; nil: always.
	enabled func(*Server) bool
}

// routeTable is every route the server can serve, in registration order:
// one function per file, each listing the routes of its handlers.
func routeTable() []endpoint {
	return slices.Concat(
		operationRoutes(),
		memoryRoutes(),
		mem0Routes(),
		noteRoutes(),
		agentRoutes(),
		passageRoutes(),
		sessionRoutes(),
		lifecycleRoutes(),
		factRoutes(),
		preferenceRoutes(),
		adminRoutes(),
		openAPIRoutes(),
		mcpRoutes(),
		searchRoutes(),
		overviewRoutes(),
		inspectorRoutes(),
	)
}

// Shorthands for the statuses an operation documents beyond those every
// operation can answer.
const (
	notFound = http.StatusNotFound
	conflict = http.StatusConflict
	tooLarge = http.StatusRequestEntityTooLarge
)

// register registers every route of the table that s serves, and, for
// every other path and method, the envelope instead of the mux's plain
// text.
func (s *Server) register() {
	for _, ep := range routeTable() {
		if ep.enabled == nil || ep.enabled(s) {
			s.handle(ep)
		}
	}
	s.mux.HandleFunc("/", s.noRoute)
}

// handle registers one route. Every endpoint is registered through it, so
// the server knows its routes (for metrics and tests), and every handler
// runs behind the guard: auth, role and agent policy, limits, metrics and
// the audit log.
func (s *Server) handle(ep endpoint) {
	rt := Route{Pattern: ep.pattern, Policy: ep.policy}
	if method, path, ok := strings.Cut(ep.pattern, " "); ok {
		rt.Method, rt.Pattern = method, path
	}
	if rt.Policy == (Policy{}) {
		rt.Policy = fallbackPolicy
	}
	s.routes = append(s.routes, rt)
	h := ep.handler
	if ep.doc != nil {
		// A documented route takes the query parameters it documents and
		// no other: a misspelt one (user= for user_id=) must never widen
		// a read (API.md v1.2).
		takes := ep.doc.QueryNames()
		if ep.policy.Agent != AgentDeny && !strings.Contains(ep.pattern, "{agent_id}") && !slices.Contains(takes, "agent_id") {
			// The key's agent, which the guard checks against a bound key.
			takes = append(takes, "agent_id")
		}
		inner := h
		h = func(s *Server, w http.ResponseWriter, r *http.Request) {
			if err := checkQuery(r, takes); err != nil {
				s.Error(w, r, err)
				return
			}
			inner(s, w, r)
		}
	}
	s.mux.HandleFunc(ep.pattern, s.guard(rt, func(w http.ResponseWriter, r *http.Request) { h(s, w, r) }))
}

// checkQuery refuses a query parameter that takes does not list, naming
// the ones the route takes.
func checkQuery(r *http.Request, takes []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	var unknown []string
	for name := range r.URL.Query() {
		if !slices.Contains(takes, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	if len(takes) == 0 {
		return loci.Errorf(loci.EINVALID, "unknown query parameter %s: this route takes none", strings.Join(unknown, ", "))
	}
	return loci.Errorf(loci.EINVALID, "unknown query parameter %s: this route takes %s", strings.Join(unknown, ", "), strings.Join(takes, ", "))
}

// policyTable maps each pattern of the route table to its policy.
var policyTable = sync.OnceValue(func() map[string]Policy {
	m := map[string]Policy{}
	for _, ep := range routeTable() {
		m[ep.pattern] = ep.policy
	}
	return m
})

// PolicyOf returns the policy of a pattern of the route table ("METHOD
// /path/{wildcards}") and whether the table has it.
func PolicyOf(pattern string) (Policy, bool) {
	p, ok := policyTable()[pattern]
	if !ok || p == (Policy{}) {
		return fallbackPolicy, false
	}
	return p, true
}

// OpenAPI builds the OpenAPI document of the route table: each documented
// route's operation with the role and agent binding of its policy.
// `go generate ./httpapi` writes it to openapi.json, which the server
// embeds and serves at GET /v1/openapi.json.
func OpenAPI() ([]byte, error) {
	var routes []apidoc.Route
	for _, ep := range routeTable() {
		if ep.doc == nil {
			continue
		}
		method, path, _ := strings.Cut(ep.pattern, " ")
		routes = append(routes, apidoc.Route{Method: method, Path: path, Role: string(ep.policy.Role),
			AgentBinding: ep.policy.Agent.String(), Op: *ep.doc})
	}
	return apidoc.JSON(routes, apidoc.Limits{PathValueBytes: maxPathValue, BodyBytes: MaxBodyBytes, JSONDepth: MaxJSONDepth})
}
