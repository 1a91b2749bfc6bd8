package httpclient

import "encoding/json"

// The request bodies the client sends that no domain type already is; the
// fields and their JSON names are the REST API's (httpapi/openapi.json).

// rememberRequest is PUT /v1/agents/{agent_id}/notes/{key}'s body.
type rememberRequest struct {
	Value json.RawMessage `json:"value"`
}

// factRequest is POST /v1/facts's body.
type factRequest struct {
	UserID   string          `json:"user_id,omitempty"`
	AgentID  string          `json:"agent_id,omitempty"`
	Category string          `json:"category"`
	Fact     string          `json:"fact"`
	Keywords []string        `json:"keywords,omitempty"`
	Evidence json.RawMessage `json:"evidence,omitempty"`
	Key      string          `json:"key,omitempty"`
	ValidAt  string          `json:"valid_at,omitempty"`
}

// invalidateRequest is POST /v1/facts/{id}/invalidate's body.
type invalidateRequest struct {
	At string `json:"at,omitempty"`
}

// resolveRequest is POST /v1/facts/{id}/resolve's body.
type resolveRequest struct {
	Keep *bool `json:"keep"`
}
