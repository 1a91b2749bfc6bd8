package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/loci-memory/loci"
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
	// sqlVectorsByID reads the vectors of records by id (ReadVectors).
	sqlVectorsByID = `SELECT id, embedding_model, embedding FROM records WHERE id IN (SELECT value FROM json_each(?)) AND +workspace = ?`
)

// requestStatements returns the statements of the plain-table queries
// every request runs (loci.RequestQueries).
func requestStatements() []string {
	var out []string
	for _, q := range loci.RequestQueries() {
		st, err := dialect.Select(q)
		if err != nil {
			panic(err) // loci's own queries: a bug
		}
		out = append(out, st.SQL)
	}
	return out
}

// readStatements run in read transactions (and in write ones);
// writeStatements in write transactions only.
var (
	readStatements  = append([]string{sqlReadGen, sqlRecordsByID, sqlVectorsByID}, requestStatements()...)
	writeStatements = []string{sqlStamp}
)

// stmtSet is the statements prepared on one pool, by text: those of
// readStatements and writeStatements, prepared at open, and the other
// statements transactions run (the queries built from a filter's shape),
// prepared when first run and kept up to maxCachedStmts.
type stmtSet struct {
	pool *sql.DB
	mu   sync.RWMutex
	byQ  map[string]*sql.Stmt
}

// maxCachedStmts bounds the statements a pool keeps prepared. A filter's
// shape gives its query's text; the shapes the services use are a few
// dozen, and a query past the bound (an IN list of a new length, say) is
// prepared where it runs, as any statement would be.
const maxCachedStmts = 256

func newStmtSet(pool *sql.DB) *stmtSet {
	return &stmtSet{pool: pool, byQ: map[string]*sql.Stmt{}}
}

// prepare prepares texts on the pool (whose connections must be free:
// the writer has one).
func (set *stmtSet) prepare(ctx context.Context, texts ...string) error {
	for _, q := range texts {
		if set.lookup(q) != nil || set.full() {
			continue
		}
		st, err := set.pool.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		set.mu.Lock()
		if prev := set.byQ[q]; prev != nil {
			st.Close()
		} else {
			set.byQ[q] = st
		}
		set.mu.Unlock()
	}
	return nil
}

func (set *stmtSet) lookup(q string) *sql.Stmt {
	set.mu.RLock()
	defer set.mu.RUnlock()
	return set.byQ[q]
}

func (set *stmtSet) full() bool {
	set.mu.RLock()
	defer set.mu.RUnlock()
	return len(set.byQ) >= maxCachedStmts
}

func (set *stmtSet) close() {
	set.mu.Lock()
	defer set.mu.Unlock()
	for _, st := range set.byQ {
		st.Close()
	}
	set.byQ = map[string]*sql.Stmt{}
}

// prepareStatements prepares the statements of both pools.
func (db *DB) prepareStatements(ctx context.Context) error {
	db.writeStmts = newStmtSet(db.writer)
	if err := db.writeStmts.prepare(ctx, append(append([]string{}, readStatements...), writeStatements...)...); err != nil {
		return err
	}
	if db.reader == db.writer {
		db.readStmts = db.writeStmts
		return nil
	}
	db.readStmts = newStmtSet(db.reader)
	return db.readStmts.prepare(ctx, readStatements...)
}

// stmt returns the transaction's use of statement q prepared on its
// pool, or nil when q is not prepared there yet.
//
// A write transaction notes the statements it ran unprepared, and the
// store prepares them once the transaction has given the writer back
// (preparing on the pool needs a free connection): the writer is one
// connection, on which a statement once prepared stays, so the next
// transaction of the same shape runs it prepared. A reader transaction
// may run on a connection its pool's statement was not prepared on,
// where database/sql would prepare it again, so readers keep the
// statements prepared at open.
func (tx *Tx) stmt(ctx context.Context, q string) *sql.Stmt {
	set := tx.db.readStmts
	if tx.write {
		set = tx.db.writeStmts
	}
	if st := tx.bound[q]; st != nil {
		return st
	}
	st := set.lookup(q)
	if st == nil {
		if tx.write && !slices.Contains(tx.unprepared, q) && !set.full() {
			tx.unprepared = append(tx.unprepared, q)
		}
		return nil
	}
	// The transaction's use of st, kept for its next run of q (a batch
	// inserts with one statement); database/sql closes it with the
	// transaction.
	bound := tx.tx.StmtContext(ctx, st)
	if tx.bound == nil {
		tx.bound = map[string]*sql.Stmt{}
	}
	tx.bound[q] = bound
	return bound
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
