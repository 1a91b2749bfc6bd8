package loci

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Conversations in, memories out: POST /v1/memories with messages instead
// of content. Without a chat model (or with inference off) each message
// from the user becomes one memory about the user and the others become
// none; with a chat model, the model reads the messages, proposes short
// memories, and decides for each whether it adds, updates, deletes or
// repeats a memory already held. Either way every write goes through the
// same rules, audit and history as a hand-written one, and with a session
// named every message is also appended to that session's conversation.

// The roles of a conversation's messages.
const (
	MessageRoleUser      = "user"
	MessageRoleAssistant = "assistant"
	MessageRoleSystem    = "system"
	MessageRoleTool      = "tool"
)

// MessageRoles lists the roles a conversation's message may have.
var MessageRoles = []string{MessageRoleUser, MessageRoleAssistant, MessageRoleSystem, MessageRoleTool}

// Limits of a conversation added as memories.
const (
	// MaxConversationMessages bounds the messages of one add.
	MaxConversationMessages = 1000
	// MaxMessageNameBytes bounds a message's name.
	MaxMessageNameBytes = 256
)

// How an add of messages infers its memories (its "infer" field).
const (
	// InferAuto: the chat model reads the messages when one is
	// configured, else the rule without a model applies ("infer": true,
	// or absent).
	InferAuto = ""
	// InferOff: the rule without a model, model or not ("infer": false).
	InferOff = "off"
	// InferFallback: as InferAuto, but a model that is down, slow or
	// answers something unusable stores by the rule without a model
	// instead of refusing ("infer": "fallback").
	InferFallback = "fallback"
)

// ChatMessage is one message of a conversation, as a chat model takes it.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Name    string `json:"name,omitempty"`
}

// Validate checks a message of a conversation: a known role, content
// (EINVALID when empty, ETOOLARGE past MaxMessageBytes) and a name of at
// most MaxMessageNameBytes.
func (m ChatMessage) Validate() error {
	known := false
	for _, r := range MessageRoles {
		known = known || m.Role == r
	}
	if !known {
		return Errorf(EINVALID, "role must be user, assistant, system or tool, not %q", m.Role)
	}
	if err := RequireText("content", m.Content, 0); err != nil {
		return err
	} else if len(m.Content) > MaxMessageBytes {
		return Errorf(ETOOLARGE, "content must be at most %d bytes", MaxMessageBytes)
	}
	return CheckText("name", m.Name, MaxMessageNameBytes)
}

// MessagesInput adds a conversation as memories (POST /v1/memories with
// messages). The memories it writes are facts in the scope named (a
// memory about the agent, which only a model proposes, has no user);
// Metadata and the expiry apply to each of them. Infer is InferAuto,
// InferOff or InferFallback. Async queues the work and answers at once
// with an event to follow (GET /v1/events/{id}).
type MessagesInput struct {
	Messages   []ChatMessage   `json:"messages"`
	UserID     string          `json:"user_id,omitempty"`
	AgentID    string          `json:"agent_id,omitempty"`
	SessionID  string          `json:"session_id,omitempty"`
	Infer      string          `json:"infer,omitempty"`
	Async      bool            `json:"async,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	ExpiresAt  *time.Time      `json:"expires_at,omitempty"`
	TTLSeconds *int64          `json:"ttl_seconds,omitempty"`
}

// Validate checks what can be checked without the store: at least one
// and at most MaxConversationMessages messages, each valid (named
// messages[i]), and a known Infer. EINVALID, ETOOLARGE.
func (in MessagesInput) Validate() error {
	if len(in.Messages) == 0 {
		return Errorf(EINVALID, "messages must hold at least one message")
	} else if len(in.Messages) > MaxConversationMessages {
		return Errorf(EINVALID, "messages must hold at most %d messages, not %d", MaxConversationMessages, len(in.Messages))
	}
	for i, m := range in.Messages {
		if err := m.Validate(); err != nil {
			return &Error{Code: ErrorCode(err), Message: fmt.Sprintf("messages[%d]: %s", i, ErrorMessage(err)), Err: err}
		}
	}
	switch in.Infer {
	case InferAuto, InferOff, InferFallback:
	default:
		return Errorf(EINVALID, "infer must be true, false or \"fallback\"")
	}
	return nil
}

// Who a memory inferred from a conversation is about.
const (
	AboutUser  = "user"
	AboutAgent = "agent"
)

// MessageEvent is one memory an add of messages wrote or found: ADD,
// UPDATE, DELETE or NOOP, the memory's id and the text written (for a
// DELETE or a NOOP, what the memory said). Without a model, Index and Role
// name the message it came from; with one, About says whom it is about
// and Previous what an UPDATE or DELETE replaced.
type MessageEvent struct {
	Event   string `json:"event"`
	ID      string `json:"id"`
	Content string `json:"content"`
	Kind    Kind   `json:"kind"`
	Index   *int   `json:"index,omitempty"`
	Role    string `json:"role,omitempty"`
	About   string `json:"about,omitempty"`
	// Previous is what the memory said before an UPDATE or a DELETE.
	Previous string `json:"previous,omitempty"`
	// PreviousID names the record a keyed fact's new version superseded.
	PreviousID string `json:"previous_id,omitempty"`
}

// SkippedMessage is a message that became no memory, and why.
type SkippedMessage struct {
	Index  int    `json:"index"`
	Role   string `json:"role"`
	Reason string `json:"reason"`
}

// How the memories of an add of messages were inferred (Inference.Mode).
const (
	InferredByRule     = "rule"     // the rule without a model
	InferredByModel    = "model"    // the chat model
	InferredByFallback = "fallback" // the rule, because the model failed and the request asked for "fallback"
)

// Inference says how an add of messages chose its memories: the mode
// (InferredByRule, InferredByModel, InferredByFallback), the model that
// read the messages, and, for a fallback, why the model was not used.
type Inference struct {
	Mode   string `json:"mode"`
	Model  string `json:"model,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// SessionAppend says what an add of messages appended to its session.
type SessionAppend struct {
	SessionID    string `json:"session_id"`
	Appended     int    `json:"appended"`
	MessageCount int    `json:"message_count"`
	Created      bool   `json:"created"`
}

// MessagesResult is what an add of messages did: each memory event, the
// messages that became no memory, how it inferred, and the session it
// appended to. Queued (async) it is only the event to follow: EventID and
// Status EventPending.
type MessagesResult struct {
	EventID   string           `json:"event_id,omitempty"`
	Status    string           `json:"status,omitempty"`
	Results   []MessageEvent   `json:"results"`
	Skipped   []SkippedMessage `json:"skipped"`
	Inference *Inference       `json:"inference,omitempty"`
	Session   *SessionAppend   `json:"session,omitempty"`
}

// Created reports whether the add wrote anything: ADD, UPDATE or DELETE,
// or a session's messages.
func (r *MessagesResult) Created() bool {
	for _, e := range r.Results {
		if e.Event != EventNoop {
			return true
		}
	}
	return r.Session != nil && r.Session.Appended > 0
}

// The statuses of a queued add (GET /v1/events/{id}).
const (
	EventPending   = "PENDING"
	EventSucceeded = "SUCCEEDED"
	EventFailed    = "FAILED"
)

// AsyncEvent is a queued add of messages: its status and, once done, the
// same results as a synchronous add, or the error that failed it.
type AsyncEvent struct {
	ID        string    `json:"event_id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Attempts is how many times the work was tried.
	Attempts int `json:"attempts"`
	// Result is set once the status is EventSucceeded.
	Result *MessagesResult `json:"-"`
	// Error and Code say why it failed (EventFailed), or why the last
	// try did not succeed while it is pending again.
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// ChatModel is a chat model that reads conversations: any
// OpenAI-compatible /v1/chat/completions (llm/). It is optional: loci
// stores, finds and forgets without one.
type ChatModel interface {
	// Model names the model.
	Model() string
	// Chat sends the messages and returns the text of the model's reply,
	// asked to be one JSON object. EUNAVAILABLE when the model cannot be
	// reached, fails, or does not answer before ctx ends.
	Chat(ctx context.Context, messages []ChatMessage) (string, error)
}

// ConversationService turns conversations into memories.
type ConversationService interface {
	// AddMessages adds a conversation as memories (see MessagesInput);
	// with Async it queues the work and returns the event to follow.
	// EINVALID, ETOOLARGE for bad input, nothing written; EUNAVAILABLE
	// when the chat model is down, slow or answers something unusable
	// (nothing written, unless Infer is InferFallback); EFORBIDDEN when
	// the model decides to change a memory the key may not change.
	AddMessages(ctx context.Context, in MessagesInput) (*MessagesResult, error)
	// GetEvent returns a queued add: its status and, once done, its
	// results. ENOTFOUND when absent or out of the key's reach, and once
	// a delete took what it holds (a memory its results name, its words,
	// its agent or its user: docs/rules.md, "Deletion is real").
	GetEvent(ctx context.Context, id string) (*AsyncEvent, error)
}

// The operations of conversations (Operation, declared once: see operations.go).
var (
	OpMemoryAddMessages = declare(Operation{Name: "memory.add_messages", Role: RoleCreator, Agent: AgentFree, Summary: "Add a conversation as memories"})
	OpEventGet          = declare(Operation{Name: "event.get", Role: RoleViewer, Agent: AgentFree, Summary: "A queued add of messages: its status and results"})
)
