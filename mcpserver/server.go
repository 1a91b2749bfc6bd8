// Package mcpserver is loci's MCP transport: the memory tools of the Model
// Context Protocol, built with the official Go SDK, over loci's services.
//
// A server is bound to one Identity (an agent, optionally a user) for the
// whole connection. No tool takes an agent or user id as an argument, so a
// model can only ever reach the memory of the identity its connection was
// opened with: the stdio command's flags, or what an IdentityFunc resolved
// from an HTTP request.
//
// A server lists one tool set (ToolSet): by default a compact one
// (memories.go: remember, recall, add_memory, search_memory,
// update_memory, delete_memory), or, with WithTools(ToolsAll), every
// kind's own tools. Each kind's tools live in their own file (notes.go, …),
// which registers them itself (addTools); the tools that need a user are
// listed only on a connection with one.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/wire"
)

// Identity is who a connection acts for. It is fixed when the connection
// is opened and never comes from a tool argument.
type Identity struct {
	// AgentID is the agent whose memory the tools read and write. Required.
	AgentID string
	// UserID is the user the agent is serving, if any (for the kinds that
	// are scoped to a user).
	UserID string
	// Workspace is the tenant; empty means the context's (by default
	// loci.DefaultWorkspace).
	Workspace string
	// Principal is the API key the connection authenticated with (see
	// KeyIdentity): every call acts for it, so its role limits the tools
	// (PolicyOfTool) and the audit log names it. Nil for a trusted
	// connection: stdio, or HTTP with authentication off.
	Principal *loci.Principal
}

// same reports whether two identities are the same agent, user, workspace
// and key (an HTTP session is pinned to the identity that opened it).
func (id Identity) same(o Identity) bool {
	if id.AgentID != o.AgentID || id.UserID != o.UserID || id.Workspace != o.Workspace {
		return false
	}
	if id.Principal == nil || o.Principal == nil {
		return id.Principal == o.Principal
	}
	return *id.Principal == *o.Principal
}

// check validates an identity. EINVALID when the agent is missing or blank.
func (id Identity) check() error {
	if strings.TrimSpace(id.AgentID) == "" {
		return loci.Errorf(loci.EINVALID, "agent is required")
	}
	if id.UserID != "" && strings.TrimSpace(id.UserID) == "" {
		return loci.Errorf(loci.EINVALID, "user must not be blank")
	}
	if p := id.Principal; p != nil && p.AgentID != "" && p.AgentID != id.AgentID {
		return loci.Errorf(loci.EFORBIDDEN, "this key is bound to agent %s and cannot act for agent %s", p.AgentID, id.AgentID)
	}
	return nil
}

// Option configures a server.
type Option func(*config)

type config struct {
	logger  *slog.Logger
	version string
	schemas *mcp.SchemaCache
	audit   bool
	tools   ToolSet
}

// WithLogger sets the logger for internal errors (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithAudit turns the audit log of tool calls on or off (on by default):
// one entry per tool call and resource read.
func WithAudit(on bool) Option { return func(c *config) { c.audit = on } }

// WithVersion sets the version the server reports to clients (default "dev").
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// withSchemaCache shares inferred tool schemas between servers (the HTTP
// handler builds one server per session).
func withSchemaCache(sc *mcp.SchemaCache) Option { return func(c *config) { c.schemas = sc } }

func newConfig(opts []Option) *config {
	c := &config{logger: slog.Default(), version: "dev", audit: true, tools: ToolsDefault}
	for _, o := range opts {
		o(c)
	}
	return c
}

// server is one MCP server bound to one identity. It holds one field per
// service interface its tools call (each set by newServer, setServices);
// each tool group calls only its own.
type server struct {
	AgentSearchService loci.AgentSearchService
	AuditService       loci.AuditService
	BlockService       loci.BlockService
	EpisodeService     loci.EpisodeService
	FactService        loci.FactService
	MemoryService      loci.MemoryService
	NoteService        loci.NoteService
	PassageService     loci.PassageService
	PreferenceService  loci.PreferenceService
	ReviewService      loci.ReviewService
	UserMemoryService  loci.UserMemoryService
	WorkingService     loci.WorkingService

	// ops maps each tool registered to its operation, when the server
	// is built to read its tool table (toolTable); nil otherwise.
	ops map[string]*loci.Operation
	id  Identity
	// ranks is how searches rank (loci.RetrievalService), which the
	// tools' descriptions say: by words only, or by meaning and by words.
	ranks    loci.Retrieval
	logger   *slog.Logger
	mcp      *mcp.Server
	cfgAudit bool
	tools    ToolSet
}

// New returns an MCP server whose tools act on svc for the identity id.
// Serve it with its Run method on a transport (mcp.StdioTransport for
// stdio), or over HTTP with NewHandler. EINVALID when id has no agent.
func New(svc loci.Service, id Identity, opts ...Option) (*mcp.Server, error) {
	if err := id.check(); err != nil {
		return nil, err
	}
	c := newConfig(opts)
	return newServer(svc, id, c, c.tools, nil), nil
}

func newServer(svc loci.Service, id Identity, c *config, tools ToolSet, sessionID func() string) *mcp.Server {
	s := &server{id: id, logger: c.logger, cfgAudit: c.audit, tools: tools}
	if svc != nil {
		s.setServices(svc)
		s.ranks = svc.Retrieval()
	}
	instr := instructions(id, s.ranks)
	if tools != ToolsAll {
		instr = compactInstructions(id, s.ranks)
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "loci", Title: "loci memory", Version: c.version}, &mcp.ServerOptions{
		Instructions: instr,
		Logger:       c.logger,
		SchemaCache:  c.schemas,
		GetSessionID: sessionID,
	})
	s.mcp.AddReceivingMiddleware(s.guard, textContents)
	s.register()
	return s.mcp
}

// setServices sets each service field of the server (each exported field
// of an interface type, which svc implements) to svc (wire.Services), so
// that a kind's service is wired by declaring its field, not by a line
// here too.
func (s *server) setServices(svc loci.Service) { wire.Services(s, svc) }

// toolGroup is one file's tools: the function that adds them (the one
// named …Tools beside their handlers), the set that lists them, and
// whether they need a user.
type toolGroup struct {
	// set is the tool set that lists the group.
	set ToolSet
	// needsUser: the group is listed only on a connection with a user.
	needsUser bool
	// add adds the group's tools to a server.
	add func(*server)
}

// toolGroups are the tool groups of every file, each registered by its
// file with addTools.
var toolGroups []toolGroup

// addTools registers a file's tool group. Each file calls it once per
// group, in a package-level declaration
// (var _ = addTools(toolGroup{set: ToolsAll, add: (*server).noteTools})),
// so that a kind's tools are registered where they are declared and no
// list of files is kept.
func addTools(g toolGroup) bool {
	toolGroups = append(toolGroups, g)
	return true
}

// register adds the tools of the server's set: every group registered for
// it, but those that need a user on a connection without one. The order
// does not matter: a set names each tool once, and the SDK lists them by
// name.
func (s *server) register() {
	set := s.tools
	if set != ToolsAll {
		set = ToolsDefault
	}
	for _, g := range toolGroups {
		if g.set == set && (!g.needsUser || s.id.UserID != "") {
			g.add(s)
		}
	}
}

// instructions tells the model what the server is for and when to use
// each group of tools.
func instructions(id Identity, ranks loci.Retrieval) string {
	user := "This connection serves no user: the tools that need one (episodes, preferences, user context, review) are not offered, and facts are global knowledge."
	if strings.TrimSpace(id.UserID) != "" {
		user = "This connection serves user " + strings.TrimSpace(id.UserID) + ": episodes, facts and preferences are that user's."
	}
	return "loci is your long-term memory: what you store here survives across conversations and runs. " +
		"This connection is bound to agent " + strings.TrimSpace(id.AgentID) +
		"; every tool reads and writes that agent's memory only. " + user + "\n\n" +
		"Notes: remember stores an insight under a short descriptive key (storing again under the same key replaces it), " +
		"recall reads one key or lists everything, forget deletes a key. Store insights, not raw data dumps.\n\n" +
		"Core memory and archival memory: core memory (core_memory_read, update_memory; the resource " + CoreMemoryURI + ") is a few labelled blocks about yourself, " +
		"your relationships and your current state that sit in your prompt: keep them short and current. " +
		"store_memory keeps a longer passage (an event, a conversation, backstory) in archival memory, outside the prompt.\n\n" +
		"Working, episodic and long-term memory: set_working and get_working are the scratchpad of one task (task_id), gone after 24 hours; " +
		"record_episode logs what you did for the user and how it went, and find_similar_episodes finds past episodes like the task at hand; " +
		"store_fact keeps validated lasting knowledge (with a key, a new fact replaces the current one of that key, kept as history) and search_facts finds what is true now; " +
		"list_review lists the user's disputed facts and preferences flagged for removal, to ask the user about.\n\n" +
		"Search: search_memory searches all of the above at once, " + searchesBy(ranks) + ", best first; narrow it with kinds or tags.\n\n" +
		"Preferences and user context: call get_user_context at the start of a session to load the user's defaults, preferences and recent sessions, " +
		"and apply each preference by its tier; call observe_preference whenever the user states or shows a preference.\n\n" +
		"A tool may be refused with code forbidden when the key this connection uses does not allow it (a read-only key cannot write; " +
		"changing or deleting an existing memory needs an editor key)."
}

// searchesBy says how searches find memories: by meaning and by words
// with an embedding model, else by words only (a memory that says the
// same in other words is not found).
func searchesBy(r loci.Retrieval) string {
	if r.Hybrid() {
		return "by meaning and by words"
	}
	return "by words (the query's words, stemmed: a memory that says the same in other words is not found)"
}

// ctx returns the context a tool acts in: the identity's workspace and
// key.
func (s *server) ctx(ctx context.Context) context.Context {
	ctx = loci.WithVia(ctx, loci.ViaMCP)
	ws := s.id.Workspace
	if ws == "" && s.id.Principal != nil {
		ws = s.id.Principal.Workspace
	}
	if ws != "" {
		ctx = loci.WithWorkspace(ctx, ws)
	}
	if s.id.Principal != nil {
		ctx = loci.WithPrincipal(ctx, s.id.Principal)
	}
	return ctx
}

// addTool registers a typed tool serving operation op (its policy: the
// least role and the kind, loci.Operation) whose handler sees only its
// input: the SDK infers the input and output schemas from In and Out,
// validates the arguments, and returns Out as structured content (and as
// JSON text). A returned error becomes a tool error through toolError.
func addTool[In, Out any](s *server, op *loci.Operation, t *mcp.Tool, h func(ctx context.Context, in In) (Out, error)) {
	if s.ops != nil {
		s.ops[t.Name] = op
	}
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := h(s.ctx(ctx), in)
		if err != nil {
			var zero Out
			return nil, zero, s.toolError(t.Name, err)
		}
		return nil, out, nil
	})
}

// ToolError is a failed tool call as the client sees it: the result has
// isError set and its text is this envelope as JSON, the same envelope and
// message the REST API answers, e.g.
// {"success":false,"error":"Memory not found","code":"not_found"}.
type ToolError struct {
	Success bool   `json:"success"`
	Message string `json:"error"`
	Code    string `json:"code"`
}

// Error returns the envelope as JSON: the SDK puts it in the result's text.
func (e *ToolError) Error() string {
	b, _ := json.Marshal(e)
	return string(b)
}

// toolError maps err to the error a tool returns: the one place where the
// MCP transport maps domain errors. Internal errors are logged with their
// chain and shown as "internal error".
func (s *server) toolError(tool string, err error) error {
	code := loci.ErrorCode(err)
	if code == loci.EINTERNAL {
		s.logger.Error("mcp tool failed", "tool", tool, "agent", s.id.AgentID, "err", err)
	}
	return &ToolError{Success: false, Message: loci.ErrorMessage(err), Code: code}
}

// schemaOptions are how output schemas are inferred: times are RFC 3339
// strings.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
}}

// inputSchema infers the input schema of a tool from In, then lets tweak
// refine it (an enum, a bound). Call it once per tool, at package level.
func inputSchema[In any](tweak func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %T: %v", *new(In), err))
	}
	dropNull(s)
	if tweak != nil {
		tweak(s)
	}
	return s
}

// outputSchema infers the output schema of a tool from Out, then lets tweak
// refine it (an enum, a bound). Call it once per tool, at package level: the
// schema is shared by every server.
func outputSchema[Out any](tweak func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[Out](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %T: %v", *new(Out), err))
	}
	dropNull(s)
	if tweak != nil {
		tweak(s)
	}
	return s
}

// dropNull makes optional fields omitted, never null: it drops the "null"
// that inference gives pointers and slices (a type list also confuses some
// models' tool calling).
func dropNull(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
}

func ptr[T any](v T) *T { return &v }

// needUserMessage is the tool error of a user-scoped tool on a connection
// opened without a user.
const needUserMessage = "this tool needs a user, and this connection has none: start loci mcp with --user ID, or open the HTTP session with the X-Loci-User header (or ?user=ID)"

// needUser returns EINVALID when the connection has no user.
func (s *server) needUser() error {
	if s.id.UserID == "" {
		return loci.Errorf(loci.EINVALID, needUserMessage)
	}
	return nil
}

func searchQueryError(err error) error {
	if loci.ErrorCode(err) == loci.EINVALID && loci.ErrorMessage(err) == "q must contain at least one word" {
		return loci.Errorf(loci.EINVALID, "query must contain at least one word")
	}
	return err
}
