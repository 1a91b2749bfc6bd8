package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loci-memory/loci"
)

// InsertAgent creates an agent.
func (tx *Tx) InsertAgent(ctx context.Context, a *loci.Agent) error {
	_, err := tx.exec(ctx, `INSERT INTO agents (workspace, id, name, created_at) VALUES (?, ?, ?, ?)`,
		a.Workspace, a.ID, a.Name, micros(a.CreatedAt))
	if err != nil {
		return translate(fmt.Errorf("insert agent: %w", err))
	}
	return nil
}

// GetAgent returns an agent.
func (tx *Tx) GetAgent(ctx context.Context, workspace, id string) (*loci.Agent, error) {
	a := loci.Agent{Workspace: workspace}
	var at int64
	err := tx.queryRow(ctx, `SELECT id, name, created_at FROM agents WHERE workspace = ? AND id = ?`,
		workspace, id).Scan(&a.ID, &a.Name, &at)
	if err == sql.ErrNoRows {
		return nil, loci.Errorf(loci.ENOTFOUND, "agent %s not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("get agent: %w", err)
	}
	a.CreatedAt = fromMicros(at)
	return &a, nil
}

// ListAgents returns the workspace's agents by id.
func (tx *Tx) ListAgents(ctx context.Context, workspace string, limit, offset int) ([]*loci.Agent, int, error) {
	var total int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM agents WHERE workspace = ?`, workspace).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count agents: %w", err)
	}
	rows, err := tx.query(ctx, `SELECT id, name, created_at FROM agents WHERE workspace = ? ORDER BY id`+
		limitClause(limit, offset), workspace)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: workspace}
		var at int64
		if err := rows.Scan(&a.ID, &a.Name, &at); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = fromMicros(at)
		out = append(out, &a)
	}
	return out, total, rows.Err()
}

// ListKnownAgents lists the agents table and the agents only records name.
func (tx *Tx) ListKnownAgents(ctx context.Context, workspace string, limit, offset int) ([]*loci.Agent, int, error) {
	// The agents table, and every agent its records name that has no row
	// there (an agent with only notes, working entries or episodes).
	known := `SELECT id, name, created_at FROM agents WHERE workspace = ?1
		UNION ALL
		SELECT agent_id, '', min(created_at) FROM records WHERE workspace = ?1 AND agent_id <> ''
			AND agent_id NOT IN (SELECT id FROM agents WHERE workspace = ?1) GROUP BY agent_id`
	var total int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM (`+known+`)`, workspace).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count agents: %w", err)
	}
	rows, err := tx.query(ctx, `SELECT id, name, created_at FROM (`+known+`) ORDER BY id`+
		limitClause(limit, offset), workspace)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: workspace}
		var at int64
		if err := rows.Scan(&a.ID, &a.Name, &at); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = fromMicros(at)
		out = append(out, &a)
	}
	return out, total, rows.Err()
}

// DeleteAgent deletes an agent and the links that attach blocks to it.
func (tx *Tx) DeleteAgent(ctx context.Context, workspace, id string) error {
	if _, err := tx.exec(ctx, `DELETE FROM block_links WHERE workspace = ? AND agent_id = ?`, workspace, id); err != nil {
		return fmt.Errorf("delete agent links: %w", err)
	}
	res, err := tx.exec(ctx, `DELETE FROM agents WHERE workspace = ? AND id = ?`, workspace, id)
	if err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loci.Errorf(loci.ENOTFOUND, "agent %s not found", id)
	}
	return nil
}

// AttachBlock links a shared block to an agent; a second attach is a no-op.
func (tx *Tx) AttachBlock(ctx context.Context, workspace, blockID, agentID string, at time.Time) error {
	_, err := tx.exec(ctx, `INSERT INTO block_links (workspace, block_id, agent_id, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (block_id, agent_id) DO NOTHING`, workspace, blockID, agentID, micros(at))
	if err != nil {
		return translate(fmt.Errorf("attach block: %w", err))
	}
	return nil
}

// DetachBlock removes a link.
func (tx *Tx) DetachBlock(ctx context.Context, workspace, blockID, agentID string) (bool, error) {
	res, err := tx.exec(ctx, `DELETE FROM block_links WHERE workspace = ? AND block_id = ? AND agent_id = ?`,
		workspace, blockID, agentID)
	if err != nil {
		return false, fmt.Errorf("detach block: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ListBlockLinks returns the links of a block or of an agent.
func (tx *Tx) ListBlockLinks(ctx context.Context, workspace, blockID, agentID string) ([]loci.BlockLink, error) {
	q := `SELECT block_id, agent_id, created_at FROM block_links WHERE workspace = ?`
	args := []any{workspace}
	if blockID != "" {
		q += ` AND block_id = ?`
		args = append(args, blockID)
	}
	if agentID != "" {
		q += ` AND agent_id = ?`
		args = append(args, agentID)
	}
	rows, err := tx.query(ctx, q+` ORDER BY created_at, block_id, agent_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list block links: %w", err)
	}
	defer rows.Close()
	var out []loci.BlockLink
	for rows.Next() {
		var l loci.BlockLink
		var at int64
		if err := rows.Scan(&l.BlockID, &l.AgentID, &at); err != nil {
			return nil, fmt.Errorf("scan block link: %w", err)
		}
		l.CreatedAt = fromMicros(at)
		out = append(out, l)
	}
	return out, rows.Err()
}

// EnsureUser creates the user with empty defaults unless it exists.
func (tx *Tx) EnsureUser(ctx context.Context, workspace, id string, at time.Time) (*loci.User, bool, error) {
	res, err := tx.exec(ctx, `INSERT INTO users (workspace, id, defaults, created_at, updated_at)
		VALUES (?, ?, '{}', ?, ?) ON CONFLICT (workspace, id) DO NOTHING`, workspace, id, micros(at), micros(at))
	if err != nil {
		return nil, false, fmt.Errorf("ensure user: %w", err)
	}
	n, _ := res.RowsAffected()
	u, err := tx.GetUser(ctx, workspace, id)
	return u, n > 0, err
}

// GetUser returns a user.
func (tx *Tx) GetUser(ctx context.Context, workspace, id string) (*loci.User, error) {
	u := loci.User{Workspace: workspace}
	var defaults string
	var created, updated int64
	err := tx.queryRow(ctx, `SELECT id, defaults, created_at, updated_at FROM users WHERE workspace = ? AND id = ?`,
		workspace, id).Scan(&u.ID, &defaults, &created, &updated)
	if err == sql.ErrNoRows {
		return nil, loci.Errorf(loci.ENOTFOUND, "user %s not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("get user: %w", err)
	}
	u.Defaults, u.CreatedAt, u.UpdatedAt = json.RawMessage(defaults), fromMicros(created), fromMicros(updated)
	return &u, nil
}

// UpdateUser replaces a user's defaults.
func (tx *Tx) UpdateUser(ctx context.Context, u *loci.User) error {
	res, err := tx.exec(ctx, `UPDATE users SET defaults = ?, updated_at = ? WHERE workspace = ? AND id = ?`,
		jsonText(u.Defaults), micros(u.UpdatedAt), u.Workspace, u.ID)
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loci.Errorf(loci.ENOTFOUND, "user %s not found", u.ID)
	}
	return nil
}

// DeleteUser deletes a user row.
func (tx *Tx) DeleteUser(ctx context.Context, workspace, id string) (bool, error) {
	res, err := tx.exec(ctx, `DELETE FROM users WHERE workspace = ? AND id = ?`, workspace, id)
	if err != nil {
		return false, fmt.Errorf("delete user: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
