package httpapi

import "github.com/loci-memory/loci"

// AgentRule says how a key bound to one agent may use a route: the
// domain's loci.AgentBinding, the one enum the operations check.
type AgentRule = loci.AgentBinding

// The agent rules of a route (loci.AgentNamed, loci.AgentFree,
// loci.AgentDeny), by the names the route table uses.
const (
	AgentNamed = loci.AgentNamed
	AgentFree  = loci.AgentFree
	AgentDeny  = loci.AgentDeny
)

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
