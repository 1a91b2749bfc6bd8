package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/loci-memory/loci"
)

// SearchAgentMemory is hybrid search over what one agent sees while it
// serves one user, or none (loci.AgentSearchQuery). The scope is at most
// two disjoint record filters (the agent's records about no user or this
// user, and the user's records of no agent), ranked as one set in one read
// transaction with the query embedded once (rankScopes). Filters apply
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
	limit := q.Limit
	if limit == 0 {
		limit = loci.DefaultSearchLimit
	}
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

	qvec := s.embedQuery(ctx, q.Query)
	var ranked *Ranked
	err = a.view(func(tx loci.Tx) (err error) {
		ranked, err = s.rankFilters(ctx, tx, Query{Text: q.Query, Limit: limit, Explain: q.Explain}, filters, qvec)
		if err == nil {
			for _, h := range ranked.Hits {
				a.touch(h.Record.ID)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search agent memory: %w", err)
	}
	return searchResults(ranked), nil
}

// searchResults is the answer of a search across kinds.
func searchResults(ranked *Ranked) *loci.SearchResults {
	out := &loci.SearchResults{Results: []loci.SearchResult{}, PendingEmbeddings: ranked.PendingEmbeddings, Retrieval: ranked.Retrieval}
	for _, h := range ranked.Hits {
		r := h.Record
		out.Results = append(out.Results, loci.SearchResult{
			ID: r.ID, Kind: r.Kind, Key: r.Key, Content: r.Content, Scope: r.Scope, Tags: r.Tags, Metadata: metadataOf(r),
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Score: h.Score, Match: h.Match, Explain: h.Explain,
		})
	}
	return out
}

// metadataOf is a record's metadata as a search answers it: the object,
// {} when it has none.
// ownMetadata is r's metadata as its kind's own answers carry it: none
// (absent) when it has none.
func ownMetadata(r *loci.Record) json.RawMessage {
	if m := bytes.TrimSpace(r.Metadata); len(m) > 0 && string(m) != "{}" && string(m) != "null" {
		return r.Metadata
	}
	return nil
}

func metadataOf(r *loci.Record) json.RawMessage {
	if len(r.Metadata) == 0 {
		return json.RawMessage("{}")
	}
	return r.Metadata
}
