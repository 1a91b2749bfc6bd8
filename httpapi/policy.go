package httpapi

import (
	"slices"

	"github.com/loci-memory/loci"
)

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

// Policy is what the guard in front of every handler enforces for one
// route.
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

// policies is the one policy table, keyed by the pattern a route is
// registered with ("METHOD /path/{wildcards}"). Every registered route
// must have an entry (TestPolicyCoversEveryRoute); a route without one is
// admin-only and denied to bound keys.
//
// Roles (seed 000): viewer reads; creator also adds; editor also updates
// and deletes; admin also manages keys, wipes, maintenance, the audit log,
// export and import. A write that creates or updates (the PUTs of notes,
// blocks, working memory and sessions; observing a preference) needs
// creator here; the rule that finds the record already exists then calls
// loci.Authorize(ctx, loci.RoleEditor), so a creator may add but not
// overwrite.
//
// The entries below the notes follow API.md for routes other issues add;
// adjust them with their handlers.
var policies = map[string]Policy{
	"GET /healthz":         {Role: public, Agent: AgentFree},
	"GET /readyz":          {Role: public, Agent: AgentFree},
	"GET /metrics":         {Role: viewer, Agent: AgentFree},
	"GET /v1/openapi.json": {Role: public, Agent: AgentFree},
	"GET /{$}":             {Role: public, Agent: AgentFree},
	"GET /ui/{asset}":      {Role: public, Agent: AgentFree},
	"GET /mcp":             {Role: viewer, Agent: AgentFree},
	"POST /mcp":            {Role: viewer, Agent: AgentFree},
	"DELETE /mcp":          {Role: viewer, Agent: AgentFree},
	"GET /v1/audit":        {Role: admin, Agent: AgentDeny, Op: "audit.read"},
	"GET /v1/export":       {Role: admin, Agent: AgentDeny, Op: "export"},
	"POST /v1/import":      {Role: admin, Agent: AgentDeny, Op: "import", Stream: true},
	"POST /v1/keys":        {Role: admin, Agent: AgentDeny, Op: "key.create"},
	"GET /v1/keys":         {Role: admin, Agent: AgentDeny, Op: "key.list"},
	"DELETE /v1/keys/{id}": {Role: admin, Agent: AgentDeny, Op: "key.revoke"},
	"POST /v1/maintenance": {Role: admin, Agent: AgentDeny, Op: "maintenance"},
	"POST /v1/search":      {Role: viewer, Agent: AgentNamed, Op: "search"},

	// Notes (seed 000).
	"PUT /v1/agents/{agent_id}/notes/{key}":         {Role: creator, Kind: loci.KindNote, Op: "note.remember"},
	"GET /v1/agents/{agent_id}/notes/{key}":         {Role: viewer, Kind: loci.KindNote, Op: "note.recall"},
	"GET /v1/agents/{agent_id}/notes":               {Role: viewer, Kind: loci.KindNote, Op: "note.recall_all"},
	"DELETE /v1/agents/{agent_id}/notes/{key}":      {Role: editor, Kind: loci.KindNote, Op: "note.forget"},
	"GET /v1/agents/{agent_id}/notes/{key}/history": {Role: viewer, Kind: loci.KindNote, Op: "note.history"},
	// An empty key ("…/notes/") reaches the handlers so that it gets 400.
	"PUT /v1/agents/{agent_id}/notes/{$}":    {Role: creator, Kind: loci.KindNote, Op: "note.remember"},
	"GET /v1/agents/{agent_id}/notes/{$}":    {Role: viewer, Kind: loci.KindNote, Op: "note.recall"},
	"DELETE /v1/agents/{agent_id}/notes/{$}": {Role: editor, Kind: loci.KindNote, Op: "note.forget"},

	// Agents and core memory blocks (seed 002). Attaching puts one
	// agent's shared block into another agent's memory: it spans two
	// agents, so bound keys are denied. Detaching changes only the
	// consumer the path names. Listing consumers names the block by id:
	// the rule lets a bound key list those of its own agent's blocks only.
	"POST /v1/agents":                                   {Role: creator, Agent: AgentDeny, Op: "agent.create"},
	"GET /v1/agents":                                    {Role: viewer, Agent: AgentDeny, Op: "agent.list"},
	"GET /v1/agents/{agent_id}":                         {Role: viewer, Op: "agent.get"},
	"DELETE /v1/agents/{agent_id}":                      {Role: editor, Op: "agent.delete"},
	"GET /v1/agents/{agent_id}/prompt":                  {Role: viewer, Kind: loci.KindBlock, Op: "agent.prompt"},
	"GET /v1/agents/{agent_id}/blocks/{label}/history":  {Role: viewer, Kind: loci.KindBlock, Op: "block.history"},
	"GET /v1/agents/{agent_id}/blocks":                  {Role: viewer, Kind: loci.KindBlock, Op: "block.list"},
	"GET /v1/agents/{agent_id}/blocks/{label}":          {Role: viewer, Kind: loci.KindBlock, Op: "block.get"},
	"PUT /v1/agents/{agent_id}/blocks/{label}":          {Role: creator, Kind: loci.KindBlock, Op: "block.put"},
	"POST /v1/agents/{agent_id}/blocks":                 {Role: creator, Kind: loci.KindBlock, Op: "block.create"},
	"PUT /v1/blocks/{block_id}/consumers/{agent_id}":    {Role: editor, Agent: AgentDeny, Kind: loci.KindBlock, Op: "block.attach"},
	"DELETE /v1/blocks/{block_id}/consumers/{agent_id}": {Role: editor, Kind: loci.KindBlock, Op: "block.detach"},
	"GET /v1/blocks/{block_id}/consumers":               {Role: viewer, Agent: AgentFree, Kind: loci.KindBlock, Op: "block.consumers"},

	// Archival passages (seed 002).
	"POST /v1/agents/{agent_id}/passages":        {Role: creator, Kind: loci.KindPassage, Op: "passage.add"},
	"GET /v1/agents/{agent_id}/passages":         {Role: viewer, Kind: loci.KindPassage, Op: "passage.list"},
	"GET /v1/agents/{agent_id}/passages/search":  {Role: viewer, Kind: loci.KindPassage, Op: "passage.search"},
	"DELETE /v1/agents/{agent_id}/passages/{id}": {Role: editor, Kind: loci.KindPassage, Op: "passage.delete"},

	// Working, episodic and long-term memory (seed 003). The working
	// memory handlers narrow a task to the agent_id of the query (the
	// body of a PUT), so a bound key names its own agent there. Feedback
	// names an episode by id only: bound keys are denied.
	"PUT /v1/tasks/{task_id}/working/{key}": {Role: creator, Kind: loci.KindWorking, Op: "working.set"},
	"GET /v1/tasks/{task_id}/working/{key}": {Role: viewer, Kind: loci.KindWorking, Op: "working.get"},
	"GET /v1/tasks/{task_id}/working":       {Role: viewer, Kind: loci.KindWorking, Op: "working.get_all"},
	"DELETE /v1/tasks/{task_id}/working":    {Role: editor, Kind: loci.KindWorking, Op: "working.clear"},
	"POST /v1/episodes":                     {Role: creator, Kind: loci.KindEpisode, Op: "episode.record"},
	"GET /v1/episodes/search":               {Role: viewer, Kind: loci.KindEpisode, Op: "episode.search"},
	"GET /v1/episodes":                      {Role: viewer, Kind: loci.KindEpisode, Op: "episode.list"},
	"POST /v1/episodes/{id}/feedback":       {Role: editor, Agent: AgentDeny, Kind: loci.KindEpisode, Op: "episode.feedback"},
	"POST /v1/facts":                        {Role: creator, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.add"},
	"GET /v1/facts/search":                  {Role: viewer, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.search"},
	"GET /v1/facts":                         {Role: viewer, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.list"},
	"POST /v1/facts/{id}/validate":          {Role: editor, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.validate"},
	"POST /v1/facts/{id}/contradict":        {Role: editor, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.contradict"},
	// Facts that change over time (issue 13). A fact is named by id and
	// is not owned by an agent (its agent_id says who stored it), so
	// these are free to bound keys, like validate and contradict; deleting
	// one, global facts included, needs editor. An episode named by id
	// only cannot be checked against a bound key's agent: denied, like
	// feedback.
	"GET /v1/facts/{id}":             {Role: viewer, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.get"},
	"DELETE /v1/facts/{id}":          {Role: editor, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.delete"},
	"GET /v1/facts/{id}/history":     {Role: viewer, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.history"},
	"POST /v1/facts/{id}/invalidate": {Role: editor, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.invalidate"},
	"POST /v1/facts/{id}/resolve":    {Role: editor, Agent: AgentFree, Kind: loci.KindFact, Op: "fact.resolve"},
	"GET /v1/episodes/{id}":          {Role: viewer, Agent: AgentDeny, Kind: loci.KindEpisode, Op: "episode.get"},
	"DELETE /v1/episodes/{id}":       {Role: editor, Agent: AgentDeny, Kind: loci.KindEpisode, Op: "episode.delete"},

	// Preferences, sessions and conversations (seeds 001 and 004): about
	// users, not owned by agents.
	"POST /v1/users/{user_id}/preferences":                   {Role: creator, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.observe"},
	"GET /v1/users/{user_id}/preferences":                    {Role: viewer, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.list"},
	"POST /v1/users/{user_id}/preferences/{type}/use":        {Role: creator, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.use"},
	"POST /v1/users/{user_id}/preferences/{type}/confirm":    {Role: editor, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.confirm"},
	"POST /v1/users/{user_id}/preferences/{type}/contradict": {Role: editor, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.contradict"},
	"POST /v1/users/{user_id}/preferences/{type}/resolve":    {Role: editor, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.resolve"},
	"GET /v1/users/{user_id}/review":                         {Role: viewer, Agent: AgentFree, Op: "user.review"},
	"DELETE /v1/users/{user_id}/preferences":                 {Role: editor, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.clear"},
	"DELETE /v1/users/{user_id}/preferences/{type}":          {Role: editor, Agent: AgentFree, Kind: loci.KindPreference, Op: "preference.forget"},
	"GET /v1/users/{user_id}/context":                        {Role: viewer, Agent: AgentFree, Op: "user.context"},
	"PUT /v1/sessions/{session_id}":                          {Role: creator, Agent: AgentFree, Kind: loci.KindSession, Op: "session.put"},
	"POST /v1/sessions/{session_id}/messages":                {Role: creator, Agent: AgentFree, Kind: loci.KindSession, Op: "session.append"},
	"GET /v1/sessions/{session_id}":                          {Role: viewer, Agent: AgentFree, Kind: loci.KindSession, Op: "session.get"},
	"DELETE /v1/sessions/{session_id}":                       {Role: editor, Agent: AgentFree, Kind: loci.KindSession, Op: "session.delete"},
	"GET /v1/users/{user_id}/sessions":                       {Role: viewer, Agent: AgentFree, Kind: loci.KindSession, Op: "session.list"},
	"GET /v1/users/{user_id}/memories":                       {Role: viewer, Agent: AgentDeny, Op: "user.memories"},
	"POST /v1/users/{user_id}/forget":                        {Role: editor, Agent: AgentDeny, Op: "user.forget"},
	"DELETE /v1/users/{user_id}":                             {Role: editor, Agent: AgentDeny, Op: "user.delete"},

	// The overview (the inspector's first page). The user list and the
	// workspace's stats span agents: a bound key gets its own agent's
	// stats and timeline by naming it. Who-am-I reads no memory: it is
	// not audited.
	"GET /v1/users":    {Role: viewer, Agent: AgentDeny, Op: "user.list"},
	"GET /v1/stats":    {Role: viewer, Agent: AgentNamed, Op: "stats"},
	"GET /v1/memories": {Role: viewer, Agent: AgentNamed, Op: "memory.list"},
	"GET /v1/whoami":   {Role: viewer, Agent: AgentFree, Op: "key.whoami"},
}

// fallbackPolicy applies to a route missing from the table: fail closed.
var fallbackPolicy = Policy{Role: admin, Agent: AgentDeny, Op: "unlisted"}

// PolicyKeys returns the routes the policy table has entries for, sorted.
func PolicyKeys() []string {
	keys := make([]string, 0, len(policies))
	for k := range policies {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// PolicyOf returns the policy of a registered pattern and whether the
// table has an entry for it.
func PolicyOf(pattern string) (Policy, bool) {
	p, ok := policies[pattern]
	if !ok {
		return fallbackPolicy, false
	}
	return p, true
}
