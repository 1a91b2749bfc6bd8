package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
)

// microsPerDay is one day in created_at's unit.
const microsPerDay = int64(24 * time.Hour / time.Microsecond)

// ListUserSummaries returns the users the workspace knows, newest first:
// the users table and the user ids of its records, grouped in SQL over
// the records_user index.
func (tx *Tx) ListUserSummaries(ctx context.Context, f loci.UserFilter) ([]*loci.UserSummary, int, error) {
	// matching narrows a column to ids holding f.Match, ignoring (ASCII)
	// case.
	var args []any
	matching := func(col string) string {
		args = append(args, f.Workspace)
		if f.Match == "" {
			return ""
		}
		args = append(args, f.Match)
		return " AND instr(lower(" + col + "), lower(?)) > 0"
	}
	known := `SELECT user_id AS id, min(created_at) AS c, max(updated_at) AS m, count(*) AS n
			FROM records WHERE workspace = ? AND user_id <> ''` + matching("user_id") + ` GROUP BY user_id
		UNION ALL
		SELECT id, created_at, updated_at, 0 FROM users WHERE workspace = ?` + matching("id")
	q := `SELECT id, min(c), max(m), sum(n), count(*) OVER () FROM (` + known + `)
		GROUP BY id ORDER BY min(c) DESC, id` + limitClause(f.Limit, f.Offset)
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list user summaries: %w", err)
	}
	defer rows.Close()
	out := []*loci.UserSummary{}
	total := -1
	for rows.Next() {
		var u loci.UserSummary
		var created, updated int64
		if err := rows.Scan(&u.UserID, &created, &updated, &u.Memories, &total); err != nil {
			return nil, 0, fmt.Errorf("scan user summary: %w", err)
		}
		u.CreatedAt, u.UpdatedAt = fromMicros(created), fromMicros(updated)
		out = append(out, &u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list user summaries: %w", err)
	}
	if total < 0 {
		// No row carried the total (none, or an offset past the end).
		if err := tx.queryRow(ctx, `SELECT count(*) FROM (SELECT DISTINCT id FROM (`+known+`))`, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count users: %w", err)
		}
	}
	return out, total, nil
}

// CountRecordsBy counts the records that match f per group, in SQL.
func (tx *Tx) CountRecordsBy(ctx context.Context, f loci.RecordFilter, by loci.Grouping, limit int) ([]loci.GroupCount, int, error) {
	where, args := whereClause(f, "")
	var group string
	switch by {
	case loci.GroupKind:
		group = "kind"
	case loci.GroupAgent:
		group, where = "agent_id", where+" AND agent_id <> ''"
		if f.UserID != nil {
			// "+" keeps the planner on the user's index rather than
			// reading the whole workspace in agent order.
			group = "+agent_id"
		}
	case loci.GroupUser:
		group, where = "user_id", where+" AND user_id <> ''"
		if f.AgentID != nil {
			group = "+user_id" // as above, on the agent's index
		}
	case loci.GroupDay:
		group = "created_at / " + strconv.FormatInt(microsPerDay, 10)
	default:
		return nil, 0, fmt.Errorf("count records: unknown grouping %d", by)
	}
	q := `SELECT ` + group + ` AS g, count(*) AS n, count(*) OVER () FROM records WHERE ` + where +
		` GROUP BY g ORDER BY n DESC, g` + limitClause(limit, 0)
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("count records by group: %w", err)
	}
	defer rows.Close()
	out := []loci.GroupCount{}
	total := 0
	for rows.Next() {
		var g loci.GroupCount
		var value any
		if err := rows.Scan(&value, &g.Count, &total); err != nil {
			return nil, 0, fmt.Errorf("scan group count: %w", err)
		}
		switch v := value.(type) {
		case int64:
			g.Value = time.UnixMicro(v * microsPerDay).UTC().Format(time.DateOnly)
		case string:
			g.Value = v
		case []byte:
			g.Value = string(v)
		default:
			return nil, 0, fmt.Errorf("scan group count: unexpected %T", value)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("count records by group: %w", err)
	}
	return out, total, nil
}

// FindAgents returns the agents f selects by id: the agents table and,
// with f.Known, every agent its records name that has no row there (an
// agent with only notes, working entries or episodes).
func (tx *Tx) FindAgents(ctx context.Context, f loci.AgentFilter) ([]*loci.Agent, int, error) {
	from := `agents WHERE workspace = ?1`
	if f.Known {
		from = `(SELECT id, name, created_at FROM agents WHERE workspace = ?1
		UNION ALL
		SELECT agent_id, '', min(created_at) FROM records WHERE workspace = ?1 AND agent_id <> ''
			AND agent_id NOT IN (SELECT id FROM agents WHERE workspace = ?1) GROUP BY agent_id)`
		if f.ID != "" {
			from += ` WHERE id = ?2`
		}
	} else if f.ID != "" {
		from += ` AND id = ?2`
	}
	args := []any{f.Workspace}
	if f.ID != "" {
		args = append(args, f.ID)
	}
	rows, err := tx.query(ctx, `SELECT id, name, created_at FROM `+from+` ORDER BY id`+
		limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: f.Workspace}
		var at int64
		if err := rows.Scan(&a.ID, &a.Name, &at); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = fromMicros(at)
		out = append(out, &a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	total := len(out)
	if f.Limit > 0 || f.Offset > 0 {
		if err := tx.queryRow(ctx, `SELECT count(*) FROM `+from, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count agents: %w", err)
		}
	}
	return out, total, nil
}
