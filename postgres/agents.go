package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
)

// InsertAgent creates an agent.
func (tx *Tx) InsertAgent(ctx context.Context, a *loci.Agent) error {
	tag, err := tx.tx.Exec(ctx, `INSERT INTO agents (workspace, id, name, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, a.Workspace, a.ID, a.Name, a.CreatedAt)
	if err != nil {
		return translate(fmt.Errorf("insert agent: %w", err))
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ECONFLICT, "agent %s already exists", a.ID)
	}
	return nil
}

// GetAgent returns an agent.
func (tx *Tx) GetAgent(ctx context.Context, workspace, id string) (*loci.Agent, error) {
	a := loci.Agent{Workspace: workspace}
	err := tx.tx.QueryRow(ctx, `SELECT id, name, created_at FROM agents WHERE workspace = $1 AND id = $2`,
		workspace, id).Scan(&a.ID, &a.Name, &a.CreatedAt)
	if err == pgx.ErrNoRows {
		return nil, loci.Errorf(loci.ENOTFOUND, "agent %s not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("get agent: %w", err)
	}
	a.CreatedAt = a.CreatedAt.UTC()
	return &a, nil
}

// ListAgents returns the workspace's agents by id.
func (tx *Tx) ListAgents(ctx context.Context, workspace string, limit, offset int) ([]*loci.Agent, int, error) {
	var total int
	if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM agents WHERE workspace = $1`, workspace).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count agents: %w", err)
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, name, created_at FROM agents WHERE workspace = $1 ORDER BY id`+
		limitClause(limit, offset), workspace)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: workspace}
		if err := rows.Scan(&a.ID, &a.Name, &a.CreatedAt); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, &a)
	}
	return out, total, rows.Err()
}

// ListKnownAgents lists the agents table and the agents only records name.
func (tx *Tx) ListKnownAgents(ctx context.Context, workspace string, limit, offset int) ([]*loci.Agent, int, error) {
	// The agents table, and every agent its records name that has no row
	// there (an agent with only notes, working entries or episodes).
	known := `SELECT id, name, created_at FROM agents WHERE workspace = $1
		UNION ALL
		SELECT agent_id, '', min(created_at) FROM records WHERE workspace = $1 AND agent_id <> ''
			AND agent_id NOT IN (SELECT id FROM agents WHERE workspace = $1) GROUP BY agent_id`
	var total int
	if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM (`+known+`) k`, workspace).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count agents: %w", err)
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, name, created_at FROM (`+known+`) k ORDER BY id`+
		limitClause(limit, offset), workspace)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: workspace}
		if err := rows.Scan(&a.ID, &a.Name, &a.CreatedAt); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, &a)
	}
	return out, total, rows.Err()
}

// DeleteAgent deletes an agent and the links that attach blocks to it.
func (tx *Tx) DeleteAgent(ctx context.Context, workspace, id string) error {
	if _, err := tx.tx.Exec(ctx, `DELETE FROM block_links WHERE workspace = $1 AND agent_id = $2`, workspace, id); err != nil {
		return fmt.Errorf("delete agent links: %w", err)
	}
	tag, err := tx.tx.Exec(ctx, `DELETE FROM agents WHERE workspace = $1 AND id = $2`, workspace, id)
	if err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ENOTFOUND, "agent %s not found", id)
	}
	return nil
}

// AttachBlock links a shared block to an agent; a second attach is a no-op.
func (tx *Tx) AttachBlock(ctx context.Context, workspace, blockID, agentID string, at time.Time) error {
	_, err := tx.tx.Exec(ctx, `INSERT INTO block_links (workspace, block_id, agent_id, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (block_id, agent_id) DO NOTHING`, workspace, blockID, agentID, at)
	if err != nil {
		return translate(fmt.Errorf("attach block: %w", err))
	}
	return nil
}

// DetachBlock removes a link.
func (tx *Tx) DetachBlock(ctx context.Context, workspace, blockID, agentID string) (bool, error) {
	tag, err := tx.tx.Exec(ctx, `DELETE FROM block_links WHERE workspace = $1 AND block_id = $2 AND agent_id = $3`,
		workspace, blockID, agentID)
	if err != nil {
		return false, fmt.Errorf("detach block: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// ListBlockLinks returns the links of a block or of an agent.
func (tx *Tx) ListBlockLinks(ctx context.Context, workspace, blockID, agentID string) ([]loci.BlockLink, error) {
	var a args
	q := `SELECT block_id, agent_id, created_at FROM block_links WHERE workspace = ` + a.add(workspace)
	if blockID != "" {
		q += ` AND block_id = ` + a.add(blockID)
	}
	if agentID != "" {
		q += ` AND agent_id = ` + a.add(agentID)
	}
	rows, err := tx.tx.Query(ctx, q+` ORDER BY created_at, block_id, agent_id`, a...)
	if err != nil {
		return nil, fmt.Errorf("list block links: %w", err)
	}
	defer rows.Close()
	var out []loci.BlockLink
	for rows.Next() {
		var l loci.BlockLink
		if err := rows.Scan(&l.BlockID, &l.AgentID, &l.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan block link: %w", err)
		}
		l.CreatedAt = l.CreatedAt.UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// EnsureUser creates the user with empty defaults unless it exists.
func (tx *Tx) EnsureUser(ctx context.Context, workspace, id string, at time.Time) (*loci.User, bool, error) {
	tag, err := tx.tx.Exec(ctx, `INSERT INTO users (workspace, id, defaults, created_at, updated_at)
		VALUES ($1, $2, '{}', $3, $3) ON CONFLICT (workspace, id) DO NOTHING`, workspace, id, at)
	if err != nil {
		return nil, false, fmt.Errorf("ensure user: %w", err)
	}
	u, err := tx.GetUser(ctx, workspace, id)
	return u, tag.RowsAffected() > 0, err
}

// GetUser returns a user.
func (tx *Tx) GetUser(ctx context.Context, workspace, id string) (*loci.User, error) {
	u := loci.User{Workspace: workspace}
	var defaults string
	err := tx.tx.QueryRow(ctx, `SELECT id, defaults::text, created_at, updated_at FROM users WHERE workspace = $1 AND id = $2`,
		workspace, id).Scan(&u.ID, &defaults, &u.CreatedAt, &u.UpdatedAt)
	if err == pgx.ErrNoRows {
		return nil, loci.Errorf(loci.ENOTFOUND, "user %s not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("get user: %w", err)
	}
	u.Defaults, u.CreatedAt, u.UpdatedAt = json.RawMessage(defaults), u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return &u, nil
}

// UpdateUser replaces a user's defaults.
func (tx *Tx) UpdateUser(ctx context.Context, u *loci.User) error {
	tag, err := tx.tx.Exec(ctx, `UPDATE users SET defaults = $1::json, updated_at = $2 WHERE workspace = $3 AND id = $4`,
		jsonText(u.Defaults), u.UpdatedAt, u.Workspace, u.ID)
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ENOTFOUND, "user %s not found", u.ID)
	}
	return nil
}

// DeleteUser deletes a user row.
func (tx *Tx) DeleteUser(ctx context.Context, workspace, id string) (bool, error) {
	tag, err := tx.tx.Exec(ctx, `DELETE FROM users WHERE workspace = $1 AND id = $2`, workspace, id)
	if err != nil {
		return false, fmt.Errorf("delete user: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}
