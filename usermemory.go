package loci

import (
	"context"
	"encoding/json"
	"time"
)

// ContextSessionCount is how many recent sessions a session start loads.
const ContextSessionCount = 5

// UserContext is what a session starts with: the user (created with empty
// defaults if new), the preferences to apply with their tiers, and recent
// sessions.
type UserContext struct {
	User        *User             `json:"user"`
	Created     bool              `json:"created"`
	Preferences []*Preference     `json:"preferences"`
	Sessions    []*ContextSession `json:"sessions"`
}

// ContextSession is a recent session as a session start sees it.
type ContextSession struct {
	SessionID    string          `json:"session_id"`
	Summary      string          `json:"summary,omitempty"`
	Context      json.RawMessage `json:"context,omitempty"`
	IsPersistent bool            `json:"is_persistent"`
	Confidence   float64         `json:"confidence"`
	MessageCount int             `json:"message_count"`
	ExpiresAt    time.Time       `json:"expires_at,omitzero"`
	UpdatedAt    time.Time       `json:"updated_at"`
}

// UserMemory is one record about a user, of any kind, as the user sees it:
// no embedding, no internal fields.
type UserMemory struct {
	ID          string          `json:"id"`
	Kind        Kind            `json:"kind"`
	UserID      string          `json:"user_id,omitempty"`
	AgentID     string          `json:"agent_id,omitempty"`
	SessionID   string          `json:"session_id,omitempty"`
	TaskID      string          `json:"task_id,omitempty"`
	Key         string          `json:"key,omitempty"`
	Content     string          `json:"content"`
	Data        json.RawMessage `json:"data,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Category    string          `json:"category,omitempty"`
	ActionType  string          `json:"action_type,omitempty"`
	Outcome     string          `json:"outcome,omitempty"`
	Confidence  float64         `json:"confidence"`
	AccessCount int             `json:"access_count"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	ExpiresAt   time.Time       `json:"expires_at,omitzero"`
	Version     int             `json:"version"`
	ValidAt     time.Time       `json:"valid_at,omitzero"`
	InvalidAt   time.Time       `json:"invalid_at,omitzero"`
	Review      string          `json:"review,omitempty"`
	// LastAccessedAt is when a search last returned the record (facts);
	// zero when never.
	LastAccessedAt time.Time `json:"last_accessed_at,omitzero"`
	// History marks, in a forget's answer, a past version of the record
	// (Version, with the content, data, metadata and time it had) that
	// the forget removed from the record's history; the record, whose
	// current value did not match, stays.
	History bool `json:"history,omitempty"`
}

// UserMemoryQuery narrows "what do you remember about me" in time: only
// what was true at AsOf (zero: now), or everything with IncludeHistory
// (facts that were superseded or invalidated too).
type UserMemoryQuery struct {
	AsOf           time.Time
	IncludeHistory bool
}

// ForgetRequest says what of a user's memory to forget: the records that
// hold every word of Query, and the records named by IDs (only the user's
// own). DryRun reports without deleting.
//
// Agent-scoped memory that names the user (every record of an agent and
// no user: its notes, blocks and passages, and what a chat model wrote
// about it) is not searched unless IncludeAgents: then Query also matches
// those records of every agent, and what matches is deleted with the
// rest. It needs the editor role and
// a Query. A key bound to one agent cannot forget at all: a forget spans
// the records every agent wrote about the user.
type ForgetRequest struct {
	Query         string   `json:"query,omitempty"`
	IDs           []string `json:"ids,omitempty"`
	DryRun        bool     `json:"dry_run,omitempty"`
	IncludeAgents bool     `json:"include_agents,omitempty"`
	// Filters narrows what the query and ids match, in the filter
	// language (docs/api.md, "Filters"); alone, it selects what it
	// matches among the user's records.
	Filters json.RawMessage `json:"filters,omitempty"`
}

// UserMemoryService is a user's session start and the privacy queries:
// what is held about a user, forgetting some of it, deleting the user.
type UserMemoryService interface {
	// UserContext starts a session: it creates the user with empty
	// defaults if new and returns the preferences to apply (user-level or
	// persistent, not flagged for removal) and the last 5 sessions that
	// are persistent or unexpired, by confidence. EINVALID for an empty
	// user.
	UserContext(ctx context.Context, userID string) (*UserContext, error)
	// UserMemories returns every record about the user, of every kind,
	// that q selects.
	UserMemories(ctx context.Context, userID string, q UserMemoryQuery) ([]*UserMemory, error)
	// ForgetUserMemories deletes what req matches among the user's records
	// (exactly the versions of a keyed fact that match; the versions left
	// stop naming them), and the past values the records keep that match
	// (removed from their history, answered with History set), and
	// returns it. The adds of messages queued that hold what it forgets
	// go with it.
	// EINVALID when req has neither query nor ids.
	ForgetUserMemories(ctx context.Context, userID string, req ForgetRequest) ([]*UserMemory, error)
	// DeleteUser deletes every record about the user (all kinds, their
	// versions, index entries and embeddings), the records of the user's
	// sessions that carry no user, the adds of messages queued for the
	// user, and the user, and returns how many records it deleted.
	DeleteUser(ctx context.Context, userID string) (int, error)
}

// The operations on a user's memory (Operation, declared once: see operations.go).
var (
	OpUserContext  = declare(Operation{Name: "user.context", Role: RoleViewer, Agent: AgentFree, Summary: "Session start: a user's preferences and recent sessions"})
	OpUserMemories = declare(Operation{Name: "user.memories", Role: RoleViewer, Agent: AgentDeny, Summary: "Everything remembered about a user"})
	OpUserForget   = declare(Operation{Name: "user.forget", Role: RoleEditor, Agent: AgentDeny, Summary: "Forget what matches"})
	OpUserDelete   = declare(Operation{Name: "user.delete", Role: RoleEditor, Agent: AgentDeny, Summary: "Delete everything about a user"})
)
