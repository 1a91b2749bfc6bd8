package loci

import (
	"context"
	"encoding/json"
)

// AgentSearchQuery is a hybrid search over the memory one agent sees while
// it serves one user, or none (the MCP tool search_memory). Its scope is
// fixed by AgentID and UserID, never widened:
//
//   - the agent's own records about no user (notes, blocks, passages,
//     working memory without a user, facts it stored as global);
//   - with a user, the agent's records about that user (episodes, facts,
//     working memory) and the user's records that belong to no agent
//     (preferences, sessions and their messages).
//
// Other agents' records and other users' records are never searched.
// Kinds and Tags narrow the scope further; every filter applies before
// ranking.
type AgentSearchQuery struct {
	Query   string
	AgentID string // required
	UserID  string // optional
	Kinds   []Kind
	Tags    []string
	Limit   int  // default DefaultSearchLimit, at most MaxSearchLimit
	Explain bool // explain each result's score
	// Filters narrows the scope before ranking, in the filter language of
	// docs/api.md, "Filters" (ParseMemoryFilter); it never widens it.
	Filters json.RawMessage
}

// Validate checks the query as SearchQuery.Validate does, and its scope:
// an agent (and a user, when set) that is valid text of at most
// MaxAgentIDBytes (MaxUserIDBytes). EINVALID; ETOOLARGE for a query over
// MaxQueryBytes.
func (q AgentSearchQuery) Validate() error {
	if err := validateSearch(q.Query, q.Limit); err != nil {
		return err
	} else if err := RequireText("agent_id", q.AgentID, MaxAgentIDBytes); err != nil {
		return err
	} else if q.UserID != "" {
		if err := RequireText("user_id", q.UserID, MaxUserIDBytes); err != nil {
			return err
		}
	}
	return validateKinds(q.Kinds)
}

// AgentSearchService is hybrid search over an agent's (and its user's)
// memory.
type AgentSearchService interface {
	// SearchAgentMemory ranks the records in q's scope by hybrid
	// retrieval, best first. The agent's part and the user's part are
	// each ranked, then merged by score. EINVALID for an empty or blank
	// query, a missing agent, an unknown kind or a limit out of range;
	// ETOOLARGE for a query over MaxQueryBytes.
	SearchAgentMemory(ctx context.Context, q AgentSearchQuery) (*SearchResults, error)
}

// The operations on an agent's search (MCP search_memory) (Operation, declared once: see operations.go).
var (
	OpMemorySearch = declare(Operation{Name: "memory.search", Role: RoleViewer, Agent: AgentNamed, Summary: "Search an agent's memory (MCP search_memory)"})
)
