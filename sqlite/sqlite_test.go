package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, testdb.OpenSQLite)
}

func TestIndexConformance(t *testing.T) {
	storetest.RunIndex(t, testdb.SQLitePair)
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

// TestTwoHandlesOneFile has two stores open the same file, as two loci
// processes would, and write to one note from both at once: no write may
// fail with SQLITE_BUSY, and every write is kept as a version. Each
// write's value is its own (handle, goroutine, write): the same value twice
// in a row would be a repeat, which keeps no version.
func TestTwoHandlesOneFile(t *testing.T) {
	const perHandle, writes = 8, 10
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	var svcs []*rules.Service
	for range 2 {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svcs = append(svcs, rules.New(db))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*perHandle*writes)
	for n, svc := range svcs {
		for g := range perHandle {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range writes {
					if _, err := svc.Remember(ctx, "a", "shared", json.RawMessage(fmt.Sprintf(`"%d-%d-%d"`, n, g, i))); err != nil {
						errs <- err
					}
					if _, err := svc.Recall(ctx, "a", "shared"); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h, err := svcs[1].History(ctx, "a", "shared")
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * perHandle * writes; len(h) != want {
		t.Errorf("versions: got %d, want %d", len(h), want)
	}
}

// TestConcurrentOpen opens one new file from several handles at once, as
// processes starting together would: the migrations must not race.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			if _, err := rules.New(db).RecallAll(ctx, "a"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
