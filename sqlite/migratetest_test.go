package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// migratedBefore creates a database at path with the embedded migrations
// numbered below version applied and recorded, as an older loci left it,
// and returns a raw connection to it (the caller closes it before Open).
func migratedBefore(t *testing.T, ctx context.Context, path string, version int) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	sort.Strings(names)
	for _, name := range names {
		var v int
		fmt.Sscanf(filepath.Base(name), "%d_", &v)
		if v >= version {
			continue
		}
		body, _ := migrationFS.ReadFile(name)
		if _, err := raw.ExecContext(ctx, string(body)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := raw.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, 0)`, v, strings.TrimSuffix(filepath.Base(name), ".sql")); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}
