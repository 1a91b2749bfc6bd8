package httpapi

import "github.com/loci-memory/loci"

// Policy is what the guard in front of every handler enforces for one
// route, derived from the operation its entry of the route table
// (routes.go) names (loci.Operation, declared in operations.go).
//
// Roles (docs/api.md, "Roles and agent binding"): viewer reads; creator also
// adds; editor also updates and deletes; admin also manages keys, wipes,
// maintenance, the audit log, export and import. A write that creates or
// updates (the PUTs of notes, blocks, working memory and sessions; observing a
// preference) needs creator; the rule that finds the record already exists
// then calls loci.Authorize(ctx, loci.RoleEditor), so a creator may add but
// not overwrite.
type Policy struct {
	// Role is the least role that may call the route; "" makes the route
	// public (no key needed even when authentication is on).
	Role loci.Role
	// Agent is how agent-bound keys are checked.
	Agent loci.AgentBinding
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

// fallbackPolicy applies to a route whose table entry names no operation:
// fail closed.
var fallbackPolicy = Policy{Role: admin, Agent: loci.AgentDeny, Op: "unlisted"}
