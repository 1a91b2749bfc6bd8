package sqlite_test

import (
	"context"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/sqlite"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, testdb.OpenSQLite)
}

func TestConformanceInMemory(t *testing.T) {
	storetest.Run(t, func(t testing.TB) loci.Store {
		db, err := sqlite.Open(context.Background(), sqlite.Memory)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
