package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
)

// episodeData is an episode's kind-specific data.
type episodeData struct {
	Context         json.RawMessage       `json:"context,omitempty"`
	OutcomeDetails  json.RawMessage       `json:"outcome_details,omitempty"`
	ConfidenceScore *float64              `json:"confidence_score"`
	UserFeedback    *loci.EpisodeFeedback `json:"user_feedback,omitempty"`
}

func errEpisodeNotFound() error { return loci.Errorf(loci.ENOTFOUND, "episode not found") }

func checkOutcome(outcome string, required bool) error {
	if outcome == "" && !required {
		return nil
	}
	if !slices.Contains(loci.Outcomes, outcome) {
		return loci.Errorf(loci.EINVALID, "outcome must be one of %s", strings.Join(loci.Outcomes, ", "))
	}
	return nil
}

func checkUserAgent(userID, agentID string) error {
	if err := loci.RequireText("user_id", userID, loci.MaxUserIDBytes); err != nil {
		return err
	}
	return loci.RequireText("agent_id", agentID, loci.MaxAgentIDBytes)
}

// episodeSearchText is what an episode is found by: its action type and
// description, the text in its context, and its feedback comment.
func episodeSearchText(actionType, description string, d *episodeData) string {
	parts := append([]string{actionType, description}, jsonStrings(d.Context)...)
	if d.UserFeedback != nil {
		parts = append(parts, d.UserFeedback.Comment)
	}
	return searchText(strings.Join(parts, " "))
}

// RecordEpisode stores an episode that expires after the episode TTL and
// evicts the oldest of its user+agent beyond the cap.
func (s *Service) RecordEpisode(ctx context.Context, in loci.EpisodeInput) (_ *loci.Episode, err error) {
	a, err := s.begin(ctx, loci.OpEpisodeRecord, loci.Scope{UserID: in.UserID, AgentID: in.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	d := episodeData{ConfidenceScore: in.ConfidenceScore}
	if d.Context, err = optionalObject("context", in.Context); err != nil {
		return nil, err
	} else if d.OutcomeDetails, err = optionalObject("outcome_details", in.OutcomeDetails); err != nil {
		return nil, err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode episode: %w", err)
	}
	ws := loci.WorkspaceFrom(ctx)
	var ep *loci.Episode
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "episode", in.UserID, in.AgentID)); err != nil {
			return err
		}
		now := s.now()
		id := newID()
		a.touch(id)
		a.created()
		f := loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindEpisode}, UserID: &in.UserID, AgentID: &in.AgentID}
		n, err := tx.CountRecords(ctx, f)
		if err != nil {
			return err
		}
		if over := n - s.keep.episodeCapOr() + 1; over > 0 {
			f.Order, f.Limit = loci.OrderCreatedAsc, over
			oldest, err := tx.FindRecords(ctx, f)
			if err != nil {
				return err
			}
			ids := make([]string, len(oldest))
			for i, r := range oldest {
				ids[i] = r.ID
			}
			a.touch(ids...) // evicted
			if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindEpisode}, IDs: ids}); err != nil {
				return err
			}
		}
		rec := &loci.Record{
			ID: id, Workspace: ws, Kind: loci.KindEpisode, Scope: loci.Scope{UserID: in.UserID, AgentID: in.AgentID},
			Content: in.ActionDescription, SearchText: episodeSearchText(in.ActionType, in.ActionDescription, &d), Data: data,
			ActionType: in.ActionType, Outcome: in.Outcome,
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.keep.episodeTTLOr()), Version: 1,
		}
		if in.ConfidenceScore != nil {
			rec.Confidence = *in.ConfidenceScore
		}
		if err := tx.InsertRecord(ctx, rec); err != nil {
			return err
		}
		ep, err = episodeOf(rec)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record episode: %w", err)
	}
	return ep, nil
}

// episodeFilter selects the live episodes of q's user and agent, narrowed
// by its outcome and action type.
func (s *Service) episodeFilter(ctx context.Context, q loci.EpisodeQuery) (loci.RecordFilter, error) {
	if err := checkUserAgent(q.UserID, q.AgentID); err != nil {
		return loci.RecordFilter{}, err
	} else if err := checkOutcome(q.Outcome, false); err != nil {
		return loci.RecordFilter{}, err
	}
	f := loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindEpisode},
		UserID: &q.UserID, AgentID: &q.AgentID, LiveAt: s.now(),
	}
	if q.Outcome != "" {
		f.Outcome = &q.Outcome
	}
	if q.ActionType != "" {
		f.ActionType = &q.ActionType
	}
	return f, nil
}

// SearchEpisodes returns the live episodes most similar to q.Query: hybrid
// retrieval over the episodes episodeFilter selects (unexpired, of the
// outcome and action type asked, filtered before ranking), their
// confidence weighing in.
func (s *Service) SearchEpisodes(ctx context.Context, q loci.EpisodeQuery) (_ *loci.EpisodeResults, err error) {
	a, err := s.begin(ctx, loci.OpEpisodeSearch, loci.Scope{UserID: q.UserID, AgentID: q.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	f, err := s.episodeFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	limit, err := checkSearch(q.Query, q.Limit)
	if err != nil {
		return nil, err
	}
	qvec := s.embedQuery(ctx, q.Query) // before the transaction
	var out *loci.EpisodeResults
	err = a.view(func(tx loci.Tx) error {
		ranked, err := s.rank(ctx, tx, Query{Text: q.Query, Filters: []loci.RecordFilter{f}, Limit: limit, Explain: q.Explain}, qvec)
		if err != nil {
			return err
		}
		// Built afresh on each run: the retry policy may run this twice.
		out = &loci.EpisodeResults{Results: make([]loci.ScoredEpisode, 0, len(ranked.Hits)), PendingEmbeddings: ranked.PendingEmbeddings, Retrieval: ranked.Retrieval}
		for _, h := range ranked.Hits {
			ep, err := episodeOf(h.Record)
			if err != nil {
				s.malformed(h.Record, err)
				continue
			}
			a.touch(h.Record.ID)
			out.Results = append(out.Results, loci.ScoredEpisode{Episode: ep, Metadata: metadataOf(h.Record), Score: h.Score, Match: h.Match, Explain: h.Explain})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search episodes: %w", err)
	}
	return out, nil
}

// RecentEpisodes returns live episodes, newest first.
func (s *Service) RecentEpisodes(ctx context.Context, q loci.EpisodeQuery) (_ []*loci.Episode, _ int, err error) {
	a, err := s.begin(ctx, loci.OpEpisodeList, loci.Scope{UserID: q.UserID, AgentID: q.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	f, err := s.episodeFilter(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if f.Limit, f.Offset, err = checkPage(q.Limit, q.Offset, loci.DefaultListLimit); err != nil {
		return nil, 0, err
	}
	f.Order = loci.OrderCreatedDesc
	out := []*loci.Episode{}
	var total int
	err = a.view(func(tx loci.Tx) (err error) {
		out = out[:0] // the retry policy may run this twice
		if total, err = tx.CountRecords(ctx, f); err != nil {
			return err
		}
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range recs {
			ep, err := episodeOf(r)
			if err != nil {
				s.malformed(r, err)
				continue
			}
			a.touch(r.ID)
			out = append(out, ep)
		}
		a.count(total)
		return nil
	})
	return out, total, err
}

// AddEpisodeFeedback sets the user feedback of a live episode.
func (s *Service) AddEpisodeFeedback(ctx context.Context, id string, fb loci.EpisodeFeedback) (_ *loci.Episode, err error) {
	a, err := s.begin(ctx, loci.OpEpisodeFeedback, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	if fb.Rating != nil && (math.IsNaN(*fb.Rating) || math.IsInf(*fb.Rating, 0)) {
		return nil, loci.Errorf(loci.EINVALID, "rating must be a number")
	}
	if fb.Corrections, err = optionalObject("corrections", fb.Corrections); err != nil {
		return nil, err
	}
	if fb.Rating == nil && strings.TrimSpace(fb.Comment) == "" && fb.Corrections == nil {
		return nil, loci.Errorf(loci.EINVALID, "feedback needs a rating, a comment or corrections")
	}
	ws := loci.WorkspaceFrom(ctx)
	var ep *loci.Episode
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, recordLock(ws, id)); err != nil {
			return err
		}
		now := s.now()
		rec, err := tx.GetRecord(ctx, ws, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && (rec.Kind != loci.KindEpisode || rec.Expired(now))) {
			return errEpisodeNotFound()
		} else if err != nil {
			return err
		}
		a.touchRecord(rec)
		var d episodeData
		if err := decodeData(rec, &d); err != nil {
			return err
		}
		d.UserFeedback = &fb
		if rec.Data, err = json.Marshal(d); err != nil {
			return fmt.Errorf("encode episode: %w", err)
		}
		prev := rec.Version
		rec.SearchText = episodeSearchText(rec.ActionType, rec.Content, &d)
		rec.UpdatedAt, rec.Version = now, prev+1
		if err := tx.UpdateRecord(ctx, rec, prev); err != nil {
			return err
		}
		ep, err = episodeOf(rec)
		return err
	})
	return ep, err
}

// GetEpisode returns one live episode.
func (s *Service) GetEpisode(ctx context.Context, id string) (_ *loci.Episode, err error) {
	a, err := s.begin(ctx, loci.OpEpisodeGet, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var ep *loci.Episode
	err = a.view(func(tx loci.Tx) error {
		rec, err := tx.GetRecord(ctx, ws, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && (rec.Kind != loci.KindEpisode || rec.Expired(s.now()))) {
			return errEpisodeNotFound()
		} else if err != nil {
			return err
		}
		a.touchRecord(rec)
		ep, err = episodeOf(rec)
		return err
	})
	return ep, err
}

// DeleteEpisode deletes one episode, expired or not (an expired one is
// still stored until maintenance expires it, and deleting is what its
// user asked).
func (s *Service) DeleteEpisode(ctx context.Context, id string) (err error) {
	a, err := s.begin(ctx, loci.OpEpisodeDelete, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := loci.RequireText("id", id, loci.MaxRecordIDBytes); err != nil {
		return err
	}
	ws := loci.WorkspaceFrom(ctx)
	return a.update(func(tx loci.Tx) error {
		// Read first: the entry names the episode's user and agent.
		rec, err := tx.GetRecord(ctx, ws, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && rec.Kind != loci.KindEpisode) {
			return errEpisodeNotFound()
		} else if err != nil {
			return err
		}
		n, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindEpisode}, IDs: []string{id}})
		if err == nil && n == 0 {
			return errEpisodeNotFound()
		}
		a.touchRecord(rec)
		return err
	})
}

func episodeOf(r *loci.Record) (*loci.Episode, error) {
	var d episodeData
	if err := decodeData(r, &d); err != nil {
		return nil, err
	}
	return &loci.Episode{
		ID: r.ID, UserID: r.UserID, AgentID: r.AgentID, ActionType: r.ActionType, ActionDescription: r.Content,
		Context: d.Context, Outcome: r.Outcome, OutcomeDetails: d.OutcomeDetails, ConfidenceScore: d.ConfidenceScore,
		UserFeedback: d.UserFeedback, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, Metadata: ownMetadata(r),
	}, nil
}
