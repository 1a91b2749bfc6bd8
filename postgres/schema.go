package postgres

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loci-memory/loci"
)

// querier is what the schema checks run on: a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// targetSchema returns the schema loci's tables live in: the first schema
// of the connection's search_path ("$user" counting only when a schema of
// the user's name exists), created when it does not exist yet, so that
// `?search_path=loci` in the DSN gives loci a schema of its own.
func targetSchema(ctx context.Context, conn querier) (string, error) {
	var searchPath string
	if err := conn.QueryRow(ctx, `SHOW search_path`).Scan(&searchPath); err != nil {
		return "", fmt.Errorf("read search_path: %w", err)
	}
	for _, name := range splitSearchPath(searchPath) {
		if name == "pg_catalog" || name == "pg_temp" || strings.HasPrefix(name, "pg_temp_") {
			continue
		}
		if name == "$user" {
			var user string
			var exists bool
			if err := conn.QueryRow(ctx, `SELECT current_user, EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = current_user)`).
				Scan(&user, &exists); err != nil {
				return "", fmt.Errorf("read search_path: %w", err)
			}
			if !exists {
				continue
			}
			name = user
		}
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, name).Scan(&exists); err != nil {
			return "", fmt.Errorf("read search_path: %w", err)
		}
		if !exists {
			if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{name}.Sanitize()); err != nil {
				return "", loci.WrapError(err, loci.EINVALID, "cannot create the schema %q that search_path names: %v", name, err)
			}
		}
		return name, nil
	}
	return "", loci.Errorf(loci.EINVALID, "the connection's search_path (%s) names no schema for loci's tables: "+
		"add search_path=loci to the DSN", searchPath)
}

// splitSearchPath splits a search_path setting into schema names,
// unquoting quoted ones.
func splitSearchPath(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			part = strings.ReplaceAll(part[1:len(part)-1], `""`, `"`)
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// checkOwnership refuses a schema that holds relations but is not loci's
// (EINVALID: loci never writes into another application's tables), and
// one that a newer loci migrated.
func checkOwnership(ctx context.Context, conn querier, schema string) error {
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname`, schema)
	if err != nil {
		return fmt.Errorf("read the schema %s: %w", schema, err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read the schema %s: %w", schema, err)
	}
	if len(tables) == 0 {
		return nil
	}
	owned, applied, err := lociSchema(ctx, conn, schema, tables)
	if err != nil {
		return fmt.Errorf("read the schema %s: %w", schema, err)
	}
	if !owned {
		return loci.Errorf(loci.EINVALID, "the PostgreSQL schema %q holds tables that are not loci's (%s) and no loci schema: "+
			"refusing to write into another application's tables; give loci a schema of its own with search_path=loci in the DSN",
			schema, tableList(tables))
	}
	if known := latestMigration(); applied > known {
		return loci.Errorf(loci.EINVALID, "the PostgreSQL schema %q was written by a newer loci (schema version %d; this loci knows "+
			"versions up to %d): upgrade loci to use it", schema, applied, known)
	}
	return nil
}

// lociSchema reports whether a schema holding tables is loci's: it has
// loci's schema_migrations (version, name, applied_at) recording loci's
// first migration, or that table alone (a first start that stopped before
// its first migration). It returns the highest migration applied.
func lociSchema(ctx context.Context, conn querier, schema string, tables []string) (bool, int, error) {
	if !slices.Contains(tables, "schema_migrations") {
		return false, 0, nil
	}
	rows, err := conn.Query(ctx, `SELECT a.attname::text FROM pg_attribute a
		WHERE a.attrelid = (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = 'schema_migrations')
		AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1`, schema)
	if err != nil {
		return false, 0, err
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return false, 0, err
	}
	if !slices.Equal(cols, []string{"applied_at", "name", "version"}) {
		return false, 0, nil
	}
	table := pgx.Identifier{schema, "schema_migrations"}.Sanitize()
	var first bool
	var latest int
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE version = 1 AND name = '0001_records'),
		coalesce(max(version), 0) FROM `+table).Scan(&first, &latest); err != nil {
		return false, 0, err
	}
	if !first && len(tables) > 1 {
		return false, 0, nil
	}
	return true, latest, nil
}

// latestMigration is the highest migration number this binary knows.
func latestMigration() int {
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	latest := 0
	for _, name := range names {
		var v int
		if _, err := fmt.Sscanf(path.Base(name), "%d_", &v); err == nil {
			latest = max(latest, v)
		}
	}
	return latest
}

// tableList names up to five tables.
func tableList(tables []string) string {
	if len(tables) > 5 {
		return strings.Join(tables[:5], ", ") + fmt.Sprintf(", and %d more", len(tables)-5)
	}
	return strings.Join(tables, ", ")
}
