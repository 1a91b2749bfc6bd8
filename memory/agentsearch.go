package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/retrieval"
)

// SearchAgentMemory is hybrid search over what one agent sees while it
// serves one user, or none (loci.AgentSearchQuery). The scope is at most
// two disjoint record filters (the agent's records about no user or this
// user, and the user's records of no agent), ranked as one set in one read
// transaction with the query embedded once (rankScopes). Filters apply
// before ranking, so another agent's or user's records can never take a
// place in the results.
func (s *Service) SearchAgentMemory(ctx context.Context, q loci.AgentSearchQuery) (*loci.SearchResults, error) {
	if strings.TrimSpace(q.Query) == "" {
		return nil, loci.Errorf(loci.EINVALID, "query is required")
	}
	if len(q.Query) > loci.MaxQueryBytes {
		return nil, loci.Errorf(loci.ETOOLARGE, "query must be at most %d bytes", loci.MaxQueryBytes)
	}
	if q.Limit < 0 || q.Limit > loci.MaxSearchLimit {
		return nil, loci.Errorf(loci.EINVALID, "limit must be between 1 and %d", loci.MaxSearchLimit)
	}
	if err := checkAgentID(q.AgentID); err != nil {
		return nil, err
	}
	if q.UserID != "" {
		if err := requireText("user_id", q.UserID, loci.MaxAgentIDBytes); err != nil {
			return nil, err
		}
	}
	base := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Tags: q.Tags}
	for _, k := range q.Kinds {
		if _, err := loci.ParseKind(string(k)); err != nil {
			return nil, err
		}
		base.Kinds = append(base.Kinds, k)
	}
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
	var hits []Hit
	var pending int
	err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		hits, pending, err = s.rankScopes(ctx, tx, q, filters, qvec, limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search agent memory: %w", err)
	}
	out := &loci.SearchResults{Results: []loci.SearchResult{}, PendingEmbeddings: pending}
	for _, h := range hits {
		r := h.Record
		out.Results = append(out.Results, loci.SearchResult{
			ID: r.ID, Kind: r.Kind, Key: r.Key, Content: r.Content, Scope: r.Scope, Tags: r.Tags,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Score: h.Score, Explain: h.Explain,
		})
	}
	return out, nil
}

// rankScopes ranks the records of several disjoint filters as one set:
// each filter's signals propose candidates with their own scores (BM25,
// cosine: comparable across filters), the lists are merged by those
// scores, and the merged candidates are fused and re-scored once. Ranking
// each filter to the end and merging the final scores would not do: each
// run's best hit scores about 1 however poorly it matches, so a small
// scope (a user's few preferences) would always outrank a large one.
func (s *Service) rankScopes(ctx context.Context, tx loci.Tx, q loci.AgentSearchQuery, filters []loci.RecordFilter, qvec []float32, limit int) ([]Hit, int, error) {
	now := s.now()
	n := max(s.ranking.Candidates, 3*limit)
	all := &candidateSet{lists: map[string][]retrieval.Hit{}, records: map[string]*loci.Record{}}
	for _, f := range filters {
		f.Order, f.Limit, f.Offset = loci.OrderCreatedDesc, 0, 0
		if f.LiveAt.IsZero() {
			f.LiveAt = now
		}
		c, err := s.candidates(ctx, tx, q.Query, f, qvec, n)
		if err != nil {
			return nil, 0, err
		}
		all.pending += c.pending
		for name, l := range c.lists {
			all.lists[name] = append(all.lists[name], l...)
		}
		for id, r := range c.records {
			all.records[id] = r
		}
	}
	for _, l := range all.lists {
		slices.SortStableFunc(l, func(a, b retrieval.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
	}
	return s.fuse(all, now, limit, q.Explain), all.pending, nil
}
