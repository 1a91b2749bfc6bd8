package sqltable

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/loci-memory/loci"
)

var things = &loci.Table{Name: "things", Columns: []loci.Column{
	{Name: "seq", Type: loci.ColSerial}, {Name: "id", Type: loci.ColText}, {Name: "doc", Type: loci.ColJSON}, {Name: "n", Type: loci.ColInt},
}}

// numbered is a dialect with numbered placeholders and a cast for JSON,
// as PostgreSQL's, encoding every value as it is.
var numbered = &Dialect{
	Param: func(n int, t loci.ColumnType) string {
		if t == loci.ColJSON {
			return fmt.Sprintf("$%d::json", n)
		}
		return fmt.Sprintf("$%d", n)
	},
	Read: func(c loci.Column) string {
		if c.Type == loci.ColJSON {
			return c.Name + "::text"
		}
		return c.Name
	},
	Encode:       func(t loci.ColumnType, v any) (any, error) { return v, nil },
	Dest:         func(loci.ColumnType) any { return new(any) },
	Decode:       func(t loci.ColumnType, dest any) (any, error) { return *dest.(*any), nil },
	NoLimit:      nil,
	SkipConflict: " ON CONFLICT DO NOTHING",
}

func TestStatements(t *testing.T) {
	q := loci.RowQuery{Table: things, Where: []loci.Cond{{Column: "id", Cmp: loci.CmpEq, Value: "a"}, {Column: "n", Cmp: loci.CmpGe, Value: 2},
		{Column: "doc", Cmp: loci.CmpNull}}, Order: []loci.Sort{{Column: "n", Desc: true}, {Column: "id"}}, Offset: 5}
	for _, c := range []struct {
		name string
		st   func() (Stmt, error)
		want Stmt
	}{
		{"insert", func() (Stmt, error) { return numbered.Insert(things, loci.Row{nil, "a", "{}", 1}) },
			Stmt{"INSERT INTO things (id, doc, n) VALUES ($1, $2::json, $3) ON CONFLICT DO NOTHING", []any{"a", "{}", 1}}},
		{"select", func() (Stmt, error) { return numbered.Select(q) },
			Stmt{"SELECT seq, id, doc::text, n FROM things WHERE id = $1 AND n >= $2 AND doc IS NULL ORDER BY n DESC, id LIMIT $3 OFFSET $4",
				[]any{"a", 2, nil, 5}}},
		{"count", func() (Stmt, error) { return numbered.Count(q) },
			Stmt{"SELECT count(*) FROM things WHERE id = $1 AND n >= $2 AND doc IS NULL", []any{"a", 2}}},
		{"update", func() (Stmt, error) {
			return numbered.Update(q, []loci.Assign{{Column: "n", Value: 3}, {Column: "doc", Value: "[]"}})
		},
			Stmt{"UPDATE things SET n = $1, doc = $2::json WHERE id = $3 AND n >= $4 AND doc IS NULL", []any{3, "[]", "a", 2}}},
		{"delete", func() (Stmt, error) { return numbered.Delete(loci.RowQuery{Table: things}) },
			Stmt{"DELETE FROM things", nil}},
	} {
		got, err := c.st()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v, %v\nwant %#v", c.name, got, err, c.want)
		}
	}
}

func TestRefused(t *testing.T) {
	failing := &Dialect{Param: numbered.Param, Read: numbered.Read, Dest: numbered.Dest, Decode: numbered.Decode,
		Encode: func(t loci.ColumnType, v any) (any, error) { return nil, fmt.Errorf("bad value") }}
	for name, st := range map[string]func() (Stmt, error){
		"column": func() (Stmt, error) {
			return numbered.Count(loci.RowQuery{Table: things, Where: []loci.Cond{{Column: "x", Cmp: loci.CmpEq}}})
		},
		"order": func() (Stmt, error) {
			return numbered.Select(loci.RowQuery{Table: things, Order: []loci.Sort{{Column: "n desc"}}})
		},
		"comparison": func() (Stmt, error) {
			return numbered.Delete(loci.RowQuery{Table: things, Where: []loci.Cond{{Column: "n", Cmp: "<>"}}})
		},
		"row":      func() (Stmt, error) { return numbered.Insert(things, loci.Row{"a"}) },
		"set none": func() (Stmt, error) { return numbered.Update(loci.RowQuery{Table: things}, nil) },
		"set serial": func() (Stmt, error) {
			return numbered.Update(loci.RowQuery{Table: things}, []loci.Assign{{Column: "seq", Value: 1}})
		},
		"set column": func() (Stmt, error) {
			return numbered.Update(loci.RowQuery{Table: things}, []loci.Assign{{Column: "m", Value: 1}})
		},
		"value": func() (Stmt, error) { return failing.Insert(things, loci.Row{nil, "a", "{}", 1}) },
	} {
		if _, err := st(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestScanRow(t *testing.T) {
	row, err := numbered.ScanRow(things, func(dest ...any) error {
		for i, v := range []any{7, "a", "{}", 2} {
			*dest[i].(*any) = v
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(row, loci.Row{7, "a", "{}", 2}) {
		t.Errorf("ScanRow = %v, %v", row, err)
	}
	if _, err := numbered.ScanRow(things, func(...any) error { return fmt.Errorf("closed") }); err == nil {
		t.Error("a failing scan: no error")
	}
}
