package loci

import (
	"context"
	"encoding/json"
	"time"
)

// Limits on archival passages (docs/records.md, "The kinds").
const (
	MaxPassageBytes = 64 << 10
	MaxPassageTags  = 32
	MaxTagBytes     = 64
)

// Passage is a piece of an agent's archival memory: long-term, searchable text
// with tags.
type Passage struct {
	ID        string    `json:"id"`
	AgentID   string    `json:"agent_id"`
	Content   string    `json:"content"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
	// Event is what adding it did, set by AddPassage alone: EventAdd, or
	// for the same content again EventNoop, or EventUpdate when the
	// repeat brought tags the passage lacked (they were added).
	Event string `json:"event,omitempty"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// PassageFilter narrows a listing or a search of passages: Tag, when set,
// keeps the passages that carry it. Explain asks a search to explain each
// result's score.
type PassageFilter struct {
	Tag     string
	Limit   int
	Offset  int
	Explain bool
}

// PassageResult is a passage found by a search, with its score (higher is
// better) and, when asked, how the score was made.
type PassageResult struct {
	Passage
	Metadata json.RawMessage `json:"metadata"`
	Score    float64         `json:"score"`
	Match    string          `json:"match,omitempty"`
	Explain  *Explanation    `json:"explain,omitempty"`
}

// PassageResults are a passage search's results, best first, and how many
// of the agent's passages (under the filter) wait for their embedding.
type PassageResults struct {
	Results           []PassageResult `json:"results"`
	PendingEmbeddings int             `json:"pending_embeddings"`
	Retrieval         Retrieval       `json:"retrieval"`
}

// PassageService is archival memory.
type PassageService interface {
	// AddPassage stores a passage. The same content again (case and
	// spacing aside) is the passage stored: unchanged, or with the tags it
	// lacked added (Passage.Event says which). EINVALID for empty content
	// or a bad tag (or more than MaxPassageTags with those it holds);
	// ETOOLARGE for content over MaxPassageBytes.
	AddPassage(ctx context.Context, agentID, content string, tags []string) (*Passage, error)
	// ListPassages returns the agent's passages newest first, and how many
	// match in all.
	ListPassages(ctx context.Context, agentID string, f PassageFilter) ([]*Passage, int, error)
	// SearchPassages ranks the agent's passages against query by hybrid
	// retrieval, best first; the tag filter applies before ranking. Any
	// text is a valid query (never query syntax); EINVALID when it is
	// empty.
	SearchPassages(ctx context.Context, agentID, query string, f PassageFilter) (*PassageResults, error)
	// DeletePassage deletes one of the agent's passages. ENOTFOUND when
	// absent.
	DeletePassage(ctx context.Context, agentID, id string) error
}

// The traits of the passage kind (KindTraits). A passage is an agent's own
// memory; the memories API adds one (with agent_id).
var _ = declareKind(KindPassage, KindTraits{AgentScoped: true, Added: true})

// The operations on passages (Operation, declared once: see operations.go).
var (
	OpPassageAdd    = declare(Operation{Name: "passage.add", Kind: KindPassage, Role: RoleCreator, Agent: AgentNamed, Summary: "Add an archival passage"})
	OpPassageList   = declare(Operation{Name: "passage.list", Kind: KindPassage, Role: RoleViewer, Agent: AgentNamed, Summary: "List passages, newest first"})
	OpPassageSearch = declare(Operation{Name: "passage.search", Kind: KindPassage, Role: RoleViewer, Agent: AgentNamed, Summary: "Search passages"})
	OpPassageDelete = declare(Operation{Name: "passage.delete", Kind: KindPassage, Role: RoleEditor, Agent: AgentNamed, Summary: "Delete a passage"})
)
