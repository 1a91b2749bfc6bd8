package sqltable

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// Runner runs statements in a backend's transaction, its errors already
// translated into loci's (ECONFLICT for a key that exists, a full disk,
// ...).
type Runner interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, st Stmt) (int, error)
	// Query runs a statement and calls row with the Scan of each row it
	// answers, stopping at row's first error.
	Query(ctx context.Context, st Stmt, row func(scan func(dest ...any) error) error) error
}

// Rows is loci.StoreTx's five methods of the plain tables, written once
// for the SQL backends: a backend's transaction embeds it with its
// dialect and its runner.
type Rows struct {
	Dialect *Dialect
	Runner  Runner
}

// InsertRow adds row to t unless a row with the same key exists, and
// reports whether it added it.
func (r Rows) InsertRow(ctx context.Context, t *loci.Table, row loci.Row) (bool, error) {
	st, err := r.Dialect.Insert(t, row)
	if err != nil {
		return false, err
	}
	n, err := r.Runner.Exec(ctx, st)
	if loci.ErrorCode(err) == loci.ECONFLICT && r.Dialect.SkipConflict == "" {
		return false, nil // the key exists: the statement changed nothing
	} else if err != nil {
		return false, fmt.Errorf("insert into %s: %w", t.Name, err)
	}
	return n > 0, nil
}

// FindRows calls fn with each row q selects, in q.Order.
func (r Rows) FindRows(ctx context.Context, q loci.RowQuery, fn func(loci.Row) error) error {
	st, err := r.Dialect.Select(q)
	if err != nil {
		return err
	}
	err = r.Runner.Query(ctx, st, func(scan func(dest ...any) error) error {
		row, err := r.Dialect.ScanRow(q.Table, scan)
		if err != nil {
			return err
		}
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("find %s: %w", q.Table.Name, err)
	}
	return nil
}

// CountRows returns how many rows q selects.
func (r Rows) CountRows(ctx context.Context, q loci.RowQuery) (int, error) {
	st, err := r.Dialect.Count(q)
	if err != nil {
		return 0, err
	}
	var n int64
	err = r.Runner.Query(ctx, st, func(scan func(dest ...any) error) error { return scan(&n) })
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
	}
	return int(n), nil
}

// UpdateRows sets the columns of set in the rows q selects and returns
// how many it updated.
func (r Rows) UpdateRows(ctx context.Context, q loci.RowQuery, set []loci.Assign) (int, error) {
	st, err := r.Dialect.Update(q, set)
	if err != nil {
		return 0, err
	}
	n, err := r.Runner.Exec(ctx, st)
	if err != nil {
		return 0, fmt.Errorf("update %s: %w", q.Table.Name, err)
	}
	return n, nil
}

// DeleteRows deletes the rows q selects and returns how many it deleted.
func (r Rows) DeleteRows(ctx context.Context, q loci.RowQuery) (int, error) {
	st, err := r.Dialect.Delete(q)
	if err != nil {
		return 0, err
	}
	n, err := r.Runner.Exec(ctx, st)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", q.Table.Name, err)
	}
	return n, nil
}

// As returns v as a T, for a Dialect's Encode: a column's value must be
// its type's Go type (loci.ColumnType).
func As[T any](v any) (T, error) {
	t, ok := v.(T)
	if !ok {
		return t, fmt.Errorf("a value of type %T where %T belongs", v, t)
	}
	return t, nil
}

// Same returns v itself if it is a value of column type t, which must be
// ColText, ColInt, ColSerial or ColBool (the types drivers take as they
// are): a Dialect's Encode passes those on without boxing them again.
func Same(t loci.ColumnType, v any) (any, error) {
	var ok bool
	switch t {
	case loci.ColText:
		_, ok = v.(string)
	case loci.ColInt, loci.ColSerial:
		_, ok = v.(int)
	case loci.ColBool:
		_, ok = v.(bool)
	}
	if !ok {
		return nil, fmt.Errorf("a value of type %T where a column of type %d belongs", v, t)
	}
	return v, nil
}
