package loci

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on core memory blocks. A block's limit counts characters (Unicode
// code points) of its content.
const (
	DefaultBlockLimit  = 5000
	MaxBlockLimit      = 200000
	MaxBlockLabelBytes = 128
)

// StandardBlockLabels are the blocks an agent gets when created without
// blocks.
var StandardBlockLabels = []string{"personality", "relationships", "current_state"}

// Block is a labelled section of an agent's core memory, always rendered
// into its prompt. A shared block is owned by one agent and attached to
// others, who read and write the same block.
type Block struct {
	ID           string    `json:"id"`
	Label        string    `json:"label"`
	Content      string    `json:"content"`
	IsShared     bool      `json:"is_shared"`
	OwnerAgentID string    `json:"owner_agent_id"`
	Limit        int       `json:"limit"`   // characters
	Version      int       `json:"version"` // 1 on create, +1 per update
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Metadata is the record's metadata (docs/records.md, "Metadata"), absent
	// when it has none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// BlockVersion is one content a block has had. Limit is the block's
// limit at that version.
type BlockVersion struct {
	Version   int       `json:"version"`
	Content   string    `json:"content"`
	Limit     int       `json:"limit"`
	UpdatedAt time.Time `json:"updated_at"`
}

// BlockSpec describes a block to create. Limit 0 means DefaultBlockLimit.
type BlockSpec struct {
	Label   string `json:"label"`
	Content string `json:"content"`
	Limit   int    `json:"limit,omitempty"`
}

// Validate checks the block to create: its label (CheckBlockLabel), its
// limit (0 for DefaultBlockLimit, at most MaxBlockLimit; EINVALID) and its
// content, valid text within the limit (ETOOLARGE: refused, never
// truncated).
func (b BlockSpec) Validate() error {
	if err := CheckBlockLabel(b.Label); err != nil {
		return err
	} else if err := checkBlockLimit(b.Limit); err != nil {
		return err
	}
	limit := b.Limit
	if limit == 0 {
		limit = DefaultBlockLimit
	}
	return CheckBlockContent(b.Content, limit)
}

// CheckBlockContent checks content against a block's limit in characters:
// valid text (EINVALID) within the limit (ETOOLARGE: an over-limit write
// is refused, never truncated).
func CheckBlockContent(content string, limit int) error {
	if err := CheckText("content", content, 0); err != nil {
		return err
	} else if n := utf8.RuneCountInString(content); n > limit {
		return Errorf(ETOOLARGE, "content is %d characters, over the block's limit of %d", n, limit)
	}
	return nil
}

// CheckBlockLabel checks a block label: valid text of one line, at most
// MaxBlockLabelBytes. EINVALID.
func CheckBlockLabel(label string) error {
	if err := RequireText("label", label, MaxBlockLabelBytes); err != nil {
		return err
	} else if strings.ContainsAny(label, "\r\n") {
		return Errorf(EINVALID, "label must be one line")
	}
	return nil
}

// checkBlockLimit checks a block's limit: 0 (the default or the limit the
// block has) to MaxBlockLimit.
func checkBlockLimit(limit int) error {
	if limit < 0 || limit > MaxBlockLimit {
		return Errorf(EINVALID, "limit must be between 1 and %d characters", MaxBlockLimit)
	}
	return nil
}

// BlockWrite is a create-or-replace of a block's content. ExpectedVersion,
// when set, makes the write a compare-and-set: it applies only if the block
// is at that version (0: only if the block does not exist yet). Limit, when
// set, replaces the block's limit.
type BlockWrite struct {
	Content         string
	ExpectedVersion *int
	Limit           int
}

// Validate checks the write: a limit from 0 (the block's own) to
// MaxBlockLimit and content that is valid text. EINVALID. Whether the
// content fits the block's limit is known only beside the block.
func (w BlockWrite) Validate() error {
	if err := checkBlockLimit(w.Limit); err != nil {
		return err
	}
	return CheckText("content", w.Content, 0)
}

// BlockService is core memory: an agent's blocks, shared blocks and the
// prompt they render into.
type BlockService interface {
	// ListBlocks returns the agent's owned blocks by label, then the shared
	// blocks attached to it by label. ENOTFOUND when the agent is absent.
	ListBlocks(ctx context.Context, agentID string) ([]*Block, error)
	// GetBlock returns the agent's block with that label, owned or
	// attached. ENOTFOUND when the agent or the block is absent.
	GetBlock(ctx context.Context, agentID, label string) (*Block, error)
	// SetBlock creates or replaces the block with that label (an attached
	// shared block is written in place) and reports whether it created it.
	// EINVALID for a bad label or limit; ECONFLICT when ExpectedVersion is
	// stale; ETOOLARGE when the content passes the limit (nothing changes).
	SetBlock(ctx context.Context, agentID, label string, w BlockWrite) (*Block, bool, error)
	// CreateBlock creates a block owned by the agent, shared when shared is
	// set. EINVALID, ETOOLARGE as SetBlock; ECONFLICT when the agent
	// already has a block with that label.
	CreateBlock(ctx context.Context, agentID string, spec BlockSpec, shared bool) (*Block, error)
	// AttachBlock attaches a shared block to a consuming agent; attaching
	// twice is not an error. ENOTFOUND when the block is absent; EINVALID
	// when it is not shared or the agent is its owner; ECONFLICT when the
	// agent already has another block with its label.
	AttachBlock(ctx context.Context, blockID, agentID string) error
	// DetachBlock detaches a shared block from an agent. ENOTFOUND when the
	// block is absent or not attached to the agent.
	DetachBlock(ctx context.Context, blockID, agentID string) error
	// ListBlockConsumers returns the agents a block is attached to, oldest
	// link first. ENOTFOUND when the block is absent.
	ListBlockConsumers(ctx context.Context, blockID string) ([]BlockLink, error)
	// BlockHistory returns every content the agent's block with that
	// label (owned or attached) has had, the current one first. ENOTFOUND
	// when the agent or the block is absent.
	BlockHistory(ctx context.Context, agentID, label string) ([]BlockVersion, error)
	// Prompt renders the agent's blocks, in ListBlocks order, each as
	// "### {label}\n{content}", with a blank line between them; blocks
	// with no content (empty or only whitespace) are left out. ENOTFOUND
	// when the agent is absent.
	Prompt(ctx context.Context, agentID string) (string, error)
}

// The traits of the block kind (KindTraits). A block is an agent's own
// memory, written through its own routes.
var _ = declareKind(KindBlock, KindTraits{AgentScoped: true})

// The operations on core memory blocks and the prompt they render (Operation, declared once: see operations.go).
var (
	OpBlockList      = declare(Operation{Name: "block.list", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "List an agent's blocks"})
	OpBlockCreate    = declare(Operation{Name: "block.create", Kind: KindBlock, Role: RoleCreator, Agent: AgentNamed, Summary: "Create a block"})
	OpBlockGet       = declare(Operation{Name: "block.get", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "Get a block"})
	OpBlockPut       = declare(Operation{Name: "block.put", Kind: KindBlock, Role: RoleCreator, Agent: AgentNamed, Summary: "Create or replace a block's content"})
	OpBlockHistory   = declare(Operation{Name: "block.history", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "Every content a block has had"})
	OpBlockAttach    = declare(Operation{Name: "block.attach", Kind: KindBlock, Role: RoleEditor, Agent: AgentDeny, Summary: "Attach a shared block to an agent"})
	OpBlockDetach    = declare(Operation{Name: "block.detach", Kind: KindBlock, Role: RoleEditor, Agent: AgentNamed, Summary: "Detach a shared block from an agent"})
	OpBlockConsumers = declare(Operation{Name: "block.consumers", Kind: KindBlock, Role: RoleViewer, Agent: AgentFree, Summary: "The agents a shared block is attached to"})
	OpAgentPrompt    = declare(Operation{Name: "agent.prompt", Kind: KindBlock, Role: RoleViewer, Agent: AgentNamed, Summary: "The agent's blocks as prompt text"})
)

// BlockLink attaches a shared block to an agent that is not its owner.
type BlockLink struct {
	BlockID   string    `json:"block_id"`
	AgentID   string    `json:"agent_id"`
	CreatedAt time.Time `json:"created_at"`
}
