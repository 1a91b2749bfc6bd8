package rules

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// ReviewQueue returns what of the user's memory waits for a person: facts
// contradicted and not resolved (that have not ended) and preferences the
// user explicitly contradicted (flagged for removal), most recently
// changed first, with how many there are in all. Both kinds carry the
// reason in the record's review column, so the queue is one query (two,
// merged, for an agent's reader: its agent's records and those of no
// agent, inReach).
func (s *Service) ReviewQueue(ctx context.Context, q loci.ReviewQuery) (_ []*loci.ReviewItem, _ int, err error) {
	a, err := s.begin(ctx, loci.OpUserReview, loci.Scope{UserID: q.UserID, AgentID: q.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, 0, err
	}
	if err := loci.RequireText("user_id", q.UserID, loci.MaxUserIDBytes); err != nil {
		return nil, 0, err
	}
	limit, offset, err := checkPage(q.Limit, q.Offset, loci.DefaultListLimit)
	if err != nil {
		return nil, 0, err
	}
	f := loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx), Kinds: loci.ReviewedKinds(), UserID: &q.UserID,
		Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval},
		Order:  loci.OrderUpdatedDesc, Limit: limit, Offset: offset,
	}
	out := []*loci.ReviewItem{}
	var total int
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		now := s.now()
		f.AsOf = now   // a disputed fact that has ended is history, not a question
		f.LiveAt = now // nor is one that has expired: it is answered nowhere
		recs, n, err := findParts(ctx, tx, inReach(f, readerAgent(ctx, q.AgentID)))
		if err != nil {
			return err
		}
		total = n
		for _, r := range recs {
			it := &loci.ReviewItem{Kind: r.Kind, Reason: r.Review}
			if rules, ok := rulesOf(r.Kind); ok {
				err = rules.reviewItem(it, r, now)
			} else {
				err = fmt.Errorf("review queue: record %s is a %s", r.ID, r.Kind)
			}
			if err != nil {
				return err
			}
			a.touch(r.ID)
			out = append(out, it)
		}
		a.count(total)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("review queue: %w", err)
	}
	return out, total, nil
}
