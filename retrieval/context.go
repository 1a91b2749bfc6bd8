package retrieval

import "sort"

// Link is a neighbour of a lexical hit in its conversation: the record
// written just before it, or just after it (After).
type Link struct {
	ID    string
	After bool
}

// ConverseParams tunes Converse.
type ConverseParams struct {
	// Context is what a hit lends to each record next to it, times its
	// scaled score. Answer replaces Context for the record right after a
	// hit that asks a question: its answer, most often.
	Context, Answer float64
	// Session weighs the strength of a record's session (Strength, by
	// session: 0..1, absent 0), so that a turn of the session that talks
	// about the topic outranks a stray turn elsewhere. 0: off.
	Session  float64
	Strength map[string]float64
	// Prior weighs a record by who said it (a role's prior: see
	// rules.RankingParams.AssistantWeight): its own score, the context
	// it is lent and what it lends its neighbours are multiplied by it.
	// A record absent weighs 1.
	Prior map[string]float64
}

// prior is the weight of id's own score and of what it lends (1 unless
// p.Prior says otherwise).
func (p ConverseParams) prior(id string) float64 {
	if w, ok := p.Prior[id]; ok {
		return w
	}
	return 1
}

// Parts is how Converse made a record's score: its own lexical score
// scaled to the best hit's (0..1), what its neighbours lent it, and its
// session's share.
type Parts struct {
	Own, Context, Session float64
}

// Converse scores lexical hits as turns of conversations: each record's
// score is its own score scaled to the best hit's (0..1), plus the most
// any neighbouring hit lends it (a hit lends Context, or Answer to the
// record after it when it asks a question, times its scaled score), both
// times the record's prior (p.Prior; a lender's share times its own), plus
// Session times its session's strength (p.Strength). links maps a hit's id to its
// neighbours (which need not be hits: a record found only as a neighbour
// has no own score); questions holds the hits that ask one; sessionOf
// maps a record to its session ("" or absent: none). It is score
// propagation over the conversation graph, and document-level evidence
// for each turn. Returns the records best first (ties on id) and the
// parts of each score.
func Converse(hits []Hit, links map[string][]Link, questions map[string]bool, sessionOf map[string]string, p ConverseParams) ([]Hit, map[string]Parts) {
	if len(hits) == 0 || hits[0].Score <= 0 {
		return hits, nil
	}
	top := hits[0].Score
	parts := make(map[string]Parts, len(hits))
	order := make([]string, 0, len(hits))
	for _, h := range hits {
		if _, seen := parts[h.ID]; seen {
			continue
		}
		parts[h.ID] = Parts{Own: p.prior(h.ID) * h.Score / top}
		order = append(order, h.ID)
	}
	if p.Context > 0 || p.Answer > 0 {
		for _, h := range hits {
			share := p.prior(h.ID) * h.Score / top
			for _, l := range links[h.ID] {
				if l.ID == h.ID {
					continue
				}
				w := p.Context
				if l.After && questions[h.ID] {
					w = p.Answer
				}
				if w*share <= 0 {
					continue
				}
				pt, seen := parts[l.ID]
				if !seen {
					order = append(order, l.ID)
				}
				pt.Context = max(pt.Context, p.prior(l.ID)*w*share)
				parts[l.ID] = pt
			}
		}
	}
	if p.Session > 0 {
		for _, id := range order {
			if s := sessionOf[id]; s != "" && p.Strength[s] > 0 {
				pt := parts[id]
				pt.Session = p.Session * p.Strength[s]
				parts[id] = pt
			}
		}
	}
	out := make([]Hit, len(order))
	for i, id := range order {
		pt := parts[id]
		out[i] = Hit{ID: id, Score: pt.Own + pt.Context + pt.Session}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out, parts
}
