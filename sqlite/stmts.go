package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// Preparing a statement costs SQLite (through modernc) about as much as
// running a small one, so the statements every search and every write run
// are prepared once per connection: on each pool when the store opens
// (when its connections are free: the writer has only one), and reused by
// every transaction through database/sql, which keeps a statement
// prepared on each connection it has run on. Other statements are
// prepared where they run.

// Statements prepared when the store opens; call sites use these texts.
const (
	sqlReadGen     = `SELECT gen, floor FROM search_generation WHERE id = 1`
	sqlStamp       = `UPDATE search_generation SET gen = gen + 1 WHERE id = 1 RETURNING gen`
	sqlRecordsByID = `SELECT ` + recordColumns + ` FROM records WHERE id IN (SELECT value FROM json_each(?)) AND +workspace = ?`
	sqlKeyByHash   = `SELECT ` + keyColumns + ` FROM api_keys WHERE hash = ?`
	sqlAllKeys     = `SELECT ` + keyColumns + ` FROM api_keys ORDER BY created_at, id`
	sqlInsertAudit = `INSERT INTO audit_log (id, at, key_id, role, operation, workspace,
		agent_id, user_id, session_id, task_id, kind, record_ids, count, status, via, dry_run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlInsertRecord = `INSERT INTO records (` + recordColumns + `, change_gen)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// readStatements run in read transactions (and in write ones);
// writeStatements in write transactions only.
var (
	readStatements  = []string{sqlReadGen, sqlRecordsByID, sqlKeyByHash, sqlAllKeys}
	writeStatements = []string{sqlStamp, sqlInsertAudit, sqlInsertRecord}
)

// stmtSet is the statements prepared on one pool, by text.
type stmtSet map[string]*sql.Stmt

// prepare prepares texts on pool into set.
func (set stmtSet) prepare(ctx context.Context, pool *sql.DB, texts ...string) error {
	for _, q := range texts {
		if set[q] != nil {
			continue
		}
		st, err := pool.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		set[q] = st
	}
	return nil
}

func (set stmtSet) close() {
	for _, st := range set {
		st.Close()
	}
}

// prepareStatements prepares the statements of both pools.
func (db *DB) prepareStatements(ctx context.Context) error {
	db.writeStmts, db.readStmts = stmtSet{}, stmtSet{}
	if err := db.writeStmts.prepare(ctx, db.writer, append(append([]string{}, readStatements...), writeStatements...)...); err != nil {
		return err
	}
	if db.reader == db.writer {
		db.readStmts = db.writeStmts
		return nil
	}
	return db.readStmts.prepare(ctx, db.reader, readStatements...)
}

// stmt returns the transaction's use of the prepared statement q, or nil
// when q is not prepared on the transaction's pool.
func (tx *Tx) stmt(ctx context.Context, q string) *sql.Stmt {
	set := tx.db.readStmts
	if tx.write {
		set = tx.db.writeStmts
	}
	st := set[q]
	if st == nil {
		return nil
	}
	return tx.tx.StmtContext(ctx, st)
}

// query runs a query in the transaction, prepared once if it is one of
// the statements prepared at open.
func (tx *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := tx.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, q, args...)
}

// queryRow is query for one row.
func (tx *Tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := tx.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, q, args...)
}

// exec runs a statement in the transaction.
func (tx *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := tx.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.tx.ExecContext(ctx, q, args...)
}
