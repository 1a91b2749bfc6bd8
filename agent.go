package loci

import (
	"context"
	"time"
)

// Limits on agents.
const (
	MaxAgentIDBytes   = 256
	MaxAgentNameBytes = 256
)

// AgentCreate is what creating an agent takes. Blocks nil gives the agent
// the StandardBlockLabels, empty; a non-nil empty slice gives it none.
type AgentCreate struct {
	ID     string      `json:"id"`
	Name   string      `json:"name,omitempty"`
	Blocks []BlockSpec `json:"blocks,omitempty"`
}

// Validate checks the agent to create: its id, its name (optional) and
// its blocks (BlockSpec.Validate), no label given twice. EINVALID;
// ETOOLARGE for content over its block's limit.
func (a AgentCreate) Validate() error {
	if err := RequireText("agent_id", a.ID, MaxAgentIDBytes); err != nil {
		return err
	} else if err := CheckText("name", a.Name, MaxAgentNameBytes); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, b := range a.Blocks {
		if err := b.Validate(); err != nil {
			return err
		}
		if seen[b.Label] {
			return Errorf(EINVALID, "block label %q is given twice", b.Label)
		}
		seen[b.Label] = true
	}
	return nil
}

// AgentService manages agents, the owners of blocks, notes and passages.
// Writing a block or a passage for an agent that does not exist creates it
// with the standard blocks, so an agent needs no setup step; reading a missing
// agent is ENOTFOUND.
type AgentService interface {
	// CreateAgent creates an agent and its blocks and returns them.
	// EINVALID for an empty id, a bad label or limit, or a label given
	// twice; ETOOLARGE for content over its block's limit; ECONFLICT when
	// the agent exists.
	CreateAgent(ctx context.Context, a AgentCreate) (*Agent, []*Block, error)
	// GetAgent returns an agent. ENOTFOUND when absent.
	GetAgent(ctx context.Context, id string) (*Agent, error)
	// ListAgents returns the workspace's agents by id, and their total.
	ListAgents(ctx context.Context, limit, offset int) ([]*Agent, int, error)
	// DeleteAgent deletes an agent and everything it owns: its records of
	// every kind (blocks, notes, passages, …), its shared blocks with their
	// links, its links to other agents' shared blocks, and the adds of
	// messages queued for it (pending or done). ENOTFOUND when neither the
	// agent nor any record or queued add of it exists.
	DeleteAgent(ctx context.Context, id string) error
}

// The operations on agents (Operation, declared once: see operations.go).
var (
	OpAgentCreate = declare(Operation{Name: "agent.create", Role: RoleCreator, Agent: AgentDeny, Summary: "Create an agent"})
	OpAgentList   = declare(Operation{Name: "agent.list", Role: RoleViewer, Agent: AgentDeny, Summary: "List agents"})
	OpAgentGet    = declare(Operation{Name: "agent.get", Role: RoleViewer, Agent: AgentNamed, Summary: "Get an agent"})
	OpAgentDelete = declare(Operation{Name: "agent.delete", Role: RoleEditor, Agent: AgentNamed, Summary: "Delete an agent and everything it owns"})
)

// Agent is an agent that owns memory: blocks, notes, passages.
type Agent struct {
	Workspace string    `json:"-"`
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// AgentFilter selects agents of one workspace: those of the agents table
// or, with Known, besides them every agent id the workspace's records
// name that has no agent (an agent with only notes), with no name and its
// first record's time.
type AgentFilter struct {
	Workspace string
	ID        string // when set, only this agent
	Known     bool
	Limit     int // 0: no limit
	Offset    int
}
