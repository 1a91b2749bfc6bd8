package postgres

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loci-memory/loci"
)

// DefaultTimeout is how long the database may take to answer by default
// (WithTimeout).
const DefaultTimeout = 5 * time.Second

// Option configures Open and OpenConfig.
type Option func(*options)

type options struct {
	timeout  time.Duration
	pooled   bool
	replicas []string
	maxLag   time.Duration
}

// WithTransactionPooling says that connections go through a transaction
// pooler (PgBouncer with pool_mode = transaction, a hosted pooler): each
// transaction may run on another server session. Nothing is then prepared
// by name (pgx's exec mode, unless the DSN chose another mode without
// named statements), the DSN's search_path is set in each transaction, and
// no session-level lock or setting is used. A DSN whose
// default_query_exec_mode is exec, simple_protocol or describe_exec says
// the same without this option.
func WithTransactionPooling() Option {
	return func(o *options) { o.pooled = true }
}

// WithTimeout bounds how long the database may take to answer: to accept a
// connection (connect_timeout, unless the DSN sets one), to free a pooled
// connection, and to send any part of a statement's answer (each read and
// write on a connection must make progress within it). Past it the
// transaction fails with EUNAVAILABLE and the connection is closed, so a
// network partition answers 503 within the bound instead of hanging.
// Default DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// deadlineConn is a connection to the server on which every read and every
// write must make progress within timeout. pgx's own deadlines (set when a
// context ends) are kept and win when earlier. A read waits for the
// server's answer, so a server that stops answering (a partition, a host
// that went away without closing) fails the read after timeout, where the
// operating system would wait for minutes. While a transaction whose
// context has a deadline runs on it (the retry policy's retry, which must
// end within its budget), no read or write waits past that deadline
// either, whatever context its statement was given.
type deadlineConn struct {
	net.Conn
	timeout time.Duration

	mu        sync.Mutex
	suspended bool      // migrations: may run long
	readDL    time.Time // pgx's deadlines; zero: none
	writeDL   time.Time
	txEnd     time.Time // the running transaction's deadline; zero: none
}

// bound returns the earliest of t, now+timeout and the transaction's
// deadline; c.mu is held.
func (c *deadlineConn) bound(t time.Time) time.Time {
	if c.suspended {
		return t
	}
	limit := time.Now().Add(c.timeout)
	if !c.txEnd.IsZero() && c.txEnd.Before(limit) {
		limit = c.txEnd
	}
	if t.IsZero() || limit.Before(t) {
		return limit
	}
	return t
}

// endBy bounds every read and write by end (zero: lifts the bound), for
// the transaction about to run on the connection.
func (c *deadlineConn) endBy(end time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.txEnd = end
	c.Conn.SetReadDeadline(c.bound(c.readDL))
	c.Conn.SetWriteDeadline(c.bound(c.writeDL))
}

func (c *deadlineConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	c.Conn.SetReadDeadline(c.bound(c.readDL))
	c.mu.Unlock()
	return c.Conn.Read(b)
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.Conn.SetWriteDeadline(c.bound(c.writeDL))
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *deadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDL, c.writeDL = t, t
	return c.Conn.SetDeadline(c.bound(t))
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDL = t
	return c.Conn.SetReadDeadline(c.bound(t))
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeDL = t
	return c.Conn.SetWriteDeadline(c.bound(t))
}

// suspend lifts the progress bound (true) or restores it (false).
func (c *deadlineConn) suspend(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.suspended = on
	c.Conn.SetReadDeadline(c.readDL)
	c.Conn.SetWriteDeadline(c.writeDL)
}

// deadlineConnOf returns the deadlineConn under a pgx connection's network
// connection (under TLS too), or nil.
func deadlineConnOf(c net.Conn) *deadlineConn {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	d, _ := c.(*deadlineConn)
	return d
}

// classify turns storage trouble into domain errors, once, where a
// transaction ends: a database that cannot be reached or stops answering
// (connection refused or reset, a timeout, the server shutting down or out
// of connections) is EUNAVAILABLE, transient when it failed before
// anything was sent (so the retry policy may try once more); a full disk
// is ESTORAGEFULL; a serialization failure or deadlock is transient.
// Domain errors and anything else pass unchanged. A context the caller
// canceled is not the storage's fault and passes unchanged too.
func (db *DB) classify(ctx context.Context, err error) error {
	if err == nil || loci.ErrorCode(err) != loci.EINTERNAL {
		return err
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "53100": // disk_full
			db.full.Failed()
			return loci.WrapError(err, loci.ESTORAGEFULL,
				"the database's disk is full: nothing was written; free space and retry")
		case pgErr.Code == "40001" || pgErr.Code == "40P01": // serialization_failure, deadlock_detected
			return loci.Transient(err)
		case !db.pooled && (pgErr.Code == "42P05" || pgErr.Code == "26000") && strings.Contains(pgErr.Message, "prepared statement"):
			// duplicate_prepared_statement, invalid_sql_statement_name: the
			// sessions change under loci's connections, as through a
			// transaction pooler.
			return fmt.Errorf("%w (is the database reached through a transaction pooler, such as PgBouncer with pool_mode = transaction? "+
				"say so with --db-pooler or default_query_exec_mode=exec in the DSN)", err)
		case strings.HasPrefix(pgErr.Code, "08"), // connection_exception
			pgErr.Code == "57014",                // query_canceled (statement_timeout)
			pgErr.Code == "55P03",                // lock_not_available (lock_timeout)
			pgErr.Code == "25P03",                // idle_in_transaction_session_timeout
			pgErr.Code == "53300",                // too_many_connections
			pgErr.Code == "53200",                // out_of_memory
			pgErr.Code == "25006",                // read_only_sql_transaction: a write reached a standby (a failover)
			strings.HasPrefix(pgErr.Code, "57P"): // admin_shutdown, crash_shutdown, cannot_connect_now
			return db.unavailable(err)
		}
		return err
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, pgconn.ErrConnClosed) {
		return db.unavailable(err)
	}
	return err
}

// unavailable is EUNAVAILABLE for err, transient when nothing reached the
// server (retrying cannot apply a write twice).
func (db *DB) unavailable(err error) error {
	e := loci.WrapError(err, loci.EUNAVAILABLE,
		"the database does not answer (within %s): retry later", db.timeout)
	if pgconn.SafeToRetry(err) {
		return loci.Transient(e)
	}
	return e
}

// fullError is Ping's report while writes fail for a full disk
// (diskfull.State.Full).
func (db *DB) fullError() error {
	if !db.full.Full() {
		return nil
	}
	return loci.Errorf(loci.ESTORAGEFULL, "the database's disk is full: writes fail until space is freed (reads work)")
}
