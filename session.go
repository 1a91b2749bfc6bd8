package loci

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// Limits on sessions.
const (
	MaxSessionIDBytes    = 256
	MaxMessageRoleBytes  = 64
	MaxMessageBytes      = 64 << 10
	MaxSessionSummary    = 64 << 10
	MaxSessionConfidence = 100
)

// Message is one turn of a conversation.
type Message struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at,omitzero"`
}

// Validate checks a message: a role of at most MaxMessageRoleBytes and
// content (EINVALID) of at most MaxMessageBytes (ETOOLARGE).
func (m Message) Validate() error {
	if err := RequireText("role", m.Role, MaxMessageRoleBytes); err != nil {
		return err
	} else if err := RequireText("content", m.Content, 0); err != nil {
		return err
	} else if len(m.Content) > MaxMessageBytes {
		return Errorf(ETOOLARGE, "a message must be at most %d bytes", MaxMessageBytes)
	}
	return nil
}

// Session is a user's session or conversation: context JSON, a summary, its
// messages in order, whether it persists, when it expires, and a confidence
// 0..100.
type Session struct {
	SessionID    string          `json:"session_id"`
	UserID       string          `json:"user_id"`
	Context      json.RawMessage `json:"context"`
	Summary      string          `json:"summary"`
	Messages     []Message       `json:"messages"`
	MessageCount int             `json:"message_count"`
	IsPersistent bool            `json:"is_persistent"`
	ExpiresAt    time.Time       `json:"expires_at,omitzero"`
	Confidence   float64         `json:"confidence"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// SessionPut stores or replaces a session. Context nil is {}.
type SessionPut struct {
	UserID       string
	Context      json.RawMessage
	Summary      string
	Messages     []Message
	IsPersistent bool
	ExpiresAt    time.Time // zero: never
	Confidence   float64
}

// Validate checks the session to store: its user, its summary (valid text;
// ETOOLARGE over MaxSessionSummary), a confidence from 0 to
// MaxSessionConfidence and each message (Message.Validate). EINVALID.
// Whether Context is JSON is checked as the rules compact it.
func (p SessionPut) Validate() error {
	if err := RequireText("user_id", p.UserID, MaxUserIDBytes); err != nil {
		return err
	} else if err := CheckText("summary", p.Summary, 0); err != nil {
		return err
	} else if len(p.Summary) > MaxSessionSummary {
		return Errorf(ETOOLARGE, "summary must be at most %d bytes", MaxSessionSummary)
	} else if math.IsNaN(p.Confidence) || p.Confidence < 0 || p.Confidence > MaxSessionConfidence {
		return Errorf(EINVALID, "confidence must be between 0 and %d", MaxSessionConfidence)
	} else if err := CheckTime("expires_at", p.ExpiresAt); err != nil {
		return err
	}
	for _, m := range p.Messages {
		if err := m.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// SessionSummary is a session's metadata, as listings show it.
type SessionSummary struct {
	SessionID    string    `json:"session_id"`
	UpdatedAt    time.Time `json:"updated_at"`
	Summary      string    `json:"summary"`
	MessageCount int       `json:"message_count"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// SessionService stores sessions and conversations. A session id is unique
// in the workspace. Each message is stored as its own searchable record.
type SessionService interface {
	// PutSession stores or replaces a session and its messages and reports
	// whether it created it. EINVALID for an empty session or user id, a
	// bad message, a confidence outside 0..100 or context that is not
	// JSON; ETOOLARGE for a message or summary over its limit; ECONFLICT
	// when the session belongs to another user.
	PutSession(ctx context.Context, sessionID string, p SessionPut) (*Session, bool, error)
	// AppendSessionMessage appends one message and returns the session's
	// metadata. ENOTFOUND when the session is absent.
	AppendSessionMessage(ctx context.Context, sessionID string, m Message) (*SessionSummary, error)
	// GetSession returns a session with its messages in order. ENOTFOUND
	// when absent.
	GetSession(ctx context.Context, sessionID string) (*Session, error)
	// DeleteSession deletes a session and its messages and reports whether
	// it existed; deleting an absent session is not an error.
	DeleteSession(ctx context.Context, sessionID string) (bool, error)
	// ListUserSessions returns a user's sessions' metadata, most recently
	// updated first, and how many there are.
	ListUserSessions(ctx context.Context, userID string, limit, offset int) ([]SessionSummary, int, error)
}

// The traits of the session kind (KindTraits). A session is a user's, stored
// through its own routes; its records are a conversation, what was said.
var _ = declareKind(KindSession, KindTraits{Conversation: true})

// The operations on sessions (Operation, declared once: see operations.go).
var (
	OpSessionPut    = declare(Operation{Name: "session.put", Kind: KindSession, Role: RoleCreator, Agent: AgentFree, Summary: "Store or replace a session"})
	OpSessionAppend = declare(Operation{Name: "session.append", Kind: KindSession, Role: RoleCreator, Agent: AgentFree, Summary: "Append a message to a session"})
	OpSessionGet    = declare(Operation{Name: "session.get", Kind: KindSession, Role: RoleViewer, Agent: AgentFree, Summary: "Get a session with its messages"})
	OpSessionDelete = declare(Operation{Name: "session.delete", Kind: KindSession, Role: RoleEditor, Agent: AgentFree, Summary: "Delete a session"})
	OpSessionList   = declare(Operation{Name: "session.list", Kind: KindSession, Role: RoleViewer, Agent: AgentFree, Summary: "List a user's sessions (metadata only)"})
)
