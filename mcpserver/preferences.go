package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The preference tools: observe_preference and get_user_context. Both act for
// the connection's user; a connection without a user gets a tool error.

// ObservePreferenceInput is the input of observe_preference.
type ObservePreferenceInput struct {
	Type      string          `json:"type" jsonschema:"Name of the preference, stable across observations, e.g. language, response_length, communication_style, review_style. Required."`
	Value     json.RawMessage `json:"value" jsonschema:"The preferred value: any JSON (string, number, list, object), e.g. [\"Paid Search\", \"CTV\"]. Required."`
	Source    string          `json:"source" jsonschema:"How you learned it: explicit (the user said so), implicit (their behaviour shows it), decision (a choice made in this session only). Required."`
	SessionID string          `json:"session_id,omitempty" jsonschema:"The current session's id: required for a decision, ignored otherwise."`
	Context   string          `json:"context,omitempty" jsonschema:"Optional: how it was observed, e.g. frequently selected channels."`
}

// PreferenceResult is a preference as the preference tools return it.
type PreferenceResult struct {
	Type             string    `json:"type" jsonschema:"the preference's name"`
	Value            any       `json:"value" jsonschema:"the preferred value"`
	Context          string    `json:"context,omitempty" jsonschema:"how it was observed"`
	LearnedFrom      string    `json:"learned_from" jsonschema:"where it was learned: explicit statement, session behavior or session decision"`
	FirstObserved    string    `json:"first_observed" jsonschema:"the day this value was first observed (YYYY-MM-DD)"`
	ObservationCount int       `json:"observation_count" jsonschema:"how many times this value was observed"`
	Source           string    `json:"source" jsonschema:"explicit, implicit or decision"`
	SessionID        string    `json:"session_id,omitempty" jsonschema:"the session of a decision"`
	Confidence       int       `json:"confidence" jsonschema:"0 to 100, after decay for disuse"`
	Tier             string    `json:"tier" jsonschema:"high (80 to 100): apply without asking; medium (50 to 79): suggest as a default the user may override; low (below 50): do not apply"`
	IsPersistent     bool      `json:"is_persistent" jsonschema:"true when it outlives its session (explicit or confirmed)"`
	LastUsedAt       time.Time `json:"last_used_at" jsonschema:"when it was last observed or used"`
}

// ObservePreferenceOutput is the output of observe_preference.
type ObservePreferenceOutput struct {
	Success bool   `json:"success" jsonschema:"true when the observation was recorded"`
	Action  string `json:"action" jsonschema:"created for a new preference, updated for a known one"`
	PreferenceResult
}

// UserContextInput is the input of get_user_context: none.
type UserContextInput struct{}

// ContextSessionResult is a recent session as get_user_context returns it.
type ContextSessionResult struct {
	SessionID    string    `json:"session_id" jsonschema:"the session's id"`
	Summary      string    `json:"summary,omitempty" jsonschema:"what the session was about"`
	Context      any       `json:"context,omitempty" jsonschema:"the session's context values (objectives, constraints...)"`
	IsPersistent bool      `json:"is_persistent" jsonschema:"true when the session is kept for good"`
	Confidence   float64   `json:"confidence" jsonschema:"0 to 100: how much to rely on it"`
	MessageCount int       `json:"message_count" jsonschema:"how many messages it has"`
	UpdatedAt    time.Time `json:"updated_at" jsonschema:"when it last changed"`
}

// UserContextOutput is the output of get_user_context.
type UserContextOutput struct {
	Success     bool                   `json:"success" jsonschema:"true when the context was loaded"`
	UserID      string                 `json:"user_id" jsonschema:"the user this connection serves"`
	Created     bool                   `json:"created" jsonschema:"true when the user was new (created now with empty defaults)"`
	Defaults    any                    `json:"defaults" jsonschema:"the user's default settings"`
	Preferences []PreferenceResult     `json:"preferences" jsonschema:"the preferences to apply, highest confidence first, each with its tier"`
	Sessions    []ContextSessionResult `json:"sessions" jsonschema:"up to 5 recent sessions that are persistent or unexpired, highest confidence first"`
}

var (
	observePreferenceInputSchema = inputSchemaOf[ObservePreferenceInput](func(s *jsonschema.Schema) {
		s.Properties["source"].Enum = []any{loci.SourceExplicit, loci.SourceImplicit, loci.SourceDecision}
	})
	observePreferenceOutputSchema = outputSchema[ObservePreferenceOutput](func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{loci.ActionCreated, loci.ActionUpdated}
		s.Properties["source"].Enum = []any{loci.SourceExplicit, loci.SourceImplicit, loci.SourceDecision}
		s.Properties["tier"].Enum = []any{loci.TierHigh, loci.TierMedium, loci.TierLow}
	})
	userContextInputSchema  = inputSchemaOf[UserContextInput](nil)
	userContextOutputSchema = outputSchema[UserContextOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).preferenceTools})

// preferenceTools adds the tools of the user's preferences and context,
// only on a connection with a user: without one they could not work.
func (s *server) preferenceTools() {
	if s.id.UserID == "" {
		return
	}
	addTool(s, loci.OpPreferenceObserve, &mcp.Tool{
		Name:  "observe_preference",
		Title: "Observe preference",
		Description: "Record a preference of the user as soon as you observe it, so later sessions start from it. " +
			"Source explicit: the user stated it (\"always answer in French\"): confidence 100, kept for good. " +
			"Source implicit: their behaviour shows it (they keep choosing the same option): confidence 40 the first time, +15 per repeat of the same value, at most 85. " +
			"Source decision: a choice for this session only (\"use the staging server this time\"), with its session_id: confidence 100, not kept beyond the session. " +
			"A different value replaces the old one and restarts its count. " +
			"The result's tier says how to apply it: high (80 to 100) apply without asking, medium (50 to 79) suggest as a default the user may override, low (below 50) do not apply.",
		InputSchema:  observePreferenceInputSchema,
		OutputSchema: observePreferenceOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.observePreference)
	addTool(s, loci.OpUserContext, &mcp.Tool{
		Name:  "get_user_context",
		Title: "Get user context",
		Description: "Call this once at the start of a session: it loads the user's defaults, the preferences to apply and up to 5 recent sessions (creating the user with empty defaults if new). " +
			"Apply each preference by its tier: high (confidence 80 to 100) apply automatically and present as known (\"since you usually prefer X\"); " +
			"medium (50 to 79) suggest as a default and confirm (\"I assume X, is that right?\"); low (below 50) do not apply, at most mention as an option. " +
			"Pre-populate known values silently; do not announce that preferences are being applied. Confidence already accounts for disuse.",
		InputSchema:  userContextInputSchema,
		OutputSchema: userContextOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.userContext)
}

func preferenceResult(p *loci.Preference) PreferenceResult {
	return PreferenceResult{
		Type: p.Type, Value: jsonAny(p.Value), Context: p.Context, LearnedFrom: p.LearnedFrom, FirstObserved: p.FirstObserved,
		ObservationCount: p.ObservationCount, Source: p.Source, SessionID: p.SessionID, Confidence: p.Confidence,
		Tier: p.Tier, IsPersistent: p.IsPersistent, LastUsedAt: utc(p.LastUsedAt),
	}
}

func (s *server) observePreference(ctx context.Context, in ObservePreferenceInput) (*ObservePreferenceOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	p, created, err := s.PreferenceService.ObservePreference(ctx, loci.PreferenceInput{
		UserID: s.id.UserID, Type: in.Type, Value: in.Value, Source: in.Source, SessionID: in.SessionID, Context: in.Context,
	})
	if err != nil {
		return nil, err
	}
	action := loci.ActionUpdated
	if created {
		action = loci.ActionCreated
	}
	return &ObservePreferenceOutput{Success: true, Action: action, PreferenceResult: preferenceResult(p)}, nil
}

func (s *server) userContext(ctx context.Context, _ UserContextInput) (*UserContextOutput, error) {
	if err := s.needUser(); err != nil {
		return nil, err
	}
	c, err := s.UserMemoryService.UserContext(ctx, s.id.UserID)
	if err != nil {
		return nil, err
	}
	out := &UserContextOutput{
		Success: true, UserID: c.User.ID, Created: c.Created, Defaults: jsonAny(c.User.Defaults),
		Preferences: make([]PreferenceResult, 0, len(c.Preferences)), Sessions: make([]ContextSessionResult, 0, len(c.Sessions)),
	}
	if out.Defaults == nil {
		out.Defaults = map[string]any{}
	}
	for _, p := range c.Preferences {
		out.Preferences = append(out.Preferences, preferenceResult(p))
	}
	for _, cs := range c.Sessions {
		out.Sessions = append(out.Sessions, ContextSessionResult{
			SessionID: cs.SessionID, Summary: cs.Summary, Context: jsonAny(cs.Context), IsPersistent: cs.IsPersistent,
			Confidence: cs.Confidence, MessageCount: cs.MessageCount, UpdatedAt: utc(cs.UpdatedAt),
		})
	}
	return out, nil
}
