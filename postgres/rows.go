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
	Param:        param,
	Read:         read,
	Encode:       encodeColumn,
	Dest:         destColumn,
	Decode:       decodeColumn,
	NoLimit:      nil, // LIMIT NULL: none
	SkipConflict: " ON CONFLICT DO NOTHING",
	Holds:        func(c loci.Column, param string) string { return "strpos(" + read(c) + ", " + param + ") > 0" },
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

// runner runs the plain tables' statements (sqltable.Rows) in a
// transaction.
type runner struct{ tx *Tx }

func (r runner) Exec(ctx context.Context, st sqltable.Stmt) (int, error) {
	tag, err := r.tx.tx.Exec(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, translate(err)
	}
	return int(tag.RowsAffected()), nil
}

func (r runner) Query(ctx context.Context, st sqltable.Stmt, row func(scan func(dest ...any) error) error) error {
	rows, err := r.tx.tx.Query(ctx, st.SQL, st.Args...)
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

// encodeColumn turns a value of column type t into pgx's argument.
func encodeColumn(t loci.ColumnType, v any) (any, error) {
	switch t {
	case loci.ColText, loci.ColInt, loci.ColSerial, loci.ColBool:
		return sqltable.Same(t, v) // as they are, without boxing them again
	case loci.ColTime, loci.ColNullTime:
		at, err := sqltable.As[time.Time](v)
		if err != nil || (t == loci.ColNullTime && at.IsZero()) {
			return nil, err
		}
		return at, nil
	case loci.ColJSON, loci.ColNullJSON:
		raw, err := sqltable.As[json.RawMessage](v)
		if err != nil || t == loci.ColJSON {
			return jsonText(raw), err
		}
		return nullJSON(raw), nil
	case loci.ColStrings:
		list, err := sqltable.As[[]string](v)
		return nonNil(list), err
	}
	return nil, fmt.Errorf("unknown column type %d", t)
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
