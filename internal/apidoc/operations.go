package apidoc

import (
	"net/http"
	"slices"
	"strings"
)

// Constructors for what the operations of the route table (httpapi)
// share: query parameters and success responses.

// Query is an optional query parameter.
func Query(name, desc string, schema Obj) Obj {
	return Obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

// QueryRequired is a required query parameter.
func QueryRequired(name, desc string, schema Obj) Obj {
	q := Query(name, desc, schema)
	q["required"] = true
	return q
}

// QueryString is an optional string query parameter.
func QueryString(name, desc string) Obj { return Query(name, desc, Obj{"type": "string"}) }

// Param refers to a shared query parameter (components.parameters).
func Param(name string) Obj { return Obj{"$ref": "#/components/parameters/" + name} }

// Query parameters several operations take.
var (
	AsOf           = Query("as_of", "Only what was true at this time (RFC 3339); default now.", Obj{"type": "string", "format": "date-time"})
	IncludeHistory = Query("include_history", "Every version, superseded and invalidated facts too (marked by `status`); `as_of` then only says which version is current.",
		Obj{"type": "boolean", "default": false})
	Limit       = Param("Limit")
	SearchLimit = Param("SearchLimit")
	Offset      = Param("Offset")
	Explain     = Query("explain", "Explain each result's score (`explain` on each result).", Obj{"type": "boolean", "default": false})
)

// Ranked is the answer of a ranked search: results of schema item, best
// first, their count and how many records wait for their embedding.
func Ranked(item Obj) map[int]Resp {
	return Okay("Ranked results.", Success(Object([]string{"count", "results", "pending_embeddings", "retrieval"}, Obj{
		"count":   Integer("How many results are answered."),
		"results": Array(item, "Best first."),
		"pending_embeddings": Integer("How many records searched still wait for their embedding: " +
			"they are found lexically only until it is made."),
		"retrieval": Ref("Retrieval"),
	})))
}

// Created is a single 201 answer.
func Created(desc string, schema Obj) map[int]Resp {
	return map[int]Resp{http.StatusCreated: {Desc: desc, Schema: schema}}
}

// Okay is a single 200 answer.
func Okay(desc string, schema Obj) map[int]Resp {
	return map[int]Resp{http.StatusOK: {Desc: desc, Schema: schema}}
}

// Upsert answers 201 when the write created the record, 200 when it
// updated it.
func Upsert(schema Obj) map[int]Resp {
	return map[int]Resp{
		http.StatusCreated: {Desc: "Created (`action` is `created`).", Schema: schema},
		http.StatusOK:      {Desc: "Updated (`action` is `updated`).", Schema: schema},
	}
}

// Bodies several operations answer.
var (
	// PlainSuccess is `"success": true` alone.
	PlainSuccess = Ref("Success")
	// ActionField is the `action` a create-or-update answers.
	ActionField = Object([]string{"action"}, Obj{"action": Ref("Action")})
	// DeletedCount is how many records a deletion removed.
	DeletedCount = Success(Object([]string{"deleted"}, Obj{"deleted": Integer("How many records were deleted.")}))
)

// QueryNames returns the names of an operation's query parameters, shared
// ones (Limit, Offset) resolved: what a request to it may send.
func (op *Op) QueryNames() []string {
	shared := parameters()
	var out []string
	for _, q := range op.Query {
		if ref, ok := q["$ref"].(string); ok {
			q, _ = shared[strings.TrimPrefix(ref, "#/components/parameters/")].(Obj)
		}
		if name, ok := q["name"].(string); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
