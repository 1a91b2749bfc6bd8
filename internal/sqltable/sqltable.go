// Package sqltable writes the SQL statements of loci's plain tables
// (loci.Table: agents, users, keys, the audit log, ...) once, for the SQL
// backends. A backend describes what differs in its SQL (a Dialect: its
// placeholders, the casts its driver needs and its column encodings), runs
// the statements on its own driver, and turns the scanned values back into
// a loci.Row with ScanRow.
//
// Table and column names come from loci's own table declarations, and
// every name a query uses is checked against its table, so no text from
// a request reaches a statement but as an argument.
package sqltable

import (
	"fmt"
	"strings"
	"sync"

	"github.com/loci-memory/loci"
)

// Dialect is what differs between the SQL backends' statements for plain
// tables.
type Dialect struct {
	// Param returns the placeholder of the nth argument (from 1), a value
	// of column type t ("?" for SQLite, "$n" or "$n::json" for PostgreSQL).
	Param func(n int, t loci.ColumnType) string
	// Read returns the expression a SELECT reads column c with (its name,
	// or a cast where the driver cannot scan the column's own type).
	Read func(c loci.Column) string
	// Encode turns a value of column type t into the driver's argument.
	Encode func(t loci.ColumnType, v any) (any, error)
	// Dest returns where to scan a column of type t; Decode turns what was
	// scanned there into the value of t's Go type (loci.ColumnType).
	Dest   func(t loci.ColumnType) any
	Decode func(t loci.ColumnType, dest any) (any, error)
	// NoLimit is the LIMIT argument that means no limit.
	NoLimit any
	// Holds returns the condition that column c's text holds the string
	// of placeholder param (loci.CmpHolds).
	Holds func(c loci.Column, param string) string
	// SkipConflict is the clause an INSERT ends with so that a row whose
	// key exists is skipped rather than failing the statement (" ON
	// CONFLICT DO NOTHING", as PostgreSQL needs: a failed statement fails
	// its transaction), or "" where a key conflict fails the statement
	// alone, with ECONFLICT, which Rows.InsertRow reads as not added
	// (SQLite: a plain INSERT is the cheaper statement there).
	SkipConflict string

	inserts sync.Map // *loci.Table: the text of its insert
}

// Stmt is one statement and its arguments.
type Stmt struct {
	SQL  string
	Args []any
}

// builder writes one statement, numbering its arguments.
type builder struct {
	d    *Dialect
	sql  strings.Builder
	args []any
}

// arg adds v, a value of column type t, and writes its placeholder.
func (b *builder) arg(t loci.ColumnType, v any) error {
	enc, err := b.d.Encode(t, v)
	if err != nil {
		return err
	}
	b.args = append(b.args, enc)
	b.sql.WriteString(b.d.Param(len(b.args), t))
	return nil
}

// sep returns what goes before the ith item of a list: first before the
// first, then between.
func sep(i int, first, between string) string {
	if i == 0 {
		return first
	}
	return between
}

// column returns t's column called name, or an error.
func column(t *loci.Table, name string) (loci.Column, error) {
	if i := t.Column(name); i >= 0 {
		return t.Columns[i], nil
	}
	return loci.Column{}, fmt.Errorf("table %s has no column %q", t.Name, name)
}

// where writes q's conditions.
func (b *builder) where(q loci.RowQuery) error {
	for i, c := range q.Where {
		col, err := column(q.Table, c.Column)
		if err != nil {
			return err
		}
		if c.Cmp == loci.CmpHolds {
			v, ok := c.Value.(string)
			if !ok {
				return fmt.Errorf("table %s, column %s: holds %T, not a string", q.Table.Name, col.Name, c.Value)
			}
			enc, err := b.d.Encode(loci.ColText, v)
			if err != nil {
				return err
			}
			b.args = append(b.args, enc)
			b.sql.WriteString(sep(i, " WHERE ", " AND ") + b.d.Holds(col, b.d.Param(len(b.args), loci.ColText)))
			continue
		}
		b.sql.WriteString(sep(i, " WHERE ", " AND ") + col.Name)
		switch c.Cmp {
		case loci.CmpNull:
			b.sql.WriteString(" IS NULL")
			continue
		case loci.CmpEq, loci.CmpLt, loci.CmpLe, loci.CmpGe, loci.CmpGt:
			b.sql.WriteString(" " + string(c.Cmp) + " ")
		default:
			return fmt.Errorf("table %s: unknown comparison %q", q.Table.Name, c.Cmp)
		}
		if err := b.arg(col.Type, c.Value); err != nil {
			return fmt.Errorf("table %s, column %s: %w", q.Table.Name, col.Name, err)
		}
	}
	return nil
}

// Insert writes the statement that adds row to t unless a row with the
// same key exists (then it changes no row, or its runner says so: see
// SkipConflict). A serial column is left to the store.
func (d *Dialect) Insert(t *loci.Table, row loci.Row) (Stmt, error) {
	if len(row) != len(t.Columns) {
		return Stmt{}, fmt.Errorf("table %s: a row of %d values for %d columns", t.Name, len(row), len(t.Columns))
	}
	args := make([]any, 0, len(row))
	for i, c := range t.Columns {
		if c.Type == loci.ColSerial {
			continue
		}
		v, err := d.Encode(c.Type, row[i])
		if err != nil {
			return Stmt{}, fmt.Errorf("table %s, column %s: %w", t.Name, c.Name, err)
		}
		args = append(args, v)
	}
	return Stmt{d.insertSQL(t), args}, nil
}

// insertSQL returns the text of t's insert, written once per table: the
// audit log takes one per operation.
func (d *Dialect) insertSQL(t *loci.Table) string {
	if q, ok := d.inserts.Load(t); ok {
		return q.(string)
	}
	var names, params []string
	for _, c := range t.Columns {
		if c.Type != loci.ColSerial {
			names = append(names, c.Name)
			params = append(params, d.Param(len(params)+1, c.Type))
		}
	}
	q := "INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")" +
		d.SkipConflict
	d.inserts.Store(t, q)
	return q
}

// Select writes the statement that reads the rows q selects, every column
// in the table's order (ScanRow reads them).
func (d *Dialect) Select(q loci.RowQuery) (Stmt, error) {
	b := builder{d: d}
	reads := make([]string, len(q.Table.Columns))
	for i, c := range q.Table.Columns {
		reads[i] = d.Read(c)
	}
	b.sql.WriteString("SELECT " + strings.Join(reads, ", ") + " FROM " + q.Table.Name)
	if err := b.where(q); err != nil {
		return Stmt{}, err
	}
	for i, s := range q.Order {
		if _, err := column(q.Table, s.Column); err != nil {
			return Stmt{}, err
		}
		b.sql.WriteString(sep(i, " ORDER BY ", ", ") + s.Column)
		if s.Desc {
			b.sql.WriteString(" DESC")
		}
	}
	if q.Limit > 0 || q.Offset > 0 {
		limit := d.NoLimit
		if q.Limit > 0 {
			limit = q.Limit
		}
		b.args = append(b.args, limit, max(q.Offset, 0))
		b.sql.WriteString(" LIMIT " + d.Param(len(b.args)-1, loci.ColInt) + " OFFSET " + d.Param(len(b.args), loci.ColInt))
	}
	return Stmt{b.sql.String(), b.args}, nil
}

// Count writes the statement that counts the rows q selects.
func (d *Dialect) Count(q loci.RowQuery) (Stmt, error) {
	b := builder{d: d}
	b.sql.WriteString("SELECT count(*) FROM " + q.Table.Name)
	err := b.where(q)
	return Stmt{b.sql.String(), b.args}, err
}

// Update writes the statement that sets the columns of set in the rows q
// selects.
func (d *Dialect) Update(q loci.RowQuery, set []loci.Assign) (Stmt, error) {
	if len(set) == 0 {
		return Stmt{}, fmt.Errorf("table %s: an update that sets nothing", q.Table.Name)
	}
	b := builder{d: d}
	b.sql.WriteString("UPDATE " + q.Table.Name + " SET ")
	for i, a := range set {
		col, err := column(q.Table, a.Column)
		if err != nil {
			return Stmt{}, err
		} else if col.Type == loci.ColSerial {
			return Stmt{}, fmt.Errorf("table %s: column %s is numbered by the store", q.Table.Name, col.Name)
		}
		if i > 0 {
			b.sql.WriteString(", ")
		}
		b.sql.WriteString(col.Name + " = ")
		if err := b.arg(col.Type, a.Value); err != nil {
			return Stmt{}, fmt.Errorf("table %s, column %s: %w", q.Table.Name, col.Name, err)
		}
	}
	err := b.where(q)
	return Stmt{b.sql.String(), b.args}, err
}

// Delete writes the statement that deletes the rows q selects.
func (d *Dialect) Delete(q loci.RowQuery) (Stmt, error) {
	b := builder{d: d}
	b.sql.WriteString("DELETE FROM " + q.Table.Name)
	err := b.where(q)
	return Stmt{b.sql.String(), b.args}, err
}

// ScanRow reads one row of t that a Select statement answered: scan is
// the driver's Scan of the current row.
func (d *Dialect) ScanRow(t *loci.Table, scan func(dest ...any) error) (loci.Row, error) {
	dests := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		dests[i] = d.Dest(c.Type)
	}
	if err := scan(dests...); err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	row := make(loci.Row, len(t.Columns))
	for i, c := range t.Columns {
		v, err := d.Decode(c.Type, dests[i])
		if err != nil {
			return nil, fmt.Errorf("scan %s, column %s: %w", t.Name, c.Name, err)
		}
		row[i] = v
	}
	return row, nil
}
