package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// newRole creates a login role that is no superuser and may create
// neither databases nor roles, dropped when the test ends (after what the
// test registers later, such as its databases, is dropped).
func newRole(t *testing.T, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	role := "loci_role_" + hex.EncodeToString(b)
	adminExec(t, dsn, `CREATE ROLE `+role+` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`)
	t.Cleanup(func() { adminExec(t, dsn, `DROP ROLE IF EXISTS `+role) })
	return role
}

func adminExec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// as returns dsn connecting as role, with search_path schema.
func as(t testing.TB, dsn, role, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomSchema() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "loci_" + hex.EncodeToString(b)
}

// TestLeastPrivilege runs loci as a role that is not a superuser: the
// conformance suite as the owner of a schema an administrator created for
// it (in a database where it may not create schemas or extensions), a
// start as the owner of a database (loci creates its schema), and a start
// as a role that may create nothing, which fails saying why.
func TestLeastPrivilege(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	role := newRole(t, dsn)
	t.Run("SchemaOwnerConformance", func(t *testing.T) {
		db := testdb.NewDatabase(t, dsn)
		adminExec(t, db, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
		adminExec(t, db, `REVOKE CREATE, TEMPORARY ON DATABASE `+strings.TrimPrefix(mustPath(t, db), "/")+` FROM PUBLIC`)
		storetest.Run(t, func(t testing.TB) loci.Store {
			schema := randomSchema()
			adminExec(t, db, `CREATE SCHEMA `+schema+` AUTHORIZATION `+role)
			store, err := postgres.Open(ctx, as(t, db, role, schema))
			if err != nil {
				t.Fatalf("open as %s, owner of schema %s: %v", role, schema, err)
			}
			t.Cleanup(func() { store.Close() })
			return store
		})
	})
	t.Run("DatabaseOwner", func(t *testing.T) {
		db := testdb.NewDatabase(t, dsn)
		adminExec(t, db, `ALTER DATABASE `+strings.TrimPrefix(mustPath(t, db), "/")+` OWNER TO `+role)
		store, err := postgres.Open(ctx, as(t, db, role, "loci"))
		if err != nil {
			t.Fatalf("open as %s, owner of the database: %v", role, err)
		}
		defer store.Close()
		if st := store.VectorStatus(); !strings.HasPrefix(st, "on:") && !strings.HasPrefix(st, "off:") {
			t.Errorf("VectorStatus = %q, want it to say on or off, and why", st)
		}
		t.Logf("pgvector for a database owner: %s", store.VectorStatus())
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "owned by a plain role")
		storetest.MustInsert(t, store, r)
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var owner string
		var super bool
		if err := conn.QueryRow(ctx, `SELECT r.rolname, r.rolsuper FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner
			WHERE n.nspname = 'loci'`).Scan(&owner, &super); err != nil || owner != role || super {
			t.Fatalf("schema loci owned by %q (superuser %v, %v), want %s", owner, super, err, role)
		}
	})
	t.Run("NoRights", func(t *testing.T) {
		db := testdb.NewDatabase(t, dsn)
		adminExec(t, db, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
		_, err := postgres.Open(ctx, as(t, db, role, "loci"))
		if loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(err.Error(), `cannot create the schema "loci"`) {
			t.Fatalf("open as a role that may create nothing: %v, want EINVALID saying it cannot create the schema", err)
		}
	})
}

func mustPath(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}
