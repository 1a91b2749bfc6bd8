package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/retry"
)

// pgExec runs statements on a plain connection to dsn.
func pgExec(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// tablesOf lists the relations of a schema.
func tablesOf(t *testing.T, dsn, schema string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT tablename::text FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, schema)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestOpenRefuses: loci never writes into a schema holding another
// application's tables, nor opens one a newer loci migrated; it says why
// and adds nothing.
func TestOpenRefuses(t *testing.T) {
	dsn := postgresDSN(t)
	t.Run("ErrForeignTables", func(t *testing.T) {
		schema := testdb.NewSchema(t, dsn)
		pgExec(t, dsn, `CREATE TABLE `+schema+`.users (id serial PRIMARY KEY, name text)`,
			`CREATE TABLE `+schema+`.records (id serial PRIMARY KEY, body text)`)
		cfg, err := testdb.PostgresConfig(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		db, err := postgres.OpenConfig(context.Background(), cfg)
		if err == nil {
			db.Close()
			t.Fatal("opened a schema holding another application's tables")
		}
		msg := loci.ErrorMessage(err)
		if loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(msg, "not loci's") || !strings.Contains(msg, "records, users") ||
			!strings.Contains(msg, "search_path=loci") {
			t.Errorf("err = %v", err)
		}
		if got := tablesOf(t, dsn, schema); strings.Join(got, ",") != "records,users" {
			t.Errorf("the schema now holds %v", got)
		}
	})
	t.Run("ErrNewerLoci", func(t *testing.T) {
		schema := testdb.NewSchema(t, dsn)
		cfg, err := testdb.PostgresConfig(dsn, schema)
		if err != nil {
			t.Fatal(err)
		}
		db, err := postgres.OpenConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		pgExec(t, dsn, `INSERT INTO `+schema+`.schema_migrations (version, name) VALUES (9999, '9999_future')`)
		db, err = postgres.OpenConfig(context.Background(), cfg)
		if err == nil {
			db.Close()
			t.Fatal("opened a schema a newer loci migrated")
		}
		if msg := loci.ErrorMessage(err); loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(msg, "newer loci") ||
			!strings.Contains(msg, "schema version 9999") || !strings.Contains(msg, "knows versions up to") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestOpenSchemaOfItsOwn: search_path=NAME in the DSN gives loci that
// schema, created when absent, beside another application's tables in
// public, which stay untouched.
func TestOpenSchemaOfItsOwn(t *testing.T) {
	dsn := postgresDSN(t)
	b := make([]byte, 6)
	rand.Read(b)
	name := "loci_own_" + hex.EncodeToString(b)
	t.Cleanup(func() { pgExec(t, dsn, `DROP SCHEMA IF EXISTS `+name+` CASCADE`) })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	before := tablesOf(t, dsn, "public")
	db, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatalf("open with search_path=%s: %v", name, err)
	}
	defer db.Close()
	if err := db.Update(context.Background(), func(tx loci.Tx) error {
		return tx.InsertAgent(context.Background(), &loci.Agent{Workspace: "w", ID: "a", CreatedAt: time.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	got := tablesOf(t, dsn, name)
	if !strings.Contains(strings.Join(got, ","), "records") || !strings.Contains(strings.Join(got, ","), "schema_migrations") {
		t.Errorf("schema %s holds %v", name, got)
	}
	if after := tablesOf(t, dsn, "public"); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("public changed: %v -> %v", before, after)
	}
}

// TestPartition cuts the network between loci and PostgreSQL (a proxy that
// stops forwarding, as a partition does: nothing refused, nothing
// answered): transactions and pings fail unavailable within the timeout
// instead of hanging, and work again once the network is back.
func TestPartition(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testdb.NewProxy(t, u.Host)
	db := testdb.OpenPostgresWith(t, dsn, testdb.ViaProxy(proxy), postgres.WithTimeout(300*time.Millisecond))
	view := func(ctx context.Context) error {
		return db.View(ctx, func(tx loci.Tx) error {
			_, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "w"})
			return err
		})
	}
	if err := view(ctx); err != nil {
		t.Fatal(err)
	}

	proxy.Blackhole()
	// A bound on the test, not on loci: a hang fails instead of blocking.
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i, op := range []func(context.Context) error{
		view,
		func(ctx context.Context) error {
			return db.Update(ctx, func(tx loci.Tx) error {
				return tx.InsertAgent(ctx, &loci.Agent{Workspace: "w", ID: "a1", CreatedAt: time.Now()})
			})
		},
		db.Ping,
	} {
		if err := op(tctx); loci.ErrorCode(err) != loci.EUNAVAILABLE {
			t.Errorf("operation %d during the partition: %v; want unavailable", i, err)
		}
		if tctx.Err() != nil {
			t.Fatalf("operation %d hung until the test's own deadline", i)
		}
	}

	proxy.Restore()
	var last error
	for range 50 {
		if last = view(ctx); last == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		t.Errorf("after the partition: %v", last)
	}
}

// TestClassify: PostgreSQL's own reports of storage trouble map to their
// codes: a full disk is storage_full (and Ping
// reports it), a shutdown or lost connection is unavailable.
func TestClassify(t *testing.T) {
	dsn := postgresDSN(t)
	db := testdb.OpenPostgres(t, dsn)
	ctx := context.Background()
	for code, want := range map[string]string{
		"53100": loci.ESTORAGEFULL, // disk_full
		"57P01": loci.EUNAVAILABLE, // admin_shutdown
		"08006": loci.EUNAVAILABLE, // connection_failure
		"53300": loci.EUNAVAILABLE, // too_many_connections
		"22003": loci.EINTERNAL,    // numeric_value_out_of_range: a bug, not an outage
	} {
		err := db.Update(ctx, func(tx loci.Tx) error {
			return raise(ctx, tx, code)
		})
		if got := loci.ErrorCode(err); got != want {
			t.Errorf("SQLSTATE %s: %v; want %s", code, err, want)
		}
	}
	if err := db.Ping(ctx); loci.ErrorCode(err) != loci.ESTORAGEFULL {
		t.Errorf("ping after a full disk: %v; want storage_full", err)
	}
}

// raise makes the server report SQLSTATE code, for real, in tx.
func raise(ctx context.Context, tx loci.Tx, code string) error {
	return postgres.Exec(ctx, tx, `DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '`+code+`'; END $$`)
}

// TestPartitionOneTimeout: a transaction that waits for a connection and
// then is given one that the partition cut answers unavailable within one
// timeout of its start: the wait for a connection and the BEGIN share the
// timeout (before, each had its own, and a request waited twice).
func TestPartitionOneTimeout(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testdb.NewProxy(t, u.Host)
	const timeout = time.Second
	db := testdb.OpenPostgresWith(t, dsn, func(cfg *pgxpool.Config) {
		testdb.ViaProxy(proxy)(cfg)
		cfg.MaxConns = 1
	}, postgres.WithTimeout(timeout))
	release, err := postgres.HoldConn(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Blackhole()
	go func() {
		time.Sleep(700 * time.Millisecond)
		release()
	}()
	start := time.Now()
	err = db.View(ctx, func(tx loci.Tx) error {
		_, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "w"})
		return err
	})
	took := time.Since(start)
	t.Logf("view during the partition: %v after %v", err, took)
	if loci.ErrorCode(err) != loci.EUNAVAILABLE {
		t.Errorf("view during the partition: %v; want unavailable", err)
	}
	// A bound on behaviour, not a speed target: before, the wait for the
	// connection and the BEGIN each took up to the timeout.
	if took > timeout+400*time.Millisecond {
		t.Errorf("view during the partition took %v; want within the timeout %v", took, timeout)
	}
}

// TestRetryWithinBudget: a transaction retried after a fast transient
// failure (the server refused: a restart) that then meets a partition
// mid-transaction ends within the retry's budget, reads and writes alike:
// the budget bounds the retry's statements, not only its wait for a
// connection and its BEGIN.
func TestRetryWithinBudget(t *testing.T) {
	dsn := postgresDSN(t)
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const timeout, backoff = time.Second, 400 * time.Millisecond
	for _, op := range []string{"View", "Update", "Snapshot"} {
		t.Run(op, func(t *testing.T) {
			proxy := testdb.NewProxy(t, u.Host)
			db := testdb.OpenPostgresWith(t, dsn, testdb.ViaProxy(proxy), postgres.WithTimeout(timeout))
			// The backoff is when the server comes back.
			s := retry.New(db, backoff, retry.WithBudget(timeout), retry.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
				retry.WithSleep(func(ctx context.Context, d time.Duration) error {
					time.Sleep(d)
					proxy.Restore()
					return nil
				}))
			run := map[string]func(context.Context, func(loci.Tx) error) error{"View": s.View, "Update": s.Update, "Snapshot": s.Snapshot}[op]
			proxy.Refuse()
			attempts := 0
			start := time.Now()
			err := run(ctx, func(tx loci.Tx) error {
				attempts++
				// The network goes, and the statement waits for an answer.
				proxy.Blackhole()
				_, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: "w"})
				return err
			})
			took := time.Since(start)
			proxy.Restore()
			t.Logf("%s: %v after %v, %d attempts reached the statement", op, err, took, attempts)
			if loci.ErrorCode(err) != loci.EUNAVAILABLE || attempts != 1 {
				t.Fatalf("%s: %v after %d statements; want unavailable after the retry's", op, err, attempts)
			}
			// A bound on behaviour, not a speed target: before, the retry's
			// statement waited the whole timeout after the backoff.
			if took > timeout+200*time.Millisecond {
				t.Errorf("%s took %v; want within the budget %v", op, took, timeout)
			}
		})
	}
}
