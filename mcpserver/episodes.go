package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The episodic memory tools (record_episode, find_similar_episodes). Episodes
// are the connection's user's with its agent: a connection without a user does
// not list them.

// RecordEpisodeInput is the input of record_episode.
type RecordEpisodeInput struct {
	ActionType        string          `json:"action_type" jsonschema:"Short, stable name of the kind of action, reused across episodes so they can be compared, e.g. code_review, draft_reply, send_email. Required."`
	ActionDescription string          `json:"action_description" jsonschema:"What you did this time, in one or two sentences: this text is what find_similar_episodes matches. Required."`
	Outcome           string          `json:"outcome" jsonschema:"How it went: success (achieved the goal), partial (achieved part of it or with problems), failure (did not). Required."`
	Context           json.RawMessage `json:"context,omitempty" jsonschema:"Optional JSON object: the situation, e.g. goal, inputs, tools_used, plan_id."`
	OutcomeDetails    json.RawMessage `json:"outcome_details,omitempty" jsonschema:"Optional JSON object: the result, e.g. result, error (what went wrong), metrics (name to number)."`
	ConfidenceScore   *float64        `json:"confidence_score,omitempty" jsonschema:"Optional: how confident you are in the outcome, from 0 to 1. Successful episodes above 0.8 feed learned patterns."`
}

// RecordEpisodeOutput is the output of record_episode.
type RecordEpisodeOutput struct {
	Success   bool      `json:"success" jsonschema:"true when the episode was recorded"`
	ID        string    `json:"id" jsonschema:"the episode's id (cite it as evidence in store_fact)"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when it was recorded (RFC 3339, UTC)"`
	ExpiresAt time.Time `json:"expires_at" jsonschema:"when it expires (30 days after it was recorded)"`
}

// FindEpisodesInput is the input of find_similar_episodes.
type FindEpisodesInput struct {
	Query      string `json:"query" jsonschema:"Describe the task you are about to do, e.g. reviewing a pull request that changes the login flow. Required."`
	Outcome    string `json:"outcome,omitempty" jsonschema:"Only episodes with this outcome: success (what worked), partial, or failure (what to avoid). Omit for all."`
	ActionType string `json:"action_type,omitempty" jsonschema:"Only episodes of this action type. Omit for all."`
	Limit      int    `json:"limit,omitempty" jsonschema:"How many episodes at most, 1 to 100 (default 5)."`
}

// EpisodeFeedback is a user's feedback on an episode.
type EpisodeFeedback struct {
	Rating      *float64       `json:"rating,omitempty" jsonschema:"the user's rating"`
	Comment     string         `json:"comment,omitempty" jsonschema:"the user's comment"`
	Corrections map[string]any `json:"corrections,omitempty" jsonschema:"what the user corrected"`
}

// EpisodeResult is one episode as find_similar_episodes returns it.
type EpisodeResult struct {
	ID                string           `json:"id" jsonschema:"the episode's id"`
	ActionType        string           `json:"action_type" jsonschema:"the kind of action"`
	ActionDescription string           `json:"action_description" jsonschema:"what was done"`
	Outcome           string           `json:"outcome" jsonschema:"success, partial or failure"`
	Context           map[string]any   `json:"context,omitempty" jsonschema:"the situation it was done in"`
	OutcomeDetails    map[string]any   `json:"outcome_details,omitempty" jsonschema:"the result, error or metrics"`
	ConfidenceScore   *float64         `json:"confidence_score,omitempty" jsonschema:"confidence in the outcome, 0 to 1"`
	UserFeedback      *EpisodeFeedback `json:"user_feedback,omitempty" jsonschema:"the user's feedback, if any"`
	Score             float64          `json:"score" jsonschema:"relevance to the query, 0 to 1 (1: an exact, complete match)"`
	CreatedAt         time.Time        `json:"created_at" jsonschema:"when it was recorded"`
	Metadata          map[string]any   `json:"metadata,omitempty" jsonschema:"its metadata, when it has some"`
}

// FindEpisodesOutput is the output of find_similar_episodes.
type FindEpisodesOutput struct {
	Success   bool            `json:"success" jsonschema:"true when the search ran"`
	Count     int             `json:"count" jsonschema:"number of episodes returned"`
	Episodes  []EpisodeResult `json:"episodes" jsonschema:"the most similar live episodes, best first"`
	Retrieval Retrieval       `json:"retrieval" jsonschema:"how the search ranked"`
}

var (
	recordEpisodeInputSchema = inputSchemaOf[RecordEpisodeInput](func(s *jsonschema.Schema) {
		s.Properties["outcome"].Enum = enumOf(loci.Outcomes)
		objectProps(s.Properties["context"], map[string]*jsonschema.Schema{
			"goal":       {Type: "string", Description: "what you were trying to achieve"},
			"inputs":     {Type: "object", Description: "the inputs you worked from"},
			"tools_used": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "the tools you used"},
			"plan_id":    {Type: "string", Description: "the plan this action belonged to"},
		})
		objectProps(s.Properties["outcome_details"], map[string]*jsonschema.Schema{
			"result":  {Description: "what the action produced"},
			"error":   {Type: "string", Description: "what went wrong"},
			"metrics": {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "number"}, Description: "measurements, name to number"},
		})
		s.Properties["confidence_score"].Minimum, s.Properties["confidence_score"].Maximum = ptr(0.0), ptr(1.0)
	})
	recordEpisodeOutputSchema = outputSchema[RecordEpisodeOutput](nil)
	findEpisodesInputSchema   = inputSchemaOf[FindEpisodesInput](func(s *jsonschema.Schema) {
		s.Properties["outcome"].Enum = enumOf(loci.Outcomes)
		limitSchema(s.Properties["limit"], defaultEpisodeResults)
	})
	findEpisodesOutputSchema = outputSchema[FindEpisodesOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, needsUser: true, add: (*server).episodeTools})

func (s *server) episodeTools() {
	addTool(s, loci.OpEpisodeRecord, &mcp.Tool{
		Name:  "record_episode",
		Title: "Record episode",
		Description: "Record what you just did for the user and how it went, so later runs can learn from it: call it after each significant action " +
			"(an analysis, a draft, a recommendation, a message sent), whether it worked or not. Outcome: success (achieved the goal), " +
			"partial (part of it, or with problems), failure (did not; say why in outcome_details.error). " +
			"Episodes are kept 30 days, at most 1000 per user and agent (the oldest leave first); find them again with find_similar_episodes.",
		InputSchema:  recordEpisodeInputSchema,
		OutputSchema: recordEpisodeOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.recordEpisode)
	addTool(s, loci.OpEpisodeSearch, &mcp.Tool{
		Name:  "find_similar_episodes",
		Title: "Find similar episodes",
		Description: "Before a task, find your past episodes for this user that resemble it, best match first: " +
			"filter on outcome success to reuse what worked and on failure to avoid what did not. " +
			"Only this agent's live episodes for this connection's user are searched.",
		InputSchema:  findEpisodesInputSchema,
		OutputSchema: findEpisodesOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.findEpisodes)
}

func (s *server) recordEpisode(ctx context.Context, in RecordEpisodeInput) (*RecordEpisodeOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	ep, err := s.EpisodeService.RecordEpisode(ctx, loci.EpisodeInput{
		UserID: s.id.UserID, AgentID: s.id.AgentID, ActionType: in.ActionType, ActionDescription: in.ActionDescription,
		Context: in.Context, Outcome: in.Outcome, OutcomeDetails: in.OutcomeDetails, ConfidenceScore: in.ConfidenceScore,
	})
	if err != nil {
		return nil, err
	}
	return &RecordEpisodeOutput{Success: true, ID: ep.ID, CreatedAt: utc(ep.CreatedAt), ExpiresAt: utc(ep.ExpiresAt)}, nil
}

func (s *server) findEpisodes(ctx context.Context, in FindEpisodesInput) (*FindEpisodesOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	res, err := s.EpisodeService.SearchEpisodes(ctx, loci.EpisodeQuery{
		UserID: s.id.UserID, AgentID: s.id.AgentID, Query: in.Query, Outcome: in.Outcome,
		ActionType: in.ActionType, Limit: in.Limit,
	})
	if err != nil {
		return nil, searchQueryError(err)
	}
	out := &FindEpisodesOutput{Success: true, Count: len(res.Results), Episodes: make([]EpisodeResult, 0, len(res.Results)), Retrieval: retrievalOf(res.Retrieval)}
	for _, r := range res.Results {
		e := EpisodeResult{
			ID: r.ID, ActionType: r.ActionType, ActionDescription: r.ActionDescription, Outcome: r.Outcome,
			Context: jsonObject(r.Context), OutcomeDetails: jsonObject(r.OutcomeDetails), ConfidenceScore: r.ConfidenceScore,
			Score: r.Score, CreatedAt: utc(r.CreatedAt), Metadata: metadataOrNone(r.Metadata),
		}
		if fb := r.UserFeedback; fb != nil {
			e.UserFeedback = &EpisodeFeedback{Rating: fb.Rating, Comment: fb.Comment, Corrections: jsonObject(fb.Corrections)}
		}
		out.Episodes = append(out.Episodes, e)
	}
	return out, nil
}

// searchQueryError names the argument as the tools call it: REST's search
