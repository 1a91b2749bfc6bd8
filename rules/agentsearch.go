package rules

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// SearchAgentMemory is hybrid search over what one agent sees while it
// serves one user, or none (loci.AgentSearchQuery). The scope is at most
// two disjoint record filters (the agent's records about no user or this
// user, and the user's records of no agent), ranked as one set in one read
// transaction with the query embedded once (searchScopes). Filters apply
// before ranking, so another agent's or user's records can never take a
// place in the results.
//
// No route calls it (the MCP tool search_memory does): its operation is
// named "memory.search".
func (s *Service) SearchAgentMemory(ctx context.Context, q loci.AgentSearchQuery) (_ *loci.SearchResults, err error) {
	a, err := s.begin(ctx, loci.OpMemorySearch, loci.Scope{AgentID: q.AgentID, UserID: q.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	where, err := loci.ParseMemoryFilter(q.Filters)
	if err != nil {
		return nil, err
	}
	base := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Tags: q.Tags, Kinds: append([]loci.Kind(nil), q.Kinds...), Where: where}
	// The agent's records about no user, or about this user.
	own := base
	own.AgentID, own.UserID, own.OrGlobalUser = &q.AgentID, &q.UserID, q.UserID != ""
	filters := []loci.RecordFilter{own}
	if q.UserID != "" {
		// The user's records that belong to no agent.
		user := base
		user.AgentID, user.UserID = loci.Ptr(""), &q.UserID
		filters = append(filters, user)
	}
	res, err := s.searchScopes(ctx, a, Query{Text: q.Query, Filters: filters, Limit: q.Limit, Explain: q.Explain})
	if err != nil {
		return nil, fmt.Errorf("search agent memory: %w", err)
	}
	return res, nil
}
