package mcpserver

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// Roles and the audit log for MCP. Every tool call and resource read goes
// through guard (a receiving middleware): it checks the connection's key
// holds the tool's role and runs the call. The operations a call runs
// audit themselves (memory/), as coming through MCP; guard logs what it
// refuses. A connection without a key (stdio, or HTTP with authentication
// off) is trusted, as the REST API trusts a request without one.

// ToolPolicy is what guard enforces for one tool: the role and kind of
// the operation the tool serves (loci.Operation, declared once in the
// root package).
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

// toolOps maps each tool of each tool set to the operation it serves (a
// name may mean another tool in another set: the default set's
// update_memory edits any memory by id, the full set's a core memory
// block); its policy is the operation's. Every registered tool must have
// an entry (TestToolPolicyCoversEveryTool); a tool without one is
// admin-only.
var toolOps = map[ToolSet]map[string]*loci.Operation{
	ToolsDefault: {
		"remember":      loci.OpNoteRemember,
		"recall":        loci.OpNoteRecall,
		"add_memory":    loci.OpMemoryAdd,
		"search_memory": loci.OpMemorySearch,
		"update_memory": loci.OpMemoryUpdate,
		"delete_memory": loci.OpMemoryDelete,
	},
	ToolsAll: {
		"remember":              loci.OpNoteRemember,
		"recall":                loci.OpNoteRecall,
		"forget":                loci.OpNoteForget,
		"core_memory_read":      loci.OpBlockList,
		"update_memory":         loci.OpBlockPut,
		"store_memory":          loci.OpPassageAdd,
		"set_working":           loci.OpWorkingSet,
		"get_working":           loci.OpWorkingGet,
		"record_episode":        loci.OpEpisodeRecord,
		"find_similar_episodes": loci.OpEpisodeSearch,
		"store_fact":            loci.OpFactAdd,
		"search_facts":          loci.OpFactSearch,
		"list_review":           loci.OpUserReview,
		"observe_preference":    loci.OpPreferenceObserve,
		"get_user_context":      loci.OpUserContext,
		"search_memory":         loci.OpMemorySearch,
	},
}

// resourceOp is the operation of reading the core memory resource (the
// agent's prompt).
var resourceOp = loci.OpAgentPrompt

// policyOf is the policy of a tool serving op.
func policyOf(op *loci.Operation) ToolPolicy { return ToolPolicy{Role: op.Role, Kind: op.Kind} }

// PolicyOfTool returns the policy of a tool of a set and whether the
// table has an entry for it; a tool without one is admin-only.
func PolicyOfTool(set ToolSet, name string) (ToolPolicy, bool) {
	op, ok := toolOps[set][name]
	if !ok {
		return ToolPolicy{Role: loci.RoleAdmin}, false
	}
	return policyOf(op), true
}

// Operations returns the operation of every tool of every set, and of
// reading the core memory resource, once each.
func Operations() []*loci.Operation {
	ops := []*loci.Operation{resourceOp}
	for _, set := range []ToolSet{ToolsDefault, ToolsAll} {
		for _, op := range toolOps[set] {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	return ops
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
			if err := loci.Authorize(ctx, resourceOp.Role); err != nil {
				s.refused(ctx, auditResourceOp, resourceOp.Kind, err)
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
	if aerr := s.AuditService.Audit(context.WithoutCancel(ctx), e); aerr != nil {
		s.logger.Error("audit log write failed", "op", op, "err", aerr)
	}
}
