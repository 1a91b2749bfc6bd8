package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ApplyMigrationsBefore applies, on conn, the embedded migrations numbered
// below version and records them, so that a test can write data as an
// older loci did and then open the store to migrate it.
func ApplyMigrationsBefore(ctx context.Context, conn *pgx.Conn, version int) error {
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		var v int
		if _, err := fmt.Sscanf(path.Base(name), "%d_", &v); err != nil {
			return err
		}
		if v >= version {
			continue
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, v, strings.TrimSuffix(path.Base(name), ".sql")); err != nil {
			return err
		}
	}
	return nil
}
