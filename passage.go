package loci

import (
	"context"
	"time"
)

// Limits on archival passages (seed 002).
const (
	MaxPassageBytes = 64 << 10
	MaxPassageTags  = 32
	MaxTagBytes     = 64
)

// Passage is a piece of an agent's archival memory: long-term, searchable
// text with tags (seed 002).
type Passage struct {
	ID        string    `json:"id"`
	AgentID   string    `json:"agent_id"`
	Content   string    `json:"content"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
}

// PassageFilter narrows a listing or a search of passages: Tag, when set,
// keeps the passages that carry it.
type PassageFilter struct {
	Tag    string
	Limit  int
	Offset int
}

// PassageResult is a passage found by a search, with its score (higher is
// better).
type PassageResult struct {
	Passage
	Score float64 `json:"score"`
}

// PassageService is archival memory.
type PassageService interface {
	// AddPassage stores a passage. EINVALID for empty content or a bad tag;
	// ETOOLARGE for content over MaxPassageBytes.
	AddPassage(ctx context.Context, agentID, content string, tags []string) (*Passage, error)
	// ListPassages returns the agent's passages newest first, and how many
	// match in all.
	ListPassages(ctx context.Context, agentID string, f PassageFilter) ([]*Passage, int, error)
	// SearchPassages ranks the agent's passages against query, best first.
	// Any text is a valid query (never query syntax); EINVALID when it is
	// empty.
	SearchPassages(ctx context.Context, agentID, query string, f PassageFilter) ([]PassageResult, error)
	// DeletePassage deletes one of the agent's passages. ENOTFOUND when
	// absent.
	DeletePassage(ctx context.Context, agentID, id string) error
}
