package loci

import (
	"context"
	"encoding/json"
	"time"
)

// Limits on notes (docs/records.md, "The kinds").
const (
	MaxNoteKeyBytes   = 256
	MaxNoteValueBytes = 64 << 10
)

// Note is a key-value memory of one agent: what its remember and recall
// tools keep, and its own state. Value is a JSON string or any other JSON
// value.
type Note struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	UpdatedAt time.Time       `json:"updated_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// NoteVersion is one value a note has had.
type NoteVersion struct {
	Value     json.RawMessage `json:"value"`
	Version   int             `json:"version"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// Actions a remember reports.
const (
	ActionCreated = "created"
	ActionUpdated = "updated"
)

// RememberResult is what remembering a note reports.
type RememberResult struct {
	Key       string    `json:"key"`
	Action    string    `json:"action"` // ActionCreated or ActionUpdated
	UpdatedAt time.Time `json:"updated_at"`
}

// NoteService is remember/recall. rules.Service implements it on a local
// store and httpclient.Client over the wire, so the CLI uses either.
type NoteService interface {
	// Remember creates or updates a note; an update keeps the old value as
	// a version. The same value again is "updated" too: its updated_at is
	// set, and no version is added. EINVALID for an empty or whitespace-only agent, key or
	// value, or a key over MaxNoteKeyBytes; ETOOLARGE for a value over
	// MaxNoteValueBytes.
	Remember(ctx context.Context, agentID, key string, value json.RawMessage) (*RememberResult, error)
	// Recall returns one note. ENOTFOUND ("Memory not found") when absent.
	Recall(ctx context.Context, agentID, key string) (*Note, error)
	// RecallAll returns every note of the agent, by key.
	RecallAll(ctx context.Context, agentID string) ([]*Note, error)
	// ListNotes returns one page of the agent's notes, by key: at most
	// limit (DefaultListLimit when 0, at most MaxListLimit) from offset,
	// and how many notes the agent has. It reads only the page.
	ListNotes(ctx context.Context, agentID string, limit, offset int) ([]*Note, int, error)
	// Forget deletes a note and its versions. ENOTFOUND when absent.
	Forget(ctx context.Context, agentID, key string) error
	// History returns every value the note has had, the current one first.
	// ENOTFOUND when absent.
	History(ctx context.Context, agentID, key string) ([]NoteVersion, error)
}

// The traits of the note kind (KindTraits). A note is an agent's own memory;
// the memories API adds one (with agent_id and key).
var _ = declareKind(KindNote, KindTraits{AgentScoped: true, Added: true})

// The operations on notes (Operation, declared once: see operations.go).
var (
	OpNoteRemember  = declare(Operation{Name: "note.remember", Kind: KindNote, Role: RoleCreator, Agent: AgentNamed, Summary: "Remember a note"})
	OpNoteRecall    = declare(Operation{Name: "note.recall", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Recall a note"})
	OpNoteRecallAll = declare(Operation{Name: "note.recall_all", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Recall every note of an agent"})
	OpNoteForget    = declare(Operation{Name: "note.forget", Kind: KindNote, Role: RoleEditor, Agent: AgentNamed, Summary: "Forget a note"})
	OpNoteHistory   = declare(Operation{Name: "note.history", Kind: KindNote, Role: RoleViewer, Agent: AgentNamed, Summary: "Every value a note has had"})
)
