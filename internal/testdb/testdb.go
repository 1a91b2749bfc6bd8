// Package testdb opens a fresh store of each backend under test, so the
// conformance suite and the HTTP scenario suites run on every backend:
// SQLite always, PostgreSQL when LOCI_TEST_POSTGRES_DSN is set. It is test
// wiring, like cmd/: the one place besides cmd/ that imports the backends.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/sqlite"
)

// PostgresEnv names the environment variable that holds the DSN of a
// PostgreSQL server for tests; each test gets a fresh schema in it.
const PostgresEnv = "LOCI_TEST_POSTGRES_DSN"

// Backend opens a fresh, empty store for one test; it closes it at the
// test's end.
type Backend struct {
	Name string
	Open func(t testing.TB) loci.Store
}

// Backends returns every backend configured for this run.
func Backends() []Backend {
	bs := []Backend{{Name: "sqlite", Open: OpenSQLite}}
	if dsn := os.Getenv(PostgresEnv); dsn != "" {
		bs = append(bs, Backend{Name: "postgres", Open: func(t testing.TB) loci.Store { return OpenPostgres(t, dsn) }})
	}
	return bs
}

// OpenSQLite opens a fresh SQLite database in the test's temp directory.
func OpenSQLite(t testing.TB) loci.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// OpenPostgres opens a PostgreSQL store on dsn in a fresh schema that is
// dropped when the test ends.
func OpenPostgres(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	schema := NewSchema(t, dsn)
	cfg, err := PostgresConfig(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// OpenPostgresWith opens a PostgreSQL store on dsn in a fresh schema,
// dropped when the test ends, after adjust has changed the pool's
// configuration (e.g. to connect through a Proxy), with opts.
func OpenPostgresWith(t testing.TB, dsn string, adjust func(*pgxpool.Config), opts ...postgres.Option) *postgres.DB {
	t.Helper()
	cfg, err := PostgresConfig(dsn, NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(cfg)
	}
	db, err := postgres.OpenConfig(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ViaProxy points a pool configuration at p (host and port), for
// OpenPostgresWith.
func ViaProxy(p *Proxy) func(*pgxpool.Config) {
	return func(cfg *pgxpool.Config) {
		host, port, _ := net.SplitHostPort(p.Addr())
		n, _ := strconv.Atoi(port)
		cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Fallbacks = host, uint16(n), nil
	}
}

// NewSchema creates a schema with a random name on dsn's database and
// drops it, with everything in it, when the test ends.
func NewSchema(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 8)
	rand.Read(b)
	schema := "loci_test_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to postgres (%s): %v", PostgresEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("connect to drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// PostgresConfig parses dsn and points its connections at schema (then
// public, where the vector extension lives).
func PostgresConfig(dsn, schema string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ", public"
	// Set it again once connected too: PGlite serves every connection from
	// one session and ignores startup parameters.
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SET search_path TO `+schema+`, public`)
		return err
	}
	return cfg, nil
}

// PostgresDSN returns dsn (a postgres:// URL) with its search_path set to
// schema, for a process (such as `loci serve`) that takes a DSN.
func PostgresDSN(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("%s must be a postgres:// URL", PostgresEnv)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Each runs fn as a subtest once per backend.
func Each(t *testing.T, fn func(t *testing.T, open func(t testing.TB) loci.Store)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b.Open) })
	}
}

// Pair opens two stores on one fresh database, as two processes sharing
// it would; both close at the test's end.
type Pair struct {
	Name string
	Open func(t *testing.T) (loci.Store, loci.Store)
}

// Pairs returns a Pair for every backend configured for this run.
func Pairs() []Pair {
	ps := []Pair{{Name: "sqlite", Open: SQLitePair}}
	if dsn := os.Getenv(PostgresEnv); dsn != "" {
		ps = append(ps, Pair{Name: "postgres", Open: func(t *testing.T) (loci.Store, loci.Store) { return PostgresPair(t, dsn) }})
	}
	return ps
}

// SQLitePair opens two handles on one fresh SQLite file, as two processes
// would.
func SQLitePair(t *testing.T) (loci.Store, loci.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loci.db")
	var out [2]loci.Store
	for i := range out {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		out[i] = db
	}
	return out[0], out[1]
}

// PostgresPair opens two stores on one fresh schema of dsn's database, as
// two replicas would.
func PostgresPair(t *testing.T, dsn string) (loci.Store, loci.Store) {
	t.Helper()
	schema := NewSchema(t, dsn)
	var out [2]loci.Store
	for i := range out {
		cfg, err := PostgresConfig(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		db, err := postgres.OpenConfig(context.Background(), cfg)
		if err != nil {
			t.Fatalf("open postgres: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		out[i] = db
	}
	return out[0], out[1]
}

// NewDatabase creates a database with a random name on dsn's server and
// returns dsn pointed at it; the database is dropped, with every session
// still connected to it, when the test ends.
func NewDatabase(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 8)
	rand.Read(b)
	name := "loci_test_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to postgres (%s): %v", PostgresEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("connect to drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
