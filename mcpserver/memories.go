package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The default tool set: remember and recall, and one verb set over every kind
// through the memories API (loci.MemoryService): add_memory, search_memory,
// update_memory, delete_memory.
//
// Scope comes from the connection, never from an argument. add_memory
// writes the connection's agent's memory (about its user, when it has
// one); update_memory and delete_memory reach only what search_memory can
// find: the agent's records about no user or about the connection's user,
// and that user's own records. Anything else is "memory not found", as if
// absent.

var _ = addTools(toolGroup{set: ToolsDefault, add: (*server).compactTools})

// compactTools adds the default set.
func (s *server) compactTools() {
	s.seedNoteTools()
	addTool(s, loci.OpMemoryAdd, &mcp.Tool{
		Name:  "add_memory",
		Title: "Add memory",
		Description: "Store something worth remembering in later conversations and runs: a conclusion, a decision, a fact about the user or the work. " +
			"Adding the same content again changes nothing (event NOOP). With a key, new content replaces the key's current memory, " +
			"which is kept as history (event UPDATE). Attach metadata to find it again with search_memory's filters; ttl_seconds makes it expire.",
		InputSchema:  addMemoryInputSchema,
		OutputSchema: memoryEventOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.addMemory)
	s.findTool()
	addTool(s, loci.OpMemoryUpdate, &mcp.Tool{
		Name:  "update_memory",
		Title: "Update memory",
		Description: "Change a memory found with search_memory, by its id: its content, tags, metadata or time to live. " +
			"The previous value is kept as history; the same values again change nothing (event NOOP). An unknown id is an error \"memory not found\".",
		InputSchema:  patchMemoryInputSchema,
		OutputSchema: memoryEventOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.patchMemory)
	addTool(s, loci.OpMemoryDelete, &mcp.Tool{
		Name:  "delete_memory",
		Title: "Delete memory",
		Description: "Delete a memory found with search_memory, by its id, when it is wrong or no longer wanted. " +
			"An unknown id is an error \"memory not found\".",
		InputSchema:  deleteMemoryInputSchema,
		OutputSchema: deleteMemoryOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.deleteMemory)
	s.coreMemoryResource()
}

// compactInstructions tells the model what the default set is for.
func compactInstructions(id Identity, ranks loci.Retrieval) string {
	user := "This connection serves no user: what you add is your own memory."
	if u := strings.TrimSpace(id.UserID); u != "" {
		user = "This connection serves user " + u + ": what you add is about that user, and you also find the user's own records."
	}
	return "loci is your long-term memory: what you store here survives across conversations and runs. " +
		"This connection is bound to agent " + strings.TrimSpace(id.AgentID) + "; every tool reads and writes that agent's memory only. " + user + "\n\n" +
		"remember and recall keep short notes under keys you choose. add_memory stores a memory; search_memory finds memories " + searchesBy(ranks) + ", " +
		"narrowed by filters on metadata and fields; update_memory and delete_memory change or remove a memory by the id search_memory returns. " +
		"Store conclusions, not raw data dumps.\n\n" +
		"A tool may be refused with code forbidden when the key this connection uses does not allow it (a read-only key cannot write; " +
		"changing or deleting a memory needs an editor key)."
}

// AddMemoryInput is the input of add_memory.
type AddMemoryInput struct {
	Content    string          `json:"content" jsonschema:"What to remember, as text. Required."`
	Kind       string          `json:"kind,omitempty" jsonschema:"fact (the default): a piece of knowledge; passage: a longer text such as an event or a conversation; note: a value under a key, as remember stores. A connection with a user stores facts about that user; passages and notes are always yours alone."`
	Key        string          `json:"key,omitempty" jsonschema:"A stable name for something that changes over time, e.g. preferred_language. New content under the same key replaces the current one. Required for a note; a passage has none."`
	Tags       []string        `json:"tags,omitempty" jsonschema:"Words to find it by."`
	Metadata   json.RawMessage `json:"metadata,omitempty" jsonschema:"Your own fields, e.g. {\"project\": \"billing\", \"priority\": 2}: at most 32 keys (1-64 bytes, any characters but '.' and control characters), values any JSON (objects nested up to 4 levels), 4 KB in all. Not searched as text: filter on it (metadata.project, or metadata.a.b for a nested value)."`
	TTLSeconds *int64          `json:"ttl_seconds,omitempty" jsonschema:"Forget it this many seconds from now. Omit to keep it."`
}

// MemoryEventOutput is what add_memory and update_memory did.
type MemoryEventOutput struct {
	Success  bool   `json:"success" jsonschema:"true when the call succeeded"`
	ID       string `json:"id" jsonschema:"the memory's id (after an UPDATE of a keyed memory, its new current version)"`
	Kind     string `json:"kind" jsonschema:"its kind"`
	Event    string `json:"event" jsonschema:"ADD: stored; UPDATE: changed (the old value kept as history); NOOP: nothing changed"`
	Version  int    `json:"version,omitempty" jsonschema:"its version"`
	Previous string `json:"previous_id,omitempty" jsonschema:"the version it replaced"`
}

// PatchMemoryInput is the input of the default set's update_memory.
type PatchMemoryInput struct {
	ID         string          `json:"id" jsonschema:"The memory's id, as search_memory returns it. Required."`
	Content    *string         `json:"content,omitempty" jsonschema:"The new content. Omit to keep it."`
	Tags       *[]string       `json:"tags,omitempty" jsonschema:"The new tags, replacing the old. Omit to keep them."`
	Metadata   json.RawMessage `json:"metadata,omitempty" jsonschema:"The new metadata, replacing the old ({} clears it). Omit to keep it."`
	TTLSeconds *int64          `json:"ttl_seconds,omitempty" jsonschema:"Forget it this many seconds from now. Omit to keep its expiry."`
}

// DeleteMemoryInput is the input of delete_memory.
type DeleteMemoryInput struct {
	ID string `json:"id" jsonschema:"The memory's id, as search_memory returns it. Required."`
}

// DeleteMemoryOutput is the output of delete_memory.
type DeleteMemoryOutput struct {
	Success bool   `json:"success" jsonschema:"true when the memory was deleted"`
	ID      string `json:"id" jsonschema:"the id deleted"`
}

var (
	addMemoryInputSchema = inputSchemaOf[AddMemoryInput](func(s *jsonschema.Schema) {
		s.Properties["kind"].Enum = enumOf(loci.AddedKinds()) // each kind declares it (loci.KindTraits.Added)
		s.Properties["metadata"].Type = "object"
		s.Properties["ttl_seconds"].Minimum, s.Properties["ttl_seconds"].Maximum = ptr(1.0), ptr(float64(loci.MaxTTLSeconds))
	})
	patchMemoryInputSchema = inputSchemaOf[PatchMemoryInput](func(s *jsonschema.Schema) {
		s.Properties["metadata"].Type = "object"
		s.Properties["ttl_seconds"].Minimum, s.Properties["ttl_seconds"].Maximum = ptr(1.0), ptr(float64(loci.MaxTTLSeconds))
	})
	deleteMemoryInputSchema = inputSchemaOf[DeleteMemoryInput](nil)
	memoryEventOutputSchema = outputSchema[MemoryEventOutput](func(s *jsonschema.Schema) {
		s.Properties["event"].Enum = []any{loci.EventAdd, loci.EventUpdate, loci.EventNoop}
	})
	deleteMemoryOutputSchema = outputSchema[DeleteMemoryOutput](nil)
)

func eventOutput(ev *loci.MemoryEvent) *MemoryEventOutput {
	return &MemoryEventOutput{Success: true, ID: ev.ID, Kind: string(ev.Kind), Event: ev.Event, Version: ev.Version, Previous: ev.Previous}
}

func (s *server) addMemory(ctx context.Context, in AddMemoryInput) (*MemoryEventOutput, error) {
	mi := loci.MemoryInput{
		Content: in.Content, AgentID: s.id.AgentID, Kind: loci.Kind(in.Kind), Key: in.Key,
		Tags: in.Tags, Metadata: in.Metadata, TTLSeconds: in.TTLSeconds,
	}
	if k := mi.Kind; k == "" || !k.Traits().AgentScoped {
		// A memory of a kind that is not the agent's own (a fact, the
		// default kind) is about the connection's user, when it has one.
		mi.UserID = s.id.UserID
	}
	ev, err := s.MemoryService.AddMemory(ctx, mi)
	if err != nil {
		return nil, err
	}
	return eventOutput(ev), nil
}

// reach returns the memory id names when the connection may reach it:
// ENOTFOUND, as if absent, for another agent's or another user's.
func (s *server) reach(ctx context.Context, id string) error {
	if strings.TrimSpace(id) == "" {
		return loci.Errorf(loci.EINVALID, "id is required")
	}
	m, err := s.MemoryService.GetMemory(ctx, id)
	if err != nil {
		return err
	}
	own := m.AgentID == s.id.AgentID && (m.UserID == "" || m.UserID == s.id.UserID)
	users := s.id.UserID != "" && m.AgentID == "" && m.UserID == s.id.UserID
	if !own && !users {
		return loci.Errorf(loci.ENOTFOUND, "memory not found")
	}
	return nil
}

func (s *server) patchMemory(ctx context.Context, in PatchMemoryInput) (*MemoryEventOutput, error) {
	if err := s.reach(ctx, in.ID); err != nil {
		return nil, err
	}
	ev, err := s.MemoryService.UpdateMemory(ctx, in.ID, loci.MemoryPatch{
		Content: in.Content, Tags: in.Tags, Metadata: in.Metadata, TTLSeconds: in.TTLSeconds,
	})
	if err != nil {
		return nil, err
	}
	return eventOutput(ev), nil
}

func (s *server) deleteMemory(ctx context.Context, in DeleteMemoryInput) (*DeleteMemoryOutput, error) {
	if err := s.reach(ctx, in.ID); err != nil {
		return nil, err
	}
	if err := s.MemoryService.DeleteMemory(ctx, in.ID); err != nil {
		return nil, err
	}
	return &DeleteMemoryOutput{Success: true, ID: in.ID}, nil
}
