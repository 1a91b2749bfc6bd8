package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
)

// Reads from hot standbys (WithReadReplicas). Read-only transactions
// (View, Snapshot) go to a standby, writes always to the primary. A read
// goes to a standby only when the standby has replayed the primary's
// write-ahead log up to the position it needs, else to the primary:
//
//   - the position of the client's last write: after each write the store
//     notes the primary's WAL insert position under the client's key (the
//     request's API key, "" for requests without one), so a client's read
//     after its own write never misses it (read-your-writes);
//   - the position of the latest read of the change feed, in any
//     transaction: a feed cursor read on one server is exact on another
//     only once that server has replayed what the first one had (feed.go).
//
// A poller samples each standby's replay position (and the primary's
// insert position) every ReplicaPoll. A read that needs more than a
// standby was last seen to have replayed waits there, up to ReplayWait, in
// the round trip of its BEGIN (waitReplay), then goes to the primary. A standby that does not answer, is no
// longer in recovery, or has not caught up with where the primary was
// MaxLag ago is skipped until it has. A read that fails on a standby for
// want of it (a connection lost, a conflict with recovery) runs again on
// the primary.

// ReplicaPoll is how often each standby's replay position is sampled.
const ReplicaPoll = 50 * time.Millisecond

// DefaultMaxLag is how far behind the primary a standby may be before
// reads skip it.
const DefaultMaxLag = 5 * time.Second

// WithReadReplicas has read-only transactions go to these hot standbys of
// the primary (postgres:// URLs or key=value strings), within the rules
// above. A replica DSN without a search_path gets the primary's.
func WithReadReplicas(dsns ...string) Option {
	return func(o *options) { o.replicas = append(o.replicas, dsns...) }
}

// WithMaxLag bounds how far behind the primary a standby may be (in time:
// it must have replayed what the primary had written d ago) for reads
// to go to it; DefaultMaxLag without it.
func WithMaxLag(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.maxLag = d
		}
	}
}

// replica is one hot standby.
type replica struct {
	name string
	pool *pgxpool.Pool
	// replayed is the last replay position sampled.
	replayed atomic.Uint64
	// usable: it answered the last sample, in recovery and not lagging.
	usable atomic.Bool
	// reads counts the read transactions it served.
	reads atomic.Int64
}

// replicaSet is the store's standbys and what routing needs.
type replicaSet struct {
	list   []*replica
	maxLag time.Duration
	next   atomic.Uint64
	// feed is the highest position of a change-feed read.
	feed atomic.Uint64
	// primaryReads counts the read transactions the primary served.
	primaryReads atomic.Int64
	mu           sync.Mutex
	// writes is the position after each client's last write.
	writes map[string]uint64
	stop   chan struct{}
	done   sync.WaitGroup
	// samples are the primary's recent insert positions (the poller's
	// alone).
	samples []lagSample
}

// openReplicas opens a pool per standby, configured as the primary's
// (cfg, already adjusted by OpenConfig), and starts the poller.
func (db *DB) openReplicas(cfg *pgxpool.Config, o options) error {
	if len(o.replicas) == 0 {
		return nil
	}
	rs := &replicaSet{maxLag: o.maxLag, writes: map[string]uint64{}, stop: make(chan struct{})}
	if rs.maxLag <= 0 {
		rs.maxLag = DefaultMaxLag
	}
	for _, dsn := range o.replicas {
		rcfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			rs.close()
			return loci.Errorf(loci.EINVALID, "invalid PostgreSQL DSN of a read replica: %v", err)
		}
		if _, ok := rcfg.ConnConfig.RuntimeParams["search_path"]; !ok && db.setPath == "" {
			if p, ok := cfg.ConnConfig.RuntimeParams["search_path"]; ok {
				rcfg.ConnConfig.RuntimeParams["search_path"] = p
			}
		}
		if db.pooled {
			// Through a pooler too: the primary's statements, no search_path
			// at connection time (txOptions sets the primary's in each).
			rcfg.ConnConfig.DefaultQueryExecMode = cfg.ConnConfig.DefaultQueryExecMode
			delete(rcfg.ConnConfig.RuntimeParams, "search_path")
		}
		if rcfg.ConnConfig.ConnectTimeout == 0 {
			rcfg.ConnConfig.ConnectTimeout = db.timeout
		}
		rcfg.ConnConfig.DialFunc = cfg.ConnConfig.DialFunc
		pool, err := pgxpool.NewWithConfig(context.Background(), rcfg)
		if err != nil {
			rs.close()
			return fmt.Errorf("read replica: %w", err)
		}
		rs.list = append(rs.list, &replica{name: net.JoinHostPort(rcfg.ConnConfig.Host, fmt.Sprint(rcfg.ConnConfig.Port)), pool: pool})
	}
	// Every read needs at least what opening wrote (the schema and its
	// migrations): a standby that has not replayed them yet would answer
	// with a schema older than this build's, or none.
	var opened uint64
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	err := db.pool.QueryRow(ctx, `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&opened)
	cancel()
	if err != nil {
		rs.close()
		return fmt.Errorf("read replicas: the primary's position: %w", err)
	}
	rs.noteFeed(opened)
	db.replicas = rs
	db.poll(context.Background())
	rs.done.Add(1)
	go func() {
		defer rs.done.Done()
		t := time.NewTicker(ReplicaPoll)
		defer t.Stop()
		for {
			select {
			case <-rs.stop:
				return
			case <-t.C:
				db.poll(context.Background())
			}
		}
	}()
	return nil
}

func (rs *replicaSet) close() {
	if rs.stop != nil {
		select {
		case <-rs.stop:
		default:
			close(rs.stop)
		}
	}
	rs.done.Wait()
	for _, r := range rs.list {
		r.pool.Close()
	}
}

// lagSample is the primary's insert position at a time.
type lagSample struct {
	at  time.Time
	lsn uint64
}

// poll samples the primary's insert position and each standby's replay
// position, and marks each standby usable or not.
func (db *DB) poll(ctx context.Context) {
	rs := db.replicas
	ctx, cancel := context.WithTimeout(ctx, min(db.timeout, time.Second))
	defer cancel()
	now := time.Now()
	var primary uint64
	primaryOK := db.pool.QueryRow(ctx, `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&primary) == nil
	samples := rs.samples
	if primaryOK {
		samples = append(samples, lagSample{now, primary})
	}
	// The position the primary had MaxLag ago: the newest sample at least
	// that old (older ones are no longer needed).
	var bound uint64
	for len(samples) > 1 && now.Sub(samples[1].at) >= rs.maxLag {
		samples = samples[1:]
	}
	if len(samples) > 0 && now.Sub(samples[0].at) >= rs.maxLag {
		bound = samples[0].lsn
	}
	rs.samples = samples
	for _, r := range rs.list {
		var recovery bool
		var replayed *uint64
		err := r.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&recovery, &replayed)
		if err != nil || !recovery || replayed == nil {
			r.usable.Store(false)
			continue
		}
		r.noteReplayed(*replayed)
		r.usable.Store(*replayed >= bound)
	}
}

// clientKey names the client of ctx for read-your-writes: its API key.
func clientKey(ctx context.Context) string {
	if p := loci.PrincipalFrom(ctx); p != nil {
		return p.KeyID
	}
	return ""
}

// noteWrite records the primary's position after a client's write.
func (rs *replicaSet) noteWrite(ctx context.Context, lsn uint64) {
	key := clientKey(ctx)
	rs.mu.Lock()
	if lsn > rs.writes[key] {
		rs.writes[key] = lsn
	}
	rs.mu.Unlock()
}

// noteFeed records the position of a change-feed read.
func (rs *replicaSet) noteFeed(lsn uint64) {
	for {
		cur := rs.feed.Load()
		if lsn <= cur || rs.feed.CompareAndSwap(cur, lsn) {
			return
		}
	}
}

// pick returns a standby that may serve a read of ctx's client, nil for
// the primary, and the position the read needs.
func (rs *replicaSet) pick(ctx context.Context) (*replica, uint64) {
	rs.mu.Lock()
	need := rs.writes[clientKey(ctx)]
	rs.mu.Unlock()
	need = max(need, rs.feed.Load())
	n := len(rs.list)
	start := int(rs.next.Add(1))
	var behind *replica
	for i := range n {
		r := rs.list[(start+i)%n]
		if !r.usable.Load() {
			continue
		}
		if r.replayed.Load() >= need {
			return r, need
		}
		if behind == nil || r.replayed.Load() > behind.replayed.Load() {
			behind = r
		}
	}
	return behind, need
}

// ReplayWait is the longest a read waits on a standby for it to replay
// what the read needs, before it goes to the primary instead.
const ReplayWait = 20 * time.Millisecond

// errBehind is the message of the error a standby answers when it has not
// replayed what a read needs within ReplayWait.
const errBehind = "loci: the standby has not replayed what this read needs"

// waitReplay is the statement that, run first in a READ COMMITTED
// transaction on a standby (in BEGIN's round trip), waits up to
// ReplayWait for the standby to replay up to lsn, and fails otherwise.
// Each later statement takes a new snapshot, so the transaction then
// sees all that lsn covers.
func waitReplay(lsn uint64) string {
	pos := fmt.Sprintf("'%X/%X'::pg_lsn", lsn>>32, uint32(lsn))
	return fmt.Sprintf(`DO $wait$ BEGIN
		FOR i IN 1..%d LOOP
			EXIT WHEN pg_last_wal_replay_lsn() >= %s;
			PERFORM pg_sleep(0.0002);
		END LOOP;
		IF NOT pg_last_wal_replay_lsn() >= %s THEN RAISE EXCEPTION '%s'; END IF;
	END $wait$`, ReplayWait/(200*time.Microsecond), pos, pos, errBehind)
}

// read runs a read-only transaction on a standby that may serve it, else
// on the primary; one that fails on a standby for want of the standby
// runs again on the primary.
func (db *DB) read(ctx context.Context, opts pgx.TxOptions, fn func(loci.Tx) error) error {
	rs := db.replicas
	if rs == nil {
		return db.run(ctx, db.pool, opts, fn)
	}
	r, need := rs.pick(ctx)
	if r != nil && r.replayed.Load() < need && opts.IsoLevel == pgx.RepeatableRead {
		// A snapshot is taken at the first statement: the wait would
		// take it before the standby has replayed.
		r = nil
	}
	if r != nil {
		var then []string
		if r.replayed.Load() < need {
			then = append(then, waitReplay(need))
		}
		err := db.run(ctx, r.pool, opts, fn, then...)
		if err == nil {
			r.reads.Add(1)
			if len(then) > 0 {
				r.noteReplayed(need)
			}
			return nil
		}
		if ctx.Err() != nil || !standbyFailure(err) {
			return err
		}
		if loci.ErrorCode(err) == loci.EUNAVAILABLE {
			r.usable.Store(false)
		}
	}
	rs.primaryReads.Add(1)
	return db.run(ctx, db.pool, opts, fn)
}

// noteReplayed records that the standby has replayed up to lsn.
func (r *replica) noteReplayed(lsn uint64) {
	for {
		cur := r.replayed.Load()
		if lsn <= cur || r.replayed.CompareAndSwap(cur, lsn) {
			return
		}
	}
}

// standbyFailure reports whether a read failed for the standby's sake:
// it is unreachable, or cancelled a query in conflict with recovery.
func standbyFailure(err error) bool {
	if loci.ErrorCode(err) == loci.EUNAVAILABLE {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "57014" || pgErr.Message == errBehind)
}

// Servers names the servers ReadsServed counts for: "primary", then each
// standby as "standby HOST:PORT"; nil without standbys.
func (db *DB) Servers() []string {
	if db.replicas == nil {
		return nil
	}
	names := []string{"primary"}
	for _, r := range db.replicas.list {
		names = append(names, "standby "+r.name)
	}
	return names
}

// ReadsServed reports how many read-only transactions the primary and
// each standby (in WithReadReplicas' order) served; nil without standbys.
func (db *DB) ReadsServed() (primary int64, standbys []int64) {
	if db.replicas == nil {
		return 0, nil
	}
	for _, r := range db.replicas.list {
		standbys = append(standbys, r.reads.Load())
	}
	return db.replicas.primaryReads.Load(), standbys
}
