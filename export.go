package loci

import (
	"context"
	"io"
)

// ExportFilter selects what an export holds: the whole workspace, or only
// what is about one user.
type ExportFilter struct {
	UserID string // "": the whole workspace
}

// ImportResult counts what an import stored.
type ImportResult struct {
	Agents     int `json:"agents"`
	Users      int `json:"users"`
	Records    int `json:"records"`
	Versions   int `json:"versions"`
	BlockLinks int `json:"block_links"`
	// Skipped counts the records already stored with the same content
	// (an import run again), which it left as they were.
	Skipped int `json:"skipped"`
}

// ExportService moves a workspace (or a user) in and out as JSON Lines:
// one object per agent, user, record (with its versions and embedding) and
// block link, each with a "type". Export, import into an empty workspace,
// export again gives identical output.
type ExportService interface {
	// Export writes the context's workspace (or one user's records) to w
	// and returns how many records it wrote.
	Export(ctx context.Context, f ExportFilter, w io.Writer) (int, error)
	// Import reads an export into the context's workspace: it checks
	// every line before it writes any (EINVALID for a refused line, with
	// its number; ECONFLICT for a record already stored with other
	// content), then writes in batches, each its own transaction. A
	// storage failure while writing leaves the batches before it; the
	// same import run again skips what is already there.
	Import(ctx context.Context, r io.Reader) (*ImportResult, error)
}

// The operations on export and import (Operation, declared once: see operations.go).
var (
	OpExport = declare(Operation{Name: "export", Role: RoleAdmin, Agent: AgentDeny, Summary: "Export the workspace as JSON Lines"})
	OpImport = declare(Operation{Name: "import", Role: RoleAdmin, Agent: AgentDeny, Summary: "Import JSON Lines written by export"})
)
