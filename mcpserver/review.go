package mcpserver

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The review tool (list_review): what of the connection's user's memory
// waits for the user's review, of the connection's agent or of no agent
// (never another agent's). It needs a user: a connection without one does
// not list it.

// ListReviewInput is the input of list_review.
type ListReviewInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"How many items at most, 1 to 100 (default 10)."`
}

// ReviewEntry is one item of list_review.
type ReviewEntry struct {
	Kind       string    `json:"kind" jsonschema:"fact or preference"`
	Reason     string    `json:"reason" jsonschema:"disputed (a fact that was contradicted) or flagged_for_removal (a preference the user explicitly contradicted)"`
	ID         string    `json:"id,omitempty" jsonschema:"the fact's id (kind fact)"`
	Type       string    `json:"type,omitempty" jsonschema:"the preference's type (kind preference)"`
	SessionID  string    `json:"session_id,omitempty" jsonschema:"the session of a preference that is a session decision"`
	Text       string    `json:"text" jsonschema:"the fact, or the preference's value as JSON text"`
	Confidence float64   `json:"confidence" jsonschema:"the fact's relevance (0 to 1) or the preference's effective confidence (0 to 100)"`
	UpdatedAt  time.Time `json:"updated_at" jsonschema:"when it last changed"`
}

// ListReviewOutput is the output of list_review.
type ListReviewOutput struct {
	Success bool          `json:"success" jsonschema:"true when the queue was read"`
	Count   int           `json:"count" jsonschema:"how many items wait in all"`
	Items   []ReviewEntry `json:"items" jsonschema:"what waits for the user's review, most recently changed first"`
}

var (
	listReviewInputSchema = inputSchemaOf[ListReviewInput](func(s *jsonschema.Schema) {
		// Bounds but no schema default: the SDK applies defaults into the
		// arguments object, and a call without arguments has none (it
		// panics on the nil map); the handler applies the default.
		s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = ptr(1.0), ptr(float64(maxToolResults))
	})
	listReviewOutputSchema = outputSchema[ListReviewOutput](func(s *jsonschema.Schema) {
		item := s.Properties["items"].Items
		item.Properties["kind"].Enum = enumOf(loci.ReviewedKinds())
		item.Properties["reason"].Enum = []any{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}
	})
)

var _ = addTools(toolGroup{set: ToolsAll, needsUser: true, add: (*server).reviewTools})

// reviewTools adds list_review.
func (s *server) reviewTools() {
	addTool(s, loci.OpUserReview, &mcp.Tool{
		Name:  "list_review",
		Title: "List what awaits review",
		Description: "List what of this user's memory waits for the user's review: facts that were contradicted (disputed) and preferences the user " +
			"explicitly contradicted (flagged_for_removal). Ask the user about them when it fits, and do not rely on them meanwhile.",
		InputSchema:  listReviewInputSchema,
		OutputSchema: listReviewOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.listReview)
}

func (s *server) listReview(ctx context.Context, in ListReviewInput) (*ListReviewOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultFactResults
	}
	items, total, err := s.ReviewService.ReviewQueue(ctx, loci.ReviewQuery{UserID: s.id.UserID, AgentID: s.id.AgentID, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := &ListReviewOutput{Success: true, Count: total, Items: make([]ReviewEntry, 0, len(items))}
	for _, it := range items {
		e := ReviewEntry{Kind: string(it.Kind), Reason: it.Reason}
		switch {
		case it.Fact != nil:
			e.ID, e.Text, e.Confidence, e.UpdatedAt = it.Fact.ID, it.Fact.Fact, it.Fact.RelevanceScore, utc(it.Fact.UpdatedAt)
		case it.Preference != nil:
			p := it.Preference
			e.Type, e.SessionID, e.Text, e.Confidence, e.UpdatedAt = p.Type, p.SessionID, string(p.Value), float64(p.Confidence), utc(p.UpdatedAt)
		}
		out.Items = append(out.Items, e)
	}
	return out, nil
}
