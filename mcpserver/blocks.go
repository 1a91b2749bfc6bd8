package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The core memory tools: core_memory_read and update_memory, and the core
// memory resource: the agent's rendered prompt.
//
// An agent that has never written memory does not exist yet: the service
// creates it, with the standard empty blocks, on its first write. Until
// then it has no core memory, so core_memory_read lists no blocks (a label
// is "block … not found") and the resource reads as empty text, rather
// than an "agent not found" error the model could do nothing about.

// CoreMemoryURI is the URI of the core memory resource.
const CoreMemoryURI = "loci://agent/core-memory"

// Update modes of update_memory.
const (
	ModeAppend  = "append"
	ModeReplace = "replace"
)

// casRetries is how often an append without expected_version re-reads a
// block that changed between its read and its write.
const casRetries = 5

// CoreMemoryReadInput is the input of core_memory_read.
type CoreMemoryReadInput struct {
	Label string `json:"label,omitempty" jsonschema:"Label of one block to read, such as personality, relationships or current_state. Omit it to read every block."`
}

// BlockOutput is one core memory block as the tools show it.
type BlockOutput struct {
	Label        string    `json:"label" jsonschema:"the block's label"`
	Content      string    `json:"content" jsonschema:"the block's text"`
	Chars        int       `json:"chars" jsonschema:"characters the content holds now"`
	Limit        int       `json:"limit" jsonschema:"the most characters the block may hold; a longer write is refused"`
	Version      int       `json:"version" jsonschema:"1 when created, +1 per update: pass it as expected_version to update_memory to update only if nobody changed the block since"`
	IsShared     bool      `json:"is_shared" jsonschema:"true for a block shared with other agents: they read and write the same block"`
	OwnerAgentID string    `json:"owner_agent_id,omitempty" jsonschema:"the agent that owns a shared block (only for shared blocks)"`
	UpdatedAt    time.Time `json:"updated_at" jsonschema:"when it was last written (RFC 3339, UTC)"`
}

// CoreMemoryReadOutput is the output of core_memory_read.
type CoreMemoryReadOutput struct {
	Success bool          `json:"success" jsonschema:"true when the blocks were read"`
	Count   int           `json:"count" jsonschema:"number of blocks returned"`
	Blocks  []BlockOutput `json:"blocks" jsonschema:"your own blocks by label, then the shared blocks attached to you by label (only the one asked for when a label was given)"`
}

// UpdateMemoryInput is the input of update_memory.
type UpdateMemoryInput struct {
	Label           string `json:"label" jsonschema:"Label of the block to write, such as personality, relationships or current_state. A label you do not have yet creates a new block."`
	Mode            string `json:"mode" jsonschema:"append adds content to the end of the block, on a new line; replace makes content the block's whole new text (an empty content clears it)."`
	Content         string `json:"content" jsonschema:"The text to append, or the block's whole new text for replace."`
	ExpectedVersion *int   `json:"expected_version,omitempty" jsonschema:"Optional: the block's version as core_memory_read showed it; the update then applies only if the block is still at that version (0: only if the block does not exist yet). Omit it to write regardless."`
}

// UpdateMemoryOutput is the output of update_memory: the block as written.
type UpdateMemoryOutput struct {
	Success bool   `json:"success" jsonschema:"true when the block was written"`
	Action  string `json:"action" jsonschema:"created for a new block, updated for an existing one"`
	BlockOutput
}

var (
	coreMemoryReadOutputSchema = outputSchema[CoreMemoryReadOutput](nil)
	updateMemoryInputSchema    = inputSchema[UpdateMemoryInput](func(s *jsonschema.Schema) {
		s.Properties["mode"].Enum = []any{ModeAppend, ModeReplace}
		s.Properties["expected_version"].Minimum = ptr(0.0)
	})
	updateMemoryOutputSchema = outputSchema[UpdateMemoryOutput](func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{loci.ActionCreated, loci.ActionUpdated}
	})
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).blockTools})

func (s *server) blockTools() {
	addTool(s, loci.OpBlockList, &mcp.Tool{
		Name:  "core_memory_read",
		Title: "Read core memory",
		Description: "Read your core memory: the labelled blocks (personality, relationships, current_state, and any others) " +
			"that are always part of your prompt, including blocks other agents share with you. " +
			"Each block shows its content, its size and character limit, and its version. " +
			"With a label, returns only that block; an unknown label is an error \"block \\\"LABEL\\\" not found\". " +
			"If you have never written memory you have no blocks yet: the list is empty; your first update_memory creates them.",
		OutputSchema: coreMemoryReadOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.coreMemoryRead)
	addTool(s, loci.OpBlockPut, &mcp.Tool{
		Name:  "update_memory",
		Title: "Update core memory",
		Description: "Update one block of your core memory by label, to keep what you know about yourself, the people you deal with " +
			"and the current situation up to date. Mode append adds text at the end of the block on a new line; mode replace " +
			"sets the block's whole text (read it first with core_memory_read, then write the edited text). " +
			"A block holds at most its limit in characters: a write that would pass it is refused with an error and changes nothing " +
			"(shorten or summarise, then retry). Give expected_version to update only if the block is unchanged since you read it; " +
			"a stale version is a \"version conflict\" error: read again and retry. A shared block is changed for every agent that shares it.",
		InputSchema:  updateMemoryInputSchema,
		OutputSchema: updateMemoryOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, s.updateMemory)
	s.coreMemoryResource()
}

// coreMemoryResource adds the core memory resource (both tool sets: a
// resource costs a model's context nothing until it is read).
func (s *server) coreMemoryResource() {
	s.mcp.AddResource(&mcp.Resource{
		URI:   CoreMemoryURI,
		Name:  "core-memory",
		Title: "Core memory",
		Description: "This agent's core memory rendered as it goes into the system prompt: every block with content as " +
			"\"### {label}\" and its content, a blank line between them, own blocks first by label, then shared ones; " +
			"empty blocks are left out. Empty while no block has content.",
		MIMEType: "text/plain",
	}, s.readCoreMemory)
}

func (s *server) coreMemoryRead(ctx context.Context, in CoreMemoryReadInput) (*CoreMemoryReadOutput, error) {
	var blocks []*loci.Block
	if in.Label != "" {
		b, err := s.BlockService.GetBlock(ctx, s.id.AgentID, in.Label)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			// The agent or the block: for a model, both are a block it
			// does not have.
			return nil, errBlockNotFound(in.Label)
		} else if err != nil {
			return nil, err
		}
		blocks = []*loci.Block{b}
	} else {
		var err error
		blocks, err = s.BlockService.ListBlocks(ctx, s.id.AgentID)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			blocks = nil // an agent that has not written memory yet
		} else if err != nil {
			return nil, err
		}
	}
	out := &CoreMemoryReadOutput{Success: true, Count: len(blocks), Blocks: make([]BlockOutput, 0, len(blocks))}
	for _, b := range blocks {
		out.Blocks = append(out.Blocks, blockOutput(b))
	}
	return out, nil
}

func (s *server) updateMemory(ctx context.Context, in UpdateMemoryInput) (*UpdateMemoryOutput, error) {
	var (
		b       *loci.Block
		created bool
		err     error
	)
	switch in.Mode {
	case ModeReplace:
		b, created, err = s.BlockService.SetBlock(ctx, s.id.AgentID, in.Label, loci.BlockWrite{Content: in.Content, ExpectedVersion: in.ExpectedVersion})
	case ModeAppend:
		b, created, err = s.appendBlock(ctx, in.Label, in.Content, in.ExpectedVersion)
	default:
		err = loci.Errorf(loci.EINVALID, "mode must be %s or %s", ModeAppend, ModeReplace)
	}
	if err != nil {
		return nil, err
	}
	action := loci.ActionUpdated
	if created {
		action = loci.ActionCreated
	}
	return &UpdateMemoryOutput{Success: true, Action: action, BlockOutput: blockOutput(b)}, nil
}

// appendBlock appends text to a block on a new line, creating the block
// when absent. It reads the block and writes it back as a compare-and-set,
// so a concurrent write is never lost: at the caller's expected version
// when given (a stale one is a conflict), else at the version it read,
// re-reading when another write came between.
func (s *server) appendBlock(ctx context.Context, label, text string, expected *int) (*loci.Block, bool, error) {
	if strings.TrimSpace(text) == "" {
		return nil, false, loci.Errorf(loci.EINVALID, "content must not be empty")
	}
	for attempt := 1; ; attempt++ {
		old, version := "", 0
		b, err := s.BlockService.GetBlock(ctx, s.id.AgentID, label)
		if err == nil {
			old, version = b.Content, b.Version
		} else if loci.ErrorCode(err) != loci.ENOTFOUND {
			return nil, false, err
		}
		content := text
		if old != "" {
			content = old + "\n" + text
		}
		want := &version
		if expected != nil {
			want = expected
		}
		nb, created, err := s.BlockService.SetBlock(ctx, s.id.AgentID, label, loci.BlockWrite{Content: content, ExpectedVersion: want})
		if loci.ErrorCode(err) == loci.ECONFLICT && expected == nil && attempt < casRetries {
			continue
		}
		return nb, created, err
	}
}

func (s *server) readCoreMemory(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if req.Params.URI != CoreMemoryURI {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	text, err := s.BlockService.Prompt(s.ctx(ctx), s.id.AgentID)
	if loci.ErrorCode(err) == loci.ENOTFOUND {
		text, err = "", nil // an agent that has not written memory yet
	}
	if err != nil {
		return nil, s.toolError("resource "+CoreMemoryURI, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: CoreMemoryURI, MIMEType: "text/plain", Text: text},
	}}, nil
}

// textContents makes every text resource's contents carry "text", even
// when it is empty (an agent without blocks): the SDK leaves an empty text
// out, and clients that validate results (the TypeScript SDK) reject
// contents that have neither text nor blob.
func textContents(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if rr, ok := res.(*mcp.ReadResourceResult); ok && rr != nil && err == nil {
			return textResult{rr}, nil
		}
		return res, err
	}
}

// textResult is a resources/read result whose contents without a blob
// always have a "text".
type textResult struct{ *mcp.ReadResourceResult }

// MarshalJSON adds "text": "" to the contents that have neither text nor
// blob.
func (r textResult) MarshalJSON() ([]byte, error) {
	data, err := r.ReadResourceResult.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, err
	}
	var contents []map[string]json.RawMessage
	if err := json.Unmarshal(res["contents"], &contents); err != nil {
		return nil, err
	}
	patched := false
	for _, c := range contents {
		if _, ok := c["text"]; !ok && c["blob"] == nil {
			c["text"] = json.RawMessage(`""`)
			patched = true
		}
	}
	if !patched {
		return data, nil
	}
	if res["contents"], err = marshalNoEscape(contents); err != nil {
		return nil, err
	}
	return marshalNoEscape(res)
}

// marshalNoEscape is json.Marshal without HTML escaping, as the SDK
// writes messages.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func errBlockNotFound(label string) error {
	return loci.Errorf(loci.ENOTFOUND, "block %q not found", label)
}

func blockOutput(b *loci.Block) BlockOutput {
	out := BlockOutput{
		Label: b.Label, Content: b.Content, Chars: utf8.RuneCountInString(b.Content), Limit: b.Limit,
		Version: b.Version, IsShared: b.IsShared, UpdatedAt: b.UpdatedAt.UTC(),
	}
	if b.IsShared {
		out.OwnerAgentID = b.OwnerAgentID
	}
	return out
}
