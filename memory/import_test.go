package memory_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/memory"
)

// failingStore fails its failAt-th write transaction as storage would
// (unavailable), passing every other through to the real store.
type failingStore struct {
	loci.Store
	updates atomic.Int32
	failAt  int32
}

func (s *failingStore) Update(ctx context.Context, fn func(loci.Tx) error) error {
	if s.updates.Add(1) == s.failAt {
		return loci.Errorf(loci.EUNAVAILABLE, "the database does not answer")
	}
	return s.Store.Update(ctx, fn)
}

// passages returns an import of n passages of agent a.
func passages(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"record","id":"p%06d","workspace":"default","kind":"passage","agent_id":"a","content":"passage number %d",`+
			`"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`+"\n", i, i)
	}
	return b.String()
}

// TestImportBatches: an import is written in batches, each its own
// transaction; a storage failure in the middle keeps the batches before it
// and says so; the same import run again completes it, skipping what is
// there, and stores each record once. A hand-written file without search
// text is analyzed as a write would be (found by a stemmed query).
func TestImportBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		body := passages(12000)
		_, err := memory.New(&failingStore{Store: store, failAt: 2}).Import(ctx, strings.NewReader(body))
		if loci.ErrorCode(err) != loci.EUNAVAILABLE || !strings.Contains(loci.ErrorMessage(err), "the lines before line 5001 were imported: 5000 records") {
			t.Fatalf("import failing in its second batch: %v", err)
		}
		svc := memory.New(store)
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != 5000 {
			t.Fatalf("after the failure: %d passages (%v), want the first batch's 5000", n, err)
		}
		res, err := svc.Import(ctx, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.Records != 7000 || res.Skipped != 5000 {
			t.Errorf("import run again: %+v, want 7000 stored and 5000 skipped", res)
		}
		if _, n, err := svc.ListPassages(ctx, "a", loci.PassageFilter{Limit: 1}); err != nil || n != 12000 {
			t.Errorf("after the second run: %d passages (%v), want 12000", n, err)
		}
		found, err := svc.SearchPassages(ctx, "a", "passages numbered 10321", loci.PassageFilter{Limit: 1})
		if err != nil || len(found.Results) == 0 || found.Results[0].Content != "passage number 10321" {
			t.Errorf("search of an imported passage: %+v %v", found, err)
		}
	})
}
