package loci

import (
	"context"
	"encoding/json"
	"time"
)

// Limits of working memory. A kilobyte here is 1024 bytes: the values of one
// task total at most MaxWorkingTaskBytes = 51200 bytes, each value counted as
// the length of its compact JSON encoding with strings as UTF-8 (the value,
// not the client's escaping: "é" and "\u00e9" count the same).
const (
	MaxTaskIDBytes      = 100
	MaxWorkingKeyBytes  = 100
	MaxWorkingTaskBytes = 50 * 1024
	DefaultWorkingTTL   = 24 * time.Hour
)

// WorkingEntry is one value of a task's working memory: the scratchpad of
// one execution. It expires a fixed time (24 h by default) after its last
// write.
type WorkingEntry struct {
	TaskID    string          `json:"task_id"`
	AgentID   string          `json:"agent_id"`
	UserID    string          `json:"user_id,omitempty"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	ExpiresAt time.Time       `json:"expires_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// WorkingInput is a write to working memory.
type WorkingInput struct {
	TaskID  string
	AgentID string
	UserID  string // optional
	Key     string
	Value   json.RawMessage
}

// Validate checks the write: a task id of at most MaxTaskIDBytes, its
// agent, its user when set, a key of at most MaxWorkingKeyBytes and a JSON
// value. EINVALID. Whether the task's values fit MaxWorkingTaskBytes is
// known only beside them.
func (in WorkingInput) Validate() error {
	if err := RequireText("task_id", in.TaskID, MaxTaskIDBytes); err != nil {
		return err
	} else if err := RequireText("agent_id", in.AgentID, MaxAgentIDBytes); err != nil {
		return err
	} else if in.UserID != "" {
		if err := RequireText("user_id", in.UserID, MaxUserIDBytes); err != nil {
			return err
		}
	}
	if err := RequireText("key", in.Key, MaxWorkingKeyBytes); err != nil {
		return err
	}
	return requireJSON("value", in.Value)
}

// WorkingFilter narrows a task's working memory to one agent and/or one
// user; an empty field matches any.
type WorkingFilter struct {
	AgentID string
	UserID  string
}

// WorkingService is working memory: per task (with agent and optional user)
// JSON values. An entry is unique per task, agent, user and key; a read by
// key without agent and user returns the most recently written match.
type WorkingService interface {
	// SetWorking creates or replaces a value and reports whether it was
	// created. EINVALID for an empty task, agent or key, a key over
	// MaxWorkingKeyBytes or a missing value; ETOOLARGE when the task's live
	// values would total more than MaxWorkingTaskBytes (nothing changes).
	SetWorking(ctx context.Context, in WorkingInput) (*WorkingEntry, bool, error)
	// GetWorking returns the live value of key in the task, narrowed by f;
	// when several match, the most recently written. ENOTFOUND when absent
	// or expired.
	GetWorking(ctx context.Context, taskID, key string, f WorkingFilter) (*WorkingEntry, error)
	// ListWorking returns the task's live values, narrowed by f, by key
	// (most recently written first within a key).
	ListWorking(ctx context.Context, taskID string, f WorkingFilter) ([]*WorkingEntry, error)
	// ClearWorking deletes the task's values, narrowed by f, and returns
	// how many it deleted.
	ClearWorking(ctx context.Context, taskID string, f WorkingFilter) (int, error)
	// DeleteWorking deletes the task's value of key (each agent's and
	// user's, narrowed by f), expired or not, and returns how many entries
	// it deleted. ENOTFOUND when there is none.
	DeleteWorking(ctx context.Context, taskID, key string, f WorkingFilter) (int, error)
}

// The traits of the working kind (KindTraits). Working memory belongs to a
// task, written through its own routes.
var _ = declareKind(KindWorking, KindTraits{})

// The operations on working memory (Operation, declared once: see operations.go).
var (
	OpWorkingSet    = declare(Operation{Name: "working.set", Kind: KindWorking, Role: RoleCreator, Agent: AgentNamed, Summary: "Set a working memory value"})
	OpWorkingGet    = declare(Operation{Name: "working.get", Kind: KindWorking, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a working memory value"})
	OpWorkingGetAll = declare(Operation{Name: "working.get_all", Kind: KindWorking, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a task's working memory"})
	OpWorkingDelete = declare(Operation{Name: "working.delete", Kind: KindWorking, Role: RoleEditor, Agent: AgentNamed, Summary: "Delete one working memory value"})
	OpWorkingClear  = declare(Operation{Name: "working.clear", Kind: KindWorking, Role: RoleEditor, Agent: AgentNamed, Summary: "Clear a task's working memory"})
)
