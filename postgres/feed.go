package postgres

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

// The change feed (migrations 0005 to 0007) is how each process keeps its
// in-memory search indexes (package index) exact while other processes,
// replicas on the same database, write:
//
//   - every insert, and every update of what an index keeps, stamps the row
//     with the 64-bit id of its transaction (change_xid);
//   - every delete, and every move of a record to another scope, leaves a
//     tombstone stamped the same way, naming the scope the record had.
//
// Transaction ids are assigned in order but commit in any order, so a
// reader cannot keep "the highest stamp it has seen". It keeps instead the
// snapshot it last read the feed in, as a loci.Cursor: its xmax (At: every
// transaction with an id below it had been assigned when the snapshot was
// taken) and the transactions still running then (Open). Everything
// stamped below At by a transaction not in Open had finished, so its
// effects were in that snapshot; every other change is stamped At or later,
// or by a transaction of Open. The next read, in one statement (one
// snapshot), fetches exactly those, through the (workspace, stamp)
// indexes: a range probe for At and later, and one equality probe per
// transaction of Open (an id of Open is below At by definition, so the two
// never overlap; each id of Open is probed on its own, behind an
// optimization fence, so that no plan, a cached generic one on stale
// statistics included, scans the workspace's older stamps to test each
// against Open), and moves the cursor to its own snapshot. Nothing is missed,
// whatever the order of commits; a change read twice is applied twice,
// harmlessly. A transaction left open for hours, in any database of the
// cluster (idle in transaction, prepared for two-phase commit), stays in
// Open and costs one index probe per table; it never makes a reader read
// again what it has read. The cost of a read with nothing new is a few
// index probes, and writers share no counter or row, so they are not
// serialized.
//
// A hot standby does not list the transactions running on the primary in
// its snapshots (it keeps them apart, unsorted), so there the cursor is the
// snapshot's xmin, with no Open: the next read fetches everything stamped
// since the oldest transaction still running, which is exact, and re-reads
// what such a transaction's age has let pile up.
//
// Tombstones are pruned (DeleteRecords) only when their transaction
// finished before a snapshot whose xmin was sampled over an hour earlier
// (record_feed_horizons), and the floor is raised to that xmin: a reader
// whose cursor's lowest stamp (Low) is below the floor took its snapshot
// before that sample, so it may have missed a pruned tombstone, and starts
// over (Reset). A reader that read within the hour never does, however old
// the transactions its snapshot saw running.
//
// A transaction that has written anything (it has a transaction id), or
// runs at a stricter isolation level than READ COMMITTED, does not read
// the feed: it would see its own uncommitted rows, or an older snapshot.
// Changes answers Dirty, and the caller indexes what it needs privately.

// Changes reports the workspace's record changes after the cursor since
// (one a previous call returned; nil: the current cursor only).
func (tx *Tx) Changes(ctx context.Context, workspace string, since *loci.Cursor) (*loci.ChangeSet, error) {
	if tx.wroteRecords {
		return &loci.ChangeSet{Dirty: true}, nil
	}
	var at, low int64
	open := []int64{}
	if since != nil {
		at, low, open = since.At, since.Low(), since.Open
		if open == nil {
			open = []int64{}
		}
	}
	rows, err := tx.tx.Query(ctx, `WITH s AS MATERIALIZED (
			SELECT pg_current_snapshot() AS snap, pg_is_in_recovery() AS standby,
				pg_current_xact_id_if_assigned() IS NULL
					AND current_setting('transaction_isolation') = 'read committed' AS ok,
				(SELECT floor FROM record_feed WHERE id = 1) AS floor,
				(CASE WHEN NOT $6 THEN 0
					WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() - '0/0'::pg_lsn
					ELSE pg_current_wal_insert_lsn() - '0/0'::pg_lsn END)::bigint AS lsn
		), c AS MATERIALIZED (
			SELECT ok, floor, lsn,
				(CASE WHEN standby THEN pg_snapshot_xmin(snap) ELSE pg_snapshot_xmax(snap) END)::text::bigint AS at,
				CASE WHEN standby THEN '{}'::bigint[]
					ELSE ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(snap) x ORDER BY 1) END AS open,
				ok AND $3 AND floor <= $5 AS read
			FROM s
		)
		SELECT 0, c.at, c.open, c.ok, c.floor, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, c.lsn::text
		FROM c
		UNION ALL
		SELECT 1, NULL, NULL, NULL, NULL, r.id, r.kind, r.agent_id, r.user_id, r.session_id, r.task_id
		FROM c, records r
		WHERE c.read AND r.workspace = $1 AND r.change_xid >= $2
		UNION ALL
		SELECT 1, NULL, NULL, NULL, NULL, r.id, r.kind, r.agent_id, r.user_id, r.session_id, r.task_id
		FROM c, unnest((SELECT $4::bigint[])) AS o(xid), LATERAL (
			SELECT * FROM records r WHERE r.workspace = $1 AND r.change_xid = o.xid OFFSET 0) r
		WHERE c.read
		UNION ALL
		SELECT 2, NULL, NULL, NULL, NULL, t.id, t.kind, t.agent_id, t.user_id, t.session_id, t.task_id
		FROM c, record_tombstones t
		WHERE c.read AND t.workspace = $1 AND t.xid >= $2
		UNION ALL
		SELECT 2, NULL, NULL, NULL, NULL, t.id, t.kind, t.agent_id, t.user_id, t.session_id, t.task_id
		FROM c, unnest((SELECT $4::bigint[])) AS o(xid), LATERAL (
			SELECT * FROM record_tombstones t WHERE t.workspace = $1 AND t.xid = o.xid OFFSET 0) t
		WHERE c.read`,
		workspace, at, since != nil, open, low, tx.db.replicas != nil)
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	defer rows.Close()
	cs := &loci.ChangeSet{}
	ok := false
	var floor int64
	for rows.Next() {
		var (
			tag                            int32
			h, fl                          *int64
			xip                            []int64
			okv                            *bool
			id, kind, agent, user, session *string
			task                           *string
		)
		if err := rows.Scan(&tag, &h, &xip, &okv, &fl, &id, &kind, &agent, &user, &session, &task); err != nil {
			return nil, fmt.Errorf("read changes: %w", err)
		}
		if tag == 0 {
			// The row's last column is the server's log position (the
			// primary's insert position, a standby's replay position), when
			// reads may go to standbys: no cursor it returns is used on a
			// server that has replayed less (replicas.go).
			if task != nil {
				fmt.Sscan(*task, &tx.feedLSN)
			}
			cs.Cursor, ok, floor = loci.Cursor{At: *h, Open: xip}, *okv, *fl
			if len(cs.Cursor.Open) == 0 {
				cs.Cursor.Open = nil
			}
			continue
		}
		ch := loci.Change{ID: *id, Kind: loci.Kind(*kind), Scope: loci.Scope{AgentID: *agent, UserID: *user, SessionID: *session, TaskID: *task}}
		if tag == 1 {
			cs.Changed = append(cs.Changed, ch)
		} else {
			cs.Removed = append(cs.Removed, ch)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	if !ok {
		return &loci.ChangeSet{Dirty: true}, nil
	}
	if since != nil && floor > low {
		cs.Reset, cs.Changed, cs.Removed = true, nil, nil
	}
	return cs, nil
}
