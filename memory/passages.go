package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/loci-memory/loci"
)

// Search defaults for passages.
const (
	defaultSearchLimit = 10
	maxSearchLimit     = 1000
)

// normalizeTags trims tags, drops duplicates and checks them.
func normalizeTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if err := requireText("tag", t, loci.MaxTagBytes); err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) > loci.MaxPassageTags {
		return nil, loci.Errorf(loci.EINVALID, "at most %d tags", loci.MaxPassageTags)
	}
	return out, nil
}

func (s *Service) passageFilter(ctx context.Context, agentID string, f loci.PassageFilter) loci.RecordFilter {
	rf := loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx),
		Kinds:     []loci.Kind{loci.KindPassage},
		AgentID:   &agentID,
	}
	if f.Tag != "" {
		rf.Tags = []string{f.Tag}
	}
	return rf
}

// AddPassage stores a passage in the agent's archival memory.
func (s *Service) AddPassage(ctx context.Context, agentID, content string, tags []string) (*loci.Passage, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	} else if err := requireText("content", content, 0); err != nil {
		return nil, err
	} else if len(content) > loci.MaxPassageBytes {
		return nil, loci.Errorf(loci.ETOOLARGE, "content must be at most %d bytes", loci.MaxPassageBytes)
	}
	tags, err := normalizeTags(tags)
	if err != nil {
		return nil, err
	}
	rec := &loci.Record{
		ID: newID(), Workspace: loci.WorkspaceFrom(ctx), Kind: loci.KindPassage,
		Scope: loci.Scope{AgentID: agentID}, Content: content, Tags: tags,
		SearchText: searchText(content + " " + strings.Join(tags, " ")), Version: 1,
	}
	err = s.store.Update(ctx, func(tx loci.Tx) error {
		if err := s.ensureAgent(ctx, tx, agentID, ""); err != nil {
			return err
		}
		rec.CreatedAt = s.now()
		rec.UpdatedAt = rec.CreatedAt
		return tx.InsertRecord(ctx, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("add passage: %w", err)
	}
	return passageOf(rec), nil
}

// ListPassages returns the agent's passages, newest first.
func (s *Service) ListPassages(ctx context.Context, agentID string, f loci.PassageFilter) ([]*loci.Passage, int, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, 0, err
	}
	out := []*loci.Passage{}
	var total int
	err := s.store.View(ctx, func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		rf := s.passageFilter(ctx, agentID, f)
		n, err := tx.CountRecords(ctx, rf)
		if err != nil {
			return err
		}
		total = n
		rf.Order = loci.OrderCreatedDesc
		rf.Limit, rf.Offset = pageOf(f.Limit, f.Offset)
		recs, err := tx.FindRecords(ctx, rf)
		for _, rec := range recs {
			out = append(out, passageOf(rec))
		}
		return err
	})
	return out, total, err
}

// SearchPassages ranks the agent's passages against query by hybrid
// retrieval; the tag filter applies before ranking.
func (s *Service) SearchPassages(ctx context.Context, agentID, query string, f loci.PassageFilter) (*loci.PassageResults, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return nil, loci.Errorf(loci.EINVALID, "query must not be empty")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	ranked, err := s.rank(ctx, Query{
		Text: query, Filter: s.passageFilter(ctx, agentID, f), Limit: min(limit, maxSearchLimit), Explain: f.Explain,
	})
	if err != nil {
		return nil, fmt.Errorf("search passages: %w", err)
	}
	out := &loci.PassageResults{Results: []loci.PassageResult{}, PendingEmbeddings: ranked.PendingEmbeddings}
	for _, h := range ranked.Hits {
		out.Results = append(out.Results, loci.PassageResult{Passage: *passageOf(h.Record), Score: h.Score, Explain: h.Explain})
	}
	return out, nil
}

// DeletePassage deletes one of the agent's passages.
func (s *Service) DeletePassage(ctx context.Context, agentID, id string) error {
	if err := checkAgentID(agentID); err != nil {
		return err
	} else if err := requireText("id", id, loci.MaxAgentIDBytes); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx loci.Tx) error {
		f := s.passageFilter(ctx, agentID, loci.PassageFilter{})
		f.IDs = []string{id}
		n, err := tx.DeleteRecords(ctx, f)
		if err != nil {
			return err
		} else if n == 0 {
			return loci.Errorf(loci.ENOTFOUND, "passage %s not found", id)
		}
		return nil
	})
}

func passageOf(rec *loci.Record) *loci.Passage {
	tags := rec.Tags
	if tags == nil {
		tags = []string{}
	}
	return &loci.Passage{ID: rec.ID, AgentID: rec.AgentID, Content: rec.Content, Tags: tags, CreatedAt: rec.CreatedAt}
}
