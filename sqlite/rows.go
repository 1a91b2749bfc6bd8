package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/sqltable"
)

// The plain tables (loci.Table) in SQLite: times as microseconds since the
// epoch, JSON and lists of strings as JSON text, no value as NULL.
var dialect = &sqltable.Dialect{
	Param:   func(int, loci.ColumnType) string { return "?" },
	Read:    func(c loci.Column) string { return c.Name },
	Encode:  encodeColumn,
	Dest:    destColumn,
	Decode:  decodeColumn,
	NoLimit: -1,
}

// InsertRow adds a row unless its key exists.
func (tx *Tx) InsertRow(ctx context.Context, t *loci.Table, row loci.Row) (bool, error) {
	st, err := dialect.Insert(t, row)
	if err != nil {
		return false, err
	}
	res, err := tx.exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return false, translate(fmt.Errorf("insert into %s: %w", t.Name, err))
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// FindRows calls fn with each row q selects.
func (tx *Tx) FindRows(ctx context.Context, q loci.RowQuery, fn func(loci.Row) error) error {
	st, err := dialect.Select(q)
	if err != nil {
		return err
	}
	rows, err := tx.query(ctx, st.SQL, st.Args...)
	if err != nil {
		return fmt.Errorf("find %s: %w", q.Table.Name, err)
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
		return fmt.Errorf("find %s: %w", q.Table.Name, err)
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
	if err := tx.queryRow(ctx, st.SQL, st.Args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", q.Table.Name, err)
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
	res, err := tx.exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, translate(fmt.Errorf("%s %s: %w", verb, t.Name, err))
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// encodeColumn turns a value of column type t into SQLite's.
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
		return micros(at), nil
	case loci.ColJSON, loci.ColNullJSON:
		raw, err := as[json.RawMessage](v)
		if err != nil || t == loci.ColJSON {
			return jsonText(raw), err
		}
		return nullJSON(raw), nil
	case loci.ColStrings:
		list, err := as[[]string](v)
		if err != nil {
			return nil, err
		}
		text, err := json.Marshal(nonNil(list))
		return string(text), err
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
	case loci.ColText, loci.ColJSON, loci.ColStrings:
		return new(string)
	case loci.ColBool:
		return new(bool)
	case loci.ColNullTime:
		return new(sql.NullInt64)
	case loci.ColNullJSON:
		return new(sql.NullString)
	}
	return new(int64) // ColInt, ColSerial, ColTime
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
		return fromMicros(*dest.(*int64)), nil
	case loci.ColNullTime:
		if n := dest.(*sql.NullInt64); n.Valid {
			return fromMicros(n.Int64), nil
		}
		return time.Time{}, nil
	case loci.ColJSON:
		return json.RawMessage(*dest.(*string)), nil
	case loci.ColNullJSON:
		if s := dest.(*sql.NullString); s.Valid && s.String != "" {
			return json.RawMessage(s.String), nil
		}
		return json.RawMessage(nil), nil
	case loci.ColStrings:
		list := []string{}
		if err := json.Unmarshal([]byte(*dest.(*string)), &list); err != nil {
			return nil, err
		}
		return list, nil
	}
	return nil, fmt.Errorf("unknown column type %d", t)
}
