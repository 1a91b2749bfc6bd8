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

// The operations, grouped as the REST API groups them. The table is one
// declaration per line on purpose: it is the one place these facts live.
var (
	OpHealth               = declare(Operation{Name: "health", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "Liveness"})
	OpReady                = declare(Operation{Name: "ready", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "Readiness: reads are served; the state of writes"})
	OpMemoryAdd            = declare(Operation{Name: "memory.add", Role: RoleCreator, Agent: AgentFree, Summary: "Add a memory"})
	OpMemoryBatch          = declare(Operation{Name: "memory.batch", Role: RoleCreator, Agent: AgentFree, Summary: "Add, update and delete memories in one transaction"})
	OpMemoryGet            = declare(Operation{Name: "memory.get", Role: RoleViewer, Agent: AgentFree, Summary: "One memory of any kind"})
	OpMemoryUpdate         = declare(Operation{Name: "memory.update", Role: RoleEditor, Agent: AgentFree, Summary: "Change a memory in place, keeping history"})
	OpMemoryDelete         = declare(Operation{Name: "memory.delete", Role: RoleEditor, Agent: AgentFree, Summary: "Delete a memory of any kind"})
	OpMemoryHistory        = declare(Operation{Name: "memory.history", Role: RoleViewer, Agent: AgentFree, Summary: "Every value a memory has had, newest first"})
	OpMem0Ping             = declare(Operation{Name: "mem0.ping", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: check the key"})
	OpMem0Add              = declare(Operation{Name: "mem0.add", Role: RoleCreator, Agent: AgentFree, Summary: "mem0: add memories"})
	OpMem0Search           = declare(Operation{Name: "mem0.search", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: search memories"})
	OpMem0List             = declare(Operation{Name: "mem0.list", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: list memories"})
	OpMem0Get              = declare(Operation{Name: "mem0.get", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: get a memory"})
	OpMem0Update           = declare(Operation{Name: "mem0.update", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: update a memory"})
	OpMem0Delete           = declare(Operation{Name: "mem0.delete", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete a memory"})
	OpMem0DeleteAll        = declare(Operation{Name: "mem0.delete_all", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete the memories of a scope"})
	OpMem0History          = declare(Operation{Name: "mem0.history", Role: RoleViewer, Agent: AgentFree, Summary: "mem0: the history of a memory"})
	OpMem0BatchUpdate      = declare(Operation{Name: "mem0.batch_update", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: update memories in a batch"})
	OpMem0BatchDelete      = declare(Operation{Name: "mem0.batch_delete", Role: RoleEditor, Agent: AgentFree, Summary: "mem0: delete memories in a batch"})
	OpNoteRemember         = declare(Operation{Name: "note.remember", Kind: KindNote, Role: RoleCreator, Agent: AgentNamed, Summary: "Remember a note"})
	OpNoteRecall           = declare(Operation{Name: "note.recall", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Recall a note"})
	OpNoteRecallAll        = declare(Operation{Name: "note.recall_all", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Recall every note of an agent"})
	OpNoteForget           = declare(Operation{Name: "note.forget", Kind: KindNote, Role: RoleEditor, Agent: AgentNamed, Summary: "Forget a note"})
	OpNoteHistory          = declare(Operation{Name: "note.history", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Every value a note has had"})
	OpAgentCreate          = declare(Operation{Name: "agent.create", Role: RoleCreator, Agent: AgentDeny, Summary: "Create an agent"})
	OpAgentList            = declare(Operation{Name: "agent.list", Role: RoleViewer, Agent: AgentDeny, Summary: "List agents"})
	OpAgentGet             = declare(Operation{Name: "agent.get", Role: RoleViewer, Agent: AgentNamed, Summary: "Get an agent"})
	OpAgentDelete          = declare(Operation{Name: "agent.delete", Role: RoleEditor, Agent: AgentNamed, Summary: "Delete an agent and everything it owns"})
	OpBlockList            = declare(Operation{Name: "block.list", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "List an agent's blocks"})
	OpBlockCreate          = declare(Operation{Name: "block.create", Kind: KindBlock, Role: RoleCreator, Agent: AgentNamed, Summary: "Create a block"})
	OpBlockGet             = declare(Operation{Name: "block.get", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a block"})
	OpBlockPut             = declare(Operation{Name: "block.put", Kind: KindBlock, Role: RoleCreator, Agent: AgentNamed, Summary: "Create or replace a block's content"})
	OpBlockHistory         = declare(Operation{Name: "block.history", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "Every content a block has had"})
	OpBlockAttach          = declare(Operation{Name: "block.attach", Kind: KindBlock, Role: RoleEditor, Agent: AgentDeny, Summary: "Attach a shared block to an agent"})
	OpBlockDetach          = declare(Operation{Name: "block.detach", Kind: KindBlock, Role: RoleEditor, Agent: AgentNamed, Summary: "Detach a shared block from an agent"})
	OpBlockConsumers       = declare(Operation{Name: "block.consumers", Kind: KindBlock, Role: RoleViewer, Agent: AgentFree, Summary: "The agents a shared block is attached to"})
	OpAgentPrompt          = declare(Operation{Name: "agent.prompt", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "The agent's blocks as prompt text"})
	OpPassageAdd           = declare(Operation{Name: "passage.add", Kind: KindPassage, Role: RoleCreator, Agent: AgentNamed, Summary: "Add an archival passage"})
	OpPassageList          = declare(Operation{Name: "passage.list", Kind: KindPassage, Role: RoleViewer, Agent: AgentNamed, Summary: "List passages, newest first"})
	OpPassageSearch        = declare(Operation{Name: "passage.search", Kind: KindPassage, Role: RoleViewer, Agent: AgentNamed, Summary: "Search passages"})
	OpPassageDelete        = declare(Operation{Name: "passage.delete", Kind: KindPassage, Role: RoleEditor, Agent: AgentNamed, Summary: "Delete a passage"})
	OpSessionPut           = declare(Operation{Name: "session.put", Kind: KindSession, Role: RoleCreator, Agent: AgentFree, Summary: "Store or replace a session"})
	OpSessionAppend        = declare(Operation{Name: "session.append", Kind: KindSession, Role: RoleCreator, Agent: AgentFree, Summary: "Append a message to a session"})
	OpSessionGet           = declare(Operation{Name: "session.get", Kind: KindSession, Role: RoleViewer, Agent: AgentFree, Summary: "Get a session with its messages"})
	OpSessionDelete        = declare(Operation{Name: "session.delete", Kind: KindSession, Role: RoleEditor, Agent: AgentFree, Summary: "Delete a session"})
	OpSessionList          = declare(Operation{Name: "session.list", Kind: KindSession, Role: RoleViewer, Agent: AgentFree, Summary: "List a user's sessions (metadata only)"})
	OpWorkingSet           = declare(Operation{Name: "working.set", Kind: KindWorking, Role: RoleCreator, Agent: AgentNamed, Summary: "Set a working memory value"})
	OpWorkingGet           = declare(Operation{Name: "working.get", Kind: KindWorking, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a working memory value"})
	OpWorkingGetAll        = declare(Operation{Name: "working.get_all", Kind: KindWorking, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a task's working memory"})
	OpWorkingDelete        = declare(Operation{Name: "working.delete", Kind: KindWorking, Role: RoleEditor, Agent: AgentNamed, Summary: "Delete one working memory value"})
	OpWorkingClear         = declare(Operation{Name: "working.clear", Kind: KindWorking, Role: RoleEditor, Agent: AgentNamed, Summary: "Clear a task's working memory"})
	OpEpisodeRecord        = declare(Operation{Name: "episode.record", Kind: KindEpisode, Role: RoleCreator, Agent: AgentNamed, Summary: "Record an episode"})
	OpEpisodeSearch        = declare(Operation{Name: "episode.search", Kind: KindEpisode, Role: RoleViewer, Agent: AgentNamed, Summary: "Similar past episodes"})
	OpEpisodeList          = declare(Operation{Name: "episode.list", Kind: KindEpisode, Role: RoleViewer, Agent: AgentNamed, Summary: "Recent episodes, newest first"})
	OpEpisodeFeedback      = declare(Operation{Name: "episode.feedback", Kind: KindEpisode, Role: RoleEditor, Agent: AgentDeny, Summary: "Attach user feedback to an episode"})
	OpFactAdd              = declare(Operation{Name: "fact.add", Kind: KindFact, Role: RoleCreator, Agent: AgentFree, Summary: "Store a fact"})
	OpFactSearch           = declare(Operation{Name: "fact.search", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Search facts"})
	OpFactList             = declare(Operation{Name: "fact.list", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Facts with a keyword, by relevance"})
	OpFactValidate         = declare(Operation{Name: "fact.validate", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Validate a fact"})
	OpFactContradict       = declare(Operation{Name: "fact.contradict", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Contradict a fact"})
	OpMaintenance          = declare(Operation{Name: "maintenance", Role: RoleAdmin, Agent: AgentDeny, Summary: "Run maintenance"})
	OpFactGet              = declare(Operation{Name: "fact.get", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "One fact"})
	OpFactDelete           = declare(Operation{Name: "fact.delete", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Delete a fact"})
	OpFactHistory          = declare(Operation{Name: "fact.history", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Every version of a fact's key"})
	OpFactInvalidate       = declare(Operation{Name: "fact.invalidate", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Mark a fact no longer true"})
	OpFactResolve          = declare(Operation{Name: "fact.resolve", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Resolve a disputed fact"})
	OpEpisodeGet           = declare(Operation{Name: "episode.get", Kind: KindEpisode, Role: RoleViewer, Agent: AgentDeny, Summary: "One episode"})
	OpEpisodeDelete        = declare(Operation{Name: "episode.delete", Kind: KindEpisode, Role: RoleEditor, Agent: AgentDeny, Summary: "Delete an episode"})
	OpPreferenceObserve    = declare(Operation{Name: "preference.observe", Kind: KindPreference, Role: RoleCreator, Agent: AgentFree, Summary: "Observe a preference"})
	OpPreferenceList       = declare(Operation{Name: "preference.list", Kind: KindPreference, Role: RoleViewer, Agent: AgentFree, Summary: "List a user's preferences"})
	OpPreferenceUse        = declare(Operation{Name: "preference.use", Kind: KindPreference, Role: RoleCreator, Agent: AgentFree, Summary: "Record a use of a preference"})
	OpPreferenceConfirm    = declare(Operation{Name: "preference.confirm", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Confirm a preference"})
	OpPreferenceContradict = declare(Operation{Name: "preference.contradict", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Contradict a preference"})
	OpPreferenceResolve    = declare(Operation{Name: "preference.resolve", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Resolve a preference flagged for removal"})
	OpPreferenceClear      = declare(Operation{Name: "preference.clear", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Clear a user's preferences"})
	OpPreferenceForget     = declare(Operation{Name: "preference.forget", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Forget one preference"})
	OpUserContext          = declare(Operation{Name: "user.context", Role: RoleViewer, Agent: AgentFree, Summary: "Session start: a user's preferences and recent sessions"})
	OpUserMemories         = declare(Operation{Name: "user.memories", Role: RoleViewer, Agent: AgentDeny, Summary: "Everything remembered about a user"})
	OpUserReview           = declare(Operation{Name: "user.review", Role: RoleViewer, Agent: AgentFree, Summary: "What waits for review"})
	OpUserForget           = declare(Operation{Name: "user.forget", Role: RoleEditor, Agent: AgentDeny, Summary: "Forget what matches"})
	OpUserDelete           = declare(Operation{Name: "user.delete", Role: RoleEditor, Agent: AgentDeny, Summary: "Delete everything about a user"})
	OpKeyCreate            = declare(Operation{Name: "key.create", Role: RoleAdmin, Agent: AgentDeny, Summary: "Create an API key"})
	OpKeyList              = declare(Operation{Name: "key.list", Role: RoleAdmin, Agent: AgentDeny, Summary: "List the workspace's active keys"})
	OpKeyRevoke            = declare(Operation{Name: "key.revoke", Role: RoleAdmin, Agent: AgentDeny, Summary: "Revoke an API key"})
	OpAuditRead            = declare(Operation{Name: "audit.read", Role: RoleAdmin, Agent: AgentDeny, Summary: "The access log"})
	OpExport               = declare(Operation{Name: "export", Role: RoleAdmin, Agent: AgentDeny, Summary: "Export the workspace as JSON Lines"})
	OpImport               = declare(Operation{Name: "import", Role: RoleAdmin, Agent: AgentDeny, Summary: "Import JSON Lines written by export"})
	OpMetrics              = declare(Operation{Name: "metrics", Role: RoleViewer, Agent: AgentFree, Unaudited: true, Summary: "Prometheus metrics"})
	OpOpenapi              = declare(Operation{Name: "openapi", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "This document"})
	OpMcp                  = declare(Operation{Name: "mcp", Role: RoleViewer, Agent: AgentFree, Unaudited: true, Summary: "The MCP endpoint (Streamable HTTP)"})
	OpSearch               = declare(Operation{Name: "search", Role: RoleViewer, Agent: AgentNamed, Summary: "Hybrid search across kinds"})
	OpUserList             = declare(Operation{Name: "user.list", Role: RoleViewer, Agent: AgentDeny, Summary: "List users, newest first"})
	OpStats                = declare(Operation{Name: "stats", Role: RoleViewer, Agent: AgentNamed, Summary: "An overview of the memory"})
	OpMemoryList           = declare(Operation{Name: "memory.list", Role: RoleViewer, Agent: AgentNamed, Summary: "Memories of every kind, newest first (a timeline)"})
	OpKeyWhoami            = declare(Operation{Name: "key.whoami", Role: RoleViewer, Agent: AgentFree, Summary: "The caller's key: its role and bound agent"})
	OpInspector            = declare(Operation{Name: "inspector", Role: RolePublic, Agent: AgentFree, Unaudited: true, Summary: "The inspector UI"})
	OpMemorySearch         = declare(Operation{Name: "memory.search", Role: RoleViewer, Agent: AgentNamed, Summary: "Search an agent's memory (MCP search_memory)"})
	OpAuditPrune           = declare(Operation{Name: "audit.prune", Role: RoleAdmin, Agent: AgentDeny, Summary: "Prune the audit log"})
	OpEmbeddingReindex     = declare(Operation{Name: "embedding.reindex", Role: RoleAdmin, Agent: AgentDeny, Summary: "Reindex embeddings"})
)
