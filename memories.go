package loci

import (
	"context"
	"encoding/json"
	"regexp"
	"time"
)

// The memories API (docs/api.md, "The memories API over every kind"): every
// record of every kind is also a memory, addressed by its id, with one verb
// set over all kinds. Each kind's own rules hold whichever way a write
// comes through.

// Events of a memory write.
const (
	EventAdd    = "ADD"
	EventUpdate = "UPDATE"
	EventNoop   = "NOOP"
	EventDelete = "DELETE"
)

// Limits of the memories API.
const (
	// MaxBatchOps bounds the operations of one batch.
	MaxBatchOps = 1000
	// MaxTTLSeconds bounds a time to live (100 years).
	MaxTTLSeconds = 100 * 365 * 24 * 3600
)

// categoryRE is what a fact category may be: categories are open, any name
// of this form.
var categoryRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ValidCategory reports whether c is a fact category: a name matching
// [a-z][a-z0-9_]{0,63}. The ten of FactCategories are the documented
// vocabulary, CategoryGeneralFact the default.
func ValidCategory(c string) bool { return categoryRE.MatchString(c) }

// MemoryInput adds one memory (POST /v1/memories). Kind defaults to
// fact (category general_fact); passage and note are accepted where their
// rules hold (an agent; a note needs a key). ExpiresAt or TTLSeconds sets
// a time to live.
type MemoryInput struct {
	Content    string          `json:"content"`
	UserID     string          `json:"user_id,omitempty"`
	AgentID    string          `json:"agent_id,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	Kind       Kind            `json:"kind,omitempty"`
	Key        string          `json:"key,omitempty"`
	Category   string          `json:"category,omitempty"`
	Tags       []string        `json:"tags,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	ExpiresAt  *time.Time      `json:"expires_at,omitempty"`
	TTLSeconds *int64          `json:"ttl_seconds,omitempty"`
}

// MemoryPatch changes a memory in place (PATCH /v1/memories/{id}): each
// field that is set replaces the record's. Metadata null clears it;
// NoExpiry removes the time to live (expires_at null on the wire).
type MemoryPatch struct {
	Content    *string         `json:"content,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Tags       *[]string       `json:"tags,omitempty"`
	ExpiresAt  *time.Time      `json:"expires_at,omitempty"`
	TTLSeconds *int64          `json:"ttl_seconds,omitempty"`
	NoExpiry   bool            `json:"-"`
}

// MemoryUpdate is one update of a batch: the id and the patch.
type MemoryUpdate struct {
	ID string `json:"id"`
	MemoryPatch
}

// MemoryBatch is a batch of adds, updates and deletes, applied in one
// transaction: all or nothing.
type MemoryBatch struct {
	Add    []MemoryInput  `json:"add,omitempty"`
	Update []MemoryUpdate `json:"update,omitempty"`
	Delete []string       `json:"delete,omitempty"`
}

// MemoryEvent is what one write did: ADD (a new record), UPDATE (a
// changed one, or a new version of a keyed fact: ID then names the new
// current record), NOOP (nothing: the same content was already current),
// DELETE.
type MemoryEvent struct {
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	Event   string `json:"event"`
	Version int    `json:"version,omitempty"`
	// Previous names the record a keyed fact's new version superseded.
	Previous string `json:"previous_id,omitempty"`
}

// MemoryVersion is one value a memory has had.
type MemoryVersion struct {
	ID        string          `json:"id"`
	Version   int             `json:"version"`
	Event     string          `json:"event"` // EventAdd or EventUpdate
	Content   string          `json:"content"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	UpdatedAt time.Time       `json:"updated_at"`
	// Current: this version is what the memory says now.
	Current bool `json:"current"`
}

// MemoryService is the one memory API over every kind.
type MemoryService interface {
	// AddMemory adds a memory (or, with a key whose current record says
	// something else, updates it; or, with the same content current,
	// changes nothing: NOOP). EINVALID for bad input (a kind not added
	// this way names its own route), ETOOLARGE past a size limit.
	AddMemory(ctx context.Context, in MemoryInput) (*MemoryEvent, error)
	// GetMemory returns one memory of any kind. ENOTFOUND when absent or
	// expired, or out of the key's reach.
	GetMemory(ctx context.Context, id string) (*UserMemory, error)
	// UpdateMemory changes a memory in place, keeping history. ENOTFOUND;
	// ECONFLICT for a kind not edited this way (naming its route);
	// EINVALID, ETOOLARGE for bad input.
	UpdateMemory(ctx context.Context, id string, p MemoryPatch) (*MemoryEvent, error)
	// DeleteMemory deletes a memory of any kind, as the kind's own delete
	// does, and the adds of messages queued whose results name it.
	// ENOTFOUND.
	DeleteMemory(ctx context.Context, id string) error
	// MemoryHistory returns every value the memory has had, newest first.
	// ENOTFOUND.
	MemoryHistory(ctx context.Context, id string) ([]MemoryVersion, error)
	// BatchMemories applies adds, then updates, then deletes, in one
	// transaction: one bad operation (named add[i], update[i] or
	// delete[i]) refuses the whole batch.
	BatchMemories(ctx context.Context, b MemoryBatch) ([]MemoryEvent, error)
}

// The operations on the memories API (any kind by id) (Operation, declared once: see operations.go).
var (
	OpMemoryAdd     = declare(Operation{Name: "memory.add", Role: RoleCreator, Agent: AgentFree, Summary: "Add a memory"})
	OpMemoryBatch   = declare(Operation{Name: "memory.batch", Role: RoleCreator, Agent: AgentFree, Summary: "Add, update and delete memories in one transaction"})
	OpMemoryGet     = declare(Operation{Name: "memory.get", Role: RoleViewer, Agent: AgentFree, Summary: "One memory of any kind"})
	OpMemoryUpdate  = declare(Operation{Name: "memory.update", Role: RoleEditor, Agent: AgentFree, Summary: "Change a memory in place, keeping history"})
	OpMemoryDelete  = declare(Operation{Name: "memory.delete", Role: RoleEditor, Agent: AgentFree, Summary: "Delete a memory of any kind"})
	OpMemoryHistory = declare(Operation{Name: "memory.history", Role: RoleViewer, Agent: AgentFree, Summary: "Every value a memory has had, newest first"})
)
