package loci

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// SearchQuery is a hybrid search across kinds (POST /v1/search). Every
// scope field that is set narrows the search to records with exactly that
// value; Kinds and Tags narrow it further. Filters apply before ranking.
type SearchQuery struct {
	Query     string   `json:"query"`
	AgentID   string   `json:"agent_id,omitempty"`
	UserID    string   `json:"user_id,omitempty"`
	SessionID string   `json:"session_id,omitempty"`
	Kinds     []Kind   `json:"kinds,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	Limit     int      `json:"limit,omitempty"`   // default DefaultSearchLimit, at most MaxSearchLimit
	Explain   bool     `json:"explain,omitempty"` // explain each result's score
	// Filters narrows the search before ranking, in the filter language
	// of docs/api.md, "Filters" (ParseMemoryFilter).
	Filters json.RawMessage `json:"filters,omitempty"`
	// Threshold, 0..1, drops the results whose score (their relevance)
	// is below it; 0 drops none.
	Threshold float64 `json:"threshold,omitempty"`
	// ReferenceDate is the moment the question is asked, RFC 3339 or a
	// date (its midnight UTC): relative times in the query ("10 days
	// ago", "last weekend") resolve against it and recency is measured
	// from it. Empty: now.
	ReferenceDate string `json:"reference_date,omitempty"`
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 1000
	MaxQueryBytes      = 4096
)

// Validate checks the query: query text present and at most MaxQueryBytes
// (ETOOLARGE), limit from 0 to MaxSearchLimit, every kind known
// (EINVALID).
func (q SearchQuery) Validate() error {
	if err := validateSearch(q.Query, q.Limit); err != nil {
		return err
	} else if err := ValidateThreshold(q.Threshold); err != nil {
		return err
	} else if _, err := ParseReferenceDate(q.ReferenceDate); err != nil {
		return err
	}
	return validateKinds(q.Kinds)
}

// ValidateThreshold checks a search's threshold: a number from 0 to 1
// (EINVALID).
func ValidateThreshold(t float64) error {
	if math.IsNaN(t) || t < 0 || t > 1 {
		return Errorf(EINVALID, "threshold must be a number from 0 to 1 (a result's score is its relevance, 1 an exact, complete match)")
	}
	return nil
}

// Times loci stores: what both backends keep exactly (PostgreSQL's
// timestamptz, SQLite's Unix microseconds) and RFC 3339, hence JSON, can
// write.
var (
	MinTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
)

// CheckTime refuses (EINVALID, naming field) a time outside MinTime and
// MaxTime once in UTC ("9999-12-31T23:59:59-01:00" is year 10000): stored,
// it would make every answer that holds it fail to encode. The zero time
// (none) passes.
func CheckTime(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t = t.UTC(); t.Before(MinTime) || t.After(MaxTime) {
		return Errorf(EINVALID, "%s must lie between years 1 and 9999 (UTC)", field)
	}
	return nil
}

// ParseReferenceDate reads a search's reference_date: an RFC 3339 time,
// or a date (2026-01-31) meaning its midnight UTC. The zero time for "";
// EINVALID for anything else.
func ParseReferenceDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), CheckTime("reference_date", t)
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, Errorf(EINVALID, "reference_date must be an RFC 3339 time (2026-01-31T09:00:00Z) or a date (2026-01-31), not %q", s)
}

// validateSearch checks the query text and limit every search takes.
func validateSearch(query string, limit int) error {
	if strings.TrimSpace(query) == "" {
		return Errorf(EINVALID, "query is required")
	} else if len(query) > MaxQueryBytes {
		return Errorf(ETOOLARGE, "query must be at most %d bytes", MaxQueryBytes)
	} else if limit < 0 || limit > MaxSearchLimit {
		return Errorf(EINVALID, "limit must be between 1 and %d", MaxSearchLimit)
	}
	return nil
}

// validateKinds checks that every kind is known.
func validateKinds(kinds []Kind) error {
	for _, k := range kinds {
		if _, err := ParseKind(string(k)); err != nil {
			return err
		}
	}
	return nil
}

// SignalScore is one retrieval signal's view of a result: its 1-based rank
// in that signal's candidates and the signal's own score (BM25 for
// "lexical", cosine similarity for "vector").
type SignalScore struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// Explanation says how a search result's score was made (docs/retrieval.md,
// "What a score means").
type Explanation struct {
	// Signals holds each signal that found the result: "lexical", "vector".
	Signals map[string]SignalScore `json:"signals"`
	// Fused is the weighted reciprocal rank fusion of the signals, 0..1.
	Fused float64 `json:"fused"`
	// Recency is 0.5^(age/half-life) of the record's last update, 0..1.
	Recency float64 `json:"recency"`
	// Confidence is the kind's confidence or relevance on 0..1, for kinds
	// that have one.
	Confidence *float64 `json:"confidence,omitempty"`
	// Context is what the messages next to the result in its
	// conversation lent its lexical score (a question lends to the turn
	// that answers it), on the scale of the best lexical hit (1).
	Context float64 `json:"context,omitempty"`
	// Session is its conversation's share of its lexical score: the
	// strength of the session's best matches, weighted.
	Session float64 `json:"session,omitempty"`
	// Date is how close the record was written to a period the query
	// names ("in May 2023", "last week"), 0..1: 1 inside it, less
	// shortly after it.
	Date float64 `json:"date,omitempty"`
	// MMRRank is the position diversity re-ranking gave, when it ran.
	MMRRank int `json:"mmr_rank,omitempty"`
	// Rank is the value results are ordered by: Fused re-scored with
	// recency, confidence and the query's dates.
	Rank float64 `json:"rank"`
	// Words is the share of the query's words, weighted by their IDF,
	// that the record holds (or, when more, what a neighbouring turn that
	// holds them lends it), 0..1; Meaning is its similarity to the query,
	// 0..1, in hybrid mode. Score is made of them.
	Words   float64  `json:"words"`
	Meaning *float64 `json:"meaning,omitempty"`
	// Score is the result's score: its relevance, 0..1.
	Score float64 `json:"score"`
}

// SearchResult is one ranked record. Score is its relevance to the query,
// 0..1, the same across queries and scopes (see Explanation): 1 is an
// exact, complete match. Results are ordered by rank, which also weighs
// recency, confidence and conversational context, so a result's score may
// be below the next one's. Match is MatchScope for a query with no word
// left to search, answered with its scope's memories.
type SearchResult struct {
	ID        string          `json:"id"`
	Kind      Kind            `json:"kind"`
	Key       string          `json:"key,omitempty"`
	Content   string          `json:"content"`
	Scope     Scope           `json:"scope"`
	Tags      []string        `json:"tags,omitempty"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Score     float64         `json:"score"`
	Match     string          `json:"match,omitempty"`
	Explain   *Explanation    `json:"explain,omitempty"`
}

// MatchScope is a result's Match when the query had no word left to
// search (only question words, pronouns and the like: "what do you know
// about me?") and the search answered its scope's memories, most
// important first.
const MatchScope = "scope"

// SearchResults are a search's results, best first, as POST /v1/search
// answers them. Count is len(Results). PendingEmbeddings counts the
// records in the query's scope whose embedding is not made yet: they are
// found lexically only, until it is. Retrieval says how the search
// ranked.
type SearchResults struct {
	Count             int            `json:"count"`
	Results           []SearchResult `json:"results"`
	PendingEmbeddings int            `json:"pending_embeddings"`
	Retrieval         Retrieval      `json:"retrieval"`
}

// Retrieval says how a search ranked: by words only (Mode
// RetrievalLexical, Model nil) or by meaning and by words (RetrievalHybrid,
// with the embedding model's name).
type Retrieval struct {
	Mode  string  `json:"mode"`
	Model *string `json:"model"`
}

// Retrieval modes.
const (
	RetrievalLexical = "lexical"
	RetrievalHybrid  = "hybrid"
)

// Hybrid reports whether r ranks by meaning too.
func (r Retrieval) Hybrid() bool { return r.Mode == RetrievalHybrid }

// RetrievalService says how searches rank.
type RetrievalService interface {
	// Retrieval is how a search ranks when its embedder answers: hybrid
	// with the configured embedding model, else lexical.
	Retrieval() Retrieval
}

// SearchService is hybrid search across kinds.
type SearchService interface {
	// Search ranks the records in the query's scope by hybrid retrieval:
	// BM25 and vector similarity fused, then recency and confidence.
	// EINVALID for an empty or oversize query, an unknown kind or a limit
	// out of range.
	Search(ctx context.Context, q SearchQuery) (*SearchResults, error)
}

// The operations on search across kinds (Operation, declared once: see operations.go).
var (
	OpSearch = declare(Operation{Name: "search", Role: RoleViewer, Agent: AgentNamed, Summary: "Hybrid search across kinds"})
)
