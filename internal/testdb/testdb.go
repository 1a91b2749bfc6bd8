// Package testdb opens a fresh store of each backend under test, so the
// conformance suite and the HTTP scenario suites run on every backend:
// SQLite always, PostgreSQL when LOCI_TEST_POSTGRES_DSN is set. It is test
// wiring, like cmd/: the one place besides cmd/ that imports the backends.
package testdb

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/sqlite"
)

// Backend opens a fresh, empty store for one test; it closes it at the
// test's end.
type Backend struct {
	Name string
	Open func(t testing.TB) loci.Store
}

// Backends returns every backend configured for this run.
func Backends() []Backend {
	return []Backend{{Name: "sqlite", Open: OpenSQLite}}
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

// Each runs fn as a subtest once per backend.
func Each(t *testing.T, fn func(t *testing.T, open func(t testing.TB) loci.Store)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b.Open) })
	}
}
