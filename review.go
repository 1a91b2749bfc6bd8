package loci

import (
	"context"
	"encoding/json"
	"fmt"
)

// ReviewItem is one thing of a user's memory that waits for a person:
// a disputed fact (Kind fact, Reason ReviewDisputed, Fact set) or a
// preference flagged for removal (Kind preference, Reason
// ReviewFlaggedForRemoval, Preference set). In JSON it is the fact's or
// the preference's fields with "kind" and "reason" beside them.
type ReviewItem struct {
	Kind       Kind
	Reason     string
	Fact       *Fact
	Preference *Preference
}

// MarshalJSON writes the item's fact or preference with kind and reason.
func (it ReviewItem) MarshalJSON() ([]byte, error) {
	var inner any = it.Fact
	if it.Kind == KindPreference {
		inner = it.Preference
	}
	raw, err := json.Marshal(inner)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("review item: %w", err)
	}
	m["kind"], _ = json.Marshal(it.Kind)
	m["reason"], _ = json.Marshal(it.Reason)
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (it *ReviewItem) UnmarshalJSON(b []byte) error {
	var head struct {
		Kind   Kind   `json:"kind"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*it = ReviewItem{Kind: head.Kind, Reason: head.Reason}
	if head.Kind == KindPreference {
		it.Preference = &Preference{}
		return json.Unmarshal(b, it.Preference)
	}
	it.Fact = &Fact{}
	return json.Unmarshal(b, it.Fact)
}

// ReviewQuery pages through a user's review queue. A read for an agent
// (AgentID, or the agent a key is bound to) finds only that agent's
// records and those of no agent.
type ReviewQuery struct {
	UserID  string
	AgentID string // the agent read for (an MCP connection's); "": every agent's, unless the key is bound to one
	Limit   int
	Offset  int
}

// ReviewService is what waits for a person's review.
type ReviewService interface {
	// ReviewQueue returns the user's disputed facts (that have not ended)
	// and preferences flagged for removal, most recently changed first,
	// and how many there are in all. Resolve them with ResolveFact and
	// ResolvePreference. Another agent's records are never answered to an
	// agent's reader. EINVALID for an empty user; EFORBIDDEN for q.AgentID
	// other than the agent a key is bound to.
	ReviewQueue(ctx context.Context, q ReviewQuery) ([]*ReviewItem, int, error)
}

// The operations on the review queue (Operation, declared once: see operations.go).
var (
	OpUserReview = declare(Operation{Name: "user.review", Role: RoleViewer, Agent: AgentFree, Summary: "What waits for review"})
)
