package mcpserver

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// Roles and the audit log for MCP. Every tool call and resource read goes
// through guard (a receiving middleware): it checks the connection's key
// holds the tool's role and runs the call. The operations a call runs
// audit themselves (rules/), as coming through MCP; guard logs what it
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

// toolTable maps each tool of a tool set to the operation it serves, as
// its registration names it (addTool): a name may mean another tool in
// another set (the default set's update_memory edits any memory by id,
// the full set's a core memory block). It is read once per set from a
// server of the set on a connection with a user (which lists every tool
// of the set); its services are never called. A tool without an entry is
// admin-only.
func toolTable(set ToolSet) map[string]*loci.Operation {
	switch set {
	case ToolsDefault:
		return defaultToolTable()
	case ToolsAll:
		return allToolTable()
	}
	return nil
}

var (
	defaultToolTable = sync.OnceValue(func() map[string]*loci.Operation { return readToolTable(ToolsDefault) })
	allToolTable     = sync.OnceValue(func() map[string]*loci.Operation { return readToolTable(ToolsAll) })
)

// readToolTable registers the tools of set on a server that records their
// operations.
func readToolTable(set ToolSet) map[string]*loci.Operation {
	s := &server{ops: map[string]*loci.Operation{}, id: Identity{AgentID: "tools", UserID: "tools"}, tools: set,
		mcp: mcp.NewServer(&mcp.Implementation{Name: "loci"}, nil)}
	s.register()
	return s.ops
}

// resourceOp is the operation of reading the core memory resource (the
// agent's prompt).
var resourceOp = loci.OpAgentPrompt

// policyOf is the policy of a tool serving op.
func policyOf(op *loci.Operation) ToolPolicy { return ToolPolicy{Role: op.Role, Kind: op.Kind} }

// PolicyOfTool returns the policy of a tool of a set and whether the
// table has an entry for it; a tool without one is admin-only.
func PolicyOfTool(set ToolSet, name string) (ToolPolicy, bool) {
	op, ok := toolTable(set)[name]
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
		for _, op := range toolTable(set) {
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
