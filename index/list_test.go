package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

// TestListAnswersOrLeavesToStore: Cache.List answers a filtered listing in
// the orders it keeps (ties on id) with the page and the total the filter
// selects, and leaves to the store (nil) what it must not answer: an order
// it does not keep, a content hash, a transaction that has written, a
// scope over the budget.
func TestListAnswersOrLeavesToStore(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var recs []*loci.Record
	for i := range 30 {
		r := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "", fmt.Sprintf("fact %d", i))
		r.Metadata = json.RawMessage(fmt.Sprintf(`{"n":%d}`, i%4))
		if i%5 == 1 { // ties on creation time
			r.CreatedAt = recs[i-1].CreatedAt
		}
		r.UpdatedAt = r.CreatedAt.Add(time.Duration(30-i) * time.Minute)
		recs = append(recs, r)
	}
	storetest.MustInsert(t, db, recs...)
	where, err := loci.ParseMemoryFilter([]byte(`{"metadata.n": {"gte": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	base := loci.RecordFilter{Workspace: loci.DefaultWorkspace, UserID: loci.Ptr("u"), Where: where, Limit: 4, Offset: 3}
	c := index.New()
	for _, o := range []loci.Order{loci.OrderCreatedDesc, loci.OrderCreatedAsc, loci.OrderUpdatedDesc} {
		f := base
		f.Order = o
		// What the store answers: the selection in f's order, filtered.
		var want []string
		scan := f
		scan.Where, scan.Limit, scan.Offset = nil, 0, 0
		err := db.View(ctx, func(tx loci.Tx) error {
			return tx.ScanRecords(ctx, scan, func(r *loci.Record) error {
				if where.Match(r) {
					want = append(want, r.ID)
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		var l *index.Listing
		err = db.View(ctx, func(tx loci.Tx) (err error) {
			l, err = c.List(ctx, tx, f)
			return err
		})
		if err != nil || l == nil {
			t.Fatalf("order %d: listing %v, %v", o, l, err)
		}
		if l.Total != len(want) || !slices.Equal(l.IDs, want[3:7]) {
			t.Errorf("order %d: %v (total %d), want %v (total %d)", o, l.IDs, l.Total, want[3:7], len(want))
		}
	}

	leaves := func(name string, c *index.Cache, f loci.RecordFilter, write bool) {
		t.Helper()
		run := db.View
		if write {
			run = db.Update
		}
		err := run(ctx, func(tx loci.Tx) error {
			if write {
				r := storetest.NewRecord(loci.KindFact, loci.Scope{UserID: "u"}, "", "written in the listing's transaction")
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			l, err := c.List(ctx, tx, f)
			if err == nil && l != nil {
				t.Errorf("%s: answered %+v, want nil (the store answers)", name, l)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	f := base
	f.Order = loci.OrderKeyAsc
	leaves("order by key", c, f, false)
	f = base
	f.ContentHash = loci.Ptr(loci.ContentHash("fact 1"))
	leaves("content hash", c, f, false)
	leaves("a transaction that has written", c, base, true)
	leaves("a scope over the budget", index.New(index.WithBudget(1)), base, false)
}
