package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The note tools: remember, recall and forget. remember and recall keep
// their original schemas (docs/api.md, "MCP").
//
// A value is a string in and out: the most portable schema for every model's
// tool calling. A model that wants to keep structure stores it as text (e.g.
// JSON text), which is how it reads it back anyway. A note written through
// REST or the CLI with a non-string JSON value (an object, a number) is
// recalled here as its compact JSON text.

// RememberInput is the input of remember.
type RememberInput struct {
	Key   string `json:"key" jsonschema:"Memory key: a short, stable, descriptive name such as best_posting_time or audience_preference. Required, non-empty; storing under an existing key replaces its value."`
	Value string `json:"value" jsonschema:"The insight to store, as text. Required, non-empty. Store a conclusion worth keeping, not a raw data dump."`
}

// RememberOutput is the output of remember.
type RememberOutput struct {
	Success   bool      `json:"success" jsonschema:"true when the memory was stored"`
	Message   string    `json:"message" jsonschema:"Remembered: KEY"`
	Action    string    `json:"action" jsonschema:"created for a new key, updated when an existing value was replaced (the old value is kept as a version)"`
	Key       string    `json:"key" jsonschema:"the key stored"`
	UpdatedAt time.Time `json:"updated_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
}

// RecallInput is the input of recall.
type RecallInput struct {
	Key string `json:"key,omitempty" jsonschema:"Memory key to read. Omit it to list every memory of this agent."`
}

// Memory is one note as recall lists it.
type Memory struct {
	Key       string         `json:"key" jsonschema:"the memory key"`
	Value     string         `json:"value" jsonschema:"the stored value"`
	UpdatedAt time.Time      `json:"updated_at" jsonschema:"when it was last stored (RFC 3339, UTC)"`
	Metadata  map[string]any `json:"metadata,omitempty" jsonschema:"its metadata, when it has some"`
}

// RecallOutput is the output of recall: key, value and updated_at for one
// key; count and memories when the key is omitted.
type RecallOutput struct {
	Success   bool           `json:"success" jsonschema:"true when the memory was found"`
	Key       string         `json:"key,omitempty" jsonschema:"the key read (when a key was given)"`
	Value     *string        `json:"value,omitempty" jsonschema:"the stored value (when a key was given)"`
	UpdatedAt *time.Time     `json:"updated_at,omitempty" jsonschema:"when it was last stored (when a key was given)"`
	Count     *int           `json:"count,omitempty" jsonschema:"Number of memories (when no key was given)"`
	Memories  []Memory       `json:"memories,omitzero" jsonschema:"every memory of this agent, by key (when no key was given)"`
	Metadata  map[string]any `json:"metadata,omitempty" jsonschema:"its metadata, when it has some (when a key was given)"`
}

// ForgetInput is the input of forget.
type ForgetInput struct {
	Key string `json:"key" jsonschema:"Memory key to delete, with every earlier value it had. Required."`
}

// ForgetOutput is the output of forget.
type ForgetOutput struct {
	Success bool   `json:"success" jsonschema:"true when the memory was deleted"`
	Message string `json:"message" jsonschema:"Forgotten: KEY"`
	Key     string `json:"key" jsonschema:"the key deleted"`
}

var (
	rememberOutputSchema = outputSchema[RememberOutput](func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{loci.ActionCreated, loci.ActionUpdated}
	})
	recallOutputSchema = outputSchema[RecallOutput](nil)
	forgetOutputSchema = outputSchema[ForgetOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).noteTools})

// noteTools adds the note tools of the full set: remember and recall, and
// forget.
func (s *server) noteTools() {
	s.seedNoteTools()
	s.forgetTool()
}

// seedNoteTools adds remember and recall, the note tools of both sets.
func (s *server) seedNoteTools() {
	addTool(s, loci.OpNoteRemember, &mcp.Tool{
		Name:  "remember",
		Title: "Remember",
		Description: "Store a piece of long-term memory under a key, so you can recall it in later conversations and runs. " +
			"Use it for insights worth keeping: what worked, preferences, patterns, decisions. " +
			"Storing under an existing key replaces the value (action \"updated\"; the old value is kept as history). " +
			"Key and value must be non-empty.",
		OutputSchema: rememberOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.remember)
	addTool(s, loci.OpNoteRecall, &mcp.Tool{
		Name:  "recall",
		Title: "Recall",
		Description: "Read your long-term memory. With a key, returns that memory's value and when it was stored; " +
			"an unknown key is an error \"Memory not found\". Without a key, returns every memory you have (count and memories, by key). " +
			"Call it without a key at the start of a task to see what you already know.",
		OutputSchema: recallOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.recall)
}

func (s *server) forgetTool() {
	addTool(s, loci.OpNoteForget, &mcp.Tool{
		Name:  "forget",
		Title: "Forget",
		Description: "Delete one memory by key, with all its earlier values. Use it when a memory is wrong or no longer wanted. " +
			"An unknown key is an error \"Memory not found\".",
		OutputSchema: forgetOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, s.forget)
}

func (s *server) remember(ctx context.Context, in RememberInput) (*RememberOutput, error) {
	value, err := json.Marshal(in.Value)
	if err != nil {
		return nil, err
	}
	res, err := s.NoteService.Remember(ctx, s.id.AgentID, in.Key, value)
	if err != nil {
		return nil, err
	}
	return &RememberOutput{
		Success: true, Message: "Remembered: " + res.Key, Action: res.Action,
		Key: res.Key, UpdatedAt: res.UpdatedAt.UTC(),
	}, nil
}

func (s *server) recall(ctx context.Context, in RecallInput) (*RecallOutput, error) {
	if in.Key != "" {
		n, err := s.NoteService.Recall(ctx, s.id.AgentID, in.Key)
		if err != nil {
			return nil, err
		}
		v, at := noteText(n.Value), n.UpdatedAt.UTC()
		return &RecallOutput{Success: true, Key: n.Key, Value: &v, UpdatedAt: &at, Metadata: metadataOrNone(n.Metadata)}, nil
	}
	notes, err := s.NoteService.RecallAll(ctx, s.id.AgentID)
	if err != nil {
		return nil, err
	}
	out := &RecallOutput{Success: true, Count: ptr(len(notes)), Memories: make([]Memory, 0, len(notes))}
	for _, n := range notes {
		out.Memories = append(out.Memories, Memory{Key: n.Key, Value: noteText(n.Value), UpdatedAt: n.UpdatedAt.UTC(), Metadata: metadataOrNone(n.Metadata)})
	}
	return out, nil
}

func (s *server) forget(ctx context.Context, in ForgetInput) (*ForgetOutput, error) {
	if err := s.NoteService.Forget(ctx, s.id.AgentID, in.Key); err != nil {
		return nil, err
	}
	return &ForgetOutput{Success: true, Message: "Forgotten: " + in.Key, Key: in.Key}, nil
}

// noteText is a note's value as text: a JSON string as its text, any other
// JSON value as its compact JSON.
func noteText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
