package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
)

// migratedBefore makes a schema of its own on dsn's server with the
// migrations before migration n applied, and returns a connection to it
// (closed when the test ends), for the test to write what an older loci
// wrote, and the schema's pool configuration, to open it with
// postgres.OpenConfig, which applies the rest.
func migratedBefore(t *testing.T, dsn string, n int) (*pgx.Conn, *pgxpool.Config) {
	t.Helper()
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	cfg, err := testdb.PostgresConfig(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, `SET search_path TO `+schema+`, public`); err != nil {
		t.Fatal(err)
	}
	if err := postgres.ApplyMigrationsBefore(ctx, conn, n); err != nil {
		t.Fatal(err)
	}
	return conn, cfg
}
