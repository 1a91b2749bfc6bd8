package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// An insert names only the columns whose value is not the column's
// default in the records table, and the defaults fill the rest. Most
// records leave most of the 30 columns at their default (a passage has no
// user, session, task, key, tags, metadata or vector), and every value
// bound costs the driver calls into SQLite (a string also a copy): with
// all 30 bound, binding was a fifth of an insert's time.

// always marks a column that an insert always names.
type always struct{}

// recordDefaults holds, for each column of insertColumns but the last
// (change_gen, always named), the value of recordArgs that stores what the
// column's default does (the records table of migration 0001 and the
// columns added since), or always.
var recordDefaults = [...]any{
	always{}, always{}, always{}, // id, workspace, kind
	"", "", "", "", // agent_id, user_id, session_id, task_id
	nil,                // key
	always{}, always{}, // content, search_text
	"{}", "[]", // data, tags
	"", "", "", // category, action_type, outcome
	float64(0), 0, // confidence, access_count
	nil,                // last_accessed_at
	always{}, always{}, // created_at, updated_at
	nil,     // expires_at
	1,       // version
	nil, "", // embedding, embedding_model
	nil, nil, // valid_at, invalid_at
	"",       // review
	nil,      // metadata
	always{}, // content_key
}

// insertColumns are the columns of recordArgs's values, then the change
// generation's.
var insertColumns = func() []string {
	cols := strings.Split(recordColumns, ",")
	for i, c := range cols {
		cols[i] = strings.TrimSpace(c)
	}
	return append(cols, "content_key", "change_gen")
}()

// insertTexts caches the INSERT statement of each set of named columns: a
// bit per column of insertColumns.
var insertTexts sync.Map // uint64 -> string

// sparseInsert drops from args (recordArgs's values, then the change
// generation) those that store their column's default, in place, and
// returns the INSERT statement of the columns left and their values.
func sparseInsert(args []any) (string, []any) {
	var named uint64
	kept := args[:0]
	for i, v := range args {
		if i < len(recordDefaults) && v == recordDefaults[i] {
			continue
		}
		named |= 1 << i
		kept = append(kept, v)
	}
	if q, ok := insertTexts.Load(named); ok {
		return q.(string), kept
	}
	var cols []string
	for i, c := range insertColumns {
		if named&(1<<i) != 0 {
			cols = append(cols, c)
		}
	}
	q := `INSERT INTO records (` + strings.Join(cols, ", ") + `) VALUES (?` + strings.Repeat(", ?", len(cols)-1) + `)`
	insertTexts.Store(named, q)
	return q, kept
}

// insertStmt returns insert statement q bound to the write transaction:
// prepared on the transaction when the writer has not prepared it yet (an
// insert of a shape not seen before), so that the rest of a batch reuses
// it, and prepared on the writer once the transaction has ended (stmts.go).
func (tx *Tx) insertStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := tx.stmt(ctx, q); st != nil {
		return st, nil
	}
	st, err := tx.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if tx.bound == nil {
		tx.bound = map[string]*sql.Stmt{}
	}
	tx.bound[q] = st
	return st, nil
}
