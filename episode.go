package loci

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
)

// Episode outcomes.
const (
	OutcomeSuccess = "success"
	OutcomePartial = "partial"
	OutcomeFailure = "failure"
)

// Outcomes lists the episode outcomes.
var Outcomes = []string{OutcomeSuccess, OutcomePartial, OutcomeFailure}

// Episode lifecycle defaults: an episode expires 30 days after its creation
// and a user+agent keeps at most 1000, the oldest leaving first.
const (
	DefaultEpisodeTTL = 30 * 24 * time.Hour
	DefaultEpisodeCap = 1000
)

// MaxActionTypeBytes bounds an episode's action type.
const MaxActionTypeBytes = 256

// Episode is one past action of an agent for a user and its outcome.
type Episode struct {
	ID                string           `json:"id"`
	UserID            string           `json:"user_id"`
	AgentID           string           `json:"agent_id"`
	ActionType        string           `json:"action_type"`
	ActionDescription string           `json:"action_description"`
	Context           json.RawMessage  `json:"context,omitempty"`
	Outcome           string           `json:"outcome"`
	OutcomeDetails    json.RawMessage  `json:"outcome_details,omitempty"`
	ConfidenceScore   *float64         `json:"confidence_score"`
	UserFeedback      *EpisodeFeedback `json:"user_feedback,omitempty"`
	CreatedAt         time.Time        `json:"created_at"`
	ExpiresAt         time.Time        `json:"expires_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// EpisodeInput records an episode. Context and OutcomeDetails are JSON
// objects when set; ConfidenceScore is 0..1 when set.
type EpisodeInput struct {
	UserID            string          `json:"user_id"`
	AgentID           string          `json:"agent_id"`
	ActionType        string          `json:"action_type"`
	ActionDescription string          `json:"action_description"`
	Context           json.RawMessage `json:"context,omitempty"`
	Outcome           string          `json:"outcome"`
	OutcomeDetails    json.RawMessage `json:"outcome_details,omitempty"`
	ConfidenceScore   *float64        `json:"confidence_score,omitempty"`
}

// Validate checks the episode to record: its user and agent, an action
// type of at most MaxActionTypeBytes, a description, an outcome of
// Outcomes, a confidence score from 0 to 1 when set, and context and
// outcome details that are JSON objects when set. EINVALID.
func (in EpisodeInput) Validate() error {
	if err := RequireText("user_id", in.UserID, MaxUserIDBytes); err != nil {
		return err
	} else if err := RequireText("agent_id", in.AgentID, MaxAgentIDBytes); err != nil {
		return err
	} else if err := RequireText("action_type", in.ActionType, MaxActionTypeBytes); err != nil {
		return err
	} else if err := RequireText("action_description", in.ActionDescription, 0); err != nil {
		return err
	} else if !slices.Contains(Outcomes, in.Outcome) {
		return Errorf(EINVALID, "outcome must be one of %s", strings.Join(Outcomes, ", "))
	} else if c := in.ConfidenceScore; c != nil && (math.IsNaN(*c) || *c < 0 || *c > 1) {
		return Errorf(EINVALID, "confidence_score must be between 0 and 1")
	} else if err := checkObject("context", in.Context); err != nil {
		return err
	}
	return checkObject("outcome_details", in.OutcomeDetails)
}

// EpisodeFeedback is a user's feedback on an episode. Corrections is a JSON
// object when set.
type EpisodeFeedback struct {
	Rating      *float64        `json:"rating,omitempty"`
	Comment     string          `json:"comment,omitempty"`
	Corrections json.RawMessage `json:"corrections,omitempty"`
}

// EpisodeQuery selects episodes of one user and agent. Query is the text
// of a similarity search; Outcome and ActionType narrow when set.
type EpisodeQuery struct {
	UserID     string
	AgentID    string
	Query      string
	Outcome    string
	ActionType string
	Limit      int
	Offset     int
	Explain    bool // a search explains each result's score
}

// ScoredEpisode is an episode with its similarity score (higher is better)
// and, when asked, how the score was made.
type ScoredEpisode struct {
	*Episode
	Metadata json.RawMessage `json:"metadata"`
	Score    float64         `json:"score"`
	Match    string          `json:"match,omitempty"`
	Explain  *Explanation    `json:"explain,omitempty"`
}

// EpisodeResults are an episode search's results, best first, and how
// many of the episodes searched wait for their embedding.
type EpisodeResults struct {
	Results           []ScoredEpisode `json:"results"`
	PendingEmbeddings int             `json:"pending_embeddings"`
	Retrieval         Retrieval       `json:"retrieval"`
}

// EpisodeService is episodic memory: what an agent did for a user and how
// it went. Expired episodes are invisible.
type EpisodeService interface {
	// RecordEpisode stores an episode, evicting the user+agent's oldest
	// when the cap is reached. EINVALID for a missing user, agent, action
	// type or description, an unknown outcome, a confidence outside 0..1 or
	// a context or outcome_details that is not a JSON object.
	RecordEpisode(ctx context.Context, in EpisodeInput) (*Episode, error)
	// SearchEpisodes returns the live episodes most similar to q.Query by
	// hybrid retrieval, their confidence weighing in, best first; the
	// outcome and action type filters apply before ranking. EINVALID for a
	// missing user, agent or query, or an unknown outcome.
	SearchEpisodes(ctx context.Context, q EpisodeQuery) (*EpisodeResults, error)
	// RecentEpisodes returns live episodes, newest first, and how many
	// match in all. EINVALID for a missing user or agent.
	RecentEpisodes(ctx context.Context, q EpisodeQuery) ([]*Episode, int, error)
	// AddEpisodeFeedback sets the user feedback of a live episode.
	// ENOTFOUND when absent or expired; EINVALID for empty feedback.
	AddEpisodeFeedback(ctx context.Context, id string, fb EpisodeFeedback) (*Episode, error)
	// GetEpisode returns one live episode. ENOTFOUND when absent or
	// expired.
	GetEpisode(ctx context.Context, id string) (*Episode, error)
	// DeleteEpisode deletes one episode, expired or not. ENOTFOUND when
	// absent.
	DeleteEpisode(ctx context.Context, id string) error
}

// The traits of the episode kind (KindTraits). An episode is a user's,
// recorded through its own routes.
var _ = declareKind(KindEpisode, KindTraits{})

// The operations on episodes (Operation, declared once: see operations.go).
var (
	OpEpisodeRecord   = declare(Operation{Name: "episode.record", Kind: KindEpisode, Role: RoleCreator, Agent: AgentNamed, Summary: "Record an episode"})
	OpEpisodeSearch   = declare(Operation{Name: "episode.search", Kind: KindEpisode, Role: RoleViewer, Agent: AgentNamed, Summary: "Similar past episodes"})
	OpEpisodeList     = declare(Operation{Name: "episode.list", Kind: KindEpisode, Role: RoleViewer, Agent: AgentNamed, Summary: "Recent episodes, newest first"})
	OpEpisodeFeedback = declare(Operation{Name: "episode.feedback", Kind: KindEpisode, Role: RoleEditor, Agent: AgentDeny, Summary: "Attach user feedback to an episode"})
	OpEpisodeGet      = declare(Operation{Name: "episode.get", Kind: KindEpisode, Role: RoleViewer, Agent: AgentDeny, Summary: "One episode"})
	OpEpisodeDelete   = declare(Operation{Name: "episode.delete", Kind: KindEpisode, Role: RoleEditor, Agent: AgentDeny, Summary: "Delete an episode"})
)
