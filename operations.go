package loci

// Operation is one thing loci does, declared once: its name (and its name
// in the audit log), the kind it touches, the least role that may call it,
// how a key bound to one agent may call it, and its summary. Every
// transport and the rules derive what they need from it: the REST route's
// policy and its OpenAPI summary and roles (httpapi), the MCP tool's policy
// (mcpserver), the audit entry and the agent-binding check of the rule
// (memory), the role matrix of the tests. A route, a tool or a rule names
// its operation (loci.OpNoteRemember); nothing else restates these facts.
type Operation struct {
	// Name names the operation in the audit log and in code:
	// "kind.verb" ("note.remember"), or one word for an operation over
	// several kinds ("search", "export").
	Name string
	// Kind is the kind the operation touches, for the audit log; "" for
	// several or none.
	Kind Kind
	// Role is the least role that may call the operation; RolePublic (no
	// key needed even when authentication is on) for health, readiness,
	// the OpenAPI document and the inspector's files. A create-or-update
	// needs creator; the rule that finds the record already exists then
	// asks for editor (Authorize), so a creator may add but not overwrite.
	Role Role
	// Agent is how a key bound to one agent may call the operation; the
	// rule checks it against the agent it is given.
	Agent AgentBinding
	// Unaudited leaves the operation out of the audit log: health,
	// readiness, metrics, documents and the MCP endpoint (which audits per
	// tool call).
	Unaudited bool
	// Summary is the operation's one-line documentation (the OpenAPI
	// operation's summary).
	Summary string
}

// AuditName is the operation's name in the audit log; "" for an operation
// the audit log leaves out.
func (o *Operation) AuditName() string {
	if o.Unaudited {
		return ""
	}
	return o.Name
}

// RolePublic is the role of an operation that needs no key.
const RolePublic Role = ""

// operations is every declared operation, in declaration order.
var operations []*Operation

// declare adds op to the declared operations and returns it.
func declare(op Operation) *Operation {
	p := &op
	operations = append(operations, p)
	return p
}

// Operations returns every declared operation, in declaration order (the
// tests check each is served by a route, a tool or a rule, and each route
// and tool names one).
func Operations() []*Operation { return append([]*Operation(nil), operations...) }

// The operations of the transports themselves: health, readiness,
// metrics, the documents, MCP's endpoint, the inspector and the mem0 API.
// Each kind's operations are declared beside its service interface
// (OpNote… in note.go, OpFact… in fact.go, …): one declaration per line,
// the one place these facts live.
var (
	OpHealth          = declare(Operation{Name: "health", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "Liveness"})
	OpReady           = declare(Operation{Name: "ready", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "Readiness: reads are served; the state of writes"})
	OpMem0Ping        = declare(Operation{Name: "mem0.ping", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: check the key"})
	OpMem0Add         = declare(Operation{Name: "mem0.add", Role: RoleCreator, Agent: AgentFree, Summary: "mem0: add memories"})
	OpMem0Search      = declare(Operation{Name: "mem0.search", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: search memories"})
	OpMem0List        = declare(Operation{Name: "mem0.list", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: list memories"})
	OpMem0Get         = declare(Operation{Name: "mem0.get", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: get a memory"})
	OpMem0Update      = declare(Operation{Name: "mem0.update", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: update a memory"})
	OpMem0Delete      = declare(Operation{Name: "mem0.delete", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete a memory"})
	OpMem0DeleteAll   = declare(Operation{Name: "mem0.delete_all", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete the memories of a scope"})
	OpMem0History     = declare(Operation{Name: "mem0.history", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: the history of a memory"})
	OpMem0BatchUpdate = declare(Operation{Name: "mem0.batch_update", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: update memories in a batch"})
	OpMem0BatchDelete = declare(Operation{Name: "mem0.batch_delete", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete memories in a batch"})
	// A call of mem0's clients that loci does not serve answers 501
	// not_implemented, after the role its method asks for.
	OpMem0NotServedRead   = declare(Operation{Name: "mem0.not_served.read", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: a read loci does not serve (501)"})
	OpMem0NotServedWrite  = declare(Operation{Name: "mem0.not_served.write", Role: RoleCreator, Agent: AgentFree, Summary: "mem0: a write loci does not serve (501)"})
	OpMem0NotServedDelete = declare(Operation{Name: "mem0.not_served.delete", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: a delete loci does not serve (501)"})
	OpMetrics             = declare(Operation{Name: "metrics", Role: RoleViewer, Agent: AgentFree, Unaudited: true, Summary: "Prometheus metrics"})
	OpOpenAPI             = declare(Operation{Name: "openapi", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "This document"})
	OpMCP                 = declare(Operation{Name: "mcp", Role: RoleViewer, Agent: AgentFree, Unaudited: true, Summary: "The MCP endpoint (Streamable HTTP)"})
	OpInspector           = declare(Operation{Name: "inspector", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "The inspector UI"})
)
