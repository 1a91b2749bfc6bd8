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
