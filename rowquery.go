package loci

import (
	"context"
	"encoding/json"
	"time"
)

// A Table is one of the store's plain tables: agents, block links, users,
// API keys, the audit log and record versions (tables.go declares them).
// Records are stored by methods a backend writes for them (their indexes,
// change feed and embeddings are where a backend earns its keep); a plain
// table is stored through five generic methods of StoreTx (InsertRow,
// FindRows, CountRows, UpdateRows, DeleteRows), and the typed methods the
// rules call (InsertAgent, FindUsers, RevokeKey, FindAudit, ...) are
// derived from them once, on Tx. A backend knows no plain table by name:
// it maps each column type to its own and writes the statement a query
// describes.
type Table struct {
	Name    string
	Columns []Column
}

// Column is one column of a Table.
type Column struct {
	Name string
	Type ColumnType
}

// ColumnType is the type of a plain table's column, and so the Go type of
// its values in a Row (what InsertRow is given and FindRows answers) and
// in a Cond or an Assign.
type ColumnType int

// Column types, with the Go type of their values.
const (
	ColText     ColumnType = iota // string
	ColInt                        // int
	ColBool                       // bool
	ColTime                       // time.Time, kept to the microsecond, answered in UTC
	ColNullTime                   // time.Time; the zero time is stored as NULL and answered as zero
	ColJSON                       // json.RawMessage: a JSON value; empty is stored as {}
	ColNullJSON                   // json.RawMessage; empty is stored as NULL and answered as nil
	ColStrings                    // []string; nil is stored as an empty list and answered as one
	ColSerial                     // int: numbered by the store on insert, in insertion order
)

// Row is one row of a plain table: a value per column, in the table's
// column order, each of its column type's Go type.
type Row []any

// Cmp compares a column with a value in a Cond.
type Cmp string

// Comparisons. CmpNull ignores the value. CmpHolds selects the rows whose
// column, as text (a JSON column's text), holds the value, a string, as a
// substring (case sensitive; a NULL holds nothing).
const (
	CmpEq    Cmp = "="
	CmpLt    Cmp = "<"
	CmpLe    Cmp = "<="
	CmpGe    Cmp = ">="
	CmpGt    Cmp = ">"
	CmpNull  Cmp = "IS NULL"
	CmpHolds Cmp = "HOLDS"
)

// Cond is one condition of a RowQuery: Column Cmp Value.
type Cond struct {
	Column string
	Cmp    Cmp
	Value  any
}

// Sort orders a RowQuery by a column.
type Sort struct {
	Column string
	Desc   bool
}

// Assign sets a column in UpdateRows.
type Assign struct {
	Column string
	Value  any
}

// RowQuery selects rows of a plain table: those where every condition of
// Where holds, in Order, at most Limit (0: no limit) after skipping
// Offset. A backend refuses a column its table does not have, or a
// comparison it does not know, with an internal error: queries are
// written by loci's code, not by its users.
type RowQuery struct {
	Table  *Table
	Where  []Cond
	Order  []Sort
	Limit  int
	Offset int
}

// Column returns the index of the table's column called name, or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// findRows returns the rows q selects, each decoded by decode.
func findRows[T any](ctx context.Context, tx StoreTx, q RowQuery, decode func(Row) T) ([]T, error) {
	var out []T
	err := tx.FindRows(ctx, q, func(r Row) error {
		out = append(out, decode(r))
		return nil
	})
	return out, err
}

// findCounted is findRows with how many rows q selects ignoring its limit
// and offset (counted only when they cut the answer short).
func findCounted[T any](ctx context.Context, tx StoreTx, q RowQuery, decode func(Row) T) ([]T, int, error) {
	out, err := findRows(ctx, tx, q, decode)
	if err != nil {
		return nil, 0, err
	}
	total := len(out)
	if q.Offset > 0 || (q.Limit > 0 && total == q.Limit) {
		if total, err = tx.CountRows(ctx, q); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// eqIf adds Column = v to where when v is not empty.
func eqIf(where []Cond, column, v string) []Cond {
	if v == "" {
		return where
	}
	return append(where, Cond{Column: column, Cmp: CmpEq, Value: v})
}

// Row accessors: a backend answers each column in its type's Go type
// (ColumnType), so a mismatch is a backend's bug and panics.

func (r Row) text(i int) string          { return r[i].(string) }
func (r Row) int(i int) int              { return r[i].(int) }
func (r Row) bool(i int) bool            { return r[i].(bool) }
func (r Row) time(i int) time.Time       { return r[i].(time.Time) }
func (r Row) json(i int) json.RawMessage { return r[i].(json.RawMessage) }
func (r Row) strings(i int) []string     { return r[i].([]string) }
