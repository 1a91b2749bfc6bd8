package loci

import (
	"context"
	"time"
)

// The overview: what a person looking after agents' memory sees first
// (the web inspector's overview, the REST routes GET /v1/users,
// GET /v1/stats and GET /v1/memories). Everything here is computed by the
// database from its indexes: counts and groups, never by loading every
// record.

// UserSummary is one user of a workspace as the user list shows it. A user
// is known once a session start or an import registered it, or once any
// record names it.
type UserSummary struct {
	UserID string `json:"user_id"`
	// CreatedAt is when loci first heard of the user: the earlier of its
	// registration and its oldest record.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is the last write about the user: the latest of its
	// registration's update and its records' updates.
	UpdatedAt time.Time `json:"updated_at"`
	// Memories is how many records about the user there are now.
	Memories int `json:"memories"`
}

// UserFilter selects users of one workspace. Match, when set, keeps the
// users whose id holds it, ignoring case (ListUserSummaries); ID, when
// set, keeps that user alone (FindUsers).
type UserFilter struct {
	Workspace string
	Match     string
	ID        string
	Limit     int // 0: no limit
	Offset    int
}

// Grouping is what CountRecordsBy groups records by.
type Grouping int

// Groupings.
const (
	GroupKind  Grouping = iota // by kind
	GroupAgent                 // by agent_id; records without one are left out
	GroupUser                  // by user_id; records without one (global) are left out
	GroupDay                   // by the UTC day of created_at, as YYYY-MM-DD
)

// GroupCount is how many records one group holds.
type GroupCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Limits of the overview.
const (
	// DefaultStatsTop and MaxStatsTop bound the agents and users that
	// Stats lists by size.
	DefaultStatsTop = 10
	MaxStatsTop     = 100
	// DefaultStatsDays and MaxStatsDays bound the days of growth.
	DefaultStatsDays = 30
	MaxStatsDays     = 366
	// StatsNewest is how many of the newest memories Stats answers.
	StatsNewest = 10
)

// MaxOverviewScopeBytes bounds an agent, user, session or task id an
// overview query names, and the text a user list matches.
const MaxOverviewScopeBytes = 1024

// StatsQuery narrows the overview to one agent and/or one user and says
// how much of it to answer. Zero Top and Days mean their defaults.
type StatsQuery struct {
	AgentID string
	UserID  string
	Top     int // agents and users listed, by how many records they hold
	Days    int // days of growth, today included
}

// Validate checks the query: Top from 0 to MaxStatsTop, Days from 0 to
// MaxStatsDays, and its agent and user, when set, valid text of at most
// MaxOverviewScopeBytes. EINVALID.
func (q StatsQuery) Validate() error {
	if q.Top < 0 || q.Top > MaxStatsTop {
		return Errorf(EINVALID, "top must be between 1 and %d", MaxStatsTop)
	} else if q.Days < 0 || q.Days > MaxStatsDays {
		return Errorf(EINVALID, "days must be between 1 and %d", MaxStatsDays)
	} else if err := CheckText("agent_id", q.AgentID, MaxOverviewScopeBytes); err != nil {
		return err
	}
	return CheckText("user_id", q.UserID, MaxOverviewScopeBytes)
}

// ScopeCount is an agent or a user and how many records it holds.
type ScopeCount struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

// DayCount is how many of the records there are now were created on one
// UTC day, and how many there were at its end.
type DayCount struct {
	Date  string `json:"date"` // YYYY-MM-DD
	Count int    `json:"count"`
	Total int    `json:"total"`
}

// EmbeddingStats is the embedding queue as the overview shows it.
type EmbeddingStats struct {
	// Model is the embedder's model; "" when the server has no embedder
	// (search is then lexical only and nothing is pending).
	Model string `json:"model"`
	// Pending is how many records in scope wait for an embedding by Model.
	Pending int `json:"pending"`
}

// Stats is the overview of a workspace, or of one agent or user in it.
type Stats struct {
	AgentID string `json:"agent_id,omitempty"`
	UserID  string `json:"user_id,omitempty"`
	// Total is how many records there are; Kinds how many of each kind
	// (every kind, 0 when none).
	Total int          `json:"total"`
	Kinds map[Kind]int `json:"kinds"`
	// Agents and Users count the distinct agents and users the records
	// name; TopAgents and TopUsers are the largest, most records first.
	Agents    int          `json:"agents"`
	Users     int          `json:"users"`
	TopAgents []ScopeCount `json:"top_agents"`
	TopUsers  []ScopeCount `json:"top_users"`
	// Growth is one entry per day of the last Days days, oldest first:
	// the records created that day that still exist, and the running
	// total.
	Growth []DayCount `json:"growth"`
	// Newest are the most recently created records, newest first.
	Newest     []*UserMemory  `json:"newest"`
	Embeddings EmbeddingStats `json:"embeddings"`
	// At is when the overview was computed.
	At time.Time `json:"at"`
}

// MemoryQuery selects records of every kind for a timeline: scope fields
// narrow when set, Kinds keeps those kinds (all when empty), Before and
// After bound created_at (exclusive).
type MemoryQuery struct {
	Scope
	Kinds  []Kind
	Before time.Time
	After  time.Time
	// Filters narrows the selection in the filter language (docs/api.md,
	// "Filters").
	Filters *MemoryFilter
	Limit   int // 0: 100; at most 1000
	Offset  int
}

// OverviewService is the overview of a workspace's memory, for people
// looking after it.
type OverviewService interface {
	// ListUsers returns the users of the workspace that f selects (its
	// Workspace is the context's), newest first (by CreatedAt, then id),
	// and how many it selects in all.
	ListUsers(ctx context.Context, f UserFilter) ([]*UserSummary, int, error)
	// Stats returns the overview of the workspace or of the agent and/or
	// user q names. EINVALID for Top or Days out of range.
	Stats(ctx context.Context, q StatsQuery) (*Stats, error)
	// ListMemories returns the records q selects, of every kind, newest
	// first (by created_at, then id), and how many it selects in all.
	// EINVALID for an unknown kind, a limit out of range or Before not
	// after After.
	ListMemories(ctx context.Context, q MemoryQuery) ([]*UserMemory, int, error)
}

// The operations on the overview (users, stats, the listing of memories) (Operation, declared once: see operations.go).
var (
	OpUserList   = declare(Operation{Name: "user.list", Role: RoleViewer, Agent: AgentDeny, Summary: "List users, newest first"})
	OpStats      = declare(Operation{Name: "stats", Role: RoleViewer, Agent: AgentNamed, Summary: "An overview of the memory"})
	OpMemoryList = declare(Operation{Name: "memory.list", Role: RoleViewer, Agent: AgentNamed, Summary: "Memories of every kind, newest first (a timeline)"})
)
