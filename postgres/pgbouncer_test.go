package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// openPooled opens a store through b (PgBouncer in transaction mode) on a
// fresh schema of dsn's database, the schema named by the DSN's
// search_path as a deployment would name it.
func openPooled(t testing.TB, dsn string, b *testdb.PgBouncer, query string, opts ...postgres.Option) (*postgres.DB, error) {
	t.Helper()
	return openPooledIn(t, testdb.NewSchema(t, dsn), b, query, opts...)
}

// openPooledIn is openPooled on an existing schema.
func openPooledIn(t testing.TB, schema string, b *testdb.PgBouncer, query string, opts ...postgres.Option) (*postgres.DB, error) {
	t.Helper()
	url := b.DSN()
	if strings.Contains(url, "?") {
		url += "&"
	} else {
		url += "?"
	}
	url += "search_path=" + schema + ",public"
	if query != "" {
		url += "&" + query
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenConfig(context.Background(), cfg, opts...)
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

// TestConformancePgBouncer runs the whole conformance suite through a real
// PgBouncer in transaction mode, the store told so by its option (as
// `loci serve --db-pooler transaction` does).
func TestConformancePgBouncer(t *testing.T) {
	dsn := postgresDSN(t)
	b := testdb.NewPgBouncer(t, dsn)
	storetest.Run(t, func(t testing.TB) loci.Store {
		db, err := openPooled(t, dsn, b, "", postgres.WithTransactionPooling())
		if err != nil {
			t.Fatalf("open through pgbouncer: %v", err)
		}
		return db
	})
}

// TestIndexConformancePgBouncer runs the index suite (two processes on one
// schema, their indexes kept exact by the change feed) through PgBouncer.
func TestIndexConformancePgBouncer(t *testing.T) {
	dsn := postgresDSN(t)
	b := testdb.NewPgBouncer(t, dsn)
	storetest.RunIndex(t, func(t *testing.T) (loci.Store, loci.Store) {
		schema := testdb.NewSchema(t, dsn)
		var out [2]loci.Store
		for i := range out {
			db, err := openPooledIn(t, schema, b, "", postgres.WithTransactionPooling())
			if err != nil {
				t.Fatalf("open through pgbouncer: %v", err)
			}
			out[i] = db
		}
		return out[0], out[1]
	})
}

// TestPgBouncerDSN: a DSN that asks for no named statements
// (default_query_exec_mode) is enough, in each of the modes without them;
// and the pooler under test is in transaction mode indeed: a store that
// prepares named statements fails through it.
func TestPgBouncerDSN(t *testing.T) {
	dsn := postgresDSN(t)
	b := testdb.NewPgBouncer(t, dsn)
	ctx := context.Background()
	for _, mode := range []string{"exec", "simple_protocol", "describe_exec"} {
		t.Run(mode, func(t *testing.T) {
			db, err := openPooled(t, dsn, b, "default_query_exec_mode="+mode)
			if err != nil {
				t.Fatalf("open through pgbouncer: %v", err)
			}
			exercise(t, ctx, db)
		})
	}
	// PgBouncer refuses the search_path of a DSN at connection time: the
	// store takes that for a transaction pooler, and sets it in each
	// transaction.
	t.Run("Detected", func(t *testing.T) {
		db, err := openPooled(t, dsn, b, "")
		if err != nil {
			t.Fatalf("open through pgbouncer: %v", err)
		}
		exercise(t, ctx, db)
	})
	t.Run("NamedStatementsFail", func(t *testing.T) {
		// No search_path (which PgBouncer would refuse, and the store
		// would take for a pooler): a database of its own.
		db, err := postgres.Open(ctx, b.Via(testdb.NewDatabase(t, dsn)))
		if err == nil {
			defer db.Close()
			err = tryExercise(ctx, db)
		}
		if err == nil || !strings.Contains(err.Error(), "prepared statement") || !strings.Contains(err.Error(), "--db-pooler") {
			t.Fatalf("named statements through pgbouncer in transaction mode: %v, want a prepared statement error "+
				"(is the pooler in transaction mode?) that names --db-pooler", err)
		}
	})
}

// exercise writes, reads and searches, from several goroutines so that
// transactions of one client connection land on different server sessions.
func exercise(t *testing.T, ctx context.Context, db *postgres.DB) {
	t.Helper()
	if err := tryExercise(ctx, db); err != nil {
		t.Fatal(err)
	}
}

func tryExercise(ctx context.Context, db *postgres.DB) error {
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			var err error
			defer func() { errs <- err }()
			for range 20 {
				r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "pooled passage about herons")
				if err = db.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, r) }); err != nil {
					return
				}
				if err = db.View(ctx, func(tx loci.Tx) error {
					_, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
					return err
				}); err != nil {
					return
				}
			}
		}()
	}
	var first error
	for range 4 {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
