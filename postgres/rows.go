package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/sqltable"
)

// The plain tables (loci.Table) in PostgreSQL: times as timestamptz, JSON
// as json (sent and read as text), lists of strings as text[], no value as
// NULL.
var dialect = &sqltable.Dialect{
	Param:   param,
	Read:    read,
	Encode:  encodeColumn,
	Dest:    destColumn,
	Decode:  decodeColumn,
	NoLimit: nil, // LIMIT NULL: none
}

func param(n int, t loci.ColumnType) string {
	if t == loci.ColJSON || t == loci.ColNullJSON {
		return "$" + strconv.Itoa(n) + "::json"
	}
	return "$" + strconv.Itoa(n)
}

func read(c loci.Column) string {
	if c.Type == loci.ColJSON || c.Type == loci.ColNullJSON {
		return c.Name + "::text"
	}
	return c.Name
}

// InsertRow adds a row unless its key exists.
func (tx *Tx) InsertRow(ctx context.Context, t *loci.Table, row loci.Row) (bool, error) {
	st, err := dialect.Insert(t, row)
	if err != nil {
		return false, err
	}
	tag, err := tx.tx.Exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return false, translate(fmt.Errorf("insert into %s: %w", t.Name, err))
	}
	return tag.RowsAffected() > 0, nil
}

// FindRows calls fn with each row q selects.
func (tx *Tx) FindRows(ctx context.Context, q loci.RowQuery, fn func(loci.Row) error) error {
	st, err := dialect.Select(q)
	if err != nil {
		return err
	}
	rows, err := tx.tx.Query(ctx, st.SQL, st.Args...)
	if err != nil {
		return translate(fmt.Errorf("find %s: %w", q.Table.Name, err))
	}
	defer rows.Close()
	for rows.Next() {
		row, err := dialect.ScanRow(q.Table, rows.Scan)
		if err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return translate(fmt.Errorf("find %s: %w", q.Table.Name, err))
	}
	return nil
}

// CountRows counts the rows q selects.
func (tx *Tx) CountRows(ctx context.Context, q loci.RowQuery) (int, error) {
	st, err := dialect.Count(q)
	if err != nil {
		return 0, err
	}
	var n int
	if err := tx.tx.QueryRow(ctx, st.SQL, st.Args...).Scan(&n); err != nil {
		return 0, translate(fmt.Errorf("count %s: %w", q.Table.Name, err))
	}
	return n, nil
}

// UpdateRows sets columns of the rows q selects.
func (tx *Tx) UpdateRows(ctx context.Context, q loci.RowQuery, set []loci.Assign) (int, error) {
	st, err := dialect.Update(q, set)
	if err != nil {
		return 0, err
	}
	return tx.changeRows(ctx, "update", q.Table, st)
}

// DeleteRows deletes the rows q selects.
func (tx *Tx) DeleteRows(ctx context.Context, q loci.RowQuery) (int, error) {
	st, err := dialect.Delete(q)
	if err != nil {
		return 0, err
	}
	return tx.changeRows(ctx, "delete from", q.Table, st)
}

// changeRows runs an update or a delete and returns how many rows it
// changed.
func (tx *Tx) changeRows(ctx context.Context, verb string, t *loci.Table, st sqltable.Stmt) (int, error) {
	tag, err := tx.tx.Exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, translate(fmt.Errorf("%s %s: %w", verb, t.Name, err))
	}
	return int(tag.RowsAffected()), nil
}

// encodeColumn turns a value of column type t into pgx's argument.
func encodeColumn(t loci.ColumnType, v any) (any, error) {
	switch t {
	case loci.ColText:
		return as[string](v)
	case loci.ColInt, loci.ColSerial:
		return as[int](v)
	case loci.ColBool:
		return as[bool](v)
	case loci.ColTime, loci.ColNullTime:
		at, err := as[time.Time](v)
		if err != nil || (t == loci.ColNullTime && at.IsZero()) {
			return nil, err
		}
		return at, nil
	case loci.ColJSON, loci.ColNullJSON:
		raw, err := as[json.RawMessage](v)
		if err != nil || t == loci.ColJSON {
			return jsonText(raw), err
		}
		return nullJSON(raw), nil
	case loci.ColStrings:
		list, err := as[[]string](v)
		return nonNil(list), err
	}
	return nil, fmt.Errorf("unknown column type %d", t)
}

// as returns v as a T: a column's value must be its type's Go type.
func as[T any](v any) (T, error) {
	t, ok := v.(T)
	if !ok {
		return t, fmt.Errorf("a value of type %T where %T belongs", v, t)
	}
	return t, nil
}

// destColumn returns where to scan a column of type t.
func destColumn(t loci.ColumnType) any {
	switch t {
	case loci.ColText, loci.ColJSON:
		return new(string)
	case loci.ColBool:
		return new(bool)
	case loci.ColTime:
		return new(time.Time)
	case loci.ColNullTime:
		return new(*time.Time)
	case loci.ColNullJSON:
		return new(*string)
	case loci.ColStrings:
		return new([]string)
	}
	return new(int64) // ColInt, ColSerial
}

// decodeColumn turns what destColumn's destination holds into t's value.
func decodeColumn(t loci.ColumnType, dest any) (any, error) {
	switch t {
	case loci.ColText:
		return *dest.(*string), nil
	case loci.ColInt, loci.ColSerial:
		return int(*dest.(*int64)), nil
	case loci.ColBool:
		return *dest.(*bool), nil
	case loci.ColTime:
		return dest.(*time.Time).UTC(), nil
	case loci.ColNullTime:
		if at := *dest.(**time.Time); at != nil {
			return at.UTC(), nil
		}
		return time.Time{}, nil
	case loci.ColJSON:
		return json.RawMessage(*dest.(*string)), nil
	case loci.ColNullJSON:
		if s := *dest.(**string); s != nil && *s != "" {
			return json.RawMessage(*s), nil
		}
		return json.RawMessage(nil), nil
	case loci.ColStrings:
		return nonNil(*dest.(*[]string)), nil
	}
	return nil, fmt.Errorf("unknown column type %d", t)
}
