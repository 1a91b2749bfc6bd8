package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The long-term memory tools (store_fact, search_facts). Facts are the
// connection's user's; a connection without a user stores and searches global
// facts (a fact with no user is global knowledge), so an agent serving no one
// can keep domain knowledge that every user-bound connection of the workspace
// may find. A connection searches its agent's facts and those of no agent,
// never another agent's (docs/rules.md, "Memory is isolated by workspace and
// scope").

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
	Score              float64        `json:"score" jsonschema:"relevance to the query, 0 to 1 (1: an exact, complete match)"`
	CreatedAt          time.Time      `json:"created_at" jsonschema:"when it was stored"`
	Key                string         `json:"key,omitempty" jsonschema:"its key (the slot it fills), when it has one"`
	ValidAt            time.Time      `json:"valid_at" jsonschema:"when it became true"`
	InvalidAt          *time.Time     `json:"invalid_at,omitempty" jsonschema:"when it stopped (or stops) being true, if it does"`
	Metadata           map[string]any `json:"metadata,omitempty" jsonschema:"its metadata, when it has some"`
	Status             string         `json:"status" jsonschema:"current (true), disputed (true but contradicted, not yet resolved: trust it less), or, for a version not true at the time asked (as_of, default now), superseded, invalidated or future as of that time"`
}

// SearchFactsOutput is the output of search_facts.
type SearchFactsOutput struct {
	Success   bool         `json:"success" jsonschema:"true when the search ran"`
	Count     int          `json:"count" jsonschema:"number of facts returned"`
	Facts     []FactResult `json:"facts" jsonschema:"the best matching facts, best first"`
	Retrieval Retrieval    `json:"retrieval" jsonschema:"how the search ranked"`
}

// Scopes of a fact.
const (
	ScopeUser   = "user"
	ScopeGlobal = "global"
)

var (
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
)

// categoryGuide explains fact categories to a model, without the
// vocabulary of any one domain.
const categoryGuide = "A category is any short lowercase name (letters, digits, underscores) that groups facts of one sort; general_fact is for anything else."

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).factTools})

func (s *server) factTools() {
	addTool(s, loci.OpFactAdd, &mcp.Tool{
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
	addTool(s, loci.OpFactSearch, &mcp.Tool{
		Name:  "search_facts",
		Title: "Search facts",
		Description: "Search long-term memory for what you know that bears on the task, best match first, before you start. On a connection with a user it searches that user's facts and, unless include_global is false, " +
			"global knowledge; without a user only global facts; either way only facts you stored or that no agent stored, never another agent's. Only facts true now are searched (as_of: true at another time). " +
			"Trust a fact by its relevance_score (0 to 1), is_validated and status (disputed: contradicted, awaiting review); the search counts as an access." + " " + categoryGuide,
		InputSchema:  searchFactsInputSchema,
		OutputSchema: searchFactsOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.searchFacts)
}

func factScope(userID string) string {
	if userID == "" {
		return ScopeGlobal
	}
	return ScopeUser
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
		UserID: s.id.UserID, AgentID: s.id.AgentID, Query: in.Query, Category: in.Category, IncludeGlobal: in.IncludeGlobal, AsOf: asOf, Limit: in.Limit,
	})
	if err != nil {
		return nil, searchQueryError(err)
	}
	out := &SearchFactsOutput{Success: true, Count: len(res.Results), Facts: make([]FactResult, 0, len(res.Results)), Retrieval: retrievalOf(res.Retrieval)}
	for _, r := range res.Results {
		keywords := r.Keywords
		if keywords == nil {
			keywords = []string{}
		}
		out.Facts = append(out.Facts, FactResult{
			ID: r.ID, Category: r.Category, Fact: r.Fact.Fact, Keywords: keywords, Evidence: jsonObject(r.Evidence),
			Scope: factScope(r.UserID), RelevanceScore: r.RelevanceScore, IsValidated: r.IsValidated,
			ContradictionCount: r.ContradictionCount, AccessCount: r.AccessCount, Score: r.Score, CreatedAt: utc(r.CreatedAt),
			Key: r.Key, ValidAt: utc(r.ValidAt), Status: r.Status, Metadata: metadataOrNone(r.Metadata),
		})
		if !r.InvalidAt.IsZero() {
			at := utc(r.InvalidAt)
			out.Facts[len(out.Facts)-1].InvalidAt = &at
		}
	}
	return out, nil
}
