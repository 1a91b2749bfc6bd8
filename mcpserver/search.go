package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// search_memory: hybrid search over every kind of memory the connection
// sees (loci.AgentSearchQuery): its agent's records about no user and,
// with a user, the agent's records about that user and the user's own
// (preferences, sessions). Never another agent's or another user's.

// SearchMemoryInput is the input of search_memory.
type SearchMemoryInput struct {
	Query   string          `json:"query" jsonschema:"What you are looking for, in words, e.g. the user's deadline for the report. Required; any text (never query syntax), at most 4096 bytes."`
	Kinds   []string        `json:"kinds,omitempty" jsonschema:"Only these kinds of memory: note, block, passage, working, episode, fact, preference, session. Omit to search them all."`
	Tags    []string        `json:"tags,omitempty" jsonschema:"Only memories carrying every one of these tags (passage tags, fact keywords)."`
	Filters json.RawMessage `json:"filters,omitempty" jsonschema:"Only memories matching this filter, applied before ranking. {\"FIELD\": VALUE} is equality; {\"FIELD\": {\"OP\": VALUE}} with OP eq, ne, in, nin, gt, gte, lt, lte, contains (a substring of a string, an element of an array) or icontains (the same without case); combine with {\"and\": [...]}, {\"or\": [...]}, {\"not\": F}. FIELD: metadata.PATH (metadata.a.b for a nested value), kind, category, tags, key, created_at, updated_at (RFC 3339 or a date). Example: {\"metadata.project\": \"billing\"}."`
	Limit   int             `json:"limit,omitempty" jsonschema:"How many results at most, 1 to 100 (default 10)."`
	Explain bool            `json:"explain,omitempty" jsonschema:"Also say how each score was made: the rank and score of each signal (lexical, vector, date), recency, confidence, and what conversational context, session strength and a date named in the query added."`
}

// MemoryResult is one memory as search_memory returns it.
type MemoryResult struct {
	ID        string            `json:"id" jsonschema:"the memory's id"`
	Kind      string            `json:"kind" jsonschema:"its kind: note, block, passage, working, episode, fact, preference or session"`
	Key       string            `json:"key,omitempty" jsonschema:"its key, for kinds that have one (a note's key, a block's label, a preference's type)"`
	Content   string            `json:"content" jsonschema:"its text"`
	Tags      []string          `json:"tags,omitempty" jsonschema:"its tags"`
	Metadata  map[string]any    `json:"metadata,omitempty" jsonschema:"its metadata, when it has some"`
	Score     float64           `json:"score" jsonschema:"its relevance to the query, 0 to 1: the share of the query's words it holds, or its closeness in meaning when searching by meaning and more; 1 is an exact, complete match"`
	Match     string            `json:"match,omitempty" jsonschema:"scope when the query had no word to search (what do you know about me?) and the memories of the scope were answered, most important first"`
	CreatedAt time.Time         `json:"created_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
	Explain   *loci.Explanation `json:"explain,omitempty" jsonschema:"how the score was made, when asked"`
}

// pendingNote is what search_memory's description says of the memories
// not yet embedded: nothing when searches are by words only.
func pendingNote(r loci.Retrieval) string {
	if !r.Hybrid() {
		return ""
	}
	return " (pending_embeddings counts those not yet searchable by meaning)"
}

// Retrieval says how a search ranked.
type Retrieval struct {
	Mode  string  `json:"mode" jsonschema:"lexical: by words only (no embedding model, or it did not answer); hybrid: by meaning and by words"`
	Model *string `json:"model" jsonschema:"the embedding model, null when lexical"`
}

func retrievalOf(r loci.Retrieval) Retrieval { return Retrieval{Mode: r.Mode, Model: r.Model} }

// SearchMemoryOutput is the output of search_memory.
type SearchMemoryOutput struct {
	Success           bool           `json:"success" jsonschema:"true when the search ran"`
	Count             int            `json:"count" jsonschema:"number of results returned"`
	PendingEmbeddings int            `json:"pending_embeddings" jsonschema:"how many memories searched still wait for their embedding: they are found by their words only until it is made"`
	Results           []MemoryResult `json:"results" jsonschema:"the best matching memories, best first"`
	Retrieval         Retrieval      `json:"retrieval" jsonschema:"how the search ranked"`
}

const defaultMemoryResults = 10

var (
	searchMemoryInputSchema = inputSchemaOf[SearchMemoryInput](func(s *jsonschema.Schema) {
		kinds := make([]string, len(loci.Kinds))
		for i, k := range loci.Kinds {
			kinds[i] = string(k)
		}
		s.Properties["kinds"].Items.Enum = enumOf(kinds)
		s.Properties["query"].MaxLength = ptr(loci.MaxQueryBytes)
		limitSchema(s.Properties["limit"], defaultMemoryResults)
		s.Properties["filters"].Type = "object"
	})
	searchMemoryOutputSchema = outputSchema[SearchMemoryOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).searchTools})

func (s *server) searchTools() {
	addTool(s, loci.OpMemorySearch, &mcp.Tool{
		Name:  "search_memory",
		Title: "Search memory",
		Description: "Search everything you remember, " + searchesBy(s.ranks) + ": notes, core memory blocks, archival passages, " +
			"working memory, and, when this connection serves a user, your episodes and facts about that user and the user's preferences and sessions. " +
			"Use it before answering when past knowledge may help, or to find a memory whose key or id you do not know. " +
			"Results are ranked best first, recent and trusted memories a little higher; narrow with kinds (e.g. [\"passage\", \"fact\"]), tags or filters (on metadata and fields). " +
			"It never returns another agent's or another user's memories. A memory is found by its words as soon as it is stored" + pendingNote(s.ranks) + ". A question with no word to search (what do you know about the user?) " +
			"answers the memories themselves, most important first. An empty query, an unknown kind or a limit out of range is an error.",
		InputSchema:  searchMemoryInputSchema,
		OutputSchema: searchMemoryOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.searchMemory)
}

// FindMemoryInput is the input of the default set's search_memory: the
// full set's without explain.
type FindMemoryInput struct {
	Query   string          `json:"query" jsonschema:"What you are looking for, in words. Required."`
	Kinds   []string        `json:"kinds,omitempty" jsonschema:"Only these kinds. Omit for all."`
	Tags    []string        `json:"tags,omitempty" jsonschema:"Only memories carrying every one of these tags."`
	Filters json.RawMessage `json:"filters,omitempty" jsonschema:"Only memories matching this filter: {\"FIELD\": VALUE}, or {\"FIELD\": {\"OP\": VALUE}} with OP eq ne in nin gt gte lt lte contains icontains; combine with and, or, not. FIELD: metadata.PATH, kind, category, tags, key, created_at, updated_at. E.g. {\"metadata.project\": \"billing\"}."`
	Limit   int             `json:"limit,omitempty" jsonschema:"At most this many results (default 10)."`
}

// FoundMemory is one memory as the default set's search_memory returns it.
type FoundMemory struct {
	ID        string         `json:"id" jsonschema:"its id, for update_memory and delete_memory"`
	Kind      string         `json:"kind" jsonschema:"its kind"`
	Key       string         `json:"key,omitempty" jsonschema:"its key"`
	Content   string         `json:"content" jsonschema:"its text"`
	Tags      []string       `json:"tags,omitempty" jsonschema:"its tags"`
	Metadata  map[string]any `json:"metadata,omitempty" jsonschema:"its metadata, when it has some"`
	Score     float64        `json:"score" jsonschema:"relevance to the query, 0 to 1 (1: an exact, complete match)"`
	Match     string         `json:"match,omitempty" jsonschema:"scope when the query had no word to search and the scope's memories were answered"`
	CreatedAt time.Time      `json:"created_at" jsonschema:"when it was stored"`
}

// FindMemoryOutput is the output of the default set's search_memory.
type FindMemoryOutput struct {
	Success   bool          `json:"success" jsonschema:"true when the search ran"`
	Count     int           `json:"count" jsonschema:"number of results"`
	Results   []FoundMemory `json:"results" jsonschema:"best first"`
	Retrieval Retrieval     `json:"retrieval" jsonschema:"how the search ranked"`
}

var (
	findMemoryInputSchema = inputSchemaOf[FindMemoryInput](func(s *jsonschema.Schema) {
		kinds := make([]string, len(loci.Kinds))
		for i, k := range loci.Kinds {
			kinds[i] = string(k)
		}
		s.Properties["kinds"].Items.Enum = enumOf(kinds)
		s.Properties["query"].MaxLength = ptr(loci.MaxQueryBytes)
		limitSchema(s.Properties["limit"], defaultMemoryResults)
		s.Properties["filters"].Type = "object"
	})
	findMemoryOutputSchema = outputSchema[FindMemoryOutput](nil)
)

// findTool adds the default set's search_memory: the same search, with a
// shorter description and result.
func (s *server) findTool() {
	addTool(s, loci.OpMemorySearch, &mcp.Tool{
		Name:  "search_memory",
		Title: "Search memory",
		Description: "Search what you remember, " + searchesBy(s.ranks) + ", best first: use it before answering when past knowledge may help, " +
			"and to find the id of a memory to update or delete. It never returns another agent's or another user's memories. " +
			"Narrow it with kinds, tags or filters (on metadata and fields).",
		InputSchema:  findMemoryInputSchema,
		OutputSchema: findMemoryOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.findMemory)
}

func (s *server) findMemory(ctx context.Context, in FindMemoryInput) (*FindMemoryOutput, error) {
	res, err := s.searchMemory(ctx, SearchMemoryInput{Query: in.Query, Kinds: in.Kinds, Tags: in.Tags, Filters: in.Filters, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	out := &FindMemoryOutput{Success: true, Count: res.Count, Results: make([]FoundMemory, 0, len(res.Results)), Retrieval: res.Retrieval}
	for _, r := range res.Results {
		out.Results = append(out.Results, FoundMemory{ID: r.ID, Kind: r.Kind, Key: r.Key, Content: r.Content, Tags: r.Tags, Metadata: r.Metadata,
			Score: r.Score, Match: r.Match, CreatedAt: r.CreatedAt})
	}
	return out, nil
}

// metadataOrNone is a result's metadata, nil when it is empty ({}), so
// that a tool's answer leaves it out.
func metadataOrNone(m json.RawMessage) map[string]any {
	if o := jsonObject(m); len(o) > 0 {
		return o
	}
	return nil
}

func (s *server) searchMemory(ctx context.Context, in SearchMemoryInput) (*SearchMemoryOutput, error) {
	q := loci.AgentSearchQuery{
		Query: in.Query, AgentID: s.id.AgentID, UserID: s.id.UserID, Tags: in.Tags, Limit: in.Limit, Explain: in.Explain,
		Filters: in.Filters,
	}
	for _, k := range in.Kinds {
		q.Kinds = append(q.Kinds, loci.Kind(k))
	}
	res, err := s.AgentSearchService.SearchAgentMemory(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &SearchMemoryOutput{Success: true, Count: len(res.Results), PendingEmbeddings: res.PendingEmbeddings, Results: make([]MemoryResult, 0, len(res.Results)),
		Retrieval: retrievalOf(res.Retrieval)}
	for _, r := range res.Results {
		out.Results = append(out.Results, MemoryResult{
			ID: r.ID, Kind: string(r.Kind), Key: r.Key, Content: r.Content, Tags: r.Tags, Metadata: metadataOrNone(r.Metadata),
			Score: r.Score, Match: r.Match, CreatedAt: utc(r.CreatedAt), Explain: r.Explain,
		})
	}
	return out, nil
}
