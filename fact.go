package loci

import (
	"context"
	"encoding/json"
	"time"
)

// Fact categories (seed 003's memory_category).
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

// Rules of long-term facts (seed 003).
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

// Fact is a piece of long-term knowledge about a user, or global (no
// user). RelevanceScore is 0..1.
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
}

// FactInput stores a fact. Evidence is a JSON object when set.
type FactInput struct {
	UserID   string          `json:"user_id,omitempty"`
	AgentID  string          `json:"agent_id,omitempty"`
	Category string          `json:"category"`
	Fact     string          `json:"fact"`
	Keywords []string        `json:"keywords,omitempty"`
	Evidence json.RawMessage `json:"evidence,omitempty"`
}

// FactQuery selects facts: a user's (with global ones when IncludeGlobal),
// or only global ones when UserID is empty.
type FactQuery struct {
	UserID        string
	Query         string // text of a search
	Keyword       string // exact keyword of a lookup
	Category      string
	IncludeGlobal bool
	Limit         int
	Offset        int
	Explain       bool // a search explains each result's score
}

// ScoredFact is a fact with its search score (higher is better) and, when
// asked, how the score was made.
type ScoredFact struct {
	*Fact
	Score   float64      `json:"score"`
	Explain *Explanation `json:"explain,omitempty"`
}

// FactResults are a fact search's results, best first, and how many of
// the facts searched wait for their embedding.
type FactResults struct {
	Results           []ScoredFact `json:"results"`
	PendingEmbeddings int          `json:"pending_embeddings"`
}

// FactService is long-term memory: facts with relevance, validation,
// contradiction and access tracking.
type FactService interface {
	// StoreFact stores a fact with relevance 1.0. EINVALID for an unknown
	// category, an empty fact or evidence that is not a JSON object.
	StoreFact(ctx context.Context, in FactInput) (*Fact, error)
	// SearchFacts ranks facts against q.Query by hybrid retrieval, their
	// relevance weighing in, and bumps the access count and last access
	// time of what it returns. The user, global and category filters apply
	// before ranking. EINVALID for an empty query or an unknown category.
	SearchFacts(ctx context.Context, q FactQuery) (*FactResults, error)
	// FactsByKeyword returns facts carrying q.Keyword (every fact when it
	// is empty), by relevance, and how many match in all; it bumps the
	// access of what it returns. EINVALID for an unknown category.
	FactsByKeyword(ctx context.Context, q FactQuery) ([]*Fact, int, error)
	// ValidateFact adds 0.1 to a fact's relevance (at most 1.0) and marks
	// it validated. ENOTFOUND when absent.
	ValidateFact(ctx context.Context, id string) (*Fact, error)
	// ContradictFact takes 0.2 from a fact's relevance (at least 0.0) and
	// counts the contradiction. ENOTFOUND when absent.
	ContradictFact(ctx context.Context, id string) (*Fact, error)
}
