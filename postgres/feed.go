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
// xmin H of the snapshot it last read the feed in: every transaction with
// an id below H had finished when that snapshot was taken, so its effects
// were in it; every transaction that commits later, whenever it stamped,
// has an id >= H. The next read, in one statement (one snapshot), fetches
// the rows and tombstones stamped >= H and moves H to that snapshot's
// xmin. A transaction still running at one read is re-read at the next
// (its id is >= the new H), so nothing is missed, whatever the order of
// commits; a change read twice is applied twice, harmlessly. The cost of a
// read with nothing new is one index probe per table, and writers share no
// counter or row, so they are not serialized.
//
// A transaction that has written anything (it has a transaction id), or
// runs at a stricter isolation level than READ COMMITTED, does not read
// the feed: it would see its own uncommitted rows, or an older snapshot.
// Changes answers Dirty, and the caller indexes what it needs privately.

// Changes reports the workspace's record changes stamped at or after since
// (a snapshot xmin a previous call returned).
func (tx *Tx) Changes(ctx context.Context, workspace string, since int64) (*loci.ChangeSet, error) {
	if tx.wroteRecords {
		return &loci.ChangeSet{Dirty: true}, nil
	}
	rows, err := tx.tx.Query(ctx, `WITH s AS MATERIALIZED (
			SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS h,
				pg_current_xact_id_if_assigned() IS NULL
					AND current_setting('transaction_isolation') = 'read committed' AS ok,
				(SELECT floor FROM record_feed WHERE id = 1) AS floor
		)
		SELECT 0, s.h, s.ok, s.floor, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text
		FROM s
		UNION ALL
		SELECT 1, NULL, NULL, NULL, r.id, r.kind, r.agent_id, r.user_id, r.session_id, r.task_id
		FROM s, records r
		WHERE s.ok AND $3 AND s.floor <= $2 AND r.workspace = $1 AND r.change_xid >= $2
		UNION ALL
		SELECT 2, NULL, NULL, NULL, t.id, t.kind, t.agent_id, t.user_id, t.session_id, t.task_id
		FROM s, record_tombstones t
		WHERE s.ok AND $3 AND s.floor <= $2 AND t.workspace = $1 AND t.xid >= $2`,
		workspace, since, since != loci.NoCursor)
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
			okv                            *bool
			id, kind, agent, user, session *string
			task                           *string
		)
		if err := rows.Scan(&tag, &h, &okv, &fl, &id, &kind, &agent, &user, &session, &task); err != nil {
			return nil, fmt.Errorf("read changes: %w", err)
		}
		if tag == 0 {
			cs.Cursor, ok, floor = *h, *okv, *fl
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
	if since != loci.NoCursor && floor > since {
		cs.Reset, cs.Changed, cs.Removed = true, nil, nil
	}
	return cs, nil
}
