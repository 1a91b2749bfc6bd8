// Package apidoc builds loci's OpenAPI 3.1 document from the REST server's
// route table (httpapi): each route there carries its Op (parameters,
// bodies, responses) beside the operation it serves (loci.Operation), and
// the document takes the summary, the least role (x-loci-role) and the
// agent binding (x-loci-agent-binding) from that operation's declaration. httpapi.OpenAPI builds it; `go generate ./httpapi` writes it
// to httpapi/openapi.json, embedded in the binary, and a test in httpapi
// fails when that file is stale. This package holds what the operations
// share: the component schemas, the error responses, and constructors for
// schemas, parameters and answers.
package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/loci-memory/loci"
)

// Version is the API version the document describes.
const Version = "1.0.0"

// Resp is one success response of an operation.
type Resp struct {
	Desc   string
	Schema Obj    // the body; nil for none
	Media  string // "" for application/json
}

// Op documents one operation: everything about it but its method, path
// and policy, which its route table entry says.
type Op struct {
	ID           string // operationId
	Tag          string
	Summary      string
	Desc         string
	Query        []Obj // query parameters (or refs to shared ones: Limit, Offset)
	Body         Obj   // the request body schema; nil for none
	BodyOptional bool
	BodyMedia    string // "" for application/json
	OK           map[int]Resp
	Errs         []int // statuses beyond the ones every operation can answer
	// NoStorage marks an operation that never touches the storage: it
	// answers neither 503 nor 507.
	NoStorage bool
}

// Route is one documented route: its operation with the method, path and
// the policy the server enforces on it.
type Route struct {
	Method, Path string
	// Role is the least role that may call it; "" for a public route.
	Role string
	// AgentBinding is how a key bound to one agent may use it: named,
	// free or deny.
	AgentBinding string
	Op           Op
}

// Limits are the limits of the HTTP transport the document states; the
// domain's limits are the root package's (loci.MaxQueryBytes, ...).
type Limits struct {
	// PathValueBytes returns the most bytes the path parameter name of
	// the route pattern ("METHOD /path") may have: what the server checks.
	PathValueBytes func(pattern, name string) int
	BodyBytes      int // the most bytes a request body may have
	JSONDepth      int // how deeply a request body may nest
}

// JSON returns the document of routes as indented JSON, as served.
func JSON(routes []Route, lim Limits) ([]byte, error) {
	doc, err := Document(routes, lim)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Document returns the OpenAPI document as a JSON value.
func Document(routes []Route, lim Limits) (map[string]any, error) {
	paths := Obj{}
	seen := map[string]bool{}
	for _, rt := range routes {
		key := rt.Method + " " + rt.Path
		if seen[key] {
			return nil, fmt.Errorf("apidoc: %s documented twice", key)
		}
		seen[key] = true
		item, _ := paths[rt.Path].(Obj)
		if item == nil {
			item = Obj{}
			paths[rt.Path] = item
		}
		built, err := rt.build(func(name string) int { return lim.PathValueBytes(rt.Method+" "+rt.Path, name) })
		if err != nil {
			return nil, err
		}
		item[strings.ToLower(rt.Method)] = built
	}
	return Obj{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": Obj{
			"title":   "loci",
			"version": Version,
			"summary": "Long-term memory for AI agents.",
			"description": "The REST API of loci. JSON in and out; times are RFC 3339 UTC; ids are strings.\n\n" +
				"A success answers `\"success\": true` beside its fields (a single object's fields at the top level). " +
				"A request that creates something answers 201, any other success 200. " +
				"Lists answer `count` (the total matching, before limit and offset) and the items under a plural name; " +
				"ranked searches answer `results`, each with a `score`. " +
				"Every failure answers the ErrorEnvelope with the status of its code: invalid 400, unauthorized 401, " +
				"forbidden 403, not_found 404, conflict 409, too_large 413, rate_limited 429, internal 500, " +
				"unavailable 503 (the storage does not answer in time: an outage, a partition, a database busy past the server's " +
				"--db-timeout; retry after Retry-After seconds), storage_full 507 (the storage has no room for a write; reads work), " +
				"not_implemented 501 (a call of a framework's API, under /mem0, that loci does not serve). " +
				"A path no operation has answers 404 `not_found`; a path with a method it does not have answers 405 " +
				"with code `invalid` and an `Allow` header listing the methods it has.\n\n" +
				"Request bodies are JSON objects of at most " + Bytes(lim.BodyBytes) + fmt.Sprintf(", nested at most %d deep; unknown fields are rejected (400). ", lim.JSONDepth) +
				fmt.Sprintf("Path values are UTF-8 without NUL of at most the bytes their `maxLength` says (longer is 400), query values of at most %d bytes. ", loci.MaxQueryBytes) +
				fmt.Sprintf("`limit` is 1-%d and `offset` 0-%s wherever they appear.\n\n", max(loci.MaxListLimit, loci.MaxSearchLimit), power2(loci.MaxOffset)) +
				"Authentication is on while any active API key exists (or always, when the server is started with it required), " +
				"decided at each request: a key created or revoked takes effect at the next request. " +
				"While it is on, every route but the public ones needs a key, sent as `Authorization: Bearer <key>` " +
				"or `X-API-Key: <key>`. Each operation's `x-loci-role` is the least role it needs " +
				"(viewer < creator < editor < admin); a creator may add but not overwrite. " +
				"`x-loci-agent-binding` says how a key bound to one agent may use it: `named` (the request must name " +
				"the key's agent), `free` (it may name no agent, and any it names must be its own) or `deny` (bound keys get 403).",
		},
		"servers": []Obj{{"url": "http://127.0.0.1:8420", "description": "loci serve, default address"}},
		"security": []Obj{
			{"bearerAuth": []string{}},
			{"apiKeyHeader": []string{}},
		},
		"tags":  tags(),
		"paths": paths,
		"components": Obj{
			"schemas":         schemas(),
			"parameters":      parameters(),
			"responses":       errorResponses(),
			"securitySchemes": securitySchemes(),
		},
	}, nil
}

func securitySchemes() Obj {
	const note = " Authentication is on while any active API key exists (`loci keys create` or POST /v1/keys); " +
		"then a request without a valid key gets 401."
	return Obj{
		"bearerAuth": Obj{
			"type": "http", "scheme": "bearer",
			"description": "An API key as a bearer token: `Authorization: Bearer <key>`." + note,
		},
		"apiKeyHeader": Obj{
			"type": "apiKey", "in": "header", "name": "X-API-Key",
			"description": "The same API key in the X-API-Key header." + note,
		},
	}
}

func tags() []Obj {
	return []Obj{
		{"name": "memories", "description": "One memory API over every kind: add, get, update, delete and history by id, metadata, filters, a time to live, batches."},
		{"name": "notes", "description": "An agent's key-value memories: remember / recall."},
		{"name": "agents", "description": "Agents: the owners of blocks, notes and passages."},
		{"name": "blocks", "description": "Core memory blocks, owned or shared, rendered into the prompt."},
		{"name": "passages", "description": "Archival passages with tags and hybrid search."},
		{"name": "working", "description": "A task's working memory: short-lived key-values."},
		{"name": "episodes", "description": "Episodic memory: past actions and outcomes."},
		{"name": "facts", "description": "Long-term facts with relevance, validation and decay."},
		{"name": "preferences", "description": "User preferences with confidence tiers."},
		{"name": "sessions", "description": "Conversation sessions and their messages."},
		{"name": "users", "description": "Everything about a user: session start, what is remembered, forgetting."},
		{"name": "overview", "description": "What a person looking after memory starts from: users, stats, the timeline of every kind, the caller's key."},
		{"name": "search", "description": "Hybrid search across kinds: BM25 and vector similarity fused, then recency and confidence."},
		{"name": "admin", "description": "Keys, the audit log, export and import, maintenance."},
		{"name": "operations", "description": "Health, readiness, metrics and this document."},
	}
}

// parameters are the shared query parameters.
func parameters() Obj {
	q := func(name, desc string, schema Obj) Obj {
		return Obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
	}
	return Obj{
		"Limit": q("limit", "The most items to answer.",
			Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxListLimit, "default": loci.DefaultListLimit}),
		"SearchLimit": q("limit", "The most results to answer.",
			Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxSearchLimit, "default": loci.DefaultSearchLimit}),
		"Offset": q("offset", "How many items to skip.",
			Obj{"type": "integer", "minimum": 0, "maximum": loci.MaxOffset, "default": 0}),
	}
}

// errorStatuses maps the statuses of the error envelope to their shared
// response component.
var errorStatuses = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "TooLarge",
	http.StatusTooManyRequests:       "RateLimited",
	http.StatusInternalServerError:   "Internal",
	http.StatusServiceUnavailable:    "Unavailable",
	http.StatusInsufficientStorage:   "StorageFull",
}

func errorResponses() Obj {
	env := func(desc string, code string) Obj {
		return Obj{
			"description": desc,
			"content": Obj{"application/json": Obj{"schema": Ref("ErrorEnvelope"),
				"example": Obj{"success": false, "error": "…", "code": code}}},
		}
	}
	r := Obj{
		"BadRequest":   env("invalid: bad input (missing or malformed field, bad path or query value, malformed JSON, unknown field).", "invalid"),
		"Unauthorized": env("unauthorized: authentication is on and the request has no valid API key.", "unauthorized"),
		"Forbidden":    env("forbidden: the key's role is below the route's, or the key is bound to another agent.", "forbidden"),
		"NotFound":     env("not_found: what the path names does not exist.", "not_found"),
		"Conflict":     env("conflict: it already exists, or an expected version is stale.", "conflict"),
		"TooLarge":     env("too_large: the body or a stored value is over its limit.", "too_large"),
		"RateLimited":  env("rate_limited: too many requests from this key (or address); retry after Retry-After seconds.", "rate_limited"),
		"Internal":     env("internal: the server failed; the message is generic and the cause is logged.", "internal"),
		"Unavailable":  env("unavailable: the storage does not answer in time (an outage, a network partition, a database busy past the server's --db-timeout); nothing was changed or the change's outcome is unknown; retry after Retry-After seconds.", "unavailable"),
		"StorageFull":  env("storage_full: the storage has no room left for a write (a full disk); nothing was written; reads still work.", "storage_full"),
	}
	r["Unauthorized"].(Obj)["headers"] = Obj{"WWW-Authenticate": Obj{"schema": Obj{"type": "string"}, "description": `Bearer realm="loci"`}}
	r["RateLimited"].(Obj)["headers"] = Obj{"Retry-After": Obj{"schema": Obj{"type": "integer"}, "description": "Seconds to wait."}}
	r["Unavailable"].(Obj)["headers"] = Obj{"Retry-After": Obj{"schema": Obj{"type": "integer"}, "description": "Seconds to wait."}}
	r["StorageFull"].(Obj)["headers"] = Obj{"Retry-After": Obj{"schema": Obj{"type": "integer"}, "description": "Seconds to wait."}}
	return r
}

// pathParamDesc describes the path wildcards.
var pathParamDesc = map[string]string{
	"agent_id":   "The agent's id.",
	"key":        "The key, unique within its scope.",
	"label":      "The block's label, unique among the agent's own blocks.",
	"block_id":   "The block's id.",
	"id":         "The record's id.",
	"task_id":    "The task's id.",
	"session_id": "The session's id.",
	"user_id":    "The user's id.",
	"type":       "The preference type.",
	"event_id":   "The event's id, as the add answered it.",
}

func (rt Route) build(maxPathValue func(name string) int) (Obj, error) {
	o := rt.Op
	switch rt.AgentBinding {
	case "named", "free", "deny":
	default:
		return nil, fmt.Errorf("apidoc: %s %s: agent binding %q is not named, free or deny", rt.Method, rt.Path, rt.AgentBinding)
	}
	out := Obj{
		"operationId": o.ID,
		"tags":        []string{o.Tag},
		"summary":     o.Summary,
	}
	role := rt.Role
	if role == "" {
		role = "public"
		out["security"] = []Obj{}
	}
	out["x-loci-role"] = role
	out["x-loci-agent-binding"] = rt.AgentBinding
	desc := o.Desc
	if role != "public" {
		if desc != "" {
			desc += "\n\n"
		}
		desc += "Needs the " + role + " role."
	}
	if desc != "" {
		out["description"] = desc
	}

	params, err := rt.parameters(maxPathValue)
	if err != nil {
		return nil, err
	}
	if len(params) > 0 {
		out["parameters"] = params
	}

	if o.Body != nil {
		media := o.BodyMedia
		if media == "" {
			media = "application/json"
		}
		out["requestBody"] = Obj{
			"required": !o.BodyOptional,
			"content":  Obj{media: Obj{"schema": o.Body}},
		}
	}

	responses, err := rt.responses(role != "public")
	if err != nil {
		return nil, err
	}
	out["responses"] = responses
	return out, nil
}

// parameters are the route's path parameters, then its query parameters.
func (rt Route) parameters(maxPathValue func(name string) int) ([]Obj, error) {
	var params []Obj
	for _, name := range wildcards(rt.Path) {
		d, ok := pathParamDesc[name]
		if !ok {
			return nil, fmt.Errorf("apidoc: %s %s: undescribed path parameter %q", rt.Method, rt.Path, name)
		}
		params = append(params, Obj{"name": name, "in": "path", "required": true, "description": d,
			"schema": Obj{"type": "string", "minLength": 1, "maxLength": maxPathValue(name)}})
	}
	return append(params, rt.Op.Query...), nil
}

// responses are the route's success responses and the error responses it
// can answer; keyed adds those of a route that needs a key (401, 403).
func (rt Route) responses(keyed bool) (Obj, error) {
	o := rt.Op
	responses := Obj{}
	for status, r := range o.OK {
		rr := Obj{"description": r.Desc}
		if r.Schema != nil {
			media := r.Media
			if media == "" {
				media = "application/json"
			}
			rr["content"] = Obj{media: Obj{"schema": r.Schema}}
		}
		responses[fmt.Sprint(status)] = rr
	}
	// Every operation reads at most Limits.BodyBytes of whatever body a
	// request carries (413 beyond), even those that document none.
	errs := []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusInternalServerError}
	if !o.NoStorage {
		errs = append(errs, http.StatusServiceUnavailable, http.StatusInsufficientStorage)
	}
	if keyed {
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	}
	errs = append(errs, o.Errs...)
	sort.Ints(errs)
	for _, st := range errs {
		name, ok := errorStatuses[st]
		if !ok {
			return nil, fmt.Errorf("apidoc: %s %s: no error response for %d", rt.Method, rt.Path, st)
		}
		responses[fmt.Sprint(st)] = Obj{"$ref": "#/components/responses/" + name}
	}
	return responses, nil
}

// wildcards returns the names of a path's {wildcards}, in order.
func wildcards(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(seg[1:len(seg)-1], "..."))
		}
	}
	return out
}
