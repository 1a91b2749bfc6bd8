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
	Holds:   func(c loci.Column, param string) string { return "instr(" + c.Name + ", " + param + ") > 0" },
}

// runner runs the plain tables' statements (sqltable.Rows) in a
// transaction, prepared as every other statement (stmts.go).
type runner struct{ tx *Tx }

func (r runner) Exec(ctx context.Context, st sqltable.Stmt) (int, error) {
	res, err := r.tx.exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, translate(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

func (r runner) Query(ctx context.Context, st sqltable.Stmt, row func(scan func(dest ...any) error) error) error {
	rows, err := r.tx.query(ctx, st.SQL, st.Args...)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return translate(rows.Err())
}

// encodeColumn turns a value of column type t into SQLite's.
func encodeColumn(t loci.ColumnType, v any) (any, error) {
	switch t {
	case loci.ColText, loci.ColInt, loci.ColSerial, loci.ColBool:
		return sqltable.Same(t, v) // as they are, without boxing them again
	case loci.ColTime, loci.ColNullTime:
		at, err := sqltable.As[time.Time](v)
		if err != nil || (t == loci.ColNullTime && at.IsZero()) {
			return nil, err
		}
		return micros(at), nil
	case loci.ColJSON, loci.ColNullJSON:
		raw, err := sqltable.As[json.RawMessage](v)
		if err != nil || t == loci.ColJSON {
			return jsonText(raw), err
		}
		return nullJSON(raw), nil
	case loci.ColStrings:
		list, err := sqltable.As[[]string](v)
		if err != nil {
			return nil, err
		}
		text, err := json.Marshal(nonNil(list))
		return string(text), err
	}
	return nil, fmt.Errorf("unknown column type %d", t)
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
