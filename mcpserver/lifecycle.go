package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The lifecycle tools of seed 003: working memory (set_working,
// get_working), episodic memory (record_episode, find_similar_episodes)
// and long-term facts (store_fact, search_facts).
//
// Scope comes from the connection, never from an argument:
//   - working memory is the connection's agent's (and user's, when bound to
//     one) within a task named by the task_id argument: a task id names a
//     piece of work, not an identity;
//   - episodes are the connection's user's with its agent: a connection
//     without a user gets a tool error;
//   - facts are the connection's user's; a connection without a user stores
//     and searches global facts (seed 003: a fact with no user is global
//     knowledge), so an agent serving no one can keep domain knowledge that
//     every user-bound connection of the workspace may find.

// needUserMessage is the tool error of a user-scoped tool on a connection
// opened without a user.
const needUserMessage = "this tool needs a user, and this connection has none: start loci mcp with --user ID, or open the HTTP session with the X-Loci-User header (or ?user=ID)"

// needUser returns EINVALID when the connection has no user.
func (s *server) needUser() error {
	if s.id.UserID == "" {
		return loci.Errorf(loci.EINVALID, needUserMessage)
	}
	return nil
}

// inputOptions are how input schemas are inferred: a json.RawMessage
// argument accepts any JSON value (the SDK decodes it untouched).
var inputOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}}

// inputSchemaOf infers the input schema of a tool from In, then lets tweak
// refine it (enums, bounds, defaults). Optional pointer arguments are
// typed as their element (omitted when absent, never null). Call it once
// per tool, at package level.
func inputSchemaOf[In any](tweak func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](inputOptions)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %T: %v", *new(In), err))
	}
	for _, p := range s.Properties {
		switch {
		case len(p.Types) == 2 && p.Types[0] == "null":
			p.Type, p.Types = p.Types[1], nil
		case len(p.Types) == 1 && p.Types[0] == "null": // a json.RawMessage: any value
			p.Types = nil
		}
	}
	if tweak != nil {
		tweak(s)
	}
	return s
}

// objectProps makes a schema an object with documented, optional
// properties that still admits others.
func objectProps(s *jsonschema.Schema, props map[string]*jsonschema.Schema) {
	s.Type, s.Types = "object", nil
	s.Properties = props
	s.AdditionalProperties = &jsonschema.Schema{}
}

func enumOf(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// jsonAny decodes a stored JSON value for a structured result (nil when
// absent); numbers keep their exact text.
func jsonAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// jsonObject decodes a stored JSON object (nil when absent or not one).
func jsonObject(raw json.RawMessage) map[string]any {
	m, _ := jsonAny(raw).(map[string]any)
	return m
}

func utc(t time.Time) time.Time { return t.UTC() }

// ---- working memory ----

// SetWorkingInput is the input of set_working.
type SetWorkingInput struct {
	TaskID string          `json:"task_id" jsonschema:"Id of the task (one execution, one piece of work) this scratchpad belongs to, e.g. fix-login-42. Required; at most 100 bytes. Use the same id for every call of the task."`
	Key    string          `json:"key" jsonschema:"Name of the value within the task, e.g. plan, progress, intermediate_results. Required; at most 100 bytes. Setting an existing key replaces its value."`
	Value  json.RawMessage `json:"value" jsonschema:"The value: any JSON (object, array, string, number, boolean), not null. Required."`
}

// SetWorkingOutput is the output of set_working.
type SetWorkingOutput struct {
	Success   bool      `json:"success" jsonschema:"true when the value was stored"`
	Action    string    `json:"action" jsonschema:"created for a new key, updated when a value was replaced"`
	TaskID    string    `json:"task_id" jsonschema:"the task"`
	Key       string    `json:"key" jsonschema:"the key stored"`
	UpdatedAt time.Time `json:"updated_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
	ExpiresAt time.Time `json:"expires_at" jsonschema:"when it is deleted unless written again (24 hours after the last write)"`
}

// GetWorkingInput is the input of get_working.
type GetWorkingInput struct {
	TaskID string `json:"task_id" jsonschema:"Id of the task whose scratchpad to read. Required."`
	Key    string `json:"key,omitempty" jsonschema:"Key to read. Omit it to read every value of the task as one object."`
}

// GetWorkingOutput is the output of get_working: key, value, updated_at
// and expires_at for one key; count and values for the whole task.
type GetWorkingOutput struct {
	Success   bool           `json:"success" jsonschema:"true when the value was found"`
	TaskID    string         `json:"task_id" jsonschema:"the task"`
	Key       string         `json:"key,omitempty" jsonschema:"the key read (when a key was given)"`
	Value     any            `json:"value,omitempty" jsonschema:"the stored JSON value (when a key was given)"`
	UpdatedAt *time.Time     `json:"updated_at,omitempty" jsonschema:"when it was last written (when a key was given)"`
	ExpiresAt *time.Time     `json:"expires_at,omitempty" jsonschema:"when it expires (when a key was given)"`
	Count     *int           `json:"count,omitempty" jsonschema:"number of values of the task (when no key was given)"`
	Values    map[string]any `json:"values,omitzero" jsonschema:"every live value of the task, key to value (when no key was given)"`
}

// ---- episodes ----

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
	Score             float64          `json:"score" jsonschema:"similarity to the query (higher is closer)"`
	CreatedAt         time.Time        `json:"created_at" jsonschema:"when it was recorded"`
}

// FindEpisodesOutput is the output of find_similar_episodes.
type FindEpisodesOutput struct {
	Success  bool            `json:"success" jsonschema:"true when the search ran"`
	Count    int             `json:"count" jsonschema:"number of episodes returned"`
	Episodes []EpisodeResult `json:"episodes" jsonschema:"the most similar live episodes, best first"`
}

// ---- facts ----

// StoreFactInput is the input of store_fact.
type StoreFactInput struct {
	Category string          `json:"category" jsonschema:"What kind of knowledge it is. Required."`
	Fact     string          `json:"fact" jsonschema:"The knowledge itself, as one self-contained sentence, e.g. User performs better with structured STAR responses than free-form answers. Required."`
	Keywords []string        `json:"keywords,omitempty" jsonschema:"Optional keywords to find it by, e.g. [\"deploy\", \"staging\"]."`
	Evidence json.RawMessage `json:"evidence,omitempty" jsonschema:"Optional JSON object: why you believe it, e.g. source_episodes (episode ids from record_episode), external_sources (URLs, documents)."`
	Key      string          `json:"key,omitempty" jsonschema:"Optional slot the fact fills, e.g. home_city, employer, current_role: a new fact with the key of a current fact replaces it (the old one is kept as history, no longer current). Use it for facts that change over time; omit it for facts that simply add up."`
	ValidAt  string          `json:"valid_at,omitempty" jsonschema:"Optional: when the fact became (or becomes) true, RFC 3339, e.g. 2025-09-01T00:00:00Z. Default now. A future time is allowed: the fact is not current until then."`
}

// StoreFactOutput is the output of store_fact.
type StoreFactOutput struct {
	Success        bool      `json:"success" jsonschema:"true when the fact was stored"`
	ID             string    `json:"id" jsonschema:"the fact's id"`
	Category       string    `json:"category" jsonschema:"its category"`
	Scope          string    `json:"scope" jsonschema:"user: the connection's user's fact; global: shared knowledge (a connection without a user)"`
	RelevanceScore float64   `json:"relevance_score" jsonschema:"its relevance, 1.0 for a new fact (it decays when unused and drops when contradicted)"`
	CreatedAt      time.Time `json:"created_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
	Key            string    `json:"key,omitempty" jsonschema:"its key, when it has one"`
	ValidAt        time.Time `json:"valid_at" jsonschema:"when it became (or becomes) true"`
	Status         string    `json:"status" jsonschema:"current, or future when valid_at is still to come (or superseded when a later version of the key already exists)"`
	Supersedes     string    `json:"supersedes,omitempty" jsonschema:"the id of the fact of the same key it replaced, if any"`
}

// SearchFactsInput is the input of search_facts.
type SearchFactsInput struct {
	Query         string `json:"query" jsonschema:"What you want to know, in words, e.g. how the user likes code reviews written. Required."`
	Category      string `json:"category,omitempty" jsonschema:"Only facts of this category. Omit for all."`
	IncludeGlobal bool   `json:"include_global,omitempty" jsonschema:"With a user: also search global knowledge shared by every user (default true). Without a user only global facts are searched."`
	AsOf          string `json:"as_of,omitempty" jsonschema:"Optional: search what was true at this time instead of now, RFC 3339, e.g. 2025-01-01T00:00:00Z."`
	Limit         int    `json:"limit,omitempty" jsonschema:"How many facts at most, 1 to 100 (default 10)."`
}

// FactResult is one fact as search_facts returns it.
type FactResult struct {
	ID                 string         `json:"id" jsonschema:"the fact's id"`
	Category           string         `json:"category" jsonschema:"its category"`
	Fact               string         `json:"fact" jsonschema:"the knowledge"`
	Keywords           []string       `json:"keywords" jsonschema:"its keywords"`
	Evidence           map[string]any `json:"evidence,omitempty" jsonschema:"why it is believed"`
	Scope              string         `json:"scope" jsonschema:"user or global"`
	RelevanceScore     float64        `json:"relevance_score" jsonschema:"0 to 1: how much to trust it (validations raise it, contradictions and disuse lower it)"`
	IsValidated        bool           `json:"is_validated" jsonschema:"true when it has been confirmed"`
	ContradictionCount int            `json:"contradiction_count" jsonschema:"how many times it was contradicted"`
	AccessCount        int            `json:"access_count" jsonschema:"how many times it was retrieved, this time included"`
	Score              float64        `json:"score" jsonschema:"match with the query (higher is closer)"`
	CreatedAt          time.Time      `json:"created_at" jsonschema:"when it was stored"`
	Key                string         `json:"key,omitempty" jsonschema:"its key (the slot it fills), when it has one"`
	ValidAt            time.Time      `json:"valid_at" jsonschema:"when it became true"`
	InvalidAt          *time.Time     `json:"invalid_at,omitempty" jsonschema:"when it stopped (or stops) being true, if it does"`
	Status             string         `json:"status" jsonschema:"current (true), disputed (true but contradicted, not yet resolved: trust it less), or, for a version not true at the time asked (as_of, default now), superseded, invalidated or future as of that time"`
}

// SearchFactsOutput is the output of search_facts.
type SearchFactsOutput struct {
	Success bool         `json:"success" jsonschema:"true when the search ran"`
	Count   int          `json:"count" jsonschema:"number of facts returned"`
	Facts   []FactResult `json:"facts" jsonschema:"the best matching facts, best first"`
}

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

// Scopes of a fact.
const (
	ScopeUser   = "user"
	ScopeGlobal = "global"
)

// Result sizes of the searches: the default and the most a model may ask
// for (a tool result goes into the model's context).
const (
	defaultEpisodeResults = 5
	defaultFactResults    = 10
	maxToolResults        = 100
)

func limitSchema(s *jsonschema.Schema, def int) {
	s.Minimum, s.Maximum = ptr(1.0), ptr(float64(maxToolResults))
	s.Default = json.RawMessage(fmt.Sprint(def))
}

var (
	setWorkingInputSchema  = inputSchemaOf[SetWorkingInput](nil)
	setWorkingOutputSchema = outputSchema[SetWorkingOutput](func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{loci.ActionCreated, loci.ActionUpdated}
	})
	getWorkingInputSchema  = inputSchemaOf[GetWorkingInput](nil)
	getWorkingOutputSchema = outputSchema[GetWorkingOutput](nil)

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

	// categoryPattern is what a fact category may be (loci.ValidCategory).
	categoryPattern = "^[a-z][a-z0-9_]{0,63}$"

	storeFactInputSchema = inputSchemaOf[StoreFactInput](func(s *jsonschema.Schema) {
		s.Properties["category"].Pattern = categoryPattern
		objectProps(s.Properties["evidence"], map[string]*jsonschema.Schema{
			"source_episodes":  {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "ids of the episodes that support it"},
			"external_sources": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "outside sources that support it"},
		})
	})
	storeFactOutputSchema = outputSchema[StoreFactOutput](func(s *jsonschema.Schema) {
		s.Properties["scope"].Enum = []any{ScopeUser, ScopeGlobal}
	})
	searchFactsInputSchema = inputSchemaOf[SearchFactsInput](func(s *jsonschema.Schema) {
		s.Properties["category"].Pattern = categoryPattern
		s.Properties["include_global"].Default = json.RawMessage("true")
		limitSchema(s.Properties["limit"], defaultFactResults)
	})
	searchFactsOutputSchema = outputSchema[SearchFactsOutput](func(s *jsonschema.Schema) {
		s.Properties["facts"].Items.Properties["status"].Enum = enumOf([]string{loci.FactCurrent, loci.FactDisputed, loci.FactFuture, loci.FactSuperseded, loci.FactInvalidated})
	})
	listReviewInputSchema = inputSchemaOf[ListReviewInput](func(s *jsonschema.Schema) {
		// Bounds but no schema default: the SDK applies defaults into the
		// arguments object, and a call without arguments has none (it
		// panics on the nil map); the handler applies the default.
		s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = ptr(1.0), ptr(float64(maxToolResults))
	})
	listReviewOutputSchema = outputSchema[ListReviewOutput](func(s *jsonschema.Schema) {
		item := s.Properties["items"].Items
		item.Properties["kind"].Enum = []any{string(loci.KindFact), string(loci.KindPreference)}
		item.Properties["reason"].Enum = []any{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}
	})
)

// categoryGuide explains fact categories to a model, without the
// vocabulary of any one domain.
const categoryGuide = "A category is any short lowercase name (letters, digits, underscores) that groups facts of one sort; general_fact is for anything else."

func (s *server) lifecycleTools() {
	addTool(s, &mcp.Tool{
		Name:  "set_working",
		Title: "Set working memory",
		Description: "Write a value to the scratchpad of the current task: your goal and sub-goals, the active plan and progress, intermediate results, tool outputs still to evaluate. " +
			"Values are per task (task_id) and per this connection's agent and user; setting a key again replaces its value. " +
			"They expire 24 hours after their last write, so keep lasting insights in store_fact or remember instead. " +
			"A task's values total at most 50 KB (51200 bytes of JSON, compact with strings as UTF-8, counting every agent on the task): a write past that is an error and changes nothing.",
		InputSchema:  setWorkingInputSchema,
		OutputSchema: setWorkingOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.setWorking)
	addTool(s, &mcp.Tool{
		Name:  "get_working",
		Title: "Get working memory",
		Description: "Read the scratchpad of a task written with set_working by this agent (and user). " +
			"With a key, returns that value; an unknown or expired key is an error \"working memory entry not found\". " +
			"Without a key, returns every live value of the task as one object (count and values). " +
			"Call it when you resume a task to pick up your plan and progress.",
		InputSchema:  getWorkingInputSchema,
		OutputSchema: getWorkingOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.getWorking)
	s.factTools()
	if s.id.UserID != "" {
		s.episodeTools()
	}
}

// episodeTools adds the tools that need a user: episodes and the review
// list. A connection without a user does not list them.
func (s *server) episodeTools() {
	addTool(s, &mcp.Tool{
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
	addTool(s, &mcp.Tool{
		Name:  "find_similar_episodes",
		Title: "Find similar episodes",
		Description: "Before a task, find your past episodes for this user that resemble it, best match first: " +
			"filter on outcome success to reuse what worked and on failure to avoid what did not. " +
			"Only this agent's live episodes for this connection's user are searched.",
		InputSchema:  findEpisodesInputSchema,
		OutputSchema: findEpisodesOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.findEpisodes)
	addTool(s, &mcp.Tool{
		Name:  "list_review",
		Title: "List what awaits review",
		Description: "List what of this user's memory waits for the user's review: facts that were contradicted (disputed) and preferences the user " +
			"explicitly contradicted (flagged_for_removal). Ask the user about them when it fits, and do not rely on them meanwhile.",
		InputSchema:  listReviewInputSchema,
		OutputSchema: listReviewOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.listReview)
}

// factTools adds store_fact and search_facts.
func (s *server) factTools() {
	addTool(s, &mcp.Tool{
		Name:  "store_fact",
		Title: "Store fact",
		Description: "Store a piece of validated, lasting knowledge in long-term memory: something learned about the user, a pattern seen across several episodes, a fact of the domain. " +
			"Store conclusions, not raw data; cite supporting episode ids in evidence.source_episodes. " + categoryGuide + " " +
			"On a connection with a user the fact is that user's (scope user). On a connection without a user it is global knowledge (scope global) that " +
			"every user's connection in this workspace can find: store only general domain facts there, never anything personal. " +
			"A new fact has relevance 1.0; it decays when unused. For a fact that changes over time (where the user lives, their role) give a key: " +
			"the new fact replaces the current one of that key, which is kept as history; valid_at says since when it is true.",
		InputSchema:  storeFactInputSchema,
		OutputSchema: storeFactOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.storeFact)
	addTool(s, &mcp.Tool{
		Name:  "search_facts",
		Title: "Search facts",
		Description: "Search long-term memory for what you know that bears on the task, best match first, before you start. On a connection with a user it searches that user's facts and, unless include_global is false, " +
			"global knowledge; without a user only global facts. Only facts true now are searched (as_of: true at another time). " +
			"Trust a fact by its relevance_score (0 to 1), is_validated and status (disputed: contradicted, awaiting review); the search counts as an access." + " " + categoryGuide,
		InputSchema:  searchFactsInputSchema,
		OutputSchema: searchFactsOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.searchFacts)
}

func (s *server) workingFilter() loci.WorkingFilter {
	return loci.WorkingFilter{AgentID: s.id.AgentID, UserID: s.id.UserID}
}

func (s *server) setWorking(ctx context.Context, in SetWorkingInput) (*SetWorkingOutput, error) {
	e, created, err := s.WorkingService.SetWorking(ctx, loci.WorkingInput{
		TaskID: in.TaskID, AgentID: s.id.AgentID, UserID: s.id.UserID, Key: in.Key, Value: in.Value,
	})
	if err != nil {
		return nil, err
	}
	action := loci.ActionUpdated
	if created {
		action = loci.ActionCreated
	}
	return &SetWorkingOutput{
		Success: true, Action: action, TaskID: e.TaskID, Key: e.Key,
		UpdatedAt: utc(e.UpdatedAt), ExpiresAt: utc(e.ExpiresAt),
	}, nil
}

// ownWorking returns the task's live entries of exactly this connection's
// agent and user. (A filter with no user matches every user, so a
// connection without a user drops the entries written for one.)
func (s *server) ownWorking(ctx context.Context, taskID string) ([]*loci.WorkingEntry, error) {
	entries, err := s.WorkingService.ListWorking(ctx, taskID, s.workingFilter())
	if err != nil {
		return nil, err
	}
	own := entries[:0]
	for _, e := range entries {
		if e.AgentID == s.id.AgentID && e.UserID == s.id.UserID {
			own = append(own, e)
		}
	}
	return own, nil
}

func (s *server) getWorking(ctx context.Context, in GetWorkingInput) (*GetWorkingOutput, error) {
	if in.Key != "" {
		e, err := s.WorkingService.GetWorking(ctx, in.TaskID, in.Key, s.workingFilter())
		if err != nil {
			return nil, err
		}
		if e.UserID != s.id.UserID { // a user's entry, seen by a connection without a user
			entries, err := s.ownWorking(ctx, in.TaskID)
			if err != nil {
				return nil, err
			}
			e = nil
			for _, x := range entries {
				if x.Key == in.Key {
					e = x
					break
				}
			}
			if e == nil {
				return nil, loci.Errorf(loci.ENOTFOUND, "working memory entry not found")
			}
		}
		at, exp := utc(e.UpdatedAt), utc(e.ExpiresAt)
		return &GetWorkingOutput{Success: true, TaskID: e.TaskID, Key: e.Key, Value: jsonAny(e.Value), UpdatedAt: &at, ExpiresAt: &exp}, nil
	}
	entries, err := s.ownWorking(ctx, in.TaskID)
	if err != nil {
		return nil, err
	}
	values := map[string]any{}
	for _, e := range entries {
		if _, seen := values[e.Key]; !seen {
			values[e.Key] = jsonAny(e.Value)
		}
	}
	return &GetWorkingOutput{Success: true, TaskID: in.TaskID, Count: ptr(len(values)), Values: values}, nil
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
	out := &FindEpisodesOutput{Success: true, Count: len(res.Results), Episodes: make([]EpisodeResult, 0, len(res.Results))}
	for _, r := range res.Results {
		e := EpisodeResult{
			ID: r.ID, ActionType: r.ActionType, ActionDescription: r.ActionDescription, Outcome: r.Outcome,
			Context: jsonObject(r.Context), OutcomeDetails: jsonObject(r.OutcomeDetails), ConfidenceScore: r.ConfidenceScore,
			Score: r.Score, CreatedAt: utc(r.CreatedAt),
		}
		if fb := r.UserFeedback; fb != nil {
			e.UserFeedback = &EpisodeFeedback{Rating: fb.Rating, Comment: fb.Comment, Corrections: jsonObject(fb.Corrections)}
		}
		out.Episodes = append(out.Episodes, e)
	}
	return out, nil
}

// searchQueryError names the argument as the tools call it: REST's search
// parameter is q, the tools' is query.
func searchQueryError(err error) error {
	if loci.ErrorCode(err) == loci.EINVALID && loci.ErrorMessage(err) == "q must contain at least one word" {
		return loci.Errorf(loci.EINVALID, "query must contain at least one word")
	}
	return err
}

func factScope(userID string) string {
	if userID == "" {
		return ScopeGlobal
	}
	return ScopeUser
}

// parseTime reads an optional RFC 3339 argument (zero when empty).
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z", name)
	}
	return t, nil
}

func (s *server) storeFact(ctx context.Context, in StoreFactInput) (*StoreFactOutput, error) {
	validAt, err := parseTime("valid_at", in.ValidAt)
	if err != nil {
		return nil, err
	}
	f, err := s.FactService.StoreFact(ctx, loci.FactInput{
		UserID: s.id.UserID, AgentID: s.id.AgentID, Category: in.Category, Fact: in.Fact,
		Keywords: in.Keywords, Evidence: in.Evidence, Key: in.Key, ValidAt: validAt,
	})
	if err != nil {
		return nil, err
	}
	return &StoreFactOutput{
		Success: true, ID: f.ID, Category: f.Category, Scope: factScope(f.UserID),
		RelevanceScore: f.RelevanceScore, CreatedAt: utc(f.CreatedAt),
		Key: f.Key, ValidAt: utc(f.ValidAt), Status: f.Status, Supersedes: f.Supersedes,
	}, nil
}

func (s *server) searchFacts(ctx context.Context, in SearchFactsInput) (*SearchFactsOutput, error) {
	asOf, err := parseTime("as_of", in.AsOf)
	if err != nil {
		return nil, err
	}
	res, err := s.FactService.SearchFacts(ctx, loci.FactQuery{
		UserID: s.id.UserID, Query: in.Query, Category: in.Category, IncludeGlobal: in.IncludeGlobal, AsOf: asOf, Limit: in.Limit,
	})
	if err != nil {
		return nil, searchQueryError(err)
	}
	out := &SearchFactsOutput{Success: true, Count: len(res.Results), Facts: make([]FactResult, 0, len(res.Results))}
	for _, r := range res.Results {
		keywords := r.Keywords
		if keywords == nil {
			keywords = []string{}
		}
		out.Facts = append(out.Facts, FactResult{
			ID: r.ID, Category: r.Category, Fact: r.Fact.Fact, Keywords: keywords, Evidence: jsonObject(r.Evidence),
			Scope: factScope(r.UserID), RelevanceScore: r.RelevanceScore, IsValidated: r.IsValidated,
			ContradictionCount: r.ContradictionCount, AccessCount: r.AccessCount, Score: r.Score, CreatedAt: utc(r.CreatedAt),
			Key: r.Key, ValidAt: utc(r.ValidAt), Status: r.Status,
		})
		if !r.InvalidAt.IsZero() {
			at := utc(r.InvalidAt)
			out.Facts[len(out.Facts)-1].InvalidAt = &at
		}
	}
	return out, nil
}

func (s *server) listReview(ctx context.Context, in ListReviewInput) (*ListReviewOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultFactResults
	}
	items, total, err := s.ReviewService.ReviewQueue(ctx, loci.ReviewQuery{UserID: s.id.UserID, Limit: limit})
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
