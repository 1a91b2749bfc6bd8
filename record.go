package loci

import (
	"encoding/json"
	"time"
)

// DefaultWorkspace is the one workspace of embedded mode.
const DefaultWorkspace = "default"

// Scope places a record: each field is optional text and an exact-match
// filter. An empty field means absent (for UserID: global knowledge).
type Scope struct {
	AgentID   string `json:"agent_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
}

// MaxRecordIDBytes bounds a record id a request names (the ids loci makes
// are UUIDs of 36 bytes).
const MaxRecordIDBytes = 256

// Record is the one row shape every kind maps onto (docs/records.md, "One
// record shape"). A kind is a policy over it: which fields it uses, how it
// is keyed, how it ages.
type Record struct {
	ID        string `json:"id"`        // UUIDv7, time-ordered
	Workspace string `json:"workspace"` // tenant boundary
	Kind      Kind   `json:"kind"`      // one of Kinds
	Scope            // agent, user, session, task
	Key       string `json:"key,omitempty"` // unique per workspace+kind+scope when set

	// Content is the text that is searched and rendered.
	Content string `json:"content"`
	// SearchText is Content as the text analyzer wrote it (lower-cased,
	// stemmed tokens); the lexical index is built from it. Backends index
	// Content when it is empty.
	SearchText string `json:"-"`
	// Data holds the kind-specific fields as a JSON object.
	Data json.RawMessage `json:"data,omitempty"`
	Tags []string        `json:"tags,omitempty"`
	// Metadata is a small JSON object the client owns (docs/records.md,
	// "Metadata"), in canonical form (NormalizeMetadata); nil for none. It is
	// returned wherever the record is and never searched as text.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	// Kind-specific columns that filters need.
	Category   string `json:"category,omitempty"`    // fact category
	ActionType string `json:"action_type,omitempty"` // episode action type
	Outcome    string `json:"outcome,omitempty"`     // episode outcome

	// Confidence is the kind's score: 0..1 relevance for facts and
	// episodes, 0..100 for preferences and sessions; unused (0) elsewhere.
	Confidence     float64   `json:"confidence"`
	AccessCount    int       `json:"access_count"`
	LastAccessedAt time.Time `json:"last_accessed_at,omitzero"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	ExpiresAt      time.Time `json:"expires_at,omitzero"` // zero: never
	Version        int       `json:"version"`             // 1 on insert, +1 per update

	// ValidAt and InvalidAt bound when what the record says is true (a fact's
	// validity, docs/rules.md, "Facts change over time, and history is kept"):
	// from ValidAt (zero: always was) until InvalidAt (zero: still is). A
	// record with InvalidAt set is history; the key's uniqueness counts only
	// records without it, so a key keeps one open record and any number of
	// past ones.
	ValidAt   time.Time `json:"valid_at,omitzero"`
	InvalidAt time.Time `json:"invalid_at,omitzero"`
	// Review is why the record waits for a person's review (ReviewDisputed,
	// ReviewFlaggedForRemoval); empty when it does not.
	Review string `json:"review,omitempty"`

	// Embedding is the content's vector and the model that made it; nil
	// while the embedding is pending.
	Embedding      []float32 `json:"embedding,omitempty"`
	EmbeddingModel string    `json:"embedding_model,omitempty"`
}

// Expired reports whether r has expired at t.
func (r *Record) Expired(t time.Time) bool {
	return !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(t)
}

// ValidAtTime reports whether what r says is true at t: its ValidAt is
// unset or at or before t, and its InvalidAt unset or after t.
func (r *Record) ValidAtTime(t time.Time) bool {
	return !r.ValidAt.After(t) && (r.InvalidAt.IsZero() || r.InvalidAt.After(t))
}

// Reasons a record waits for review (Record.Review).
const (
	// ReviewDisputed: a fact was contradicted and nobody has resolved it.
	ReviewDisputed = "disputed"
	// ReviewFlaggedForRemoval: the user explicitly contradicted a
	// preference; it waits to be kept or forgotten.
	ReviewFlaggedForRemoval = "flagged_for_removal"
)

// RecordVersion is a previous value of a record (a note's history).
type RecordVersion struct {
	RecordID  string          `json:"record_id"`
	Version   int             `json:"version"`
	Content   string          `json:"content"`
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// Order is the order of a record listing.
type Order int

// Orders of a record listing. Ties break on id.
const (
	OrderCreatedDesc Order = iota // newest first (the default)
	OrderCreatedAsc
	OrderUpdatedDesc
	OrderKeyAsc
	OrderConfidenceDesc
	// OrderValidDesc: newest valid_at first (created_at where valid_at is
	// unset), then newest id.
	OrderValidDesc
	// OrderNone is no particular order: the fastest read of a whole
	// selection (loading a search index).
	OrderNone
)

// RecordFilter selects records. Workspace is required; every other field
// narrows the selection when set. Scope pointers match exactly, so a
// pointer to "" selects records without that scope field.
type RecordFilter struct {
	Workspace string
	Kinds     []Kind
	IDs       []string

	AgentID   *string
	UserID    *string
	SessionID *string
	TaskID    *string
	// OrGlobalUser widens a UserID filter to global records (user "") too.
	OrGlobalUser bool
	Key          *string
	// Keyed selects only records that have a key: a kind's keyed
	// records among its others (a user's sessions, not their
	// messages), which a store may read from its index of keys.
	Keyed bool

	Tags       []string // records carrying every one of these tags
	Category   *string
	ActionType *string
	Outcome    *string

	CreatedAfter  time.Time // exclusive
	CreatedBefore time.Time // exclusive
	// LiveAt, when set, hides records whose expires_at is at or before it,
	// except those of the Lasting kinds (sessions, whose expires_at a
	// persistent session ignores).
	LiveAt  time.Time
	Lasting []Kind
	// ExpiredAt, when set, selects only records whose expires_at is at or
	// before it.
	ExpiredAt time.Time

	// AsOf, when set, selects only records true at it: valid_at unset or
	// at or before it, and invalid_at unset or after it.
	AsOf time.Time
	// Review, when set, selects only records waiting for review for one
	// of these reasons.
	Review []string

	MinConfidence *float64
	MaxConfidence *float64 // exclusive

	// ContentHash, when set, selects the records whose content hashes to
	// it (ContentHash: case and spacing aside): a repeat's candidates.
	ContentHash *string

	// Where is a condition in the filter language (docs/api.md, "Filters").
	// The backends do not read it: the rules apply it above them (memory's
	// findRecords), and Match and the search indexes check it.
	Where *MemoryFilter

	Order  Order
	Limit  int // 0: no limit
	Offset int
}

// Ptr returns a pointer to v, for filter fields.
func Ptr[T any](v T) *T { return &v }

// ScoredRecord is a record with the score a ranking gave it.
type ScoredRecord struct {
	Record *Record
	Score  float64
}
