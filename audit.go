package loci

import (
	"context"
	"time"
)

// AuditEntry is one line of the append-only access log (seed 001
// telemetry, seed 004 traceability): who did what, where, to which
// records, when. It never holds content.
type AuditEntry struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	KeyID     string    `json:"key_id,omitempty"` // "" when authentication is off
	Role      Role      `json:"role,omitempty"`
	Operation string    `json:"operation"` // e.g. "GET /v1/agents/{agent_id}/notes" or "mcp recall"
	Workspace string    `json:"workspace"`
	Scope
	Kind      Kind     `json:"kind,omitempty"`
	RecordIDs []string `json:"record_ids"` // ids (or keys) of what was touched
	Count     int      `json:"count"`      // how many records the operation returned or changed
	Status    int      `json:"status"`     // the HTTP status, or 200/500-like for other transports
}

// AuditFilter selects audit entries of one workspace; empty fields do not
// filter.
type AuditFilter struct {
	Workspace string
	AgentID   string
	UserID    string
	KeyID     string
	Operation string
	Since     time.Time // inclusive
	Limit     int       // 0: no limit
	Offset    int
}

// AuditService writes and reads the access log.
type AuditService interface {
	// Audit appends e, filling Time from the clock, Workspace from the
	// context and KeyID and Role from the context's principal when they
	// are empty. Every transport calls it once per memory access.
	Audit(ctx context.Context, e AuditEntry) error
	// FindAudit returns the entries that match f, newest first, and how
	// many match in all.
	FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, int, error)
	// PruneAudit deletes entries older than retention and returns how many
	// it deleted (the retention setting).
	PruneAudit(ctx context.Context, retention time.Duration) (int, error)
}
