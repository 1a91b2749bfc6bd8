package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// The generic rows of the plain tables (loci.Table), tested on tables of
// the schema declared here as loci's tables.go declares them: the typed
// methods Tx derives from them are tested by the other tests (Agents,
// Users, Keys, Audit, Versions).

var (
	rowsAudit = &loci.Table{Name: "audit_log", Columns: []loci.Column{
		{Name: "seq", Type: loci.ColSerial}, {Name: "id", Type: loci.ColText}, {Name: "at", Type: loci.ColTime},
		{Name: "operation", Type: loci.ColText}, {Name: "workspace", Type: loci.ColText},
		{Name: "record_ids", Type: loci.ColStrings}, {Name: "count", Type: loci.ColInt}, {Name: "dry_run", Type: loci.ColBool},
	}}
	rowsKeys = &loci.Table{Name: "api_keys", Columns: []loci.Column{
		{Name: "id", Type: loci.ColText}, {Name: "workspace", Type: loci.ColText}, {Name: "role", Type: loci.ColText},
		{Name: "hash", Type: loci.ColText}, {Name: "created_at", Type: loci.ColTime}, {Name: "revoked_at", Type: loci.ColNullTime},
	}}
	rowsVersions = &loci.Table{Name: "record_versions", Columns: []loci.Column{
		{Name: "record_id", Type: loci.ColText}, {Name: "version", Type: loci.ColInt}, {Name: "content", Type: loci.ColText},
		{Name: "data", Type: loci.ColJSON}, {Name: "updated_at", Type: loci.ColTime}, {Name: "metadata", Type: loci.ColNullJSON},
	}}
)

// findAll returns the rows q selects.
func findAll(ctx context.Context, tx loci.Tx, q loci.RowQuery) ([]loci.Row, error) {
	var out []loci.Row
	err := tx.FindRows(ctx, q, func(r loci.Row) error { out = append(out, r); return nil })
	return out, err
}

// testRows: InsertRow, FindRows, CountRows, UpdateRows and DeleteRows on
// every column type, order, limit and offset, and the queries a backend
// must refuse without running them.
func testRows(t *testing.T, open Opener) {
	s := open(t)
	t.Run("InsertFindCount", func(t *testing.T) { rowsInsertFindCount(t, s) })
	t.Run("UpdateNull", func(t *testing.T) { rowsUpdateNull(t, s) })
	t.Run("JSON", func(t *testing.T) { rowsJSON(t, s) })
	t.Run("Delete", func(t *testing.T) { rowsDelete(t, s) })
	t.Run("Refused", func(t *testing.T) { rowsRefused(t, s) })
}

// rowsInsertFindCount: a serial column, lists, booleans and times;
// order, limit, offset and counts (five audit entries, e0 to e4).
func rowsInsertFindCount(t *testing.T, s loci.Store) {
	ctx := context.Background()
	MustUpdate(t, s, func(tx loci.Tx) error {
		for i := range 5 {
			row := loci.Row{nil, fmt.Sprint("e", i), base.Add(time.Duration(i) * time.Hour), "op", "w",
				[]string{fmt.Sprint("r", i)}, i * 10, i%2 == 0}
			if i == 3 {
				row[5] = []string(nil) // stored as an empty list
			}
			if added, err := tx.InsertRow(ctx, rowsAudit, row); err != nil || !added {
				return fmt.Errorf("insert e%d: %v, %v", i, added, err)
			}
		}
		// A row whose unique id exists adds nothing, and the
		// transaction goes on.
		added, err := tx.InsertRow(ctx, rowsAudit, loci.Row{nil, "e1", base, "op", "w", []string{}, 0, false})
		if err != nil || added {
			t.Errorf("insert of an existing id: added %v, %v; want false, nil", added, err)
		}
		return nil
	})
	MustView(t, s, func(tx loci.Tx) error {
		rows, err := findAll(ctx, tx, loci.RowQuery{Table: rowsAudit, Order: []loci.Sort{{Column: "seq", Desc: true}}, Limit: 2, Offset: 1})
		if err != nil {
			return err
		}
		if len(rows) != 2 || rows[0][1] != "e3" || rows[1][1] != "e2" {
			t.Fatalf("seq desc, limit 2 offset 1 = %v, want e3 e2", rows)
		}
		want := loci.Row{rows[0][0], "e3", base.Add(3 * time.Hour), "op", "w", []string{}, 30, false}
		if _, ok := rows[0][0].(int); !ok || rows[0][0].(int) <= rows[1][0].(int) {
			t.Errorf("seq = %#v after %#v: want ints, numbered in insertion order", rows[0][0], rows[1][0])
		}
		if !reflect.DeepEqual(rows[0], want) || rows[0][2].(time.Time).Location() != time.UTC {
			t.Errorf("row = %#v, want %#v (times in UTC)", rows[0], want)
		}
		if got := rows[1][5]; !reflect.DeepEqual(got, []string{"r2"}) || rows[1][7] != true {
			t.Errorf("e2's record ids %#v, dry run %v", got, rows[1][7])
		}
		rest, err := findAll(ctx, tx, loci.RowQuery{Table: rowsAudit, Order: []loci.Sort{{Column: "at"}}, Offset: 3})
		if err != nil || len(rest) != 2 || rest[0][1] != "e3" {
			t.Errorf("offset 3 alone = %v, %v; want e3 e4", rest, err)
		}
		for _, c := range []struct {
			where []loci.Cond
			want  int
		}{
			{nil, 5},
			{[]loci.Cond{{Column: "at", Cmp: loci.CmpGe, Value: base.Add(2 * time.Hour)}}, 3},
			{[]loci.Cond{{Column: "at", Cmp: loci.CmpLt, Value: base.Add(2 * time.Hour)}}, 2},
			{[]loci.Cond{{Column: "at", Cmp: loci.CmpGt, Value: base.Add(2 * time.Hour)}}, 2},
			{[]loci.Cond{{Column: "count", Cmp: loci.CmpLe, Value: 20}, {Column: "dry_run", Cmp: loci.CmpEq, Value: true}}, 2},
			{[]loci.Cond{{Column: "workspace", Cmp: loci.CmpEq, Value: "other"}}, 0},
		} {
			n, err := tx.CountRows(ctx, loci.RowQuery{Table: rowsAudit, Where: c.where, Limit: 1, Offset: 1})
			if err != nil || n != c.want {
				t.Errorf("count %v = %d, %v; want %d (limit and offset ignored)", c.where, n, err, c.want)
			}
		}
		return nil
	})
}

// rowsUpdateNull: an update of the rows where a nullable time is NULL.
func rowsUpdateNull(t *testing.T, s loci.Store) {
	ctx := context.Background()
	active := []loci.Cond{{Column: "id", Cmp: loci.CmpEq, Value: "k1"}, {Column: "revoked_at", Cmp: loci.CmpNull}}
	MustUpdate(t, s, func(tx loci.Tx) error {
		if _, err := tx.InsertRow(ctx, rowsKeys, loci.Row{"k1", "w", "admin", "h1", base, time.Time{}}); err != nil {
			return err
		}
		for i, want := range []int{1, 0} {
			n, err := tx.UpdateRows(ctx, loci.RowQuery{Table: rowsKeys, Where: active}, []loci.Assign{{Column: "revoked_at", Value: base.Add(time.Hour)}})
			if err != nil || n != want {
				t.Errorf("revoke %d: %d rows, %v; want %d", i, n, err, want)
			}
		}
		return nil
	})
	MustView(t, s, func(tx loci.Tx) error {
		rows, err := findAll(ctx, tx, loci.RowQuery{Table: rowsKeys, Where: []loci.Cond{{Column: "hash", Cmp: loci.CmpEq, Value: "h1"}}})
		if err != nil || len(rows) != 1 || !rows[0][5].(time.Time).Equal(base.Add(time.Hour)) {
			t.Errorf("revoked key = %v, %v", rows, err)
		}
		return nil
	})
}

// rowsJSON: JSON and nullable JSON, empty and not.
func rowsJSON(t *testing.T, s loci.Store) {
	ctx := context.Background()
	r := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "v")
	MustInsert(t, s, r)
	MustUpdate(t, s, func(tx loci.Tx) error {
		for v, meta := range []json.RawMessage{nil, json.RawMessage(`{"topic":"x"}`)} {
			data := json.RawMessage(nil)
			if meta != nil {
				data = json.RawMessage(`{"n":1}`)
			}
			if _, err := tx.InsertRow(ctx, rowsVersions, loci.Row{r.ID, v, "c", data, base, meta}); err != nil {
				return err
			}
		}
		return nil
	})
	MustView(t, s, func(tx loci.Tx) error {
		rows, err := findAll(ctx, tx, loci.RowQuery{Table: rowsVersions, Where: []loci.Cond{{Column: "record_id", Cmp: loci.CmpEq, Value: r.ID}},
			Order: []loci.Sort{{Column: "version"}}})
		if err != nil || len(rows) != 2 {
			t.Fatalf("versions = %v, %v", rows, err)
		}
		if string(rows[0][3].(json.RawMessage)) != "{}" || rows[0][5].(json.RawMessage) != nil {
			t.Errorf("empty JSON read back as data %q, metadata %q; want {} and nil", rows[0][3], rows[0][5])
		}
		var meta map[string]string
		if err := json.Unmarshal(rows[1][5].(json.RawMessage), &meta); err != nil || meta["topic"] != "x" {
			t.Errorf("metadata read back as %q", rows[1][5])
		}
		// Holds: a text column's, or a JSON column's text, substring; a
		// NULL holds nothing; case counts.
		for _, c := range []struct {
			col, holds string
			want       int
		}{
			{"record_id", r.ID[2:10], 2}, {"metadata", "topic", 1}, {"metadata", `"x"`, 1}, {"metadata", "TOPIC", 0},
			{"data", `"n"`, 1}, {"content", "zz", 0},
		} {
			n, err := tx.CountRows(ctx, loci.RowQuery{Table: rowsVersions, Where: []loci.Cond{
				{Column: "record_id", Cmp: loci.CmpEq, Value: r.ID}, {Column: c.col, Cmp: loci.CmpHolds, Value: c.holds}}})
			if err != nil || n != c.want {
				t.Errorf("%s holds %q: %d, %v; want %d", c.col, c.holds, n, err, c.want)
			}
		}
		return nil
	})
}

// rowsDelete: a delete by comparison, its limit ignored (after
// rowsInsertFindCount).
func rowsDelete(t *testing.T, s loci.Store) {
	ctx := context.Background()
	MustUpdate(t, s, func(tx loci.Tx) error {
		n, err := tx.DeleteRows(ctx, loci.RowQuery{Table: rowsAudit, Where: []loci.Cond{{Column: "at", Cmp: loci.CmpLt, Value: base.Add(2 * time.Hour)}},
			Limit: 1})
		if err != nil || n != 2 {
			t.Errorf("delete before e2: %d, %v; want 2 (limit ignored)", n, err)
		}
		return nil
	})
	MustView(t, s, func(tx loci.Tx) error {
		rows, err := findAll(ctx, tx, loci.RowQuery{Table: rowsAudit, Order: []loci.Sort{{Column: "id"}}})
		var ids []string
		for _, r := range rows {
			ids = append(ids, r[1].(string))
		}
		if err != nil || !slices.Equal(ids, []string{"e2", "e3", "e4"}) {
			t.Errorf("left %v, %v; want e2 e3 e4", ids, err)
		}
		return nil
	})
}

// rowsRefused: queries a backend refuses before running them, which change nothing.
func rowsRefused(t *testing.T, s loci.Store) {
	ctx := context.Background()
	bad := []struct {
		name string
		run  func(tx loci.Tx) error
	}{
		{"unknown column", func(tx loci.Tx) error {
			_, err := tx.CountRows(ctx, loci.RowQuery{Table: rowsAudit, Where: []loci.Cond{{Column: "id; DROP TABLE x", Cmp: loci.CmpEq, Value: "e"}}})
			return err
		}},
		{"unknown order", func(tx loci.Tx) error {
			return tx.FindRows(ctx, loci.RowQuery{Table: rowsAudit, Order: []loci.Sort{{Column: "nope"}}}, func(loci.Row) error { return nil })
		}},
		{"unknown comparison", func(tx loci.Tx) error {
			_, err := tx.DeleteRows(ctx, loci.RowQuery{Table: rowsAudit, Where: []loci.Cond{{Column: "id", Cmp: "LIKE", Value: "%"}}})
			return err
		}},
		{"wrong type", func(tx loci.Tx) error {
			_, err := tx.DeleteRows(ctx, loci.RowQuery{Table: rowsAudit, Where: []loci.Cond{{Column: "count", Cmp: loci.CmpEq, Value: "30"}}})
			return err
		}},
		{"short row", func(tx loci.Tx) error {
			_, err := tx.InsertRow(ctx, rowsAudit, loci.Row{nil, "e9"})
			return err
		}},
		{"empty update", func(tx loci.Tx) error {
			_, err := tx.UpdateRows(ctx, loci.RowQuery{Table: rowsAudit}, nil)
			return err
		}},
		{"serial update", func(tx loci.Tx) error {
			_, err := tx.UpdateRows(ctx, loci.RowQuery{Table: rowsAudit}, []loci.Assign{{Column: "seq", Value: 1}})
			return err
		}},
	}
	for _, b := range bad {
		err := s.Update(ctx, func(tx loci.Tx) error { return b.run(tx) })
		if err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	MustView(t, s, func(tx loci.Tx) error {
		n, err := tx.CountRows(ctx, loci.RowQuery{Table: rowsAudit})
		if err != nil || n != 3 {
			t.Errorf("after the refused queries %d rows, %v; want 3", n, err)
		}
		return nil
	})
}
