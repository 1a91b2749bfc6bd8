package loci

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Fact categories: the documented vocabulary of a fact's category.
const (
	CategoryUserPreference   = "user_preference"
	CategorySkillAssessment  = "skill_assessment"
	CategoryInterviewInsight = "interview_insight"
	CategoryJobMarketFact    = "job_market_fact"
	CategoryActionOutcome    = "action_outcome"
	CategoryFeedbackReceived = "feedback_received"
	CategoryPatternLearned   = "pattern_learned"
	CategoryCareerGoal       = "career_goal"
	CategoryCompanyInfo      = "company_info"
	CategoryGeneralFact      = "general_fact"
)

// FactCategories lists the ten fact categories.
var FactCategories = []string{
	CategoryUserPreference, CategorySkillAssessment, CategoryInterviewInsight, CategoryJobMarketFact,
	CategoryActionOutcome, CategoryFeedbackReceived, CategoryPatternLearned, CategoryCareerGoal,
	CategoryCompanyInfo, CategoryGeneralFact,
}

// Rules of long-term facts (docs/rules.md, "Facts: relevance, and decay
// applied by maintenance at most once a period").
const (
	FactInitialRelevance = 1.0
	FactValidateStep     = 0.1 // validate adds, up to FactMaxRelevance
	FactContradictStep   = 0.2 // contradict takes, down to 0
	FactMaxRelevance     = 1.0
	FactDecayFactor      = 0.9 // decay multiplies, down to FactDecayFloor
	FactDecayFloor       = 0.1
	FactPruneBelow       = 0.1 // prune deletes unvalidated facts below it
	FactDecayAfter       = 30 * 24 * time.Hour
	// PatternMinEpisodes successful episodes with a confidence above
	// PatternMinConfidence, among the PatternWindow most recent of a
	// user+agent, make a pattern_learned fact for their action type.
	PatternMinEpisodes   = 3
	PatternMinConfidence = 0.8
	PatternWindow        = 50
)

// Fact statuses: what a fact is now.
const (
	FactCurrent     = "current"     // true now
	FactDisputed    = "disputed"    // true now, but contradicted and not yet resolved: it waits for review
	FactFuture      = "future"      // true from its valid_at, which is still to come
	FactSuperseded  = "superseded"  // no longer true: a newer fact of its key replaced it (superseded_by)
	FactInvalidated = "invalidated" // no longer true (invalidated, or resolved as wrong), not replaced
)

// Limits on facts: a fact's key, and its keywords (after trimming and
// dropping repeats).
const (
	MaxFactKeyBytes     = 200
	MaxFactKeywordBytes = 100
	MaxFactKeywords     = 100
)

// Fact is a piece of long-term knowledge about a user, or global (no
// user). RelevanceScore is 0..1.
//
// A fact with a Key fills a slot of its user (or of global knowledge),
// such as home_city: a new fact of the key supersedes the one true at its
// ValidAt, which is kept as history with InvalidAt set and SupersededBy
// naming its successor. A fact is true from ValidAt until InvalidAt (zero:
// still true); Status says what it is now.
type Fact struct {
	ID                 string          `json:"id"`
	UserID             string          `json:"user_id,omitempty"`
	AgentID            string          `json:"agent_id,omitempty"` // the agent that created it
	Category           string          `json:"category"`
	Fact               string          `json:"fact"`
	Keywords           []string        `json:"keywords"`
	Evidence           json.RawMessage `json:"evidence,omitempty"`
	RelevanceScore     float64         `json:"relevance_score"`
	AccessCount        int             `json:"access_count"`
	LastAccessedAt     time.Time       `json:"last_accessed_at,omitzero"`
	IsValidated        bool            `json:"is_validated"`
	ValidatedAt        time.Time       `json:"validated_at,omitzero"`
	ContradictionCount int             `json:"contradiction_count"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`

	Key          string    `json:"key,omitempty"`
	ValidAt      time.Time `json:"valid_at"`
	InvalidAt    time.Time `json:"invalid_at,omitzero"`
	SupersededBy string    `json:"superseded_by,omitempty"` // the fact that replaced it
	Supersedes   string    `json:"supersedes,omitempty"`    // the fact it replaced
	Status       string    `json:"status"`                  // FactCurrent, FactDisputed, ...
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// FactInput stores a fact. Evidence is a JSON object when set. Key, when
// set, names the fact's slot (per user, or global): the new fact
// supersedes the one of the slot true at ValidAt. ValidAt is when the fact
// became (or becomes) true; zero: now.
type FactInput struct {
	UserID   string          `json:"user_id,omitempty"`
	AgentID  string          `json:"agent_id,omitempty"`
	Category string          `json:"category"`
	Fact     string          `json:"fact"`
	Keywords []string        `json:"keywords,omitempty"`
	Evidence json.RawMessage `json:"evidence,omitempty"`
	Key      string          `json:"key,omitempty"`
	ValidAt  time.Time       `json:"valid_at,omitzero"`
}

// Validate checks the fact to store: a category (ValidCategory), the
// fact's text, its user and agent when set, a key of at most
// MaxFactKeyBytes when set, at most MaxFactKeywords keywords of at most
// MaxFactKeywordBytes each (blank and repeated ones are dropped, not
// counted) and evidence that is a JSON object when set. EINVALID.
func (in FactInput) Validate() error {
	if !ValidCategory(in.Category) {
		return Errorf(EINVALID, "category must be a name of a-z, 0-9 and _ starting with a letter, at most 64 bytes (for example %s)", strings.Join(FactCategories, ", "))
	} else if err := RequireText("fact", in.Fact, 0); err != nil {
		return err
	} else if err := CheckTime("valid_at", in.ValidAt); err != nil {
		return err
	}
	if in.UserID != "" {
		if err := RequireText("user_id", in.UserID, MaxUserIDBytes); err != nil {
			return err
		}
	}
	if in.AgentID != "" {
		if err := RequireText("agent_id", in.AgentID, MaxAgentIDBytes); err != nil {
			return err
		}
	}
	if in.Key != "" {
		if err := RequireText("key", in.Key, MaxFactKeyBytes); err != nil {
			return err
		}
	}
	var kept []string
	for _, k := range in.Keywords {
		k = strings.TrimSpace(k)
		if k == "" || slices.Contains(kept, k) {
			continue
		}
		if err := RequireText("keyword", k, MaxFactKeywordBytes); err != nil {
			return err
		}
		kept = append(kept, k)
	}
	if len(kept) > MaxFactKeywords {
		return Errorf(EINVALID, "a fact has at most %d keywords", MaxFactKeywords)
	}
	return checkObject("evidence", in.Evidence)
}

// FactQuery selects facts: a user's (with global ones when IncludeGlobal),
// or only global ones when UserID is empty; only those true at AsOf (zero:
// now), or every version when IncludeHistory; only disputed ones when
// Status is FactDisputed. A read for an agent (AgentID, or the agent a key
// is bound to) selects only that agent's facts and those of no agent.
type FactQuery struct {
	UserID         string
	AgentID        string // the agent read for (an MCP connection's); "": every agent's facts, unless the key is bound to one
	Query          string // text of a search
	Keyword        string // exact keyword of a lookup
	Category       string
	IncludeGlobal  bool
	AsOf           time.Time
	IncludeHistory bool
	Status         string // "" or FactDisputed
	Limit          int
	Offset         int
	Explain        bool // a search explains each result's score
}

// ScoredFact is a fact with its search score (higher is better) and, when
// asked, how the score was made.
type ScoredFact struct {
	*Fact
	Metadata json.RawMessage `json:"metadata"`
	Score    float64         `json:"score"`
	Match    string          `json:"match,omitempty"`
	Explain  *Explanation    `json:"explain,omitempty"`
}

// FactResults are a fact search's results, best first, and how many of
// the facts searched wait for their embedding.
type FactResults struct {
	Results           []ScoredFact `json:"results"`
	PendingEmbeddings int          `json:"pending_embeddings"`
	Retrieval         Retrieval    `json:"retrieval"`
}

// FactService is long-term memory: facts with relevance, validation,
// contradiction and access tracking.
type FactService interface {
	// StoreFact stores a fact with relevance 1.0. With a key it supersedes
	// the fact of the key's slot true at its valid_at (which needs the
	// editor role), or, when an earlier valid_at places it before a later
	// version, becomes history up to that version. EINVALID for an unknown
	// category, an empty fact or key, or evidence that is not a JSON
	// object.
	StoreFact(ctx context.Context, in FactInput) (*Fact, error)
	// SearchFacts ranks facts against q.Query by hybrid retrieval, their
	// relevance weighing in, and bumps the access count and last access
	// time of what it returns. The user, global, category and validity
	// filters apply before ranking; with IncludeHistory a superseded
	// version never ranks above the version of its key true at AsOf.
	// Another agent's facts are never searched for an agent's reader.
	// EINVALID for an empty query, an unknown category or status;
	// EFORBIDDEN for q.AgentID other than the agent a key is bound to.
	SearchFacts(ctx context.Context, q FactQuery) (*FactResults, error)
	// FactsByKeyword returns facts carrying q.Keyword (every fact when it
	// is empty), by relevance, and how many match in all; it bumps the
	// access of what it returns. Another agent's facts are never listed
	// for an agent's reader. EINVALID for an unknown category or status;
	// EFORBIDDEN for q.AgentID other than the agent a key is bound to.
	FactsByKeyword(ctx context.Context, q FactQuery) ([]*Fact, int, error)
	// ValidateFact adds 0.1 to a fact's relevance (at most 1.0) and marks
	// it validated. ENOTFOUND when absent; ECONFLICT when the fact is no
	// longer true (history does not change).
	ValidateFact(ctx context.Context, id string) (*Fact, error)
	// ContradictFact takes 0.2 from a fact's relevance (at least 0.0),
	// counts the contradiction and marks the fact disputed until resolved.
	// ENOTFOUND when absent; ECONFLICT when the fact is no longer true.
	ContradictFact(ctx context.Context, id string) (*Fact, error)
	// GetFact returns one fact, whatever its status. ENOTFOUND when absent
	// (and, as in every call by id below, for another agent's fact under a
	// key bound to an agent).
	GetFact(ctx context.Context, id string) (*Fact, error)
	// FactHistory returns every fact of the key and slot of the fact id
	// names, newest valid_at first (only that fact when it has no key).
	// ENOTFOUND when absent.
	FactHistory(ctx context.Context, id string) ([]*Fact, error)
	// InvalidateFact marks a fact no longer true from at (zero: now), kept
	// as history; it is no longer disputed. ENOTFOUND when absent; EINVALID
	// when at is before its valid_at; ECONFLICT when it is already no
	// longer true at or before at.
	InvalidateFact(ctx context.Context, id string, at time.Time) (*Fact, error)
	// ResolveFact settles a dispute: keep clears it, otherwise the fact is
	// invalidated now (or at its valid_at, if later). ENOTFOUND when
	// absent; ECONFLICT when the fact is not disputed.
	ResolveFact(ctx context.Context, id string, keep bool) (*Fact, error)
	// DeleteFact deletes one fact (global facts included); the facts it
	// superseded or that superseded it no longer name it, and the adds of
	// messages queued whose results name it go. ENOTFOUND when absent.
	DeleteFact(ctx context.Context, id string) error
}

// The traits of the fact kind (KindTraits). A fact is the memories API's
// default kind; a disputed one waits in the review queue.
var _ = declareKind(KindFact, KindTraits{Added: true, Reviewed: true})

// The operations on facts (Operation, declared once: see operations.go).
var (
	OpFactAdd        = declare(Operation{Name: "fact.add", Kind: KindFact, Role: RoleCreator, Agent: AgentFree, Summary: "Store a fact"})
	OpFactSearch     = declare(Operation{Name: "fact.search", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Search facts"})
	OpFactList       = declare(Operation{Name: "fact.list", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Facts with a keyword, by relevance"})
	OpFactValidate   = declare(Operation{Name: "fact.validate", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Validate a fact"})
	OpFactContradict = declare(Operation{Name: "fact.contradict", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Contradict a fact"})
	OpFactGet        = declare(Operation{Name: "fact.get", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "One fact"})
	OpFactDelete     = declare(Operation{Name: "fact.delete", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Delete a fact"})
	OpFactHistory    = declare(Operation{Name: "fact.history", Kind: KindFact, Role: RoleViewer, Agent: AgentFree, Summary: "Every version of a fact's key"})
	OpFactInvalidate = declare(Operation{Name: "fact.invalidate", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Mark a fact no longer true"})
	OpFactResolve    = declare(Operation{Name: "fact.resolve", Kind: KindFact, Role: RoleEditor, Agent: AgentFree, Summary: "Resolve a disputed fact"})
)
