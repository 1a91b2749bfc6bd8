package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// Roles and the audit log for MCP. Every tool call and resource read goes
// through guard (a receiving middleware): it checks the connection's key
// holds the tool's role, runs the call, and appends exactly one audit
// entry. A connection without a key (stdio, or HTTP with authentication
// off) is trusted, as the REST API trusts a request without one; it is
// still audited.

// ToolPolicy is what guard enforces for one tool.
type ToolPolicy struct {
	// Role is the least role that may call the tool. A create-or-update
	// tool needs creator; the service then asks for editor when the record
	// already exists (loci.Authorize), so a creator may add but not
	// overwrite.
	Role loci.Role
	// Kind is the kind the tool touches, for the audit log; "" for
	// several.
	Kind loci.Kind
}

// toolPolicies is the one table of tool policies. Every registered tool
// must have an entry (TestToolPolicyCoversEveryTool); a tool without one
// is admin-only.
var toolPolicies = map[string]ToolPolicy{
	"remember":              {Role: loci.RoleCreator, Kind: loci.KindNote},
	"recall":                {Role: loci.RoleViewer, Kind: loci.KindNote},
	"forget":                {Role: loci.RoleEditor, Kind: loci.KindNote},
	"core_memory_read":      {Role: loci.RoleViewer, Kind: loci.KindBlock},
	"update_memory":         {Role: loci.RoleCreator, Kind: loci.KindBlock},
	"store_memory":          {Role: loci.RoleCreator, Kind: loci.KindPassage},
	"set_working":           {Role: loci.RoleCreator, Kind: loci.KindWorking},
	"get_working":           {Role: loci.RoleViewer, Kind: loci.KindWorking},
	"record_episode":        {Role: loci.RoleCreator, Kind: loci.KindEpisode},
	"find_similar_episodes": {Role: loci.RoleViewer, Kind: loci.KindEpisode},
	"store_fact":            {Role: loci.RoleCreator, Kind: loci.KindFact},
	"search_facts":          {Role: loci.RoleViewer, Kind: loci.KindFact},
	"list_review":           {Role: loci.RoleViewer},
	"observe_preference":    {Role: loci.RoleCreator, Kind: loci.KindPreference},
	"get_user_context":      {Role: loci.RoleViewer},
	"search_memory":         {Role: loci.RoleViewer},
}

// resourcePolicy applies to reading the core memory resource.
var resourcePolicy = ToolPolicy{Role: loci.RoleViewer, Kind: loci.KindBlock}

// PolicyOfTool returns the policy of a tool and whether the table has an
// entry for it; a tool without one is admin-only.
func PolicyOfTool(name string) (ToolPolicy, bool) {
	p, ok := toolPolicies[name]
	if !ok {
		return ToolPolicy{Role: loci.RoleAdmin}, false
	}
	return p, true
}

// Audit operations: "mcp." and the tool's name; reading the resource;
// calling a name missing from the policy table.
const (
	auditOpPrefix   = "mcp."
	auditResourceOp = "mcp.read_resource"
	auditUnlistedOp = "mcp.unlisted"
)

// guard is the middleware in front of every tool call and resource read.
func (s *server) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			// A name missing from the table (an unknown tool, or one
			// registered without an entry) is admin-only and logged
			// under one operation, not under a name the client chose.
			pol, known := PolicyOfTool(r.Params.Name)
			op := auditOpPrefix + r.Params.Name
			if !known {
				op = auditUnlistedOp
			}
			ctx = s.ctx(ctx)
			if err := loci.Authorize(ctx, pol.Role); err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(s.toolError(r.Params.Name, err))
				s.audit(ctx, op, pol.Kind, r.Params.Arguments, nil, nil, res.GetError())
				return res, nil
			}
			res, err := next(ctx, method, req)
			var out any
			var toolErr error
			if tr, ok := res.(*mcp.CallToolResult); ok && tr != nil {
				out, toolErr = tr.StructuredContent, tr.GetError()
			}
			s.audit(ctx, op, pol.Kind, r.Params.Arguments, out, err, toolErr)
			return res, err
		case *mcp.ReadResourceRequest:
			ctx = s.ctx(ctx)
			if err := loci.Authorize(ctx, resourcePolicy.Role); err != nil {
				s.audit(ctx, auditResourceOp, resourcePolicy.Kind, nil, nil, err, nil)
				return nil, s.toolError("resource", err)
			}
			res, err := next(ctx, method, req)
			s.audit(ctx, auditResourceOp, resourcePolicy.Kind, nil, nil, err, nil)
			return res, err
		}
		return next(ctx, method, req)
	}
}

// auditStatus maps a domain error code to the HTTP-like status of an
// audit entry.
var auditStatus = map[string]int{
	loci.EINVALID:      http.StatusBadRequest,
	loci.EUNAUTHORIZED: http.StatusUnauthorized,
	loci.EFORBIDDEN:    http.StatusForbidden,
	loci.ENOTFOUND:     http.StatusNotFound,
	loci.ECONFLICT:     http.StatusConflict,
	loci.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	loci.ERATELIMIT:    http.StatusTooManyRequests,
	loci.EINTERNAL:     http.StatusInternalServerError,
	loci.EUNAVAILABLE:  http.StatusServiceUnavailable,
	loci.ESTORAGEFULL:  http.StatusInsufficientStorage,
}

// audit appends the one entry of a call: who (from the context's
// principal), the operation, the scope (the connection's agent and user,
// and the task or session an argument names), the kind, and the ids and
// count read from the structured output; never content. err is a
// protocol error, toolErr a tool error.
func (s *server) audit(ctx context.Context, op string, kind loci.Kind, args json.RawMessage, out any, err, toolErr error) {
	if !s.cfgAudit {
		return
	}
	e := loci.AuditEntry{
		Operation: op, Kind: kind, Status: http.StatusOK,
		Scope: loci.Scope{AgentID: s.id.AgentID, UserID: s.id.UserID},
	}
	var a struct {
		TaskID    any `json:"task_id"`
		SessionID any `json:"session_id"`
	}
	if len(args) > 0 && json.Unmarshal(args, &a) == nil {
		e.TaskID, _ = a.TaskID.(string)
		e.SessionID, _ = a.SessionID.(string)
	}
	switch {
	case err != nil:
		e.Status = http.StatusInternalServerError
		if code := loci.ErrorCode(err); code != loci.EINTERNAL {
			e.Status = auditStatus[code]
		}
	case toolErr != nil:
		e.Status = http.StatusBadRequest // argument validation by the SDK
		var te *ToolError
		if errors.As(toolErr, &te) {
			if st, ok := auditStatus[te.Code]; ok {
				e.Status = st
			}
		}
	default:
		e.RecordIDs, e.Count = outputIDs(out)
	}
	if aerr := s.svc.Audit(context.WithoutCancel(ctx), e); aerr != nil {
		s.logger.Error("audit log write failed", "op", op, "err", aerr)
	}
}

// idFields are the fields, in order of preference, that identify a
// record in a tool's output: the first present is logged.
var idFields = []string{"id", "key", "label", "type", "session_id"}

// maxAuditIDs bounds the ids one audit entry keeps.
const maxAuditIDs = 1000

// outputIDs reads the ids and the count of a tool's structured output:
// the top-level id (or key, label, type), the id-like field of each
// object of a top-level array, the keys of a top-level values object
// (get_working), and the top-level count (else the number of ids).
func outputIDs(out any) ([]string, int) {
	raw, ok := out.(json.RawMessage)
	if !ok {
		if out == nil {
			return nil, 0
		}
		var err error
		if raw, err = json.Marshal(out); err != nil {
			return nil, 0
		}
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil, 0
	}
	var ids []string
	if id := idOf(top); id != "" {
		ids = append(ids, id)
	}
	names := make([]string, 0, len(top))
	for name := range top {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := top[name]
		switch {
		case len(v) > 0 && v[0] == '[':
			var items []map[string]json.RawMessage
			if json.Unmarshal(v, &items) == nil {
				for _, it := range items {
					if id := idOf(it); id != "" {
						ids = append(ids, id)
					}
				}
			}
		case name == "values" && len(v) > 0 && v[0] == '{':
			var values map[string]json.RawMessage
			if json.Unmarshal(v, &values) == nil {
				keys := make([]string, 0, len(values))
				for k := range values {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				ids = append(ids, keys...)
			}
		}
	}
	count := len(ids)
	var n int
	if v, ok := top["count"]; ok && json.Unmarshal(v, &n) == nil {
		count = n
	}
	if len(ids) > maxAuditIDs {
		ids = ids[:maxAuditIDs]
	}
	return ids, count
}

// idOf returns the first id-like string field of an object.
func idOf(obj map[string]json.RawMessage) string {
	for _, f := range idFields {
		var v string
		if raw, ok := obj[f]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
			return v
		}
	}
	return ""
}
