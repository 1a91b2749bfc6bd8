package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// TestRecordsByIDPlan: records read by id (a search's results) are looked
// up in the primary key alone, even when the table's statistics are older
// than a bulk load: the planner used to combine the id index with a
// workspace index, reading every entry of the workspace (O(records) per
// search; 3 ms at 30,000 records).
func TestRecordsByIDPlan(t *testing.T) {
	ctx := context.Background()
	db, pool := openWithPool(t, postgresDSN(t))

	var ids []string
	for i := range 20 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "passage")
		storetest.MustInsert(t, db, r)
		if i%2 == 0 {
			ids = append(ids, r.ID)
		}
	}
	// Statistics that say the workspace is rare (20 records of 20,020),
	// then a bulk load into it that the planner has not seen.
	for _, q := range []string{
		`ALTER TABLE records SET (autovacuum_enabled = false)`,
		`INSERT INTO records (id, workspace, kind, agent_id, content, search_text, created_at, updated_at)
			SELECT 'other-' || g, 'other', 'passage', 'a', 'p', 'p', now(), now() FROM generate_series(1, 20000) g`,
		`ANALYZE records`,
		`INSERT INTO records (id, workspace, kind, agent_id, content, search_text, created_at, updated_at)
			SELECT 'bulk-' || g, 'default', 'passage', 'a', 'p', 'p', now(), now() FROM generate_series(1, 50000) g`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	q, args := postgres.SelectRecords(loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: ids, Order: loci.OrderNone})
	rows, err := pool.Query(ctx, "EXPLAIN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	got := plan.String()
	if !strings.Contains(got, "records_pkey") || strings.Contains(got, "BitmapAnd") || strings.Contains(got, "Seq Scan") {
		t.Errorf("plan of records by id:\n%s\nwant a lookup in the primary key alone", got)
	}
	found := storetest.MustFind(t, db, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: ids, Order: loci.OrderNone})
	if len(found) != len(ids) {
		t.Errorf("read %d records by id, want %d", len(found), len(ids))
	}
	if other := storetest.MustFind(t, db, loci.RecordFilter{Workspace: "another", IDs: ids, Order: loci.OrderNone}); len(other) != 0 {
		t.Errorf("another workspace's read found %d records", len(other))
	}
}

// TestReviewQueuePlan: a user's review queue reads records_review, which
// holds only the records waiting for review (migration 0021), not every
// fact and preference of the user, in the plan a prepared statement gets
// for any states (generic: the states are a parameter, so the index's
// condition must be said, review <> ”).
func TestReviewQueuePlan(t *testing.T) {
	ctx := context.Background()
	db, pool := openWithPool(t, postgresDSN(t))
	for _, q := range []string{
		`INSERT INTO records (id, workspace, kind, agent_id, user_id, content, search_text, created_at, updated_at, review)
			SELECT 'fact-' || g, 'default', 'fact', 'a', 'u', 'f', 'f', now(), now(), CASE WHEN g % 10000 = 0 THEN 'disputed' ELSE '' END
			FROM generate_series(1, 50000) g`,
		`ANALYZE records`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: loci.ReviewedKinds(), UserID: loci.Ptr("u"),
		Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}, Order: loci.OrderUpdatedDesc, Limit: 50}
	q, args := postgres.SelectRecords(f)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	literals := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			literals[i] = "'" + v + "'"
		case []string:
			literals[i] = "ARRAY['" + strings.Join(v, "','") + "']"
		default:
			t.Fatalf("argument %d: %T", i+1, a)
		}
	}
	var plan strings.Builder
	for _, s := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE review_queue AS ` + q,
		`EXPLAIN EXECUTE review_queue(` + strings.Join(literals, ", ") + `)`, `DEALLOCATE review_queue`, `RESET plan_cache_mode`} {
		// Sent as is (the simple protocol, no arguments): PREPARE
		// holds the statement's own $n.
		results, err := conn.Conn().PgConn().Exec(ctx, s).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		for _, r := range results {
			for _, row := range r.Rows {
				plan.WriteString(string(row[0]) + "\n")
			}
		}
	}
	if got := plan.String(); !strings.Contains(got, "records_review") {
		t.Errorf("generic plan of the review queue:\n%s\nwant a search of records_review", got)
	}
	if found := storetest.MustFind(t, db, f); len(found) != 5 {
		t.Errorf("review queue found %d records, want 5", len(found))
	}
}
