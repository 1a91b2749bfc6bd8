package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

func testRollback(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	r := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "v")
	boom := fmt.Errorf("boom")
	err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertRecord(ctx, r); err != nil {
			return err
		}
		return boom
	})
	if err != boom {
		t.Fatalf("err = %v, want boom", err)
	}
	if got := MustFind(t, s, all()); len(got) != 0 {
		t.Fatalf("rolled-back insert is visible: %+v", got)
	}
}

// testConflictKeepsTx checks that ECONFLICT from an insert leaves the
// transaction usable, so a rule may insert, see the conflict and go on.
func testConflictKeepsTx(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	a := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "one")
	MustInsert(t, s, a)
	b := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "two")
	c := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k2", "three")
	err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.InsertRecord(ctx, b); loci.ErrorCode(err) != loci.ECONFLICT {
			t.Errorf("duplicate key: error code = %q (%v), want conflict", loci.ErrorCode(err), err)
		}
		dup := *a
		dup.Key = "k3"
		if err := tx.InsertRecord(ctx, &dup); loci.ErrorCode(err) != loci.ECONFLICT {
			t.Errorf("duplicate id: error code = %q (%v), want conflict", loci.ErrorCode(err), err)
		}
		if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: loci.DefaultWorkspace, ID: "x", CreatedAt: base}); err != nil {
			return err
		}
		if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: loci.DefaultWorkspace, ID: "x", CreatedAt: base}); loci.ErrorCode(err) != loci.ECONFLICT {
			t.Errorf("duplicate agent: error code = %q (%v), want conflict", loci.ErrorCode(err), err)
		}
		if err := tx.InsertRecord(ctx, c); err != nil {
			return err
		}
		moved := *c
		moved.Key, moved.Version = "k", 2
		if err := tx.UpdateRecord(ctx, &moved, 1); loci.ErrorCode(err) != loci.ECONFLICT {
			t.Errorf("update onto a taken key: error code = %q (%v), want conflict", loci.ErrorCode(err), err)
		}
		renamed := *c
		renamed.Key, renamed.Version = "k4", 2
		return tx.UpdateRecord(ctx, &renamed, 1)
	})
	if err != nil {
		t.Fatalf("transaction after conflicts: %v", err)
	}
	if got := ids(MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Order: loci.OrderCreatedAsc})); !slices.Equal(got, []string{a.ID, c.ID}) {
		t.Fatalf("records = %v, want %v", got, []string{a.ID, c.ID})
	}
	if got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Key: loci.Ptr("k4")}); len(got) != 1 || got[0].ID != c.ID {
		t.Fatalf("renamed record: %+v", got)
	}
}

// testExactValues checks what backends must not normalize: JSON text as
// written (key order, spacing), keys ordered bytewise with absent keys
// first, and times to the microsecond.
func testExactValues(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	r := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "b", "v")
	r.Data = json.RawMessage(`{"value":{"z":1,"a":[1,2],"m":"\u00e9"}}`)
	r.CreatedAt = base.Add(999 * time.Nanosecond) // below a microsecond: dropped
	upper := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "B", "v")
	unkeyed := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "", "v")
	accented := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "\u00e9", "v")
	MustInsert(t, s, r, upper, unkeyed, accented)
	var got *loci.Record
	if err := s.View(ctx, func(tx loci.Tx) (err error) { got, err = tx.GetRecord(ctx, loci.DefaultWorkspace, r.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != string(r.Data) {
		t.Errorf("data = %s, want %s", got.Data, r.Data)
	}
	if want := base; !got.CreatedAt.Equal(want) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at = %v, want %v in UTC", got.CreatedAt, want)
	}
	keys := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Order: loci.OrderKeyAsc})
	if got, want := ids(keys), []string{unkeyed.ID, upper.ID, r.ID, accented.ID}; !slices.Equal(got, want) {
		t.Errorf("key order = %v, want %v", got, want)
	}
}

// testScanRowByRow: records read in one scan are each what was stored,
// whatever the row before them held: a bare record after one that sets
// every optional field keeps none of them (a backend scans rows into the
// same destinations), and each equals the record read alone.
func testScanRowByRow(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	var recs []*loci.Record
	for i := range 4 {
		r := NewRecord(loci.KindFact, loci.Scope{AgentID: "a", UserID: "u"}, "", fmt.Sprint("bare ", i))
		if i%2 == 0 {
			r = NewRecord(loci.KindFact, loci.Scope{AgentID: "a", UserID: "u", SessionID: "s", TaskID: "t"}, fmt.Sprint("k", i), fmt.Sprint("full ", i))
			r.Data, r.Metadata, r.Tags = json.RawMessage(`{"x":1}`), json.RawMessage(`{"topic":"t"}`), []string{"t1", "t2"}
			r.Category, r.Confidence, r.AccessCount, r.Review = "c", 0.7, 3, loci.ReviewDisputed
			r.LastAccessedAt, r.ExpiresAt = base.Add(time.Hour), base.Add(1000*time.Hour)
			r.ValidAt, r.InvalidAt = base, base.Add(2*time.Hour)
			r.Embedding, r.EmbeddingModel = []float32{0.6, 0.8}, "m"
		}
		recs = append(recs, r)
	}
	MustInsert(t, s, recs...)
	scanned := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Order: loci.OrderCreatedAsc})
	if len(scanned) != len(recs) {
		t.Fatalf("scanned %d records, want %d", len(scanned), len(recs))
	}
	for i, got := range scanned {
		var alone *loci.Record
		MustView(t, s, func(tx loci.Tx) (err error) {
			alone, err = tx.GetRecord(ctx, loci.DefaultWorkspace, recs[i].ID)
			return err
		})
		if !reflect.DeepEqual(got, alone) {
			t.Errorf("record %d scanned after another:\n%+v\nread alone:\n%+v", i, *got, *alone)
		}
		if i%2 == 1 && (got.Key != "" || got.Tags != nil || got.Metadata != nil || got.Embedding != nil || got.EmbeddingModel != "" ||
			!got.ExpiresAt.IsZero() || !got.InvalidAt.IsZero() || !got.LastAccessedAt.IsZero() || got.Review != "" || got.SessionID != "") {
			t.Errorf("bare record %d holds fields of the one before it: %+v", i, *got)
		}
		if i%2 == 0 && (got.Key != recs[i].Key || len(got.Tags) != 2 || got.Metadata == nil || len(got.Embedding) != 2 || got.InvalidAt.IsZero()) {
			t.Errorf("full record %d lost fields: %+v", i, *got)
		}
	}
}

// testLockSerializes runs read-modify-write updates of one record from
// concurrent transactions that take the same lock first: none may fail or
// lose an update.
func testLockSerializes(t *testing.T, open Opener) {
	counterRace(t, open, func(ctx context.Context, tx loci.Tx, id string) error { return tx.Lock(ctx, "counter") })
}

// testLockRecords: transactions that lock a record (LockRecords) before
// they read and update it take turns: each reads what the one before
// committed, so none loses its update (a version conflict); ids that do
// not exist are ignored.
func testLockRecords(t *testing.T, open Opener) {
	s := counterRace(t, open, func(ctx context.Context, tx loci.Tx, id string) error {
		return tx.LockRecords(ctx, loci.DefaultWorkspace, []string{"absent", id})
	})
	if err := s.Update(context.Background(), func(tx loci.Tx) error {
		return tx.LockRecords(context.Background(), loci.DefaultWorkspace, nil)
	}); err != nil {
		t.Errorf("lock no records: %v", err)
	}
}

// counterRace runs 20 read-modify-write updates of one record, from 4
// concurrent writers, each transaction taking lock first: none may fail or
// lose an update. It returns the store.
func counterRace(t *testing.T, open Opener, lock func(ctx context.Context, tx loci.Tx, id string) error) loci.Store {
	ctx := context.Background()
	s := open(t)
	r := NewRecord(loci.KindBlock, loci.Scope{AgentID: "a"}, "counter", "0")
	MustInsert(t, s, r)
	const workers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				errs <- s.Update(ctx, func(tx loci.Tx) error {
					if err := lock(ctx, tx, r.ID); err != nil {
						return err
					}
					cur, err := tx.GetRecord(ctx, loci.DefaultWorkspace, r.ID)
					if err != nil {
						return err
					}
					next := *cur
					next.Version++
					next.Content = fmt.Sprint(next.Version - 1)
					return tx.UpdateRecord(ctx, &next, cur.Version)
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
	if len(got) != 1 || got[0].Version != 1+workers*each || got[0].Content != fmt.Sprint(workers*each) {
		t.Fatalf("after %d updates: %+v", workers*each, got)
	}
	return s
}

// testPanicRollsBack: a panic in a transaction function is passed on, the
// transaction is rolled back, and its connection and locks are released,
// so the next write neither hangs nor sees the panicked write.
func testPanicRollsBack(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was not passed on")
			}
		}()
		s.Update(ctx, func(tx loci.Tx) error {
			if err := tx.Lock(ctx, "storetest-panic"); err != nil {
				t.Error(err)
			}
			if err := tx.InsertRecord(ctx, NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "lost")); err != nil {
				t.Error(err)
			}
			panic("boom")
		})
	}()
	// Bounded, so that the defect fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Update(ctx, func(tx loci.Tx) error {
		if err := tx.Lock(ctx, "storetest-panic"); err != nil {
			return err
		}
		n, err := tx.CountRecords(ctx, all())
		if err == nil && n != 0 {
			t.Errorf("got %d records after the panic, want 0", n)
		}
		return err
	}); err != nil {
		t.Fatalf("write after a panic: %v", err)
	}
}
