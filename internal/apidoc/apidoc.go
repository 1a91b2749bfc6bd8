// Package apidoc builds loci's OpenAPI 3.1 document: every route the REST
// server registers, its parameters, bodies, responses and the least role
// it needs (read from the server's policy table). The document is written
// to httpapi/openapi.json by `go generate ./httpapi` and embedded in the
// binary; a test in httpapi fails when the file is stale or when a route is
// registered without being documented here.
package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/loci-memory/loci/httpapi"
)

// Version is the API version the document describes.
const Version = "1.0.0"

// resp is one success response of an operation.
type resp struct {
	desc   string
	schema obj    // the body; nil for none
	media  string // "" for application/json
}

// op is one documented operation.
type op struct {
	method, path string
	id           string // operationId
	tag          string
	summary      string
	desc         string
	query        []obj // query parameters (or $refs to shared ones)
	body         obj   // the request body schema; nil for none
	bodyOptional bool
	bodyMedia    string // "" for application/json
	ok           map[int]resp
	errs         []int // statuses beyond the ones every operation can answer
}

// JSON returns the document as indented JSON, as served.
func JSON() ([]byte, error) {
	doc, err := Document()
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
func Document() (map[string]any, error) {
	paths := obj{}
	seen := map[string]bool{}
	for _, o := range operations() {
		key := o.method + " " + o.path
		if seen[key] {
			return nil, fmt.Errorf("apidoc: %s documented twice", key)
		}
		seen[key] = true
		item, _ := paths[o.path].(obj)
		if item == nil {
			item = obj{}
			paths[o.path] = item
		}
		built, err := o.build()
		if err != nil {
			return nil, err
		}
		item[strings.ToLower(o.method)] = built
	}
	return obj{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"info": obj{
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
				"--db-timeout; retry after Retry-After seconds), storage_full 507 (the storage has no room for a write; reads work). " +
				"A path no operation has answers 404 `not_found`; a path with a method it does not have answers 405 " +
				"with code `invalid` and an `Allow` header listing the methods it has.\n\n" +
				"Request bodies are JSON objects of at most 1 MiB, nested at most 32 deep; unknown fields are rejected (400). " +
				"Path values are at most 1024 bytes and query values 4096 bytes of UTF-8 without NUL. " +
				"`limit` is 1-1000 and `offset` 0-2^30 wherever they appear.\n\n" +
				"Authentication is on while any active API key exists (or always, when the server is started with it required), " +
				"decided at each request: a key created or revoked takes effect at the next request. " +
				"While it is on, every route but the public ones needs a key, sent as `Authorization: Bearer <key>` " +
				"or `X-API-Key: <key>`. Each operation's `x-loci-role` is the least role it needs " +
				"(viewer < creator < editor < admin); a creator may add but not overwrite. " +
				"`x-loci-agent-binding` says how a key bound to one agent may use it: `named` (the request must name " +
				"the key's agent), `free` (it may name no agent, and any it names must be its own) or `deny` (bound keys get 403).",
		},
		"servers": []obj{{"url": "http://127.0.0.1:8420", "description": "loci serve, default address"}},
		"security": []obj{
			{"bearerAuth": []string{}},
			{"apiKeyHeader": []string{}},
		},
		"tags":  tags(),
		"paths": paths,
		"components": obj{
			"schemas":         schemas(),
			"parameters":      parameters(),
			"responses":       errorResponses(),
			"securitySchemes": securitySchemes(),
		},
	}, nil
}

func securitySchemes() obj {
	const note = " Authentication is on while any active API key exists (`loci keys create` or POST /v1/keys); " +
		"then a request without a valid key gets 401."
	return obj{
		"bearerAuth": obj{
			"type": "http", "scheme": "bearer",
			"description": "An API key as a bearer token: `Authorization: Bearer <key>`." + note,
		},
		"apiKeyHeader": obj{
			"type": "apiKey", "in": "header", "name": "X-API-Key",
			"description": "The same API key in the X-API-Key header." + note,
		},
	}
}

func tags() []obj {
	return []obj{
		{"name": "notes", "description": "An agent's key-value memories: remember / recall (seed 000)."},
		{"name": "agents", "description": "Agents (seed 002)."},
		{"name": "blocks", "description": "Core memory blocks, owned or shared, rendered into the prompt (seed 002)."},
		{"name": "passages", "description": "Archival passages with tags and hybrid search (seed 002)."},
		{"name": "working", "description": "A task's working memory: short-lived key-values (seed 003)."},
		{"name": "episodes", "description": "Episodic memory: past actions and outcomes (seed 003)."},
		{"name": "facts", "description": "Long-term facts with relevance, validation and decay (seed 003)."},
		{"name": "preferences", "description": "User preferences with confidence tiers (seeds 001 and 004)."},
		{"name": "sessions", "description": "Conversation sessions and their messages (seeds 001 and 004)."},
		{"name": "users", "description": "Everything about a user: session start, what is remembered, forgetting."},
		{"name": "overview", "description": "What a person looking after memory starts from: users, stats, the timeline of every kind, the caller's key."},
		{"name": "search", "description": "Hybrid search across kinds: BM25 and vector similarity fused, then recency and confidence."},
		{"name": "admin", "description": "Keys, the audit log, export and import, maintenance."},
		{"name": "operations", "description": "Health, readiness, metrics and this document."},
	}
}

// parameters are the shared query parameters.
func parameters() obj {
	q := func(name, desc string, schema obj) obj {
		return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
	}
	return obj{
		"Limit": q("limit", "The most items to answer.",
			obj{"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}),
		"SearchLimit": q("limit", "The most results to answer.",
			obj{"type": "integer", "minimum": 1, "maximum": 1000, "default": 10}),
		"Offset": q("offset", "How many items to skip.",
			obj{"type": "integer", "minimum": 0, "maximum": 1 << 30, "default": 0}),
	}
}

// storageFree are the paths that never touch the storage: no 503 or 507.
var storageFree = map[string]bool{"/healthz": true, "/v1/openapi.json": true}

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

func errorResponses() obj {
	env := func(desc string, code string) obj {
		return obj{
			"description": desc,
			"content": obj{"application/json": obj{"schema": ref("ErrorEnvelope"),
				"example": obj{"success": false, "error": "…", "code": code}}},
		}
	}
	r := obj{
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
	r["Unauthorized"].(obj)["headers"] = obj{"WWW-Authenticate": obj{"schema": obj{"type": "string"}, "description": `Bearer realm="loci"`}}
	r["RateLimited"].(obj)["headers"] = obj{"Retry-After": obj{"schema": obj{"type": "integer"}, "description": "Seconds to wait."}}
	r["Unavailable"].(obj)["headers"] = obj{"Retry-After": obj{"schema": obj{"type": "integer"}, "description": "Seconds to wait."}}
	r["StorageFull"].(obj)["headers"] = obj{"Retry-After": obj{"schema": obj{"type": "integer"}, "description": "Seconds to wait."}}
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
}

// agentBinding names a policy's rule for agent-bound keys.
var agentBinding = map[httpapi.AgentRule]string{
	httpapi.AgentNamed: "named",
	httpapi.AgentFree:  "free",
	httpapi.AgentDeny:  "deny",
}

func (o op) build() (obj, error) {
	pol, ok := httpapi.PolicyOf(o.method + " " + o.path)
	if !ok {
		return nil, fmt.Errorf("apidoc: %s %s has no entry in the policy table", o.method, o.path)
	}
	out := obj{
		"operationId": o.id,
		"tags":        []string{o.tag},
		"summary":     o.summary,
	}
	role := string(pol.Role)
	if role == "" {
		role = "public"
		out["security"] = []obj{}
	}
	out["x-loci-role"] = role
	out["x-loci-agent-binding"] = agentBinding[pol.Agent]
	desc := o.desc
	if role != "public" {
		if desc != "" {
			desc += "\n\n"
		}
		desc += "Needs the " + role + " role."
	}
	if desc != "" {
		out["description"] = desc
	}

	var params []obj
	for _, name := range wildcards(o.path) {
		d, ok := pathParamDesc[name]
		if !ok {
			return nil, fmt.Errorf("apidoc: %s %s: undescribed path parameter %q", o.method, o.path, name)
		}
		params = append(params, obj{"name": name, "in": "path", "required": true, "description": d,
			"schema": obj{"type": "string", "minLength": 1, "maxLength": httpapi.MaxPathValueBytes}})
	}
	params = append(params, o.query...)
	if len(params) > 0 {
		out["parameters"] = params
	}

	if o.body != nil {
		media := o.bodyMedia
		if media == "" {
			media = "application/json"
		}
		out["requestBody"] = obj{
			"required": !o.bodyOptional,
			"content":  obj{media: obj{"schema": o.body}},
		}
	}

	responses := obj{}
	for status, r := range o.ok {
		rr := obj{"description": r.desc}
		if r.schema != nil {
			media := r.media
			if media == "" {
				media = "application/json"
			}
			rr["content"] = obj{media: obj{"schema": r.schema}}
		}
		responses[fmt.Sprint(status)] = rr
	}
	// Every operation reads at most 1 MiB of whatever body a request
	// carries (413 beyond), even those that document none.
	errs := []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests, http.StatusInternalServerError}
	if !storageFree[o.path] {
		errs = append(errs, http.StatusServiceUnavailable, http.StatusInsufficientStorage)
	}
	if role != "public" {
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	}
	errs = append(errs, o.errs...)
	sort.Ints(errs)
	for _, st := range errs {
		name, ok := errorStatuses[st]
		if !ok {
			return nil, fmt.Errorf("apidoc: %s %s: no error response for %d", o.method, o.path, st)
		}
		responses[fmt.Sprint(st)] = obj{"$ref": "#/components/responses/" + name}
	}
	out["responses"] = responses
	return out, nil
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
