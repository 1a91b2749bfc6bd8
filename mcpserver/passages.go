package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The archival memory tools: store_memory. Searching passages comes with
// search_memory (hybrid search over every kind).

// StoreMemoryInput is the input of store_memory.
type StoreMemoryInput struct {
	Content string   `json:"content" jsonschema:"The text to keep in archival memory: an event, a conversation summary, a fact, backstory. Required, non-empty, at most 64 KiB."`
	Tags    []string `json:"tags,omitempty" jsonschema:"Optional short tags to file it under, such as episode or backstory (at most 32, each at most 64 bytes; duplicates are dropped)."`
}

// StoreMemoryOutput is the output of store_memory.
type StoreMemoryOutput struct {
	Success   bool      `json:"success" jsonschema:"true when the passage was stored"`
	ID        string    `json:"id" jsonschema:"the stored passage's id"`
	Tags      []string  `json:"tags" jsonschema:"its tags, trimmed and without duplicates"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
}

var (
	storeMemoryInputSchema  = inputSchema[StoreMemoryInput](nil)
	storeMemoryOutputSchema = outputSchema[StoreMemoryOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).passageTools})

func (s *server) passageTools() {
	addTool(s, loci.OpPassageAdd, &mcp.Tool{
		Name:  "store_memory",
		Title: "Store in archival memory",
		Description: "Store a passage of text in your archival memory: long-term storage, unlimited in size overall, that is not part of your prompt " +
			"but stays searchable later. Use it for things worth keeping that do not belong in core memory: past events and conversations, " +
			"details, backstory, facts you may need again. Each call stores a new passage (nothing is overwritten); add tags to file it. " +
			"Empty content or a bad tag is an error; content over 64 KiB is refused as too large.",
		InputSchema:  storeMemoryInputSchema,
		OutputSchema: storeMemoryOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, s.storeMemory)
}

func (s *server) storeMemory(ctx context.Context, in StoreMemoryInput) (*StoreMemoryOutput, error) {
	p, err := s.PassageService.AddPassage(ctx, s.id.AgentID, in.Content, in.Tags)
	if err != nil {
		return nil, err
	}
	return &StoreMemoryOutput{Success: true, ID: p.ID, Tags: p.Tags, CreatedAt: p.CreatedAt.UTC()}, nil
}
