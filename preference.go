package loci

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// Preference sources: what the user said, what their behaviour shows, and a
// choice made within one session.
const (
	SourceExplicit = "explicit"
	SourceImplicit = "implicit"
	SourceDecision = "decision"
)

// Confidence tiers: how assertively a preference is applied.
const (
	TierHigh   = "high"   // 80..100: apply without asking
	TierMedium = "medium" // 50..79: suggest, let the user override
	TierLow    = "low"    // below 50: do not apply
)

// The preferences' confidence framework, on a 0..100 scale (docs/rules.md,
// "Preferences: contradiction by case, decay computed at read time").
const (
	PrefExplicitConfidence  = 100
	PrefDecisionConfidence  = 100
	PrefImplicitStart       = 40
	PrefImplicitStep        = 15
	PrefImplicitMax         = 85
	PrefUseStep             = 5 // up to the preference's peak
	PrefContradictImplicit  = 30
	PrefUnused30Days        = 10 // effective confidence lost after 30 days unused
	PrefUnused90Days        = 25 // ... and after 90 days unused (in all, not added to the 10)
	PrefTierHighMin         = 80
	PrefTierMediumMin       = 50
	PrefUnusedShortDuration = 30 * 24 * time.Hour
	PrefUnusedLongDuration  = 90 * 24 * time.Hour
)

// Tier returns the tier of an effective confidence.
func Tier(confidence int) string {
	switch {
	case confidence >= PrefTierHighMin:
		return TierHigh
	case confidence >= PrefTierMediumMin:
		return TierMedium
	default:
		return TierLow
	}
}

// Preference is a user's preference (or, with a session, a decision), stored
// as JSON (type, value, context, learned_from, first_observed,
// observation_count) plus its confidence state. Confidence is the effective
// confidence at read time: the stored one less the decay for disuse.
type Preference struct {
	UserID            string          `json:"user_id"`
	SessionID         string          `json:"session_id,omitempty"`
	Type              string          `json:"type"`
	Value             json.RawMessage `json:"value"`
	Context           string          `json:"context,omitempty"`
	LearnedFrom       string          `json:"learned_from"`
	FirstObserved     string          `json:"first_observed"` // YYYY-MM-DD
	ObservationCount  int             `json:"observation_count"`
	Source            string          `json:"source"`
	Confidence        int             `json:"confidence"`
	StoredConfidence  int             `json:"stored_confidence"`
	Peak              int             `json:"peak"`
	Tier              string          `json:"tier"`
	IsPersistent      bool            `json:"is_persistent"`
	FlaggedForRemoval bool            `json:"flagged_for_removal"`
	LastUsedAt        time.Time       `json:"last_used_at"`
	CreatedAt         time.Time       `json:"created_at"`
	UpdatedAt         time.Time       `json:"updated_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Limits on preferences: a preference's type and its context.
const (
	MaxPreferenceTypeBytes    = 100
	MaxPreferenceContextBytes = 4096
)

// PreferenceInput is an observation of a preference. SessionID is
// required for a decision and ignored otherwise.
type PreferenceInput struct {
	UserID    string          `json:"user_id"`
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
	Source    string          `json:"source"`
	SessionID string          `json:"session_id,omitempty"`
	Context   string          `json:"context,omitempty"`
}

// Validate checks the observation: its user, a type of at most
// MaxPreferenceTypeBytes, a known source, a JSON value (a string one not
// empty or only whitespace), a context of at
// most MaxPreferenceContextBytes when set, and a decision's session.
// EINVALID.
func (in PreferenceInput) Validate() error {
	if err := RequireText("user_id", in.UserID, MaxUserIDBytes); err != nil {
		return err
	} else if err := RequireText("type", in.Type, MaxPreferenceTypeBytes); err != nil {
		return err
	}
	switch in.Source {
	case SourceExplicit, SourceImplicit, SourceDecision:
	default:
		return Errorf(EINVALID, "source must be explicit, implicit or decision")
	}
	if err := requireJSON("value", in.Value); err != nil {
		return err
	}
	// A value that is a string must say something, as a note's must.
	var text string
	if v := bytes.TrimSpace(in.Value); v[0] == '"' && json.Unmarshal(v, &text) == nil {
		if err := RequireText("value", text, 0); err != nil {
			return err
		}
	}
	if in.Context != "" {
		if err := RequireText("context", in.Context, MaxPreferenceContextBytes); err != nil {
			return err
		}
	}
	if in.Source == SourceDecision {
		if err := RequireText("session_id", in.SessionID, MaxSessionIDBytes); err != nil {
			return Errorf(EINVALID, "a decision needs its session_id")
		}
	}
	return nil
}

// PreferenceService is a user's preference memory. A preference is named
// by user and type; a decision also by its session (sessionID "" names the
// user-level preference).
type PreferenceService interface {
	// ObservePreference applies one observation and reports whether it
	// created the preference. EINVALID for a missing user, type or value,
	// an unknown source, or a decision without a session.
	ObservePreference(ctx context.Context, in PreferenceInput) (*Preference, bool, error)
	// ListPreferences returns the user's preferences (only the session's
	// when sessionID is set), by effective confidence, then type.
	ListPreferences(ctx context.Context, userID, sessionID string) ([]*Preference, error)
	// UsePreference adds 5 to the effective confidence, up to the peak,
	// and marks it used. ENOTFOUND when absent.
	UsePreference(ctx context.Context, userID, typ, sessionID string) (*Preference, error)
	// ConfirmPreference sets the confidence to 100 and makes the
	// preference persistent. ENOTFOUND when absent.
	ConfirmPreference(ctx context.Context, userID, typ, sessionID string) (*Preference, error)
	// ContradictPreference takes 30 (source implicit) or sets 0 and flags
	// for removal (source explicit). EINVALID for another source,
	// ENOTFOUND when absent.
	ContradictPreference(ctx context.Context, userID, typ, sessionID, source string) (*Preference, error)
	// ClearPreferences deletes every preference of the user and returns
	// how many it deleted.
	ClearPreferences(ctx context.Context, userID string) (int, error)
	// DeletePreference deletes the user's preferences of one type (the
	// user-level one and decisions). ENOTFOUND when there is none.
	DeletePreference(ctx context.Context, userID, typ string) (int, error)
	// ResolvePreference settles a preference flagged for removal: keep
	// clears the flag (the confidence stays; confirm sets 100), otherwise
	// the preference is forgotten. It returns the preference as kept, or
	// as it was before it was forgotten. ENOTFOUND when absent; ECONFLICT
	// when it is not flagged.
	ResolvePreference(ctx context.Context, userID, typ, sessionID string, keep bool) (*Preference, error)
}

// The traits of the preference kind (KindTraits). A preference is observed
// through its own routes; one flagged for removal waits in the review queue.
var _ = declareKind(KindPreference, KindTraits{Reviewed: true})

// The operations on preferences (Operation, declared once: see operations.go).
var (
	OpPreferenceObserve    = declare(Operation{Name: "preference.observe", Kind: KindPreference, Role: RoleCreator, Agent: AgentFree, Summary: "Observe a preference"})
	OpPreferenceList       = declare(Operation{Name: "preference.list", Kind: KindPreference, Role: RoleViewer, Agent: AgentFree, Summary: "List a user's preferences"})
	OpPreferenceUse        = declare(Operation{Name: "preference.use", Kind: KindPreference, Role: RoleCreator, Agent: AgentFree, Summary: "Record a use of a preference"})
	OpPreferenceConfirm    = declare(Operation{Name: "preference.confirm", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Confirm a preference"})
	OpPreferenceContradict = declare(Operation{Name: "preference.contradict", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Contradict a preference"})
	OpPreferenceResolve    = declare(Operation{Name: "preference.resolve", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Resolve a preference flagged for removal"})
	OpPreferenceClear      = declare(Operation{Name: "preference.clear", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Clear a user's preferences"})
	OpPreferenceForget     = declare(Operation{Name: "preference.forget", Kind: KindPreference, Role: RoleEditor, Agent: AgentFree, Summary: "Forget one preference"})
)
