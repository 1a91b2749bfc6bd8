package loci

import (
	"context"
	"time"
)

// AuditEntry is one line of the append-only access log (docs/rules.md,
// "Every access is audited, without content"): who did what, where, to
// which records, when. It never holds content.
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
	Status    int      `json:"status"`     // the outcome as an HTTP status (loci.StatusOf), whatever the interface
	// DryRun marks an operation that only said what it would change.
	DryRun bool `json:"dry_run,omitempty"`
	// Via is the interface the operation came through: ViaREST, ViaMCP,
	// ViaCLI, or ViaLibrary (a Go program calling the service).
	Via string `json:"via,omitempty"`
}

// The interfaces an operation comes through (AuditEntry.Via).
const (
	ViaREST    = "rest"
	ViaMCP     = "mcp"
	ViaCLI     = "cli"
	ViaLibrary = "library"
)

type viaKey struct{}

// WithVia returns a context whose operations are audited as coming
// through the interface via.
func WithVia(ctx context.Context, via string) context.Context {
	return context.WithValue(ctx, viaKey{}, via)
}

// ViaFrom returns the interface the context's operations come through,
// ViaLibrary when none was set.
func ViaFrom(ctx context.Context) string {
	if v, _ := ctx.Value(viaKey{}).(string); v != "" {
		return v
	}
	return ViaLibrary
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
	// context, KeyID and Role from the context's principal and Via from
	// the context when they are empty. Every operation of the service
	// audits itself; transports call Audit only for what they refuse
	// before reaching an operation (no key, a role too low, a rate
	// limit). Entries may be written shortly after Audit returns
	// (batched); FindAudit sees every entry audited before it was called.
	Audit(ctx context.Context, e AuditEntry) error
	// FindAudit returns the entries that match f, newest first, and how
	// many match in all.
	FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, int, error)
	// PruneAudit applies the retention setting: it deletes the entries
	// older than r.MaxAge and, beyond the newest r.MaxEntries, the oldest
	// ones, in every workspace, and returns how many it deleted. A zero
	// bound does not prune; EINVALID when neither is set or one is
	// negative; admin only.
	PruneAudit(ctx context.Context, r AuditRetention) (int, error)
}

// AuditRetention bounds the audit log by age and by size; a zero field
// leaves that bound off.
type AuditRetention struct {
	MaxAge     time.Duration // entries older than this are deleted
	MaxEntries int           // the oldest entries beyond this many are deleted
}

// DefaultAuditRetention is the retention loci serve enforces unless told
// otherwise: 90 days and a million entries (a few hundred MB at most).
var DefaultAuditRetention = AuditRetention{MaxAge: 90 * 24 * time.Hour, MaxEntries: 1_000_000}

// The operations on the audit log (Operation, declared once: see operations.go).
var (
	OpAuditRead  = declare(Operation{Name: "audit.read", Role: RoleAdmin, Agent: AgentDeny, Summary: "The access log"})
	OpAuditPrune = declare(Operation{Name: "audit.prune", Role: RoleAdmin, Agent: AgentDeny, Summary: "Prune the audit log"})
)
