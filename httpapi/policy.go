package httpapi

import "github.com/loci-memory/loci"

// AgentRule says how a key bound to one agent may use a route.
type AgentRule int

const (
	// AgentNamed: the route names its agent (path, query or body
	// agent_id) and handlers filter by it; a bound key must name its own
	// agent. The zero value, so a forgotten field fails closed.
	AgentNamed AgentRule = iota
	// AgentFree: the route holds no agent-owned data (user preferences,
	// sessions, global facts, metrics); a bound key may call it, and any
	// agent_id it names must still be its own.
	AgentFree
	// AgentDeny: the route spans agents (or cannot be checked
	// generically); bound keys get 403.
	AgentDeny
)

// String names the rule as the OpenAPI document does
// (x-loci-agent-binding): named, free or deny.
func (r AgentRule) String() string {
	switch r {
	case AgentNamed:
		return "named"
	case AgentFree:
		return "free"
	case AgentDeny:
		return "deny"
	}
	return "unknown"
}

// Policy is what the guard in front of every handler enforces for one
// route; each entry of the route table (routes.go) sets its route's.
//
// Roles (seed 000): viewer reads; creator also adds; editor also updates
// and deletes; admin also manages keys, wipes, maintenance, the audit log,
// export and import. A write that creates or updates (the PUTs of notes,
// blocks, working memory and sessions; observing a preference) needs
// creator; the rule that finds the record already exists then calls
// loci.Authorize(ctx, loci.RoleEditor), so a creator may add but not
// overwrite.
type Policy struct {
	// Role is the least role that may call the route; "" makes the route
	// public (no key needed even when authentication is on).
	Role loci.Role
	// Agent is how agent-bound keys are checked.
	Agent AgentRule
	// Kind is the kind the route touches, for the audit log; "" for
	// several or none.
	Kind loci.Kind
	// Op names the operation in the audit log; "" leaves the route out
	// of the audit log (health, metrics, MCP, which audits per tool call).
	Op string
	// Stream marks a route whose handler reads a large, non-JSON body
	// itself (import): the guard neither buffers nor checks it.
	Stream bool
}

// Shorthands for the table.
const (
	viewer  = loci.RoleViewer
	creator = loci.RoleCreator
	editor  = loci.RoleEditor
	admin   = loci.RoleAdmin
	public  = loci.Role("")
)

// fallbackPolicy applies to a route whose table entry has no policy (the
// zero Policy): fail closed.
var fallbackPolicy = Policy{Role: admin, Agent: AgentDeny, Op: "unlisted"}
