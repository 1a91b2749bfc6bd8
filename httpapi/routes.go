package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

// endpoint is one entry of the route table: a route with its handler, the
// operation it serves (loci.Operation, declared once in the root package:
// its role, agent binding, audit name and summary) and its documentation
// (the rest of the operation the OpenAPI document describes). The server
// registers it, the guard enforces the policy its operation gives, and the
// OpenAPI document and the role matrix are derived from it (OpenAPI,
// Routes).
//
// Adding a route means adding one entry to the table of its file (the
// function named …Routes beside its handlers, which a new file registers
// with addRoutes), naming its operation (declared beside its kind in the
// root package, or in operations.go for the transports' own), then
// `go generate ./httpapi` to refresh openapi.json.
type endpoint struct {
	// pattern is the ServeMux pattern: "METHOD /path/{wildcards}".
	pattern string
	// handler serves the route, behind the guard.
	handler func(*Server, http.ResponseWriter, *http.Request)
	// op is the operation the route serves. A nil op (forgotten) fails
	// closed: the server applies fallbackPolicy, admin only.
	op *loci.Operation
	// stream marks a route whose handler reads a large, non-JSON body
	// itself (import): the guard neither buffers nor checks it.
	stream bool
	// doc documents the route in the OpenAPI document (its summary is
	// the operation's); nil leaves it out, for the reason undocumented
	// gives.
	doc          *apidoc.Op
	undocumented string
	// enabled says whether a server registers the route; nil: always.
	enabled func(*Server) bool
}

// policy is what the guard enforces for the route: its operation's
// role, agent binding, kind and audit name.
func (ep endpoint) policy() Policy {
	if ep.op == nil {
		return fallbackPolicy
	}
	return Policy{Role: ep.op.Role, Agent: ep.op.Agent, Kind: ep.op.Kind, Op: ep.op.AuditName(), Stream: ep.stream}
}

// routeGroups are the route groups of every file, each registered by its
// file with addRoutes.
var routeGroups []func() []endpoint

// addRoutes registers a file's route group, the function named …Routes
// beside its handlers. Each file calls it once, in a package-level
// declaration (var _ = addRoutes(noteRoutes)), so that a kind's routes
// are registered where they are declared and no list of files is kept.
func addRoutes(routes func() []endpoint) bool {
	routeGroups = append(routeGroups, routes)
	return true
}

// routeTable is every route the server can serve, in the order it
// registers them: by path, then method, whichever file declared them and
// in whatever order the files registered their groups.
func routeTable() []endpoint {
	var eps []endpoint
	for _, routes := range routeGroups {
		eps = append(eps, routes()...)
	}
	slices.SortStableFunc(eps, func(a, b endpoint) int {
		am, ap, _ := strings.Cut(a.pattern, " ")
		bm, bp, _ := strings.Cut(b.pattern, " ")
		if c := strings.Compare(ap, bp); c != 0 {
			return c
		}
		return strings.Compare(am, bm)
	})
	return eps
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
	rt := Route{Pattern: ep.pattern, Policy: ep.policy()}
	if method, path, ok := strings.Cut(ep.pattern, " "); ok {
		rt.Method, rt.Pattern = method, path
	}
	s.routes = append(s.routes, rt)
	h := ep.handler
	if ep.doc != nil {
		// A documented route takes the query parameters it documents and
		// no other: a misspelt one (user= for user_id=) must never widen
		// a read (docs/rules.md, "Bad input gets a clear error and changes
		// nothing").
		takes := ep.doc.QueryNames()
		if rt.Policy.Agent != loci.AgentDeny && !strings.Contains(ep.pattern, "{agent_id}") && !slices.Contains(takes, "agent_id") {
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

// repeatable are the query parameters a route may take more than once
// (GET /v1/memories' kind: a list); any other given twice is refused, as
// a handler reads only its first value (a second filters was dropped,
// widening the read).
var repeatable = map[string]bool{"kind": true}

// checkQuery refuses a query parameter that takes does not list, naming
// the ones the route takes, and one given twice that is not repeatable.
func checkQuery(r *http.Request, takes []string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	var unknown, twice []string
	for name, vals := range r.URL.Query() {
		if !slices.Contains(takes, name) {
			unknown = append(unknown, name)
		} else if len(vals) > 1 && !repeatable[name] {
			twice = append(twice, name)
		}
	}
	if len(unknown) == 0 && len(twice) > 0 {
		slices.Sort(twice)
		return loci.Errorf(loci.EINVALID, "query parameter %s is given more than once: give it once", strings.Join(twice, ", "))
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

// opTable maps each pattern of the route table to its entry.
var opTable = sync.OnceValue(func() map[string]endpoint {
	m := map[string]endpoint{}
	for _, ep := range routeTable() {
		m[ep.pattern] = ep
	}
	return m
})

// PolicyOf returns the policy of a pattern of the route table ("METHOD
// /path/{wildcards}") and whether the table has it with an operation.
func PolicyOf(pattern string) (Policy, bool) {
	ep, ok := opTable()[pattern]
	if !ok || ep.op == nil {
		return fallbackPolicy, false
	}
	return ep.policy(), true
}

// Operations returns the operation of every route of the table, in table
// order, once each.
func Operations() []*loci.Operation {
	var ops []*loci.Operation
	for _, ep := range routeTable() {
		if ep.op != nil && !slices.Contains(ops, ep.op) {
			ops = append(ops, ep.op)
		}
	}
	return ops
}

// OpenAPI builds the OpenAPI document of the route table: each documented
// route's operation with the summary, role and agent binding its
// loci.Operation declares.
// `go generate ./httpapi` writes it to openapi.json, which the server
// embeds and serves at GET /v1/openapi.json.
func OpenAPI() ([]byte, error) {
	var routes []apidoc.Route
	for _, ep := range routeTable() {
		if ep.doc == nil {
			continue
		}
		method, path, _ := strings.Cut(ep.pattern, " ")
		pol, doc := ep.policy(), *ep.doc
		if ep.op != nil {
			doc.Summary = ep.op.Summary
		}
		routes = append(routes, apidoc.Route{Method: method, Path: path, Role: string(pol.Role),
			AgentBinding: pol.Agent.String(), Op: doc})
	}
	return apidoc.JSON(routes, apidoc.Limits{PathValueBytes: maxPathValue, BodyBytes: MaxBodyBytes, JSONDepth: MaxJSONDepth})
}
