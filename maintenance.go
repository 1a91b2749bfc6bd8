package loci

import "context"

// Maintenance tasks.
const (
	MaintainConsolidate = "consolidate" // episodes to pattern_learned facts
	MaintainDecay       = "decay"       // fact relevance x0.9 after 30 days without access
	MaintainPrune       = "prune"       // delete unvalidated facts below relevance 0.1
	MaintainExpire      = "expire"      // delete expired working entries and episodes
)

// MaintenanceTasks lists every task in the order a run takes them.
var MaintenanceTasks = []string{MaintainConsolidate, MaintainDecay, MaintainPrune, MaintainExpire}

// MaintenanceRequest asks for a maintenance run: Tasks (every task when
// empty), DryRun to report without changing anything.
type MaintenanceRequest struct {
	Tasks  []string `json:"tasks,omitempty"`
	DryRun bool     `json:"dry_run,omitempty"`
}

// MaintenanceResult is what one task changed: records created, updated
// and deleted, and their ids.
type MaintenanceResult struct {
	Created int      `json:"created"`
	Updated int      `json:"updated"`
	Deleted int      `json:"deleted"`
	IDs     []string `json:"ids"`
}

// MaintenanceReport is what a run changed (or, dry, would change), by task.
type MaintenanceReport struct {
	DryRun bool                          `json:"dry_run"`
	Tasks  map[string]*MaintenanceResult `json:"tasks"`
}

// MaintenanceService runs the lifecycle rules that change stored records.
type MaintenanceService interface {
	// Maintain runs the requested tasks in MaintenanceTasks order, in one
	// transaction. EINVALID for an unknown task.
	Maintain(ctx context.Context, req MaintenanceRequest) (*MaintenanceReport, error)
}

// The operations on maintenance and embeddings (Operation, declared once: see operations.go).
var (
	OpMaintenance      = declare(Operation{Name: "maintenance", Role: RoleAdmin, Agent: AgentDeny, Summary: "Run maintenance"})
	OpEmbeddingReindex = declare(Operation{Name: "embedding.reindex", Role: RoleAdmin, Agent: AgentDeny, Summary: "Reindex embeddings"})
)
