package rules

import (
	"context"
	"fmt"
	"strings"

	"github.com/loci-memory/loci"
)

// normalizeTags trims tags, drops duplicates and checks them.
func normalizeTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if err := loci.RequireText("tag", t, loci.MaxTagBytes); err != nil {
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
		LiveAt:    s.now(),
	}
	if f.Tag != "" {
		rf.Tags = []string{f.Tag}
	}
	return rf
}

// AddPassage stores a passage in the agent's archival memory.
func (s *Service) AddPassage(ctx context.Context, agentID, content string, tags []string) (_ *loci.Passage, err error) {
	a, err := s.begin(ctx, loci.OpPassageAdd, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	} else if err := loci.RequireText("content", content, 0); err != nil {
		return nil, err
	} else if len(content) > loci.MaxPassageBytes {
		return nil, loci.Errorf(loci.ETOOLARGE, "content must be at most %d bytes", loci.MaxPassageBytes)
	}
	tags, err = normalizeTags(tags)
	if err != nil {
		return nil, err
	}
	rec := &loci.Record{
		ID: newID(), Workspace: loci.WorkspaceFrom(ctx), Kind: loci.KindPassage,
		Scope: loci.Scope{AgentID: agentID}, Content: content, Tags: tags,
		SearchText: searchText(content + " " + strings.Join(tags, " ")), Version: 1,
	}
	var out *loci.Record
	event := loci.EventAdd
	err = a.update(func(tx loci.Tx) error {
		// The same content again (case and spacing aside) is the passage
		// already stored: nothing is written (docs/rules.md, "A repeat changes
		// nothing (NOOP)"), unless it brings tags the passage lacks, which it
		// adds (an update).
		w := &memWrite{s: s, tx: tx, a: a, ws: rec.Workspace, now: s.now()}
		same, err := w.sameContent(ctx, loci.RecordFilter{Workspace: rec.Workspace, Kinds: []loci.Kind{loci.KindPassage}, AgentID: &agentID}, "", content)
		if err != nil {
			return err
		} else if same != nil {
			ev, err := w.repeatOf(ctx, same, passageRepeat(tags, nil))
			if err != nil {
				return err
			}
			a.touch(same.ID)
			if out, event = same, ev.Event; ev.Event == loci.EventUpdate {
				out, err = tx.GetRecord(ctx, rec.Workspace, same.ID)
			}
			return err
		}
		out, event = rec, loci.EventAdd
		std, err := s.ensureAgent(ctx, tx, agentID, "")
		if err != nil {
			return err
		}
		rec.CreatedAt = s.now()
		rec.UpdatedAt = rec.CreatedAt
		a.created()
		a.touch(rec.ID)
		a.touch(std...) // the agent's standard blocks, when it was created
		return tx.InsertRecord(ctx, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("add passage: %w", err)
	}
	p := passageOf(out)
	p.Event = event
	return p, nil
}

// ListPassages returns the agent's passages, newest first.
func (s *Service) ListPassages(ctx context.Context, agentID string, f loci.PassageFilter) (_ []*loci.Passage, _ int, err error) {
	a, err := s.begin(ctx, loci.OpPassageList, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, 0, err
	}
	out := []*loci.Passage{}
	var total int
	err = a.view(func(tx loci.Tx) error {
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
			a.touch(rec.ID)
			out = append(out, passageOf(rec))
		}
		a.count(total)
		return err
	})
	return out, total, err
}

// SearchPassages ranks the agent's passages against query by hybrid
// retrieval; the tag filter applies before ranking.
func (s *Service) SearchPassages(ctx context.Context, agentID, query string, f loci.PassageFilter) (_ *loci.PassageResults, err error) {
	a, err := s.begin(ctx, loci.OpPassageSearch, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return nil, loci.Errorf(loci.EINVALID, "query must not be empty")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = loci.DefaultSearchLimit
	}
	q := Query{Text: query, Filters: []loci.RecordFilter{s.passageFilter(ctx, agentID, f)}, Limit: min(limit, loci.MaxSearchLimit), Explain: f.Explain}
	ranked, err := s.rankRead(ctx, a, q)
	if err != nil {
		return nil, fmt.Errorf("search passages: %w", err)
	}
	out := &loci.PassageResults{Results: []loci.PassageResult{}, PendingEmbeddings: ranked.PendingEmbeddings, Retrieval: ranked.Retrieval}
	for _, h := range ranked.Hits {
		out.Results = append(out.Results, loci.PassageResult{Passage: *passageOf(h.Record), Metadata: metadataOf(h.Record), Score: h.Score, Match: h.Match, Explain: h.Explain})
	}
	return out, nil
}

// DeletePassage deletes one of the agent's passages.
func (s *Service) DeletePassage(ctx context.Context, agentID, id string) (err error) {
	a, err := s.begin(ctx, loci.OpPassageDelete, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := checkAgentID(agentID); err != nil {
		return err
	} else if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return err
	}
	return a.update(func(tx loci.Tx) error {
		f := s.passageFilter(ctx, agentID, loci.PassageFilter{})
		f.IDs = []string{id}
		n, err := tx.DeleteRecords(ctx, f)
		if err != nil {
			return err
		} else if n == 0 {
			return loci.Errorf(loci.ENOTFOUND, "passage %s not found", id)
		}
		a.touch(id)
		return nil
	})
}

func passageOf(rec *loci.Record) *loci.Passage {
	tags := rec.Tags
	if tags == nil {
		tags = []string{}
	}
	return &loci.Passage{ID: rec.ID, AgentID: rec.AgentID, Content: rec.Content, Tags: tags, CreatedAt: rec.CreatedAt, Metadata: ownMetadata(rec)}
}
