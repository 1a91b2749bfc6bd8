package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// Roles and the audit log for MCP. Every tool call and resource read goes
// through guard (a receiving middleware): it checks the connection's key
// holds the tool's role and runs the call. The operations a call runs
// audit themselves (memory/), as coming through MCP; guard logs what it
// refuses. A connection without a key (stdio, or HTTP with authentication
// off) is trusted, as the REST API trusts a request without one.

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

// toolPolicies is the one table of tool policies, per tool set (a name
// may mean another tool in another set: the default set's update_memory
// edits any memory by id, the full set's a core memory block). Every
// registered tool must have an entry (TestToolPolicyCoversEveryTool); a
// tool without one is admin-only.
var toolPolicies = map[ToolSet]map[string]ToolPolicy{
	ToolsDefault: {
		"remember":      {Role: loci.RoleCreator, Kind: loci.KindNote},
		"recall":        {Role: loci.RoleViewer, Kind: loci.KindNote},
		"add_memory":    {Role: loci.RoleCreator},
		"search_memory": {Role: loci.RoleViewer},
		"update_memory": {Role: loci.RoleEditor},
		"delete_memory": {Role: loci.RoleEditor},
	},
	ToolsAll: {
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
	},
}

// resourcePolicy applies to reading the core memory resource.
var resourcePolicy = ToolPolicy{Role: loci.RoleViewer, Kind: loci.KindBlock}

// PolicyOfTool returns the policy of a tool of a set and whether the
// table has an entry for it; a tool without one is admin-only.
func PolicyOfTool(set ToolSet, name string) (ToolPolicy, bool) {
	p, ok := toolPolicies[set][name]
	if !ok {
		return ToolPolicy{Role: loci.RoleAdmin}, false
	}
	return p, true
}

// Refusals are logged as "mcp." and the tool's name, as reading the
// resource, or, for a name missing from the policy table, as one
// operation (not a name the client chose).
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
			// registered without an entry) is admin-only.
			pol, known := PolicyOfTool(s.tools, r.Params.Name)
			op := auditOpPrefix + r.Params.Name
			if !known {
				op = auditUnlistedOp
			}
			ctx = s.ctx(ctx)
			if err := loci.Authorize(ctx, pol.Role); err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(s.toolError(r.Params.Name, err))
				s.refused(ctx, op, pol.Kind, err)
				return res, nil
			}
			return next(ctx, method, req)
		case *mcp.ReadResourceRequest:
			ctx = s.ctx(ctx)
			if err := loci.Authorize(ctx, resourcePolicy.Role); err != nil {
				s.refused(ctx, auditResourceOp, resourcePolicy.Kind, err)
				return nil, s.toolError("resource", err)
			}
			return next(ctx, method, req)
		}
		return next(ctx, method, req)
	}
}

// refused logs a call guard refused: the connection's agent and user, the
// kind, the status of err.
func (s *server) refused(ctx context.Context, op string, kind loci.Kind, err error) {
	if !s.cfgAudit {
		return
	}
	e := loci.AuditEntry{
		Operation: op, Kind: kind, Status: loci.StatusOf(loci.ErrorCode(err)),
		Scope: loci.Scope{AgentID: s.id.AgentID, UserID: s.id.UserID},
	}
	if aerr := s.svc.Audit(context.WithoutCancel(ctx), e); aerr != nil {
		s.logger.Error("audit log write failed", "op", op, "err", aerr)
	}
}
