package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/storetest"
)

// Reads of records by id (a filter with IDs, TouchRecords) must look the
// ids up in the id index, not scan the workspace: with a workspace
// condition first, SQLite's planner preferred the workspace indexes as
// soon as a few ids were given.
//
//	go test ./sqlite -run XXX -bench RecordsByID

// seedIDs inserts n passages of one agent in workspace "w" and returns
// their ids.
func seedIDs(tb testing.TB, db *DB, n int) []string {
	tb.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += 1000 {
		err := db.Update(ctx, func(tx loci.Tx) error {
			for i := start; i < min(start+1000, n); i++ {
				ids[i] = fmt.Sprintf("rec-%06d", i)
				r := &loci.Record{
					ID: ids[i], Workspace: "w", Kind: loci.KindPassage, Scope: loci.Scope{AgentID: "a"},
					Content: "passage", CreatedAt: at.Add(time.Duration(i) * time.Second), Version: 1,
				}
				r.UpdatedAt = r.CreatedAt
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return ids
}

// pickIDs returns k ids spread over ids.
func pickIDs(ids []string, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = ids[i*len(ids)/k]
	}
	return out
}

// TestRecordsByIDStatementUsesIDIndex: the prepared statement searches
// read their results with looks the ids up in the id index.
func TestRecordsByIDStatementUsesIDIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := seedIDs(t, db, 200)
	got := queryPlan(t, db, sqlRecordsByID, []any{`["` + strings.Join(pickIDs(ids, 10), `","`) + `"]`, "w"})
	if !strings.Contains(got, "sqlite_autoindex_records_1 (id=?)") {
		t.Errorf("plan:\n%s\nwant a search of the id index", got)
	}
	var n int
	err = db.View(ctx, func(tx loci.Tx) error {
		return tx.ScanRecords(ctx, loci.RecordFilter{Workspace: "w", IDs: pickIDs(ids, 10), Order: loci.OrderNone}, func(*loci.Record) error {
			n++
			return nil
		})
	})
	if err != nil || n != 10 {
		t.Fatalf("read %d records (%v), want 10", n, err)
	}
}

func TestRecordsByIDUseIDIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := seedIDs(t, db, 200)
	for _, n := range []int{1, 2, 10, 150} {
		for name, f := range map[string]loci.RecordFilter{
			"IDs":             {Workspace: "w", IDs: pickIDs(ids, n)},
			"IDsKinds":        {Workspace: "w", Kinds: []loci.Kind{loci.KindPassage}, IDs: pickIDs(ids, n)},
			"IDsKindsAgent":   {Workspace: "w", Kinds: []loci.Kind{loci.KindPassage}, AgentID: loci.Ptr("a"), IDs: pickIDs(ids, n)},
			"IDsUserOrGlobal": {Workspace: "w", UserID: loci.Ptr("u"), OrGlobalUser: true, IDs: pickIDs(ids, n)},
		} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				where, args := whereClause(f, "")
				q := `SELECT id FROM records WHERE ` + where + ` ORDER BY ` + orderClause(loci.OrderCreatedDesc)
				checkPlan(t, db, q, args, "sqlite_autoindex_records_1 (id=?)")
			})
		}
	}
	t.Run("Touch", func(t *testing.T) {
		args := []any{int64(0)}
		for _, id := range pickIDs(ids, 50) {
			args = append(args, id)
		}
		args = append(args, "w")
		checkPlan(t, db, touchSQL(50), args, "sqlite_autoindex_records_1 (id=?)")
	})
}

// checkPlan fails t unless the plan of q (with args) holds want: the
// index, and the terms it is searched by, that q must use.
func checkPlan(t *testing.T, db *DB, q string, args []any, want string) {
	t.Helper()
	if got := queryPlan(t, db, q, args); !strings.Contains(got, want) {
		t.Errorf("plan of %s:\n%s\nwant a search with %q", q, got, want)
	}
}

func queryPlan(t *testing.T, db *DB, q string, args []any) string {
	t.Helper()
	rows, err := db.reader.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		b.WriteString(detail + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func BenchmarkRecordsByID(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ids := seedIDs(b, db, 20000)
	for _, k := range []int{10, 50} {
		want := pickIDs(ids, k)
		b.Run(fmt.Sprintf("Find/%d", k), func(b *testing.B) {
			f := loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindPassage}, IDs: want, Order: loci.OrderCreatedDesc}
			for b.Loop() {
				readScope(b, db, f, false, k)
			}
		})
		b.Run(fmt.Sprintf("Touch/%d", k), func(b *testing.B) {
			at := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
			for b.Loop() {
				if err := db.Update(ctx, func(tx loci.Tx) error { return tx.TouchRecords(ctx, "w", want, at) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSessionRead reads one session's 50 messages as getSession
// does (its user, kind and category, in written order) while the user's
// other sessions grow: the read should cost what the session holds.
func BenchmarkSessionRead(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "loci.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	sessions := 0
	for _, total := range []int{100, 2000} {
		var recs []*loci.Record
		for ; sessions < total; sessions++ {
			for m := range 50 {
				r := storetest.NewRecord(loci.KindSession, loci.Scope{UserID: "u", SessionID: fmt.Sprint("s", sessions)}, "", fmt.Sprint("message ", m))
				r.Category = "message"
				recs = append(recs, r)
			}
		}
		if err := db.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, recs) }); err != nil {
			b.Fatal(err)
		}
		f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession}, UserID: loci.Ptr("u"),
			SessionID: loci.Ptr("s7"), Category: loci.Ptr("message"), Order: loci.OrderCreatedAsc}
		b.Run(fmt.Sprintf("UserMessages/%d", 50*total), func(b *testing.B) {
			for b.Loop() {
				readScope(b, db, f, false, 50)
			}
		})
	}
}

// TestKeyLookupUsesKeyIndex: reading a note or a fact slot by its key
// searches the key index, whatever the scope holds; the planner, without
// statistics, preferred an index in the order asked and read every note
// of the agent.
func TestKeyLookupUsesKeyIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, f := range map[string]loci.RecordFilter{
		"note": {Workspace: "w", Kinds: []loci.Kind{loci.KindNote}, AgentID: loci.Ptr("a"), UserID: loci.Ptr(""),
			SessionID: loci.Ptr(""), TaskID: loci.Ptr(""), Key: loci.Ptr("k")},
		"fact slot": {Workspace: "w", Kinds: []loci.Kind{loci.KindFact}, UserID: loci.Ptr("u"), Key: loci.Ptr("home_city")},
	} {
		t.Run(name, func(t *testing.T) {
			q, args, err := selectRecords(f)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, db, q, args, "records_key_versions")
		})
	}
}

// TestWriterPreparesStatementsOnce: a write transaction's query built
// from a filter is prepared on the writer once it has run, and the next
// transaction of the same shape runs the prepared statement; the writer
// keeps at most maxCachedStmts.
func TestWriterPreparesStatementsOnce(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindNote}, AgentID: loci.Ptr("a"), Key: loci.Ptr("k")}
	q, _, err := selectRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	if db.writeStmts.lookup(q) != nil {
		t.Fatal("prepared before it ran")
	}
	for range 2 {
		err := db.Update(ctx, func(tx loci.Tx) error {
			_, err := tx.FindRecords(ctx, f)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if db.writeStmts.lookup(q) == nil {
			t.Fatal("not prepared after a transaction ran it")
		}
	}
	for i := range maxCachedStmts + 10 {
		err := db.Update(ctx, func(tx loci.Tx) error {
			_, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: "w", IDs: make([]string, i+1), Order: loci.OrderCreatedDesc})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(db.writeStmts.byQ); n != maxCachedStmts {
		t.Errorf("the writer keeps %d statements, want the bound %d", n, maxCachedStmts)
	}
}

// TestRepeatLookupUsesContentHashIndex: a repeat's candidates are read
// from the index of content keys (migration 0013), not from the scope's
// records.
func TestRepeatLookupUsesContentHashIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := loci.ContentHash("likes tea")
	f := loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindPassage}, AgentID: loci.Ptr("a"), UserID: loci.Ptr(""),
		SessionID: loci.Ptr(""), TaskID: loci.Ptr(""), ContentHash: &h, LiveAt: time.Now()}
	q, args, err := selectRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, db, q, args, "records_content_key (content_key=?)")
}

// TestSessionAndTaskReadsUseTheirIndexes: the session and task indexes
// hold only the records that have one (migration 0014), and a read naming
// a session or a task is still planned on its index, also when it names a
// kind and asks the written order (migration 0015).
func TestSessionAndTaskReadsUseTheirIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		f     loci.RecordFilter
		index string
	}{
		{loci.RecordFilter{Workspace: "w", SessionID: loci.Ptr("s1")}, "records_session"},
		{loci.RecordFilter{Workspace: "w", TaskID: loci.Ptr("t1")}, "records_task"},
		// A kind and an order by creation, as a session's messages are
		// read (getSession), with and without its user: records_user
		// and records_kind_created give that order too, but read all
		// the user's (the workspace's) records of the kind.
		{loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindSession}, SessionID: loci.Ptr("s1")}, "records_session"},
		{loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindSession}, SessionID: loci.Ptr("s1"),
			UserID: loci.Ptr("u"), Category: loci.Ptr("message"), Order: loci.OrderCreatedAsc}, "records_session"},
		{loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindWorking}, TaskID: loci.Ptr("t1"),
			AgentID: loci.Ptr("a"), Limit: 10}, "records_task"},
	} {
		q, args, err := selectRecords(c.f)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, db, q, args, "USING INDEX "+c.index+" ")
	}
}

// TestWriterCacheGrowsForBatches: the writer's page cache starts small; a
// transaction that inserts many records grows it for batches, an import
// (InsertRecords) for bulk loads, and it never shrinks back.
func TestWriterCacheGrowsForBatches(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cache := func() int {
		t.Helper()
		var kib int
		if err := db.writer.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&kib); err != nil {
			t.Fatal(err)
		}
		return -kib
	}
	insert := func(n int, many bool) {
		t.Helper()
		recs := make([]*loci.Record, n)
		for i := range recs {
			recs[i] = storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", fmt.Sprint("passage ", i))
		}
		err := db.Update(ctx, func(tx loci.Tx) error {
			if many {
				return tx.InsertRecords(ctx, recs)
			}
			for _, r := range recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := cache(); got != writerCacheKiB {
		t.Fatalf("at open: %d KiB, want %d", got, writerCacheKiB)
	}
	insert(batchRecords-1, false)
	if got := cache(); got != writerCacheKiB {
		t.Fatalf("after %d inserts: %d KiB, want %d", batchRecords-1, got, writerCacheKiB)
	}
	insert(batchRecords, false)
	if got := cache(); got != batchCacheKiB {
		t.Fatalf("after a batch: %d KiB, want %d", got, batchCacheKiB)
	}
	insert(2, true)
	if got := cache(); got != bulkCacheKiB {
		t.Fatalf("after a bulk load: %d KiB, want %d", got, bulkCacheKiB)
	}
	insert(batchRecords, false)
	if got := cache(); got != bulkCacheKiB {
		t.Fatalf("a batch after a bulk load: %d KiB, want %d kept", got, bulkCacheKiB)
	}
}
