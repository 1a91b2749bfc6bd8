package postgres

import (
	"context"
	"fmt"
	"time"

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

// FindAgents returns the agents f selects by id: the agents table and,
// with f.Known, every agent its records name that has no row there (an
// agent with only notes, working entries or episodes).
func (tx *Tx) FindAgents(ctx context.Context, f loci.AgentFilter) ([]*loci.Agent, int, error) {
	from := `agents WHERE workspace = $1`
	if f.Known {
		from = `(SELECT id, name, created_at FROM agents WHERE workspace = $1
		UNION ALL
		SELECT agent_id, '', min(created_at) FROM records WHERE workspace = $1 AND agent_id <> ''
			AND agent_id NOT IN (SELECT id FROM agents WHERE workspace = $1) GROUP BY agent_id) k`
		if f.ID != "" {
			from += ` WHERE id = $2`
		}
	} else if f.ID != "" {
		from += ` AND id = $2`
	}
	args := []any{f.Workspace}
	if f.ID != "" {
		args = append(args, f.ID)
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, name, created_at FROM `+from+` ORDER BY id`+
		limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	var out []*loci.Agent
	for rows.Next() {
		a := loci.Agent{Workspace: f.Workspace}
		if err := rows.Scan(&a.ID, &a.Name, &a.CreatedAt); err != nil {
			return nil, 0, fmt.Errorf("scan agent: %w", err)
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, &a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list agents: %w", err)
	}
	total := len(out)
	if f.Limit > 0 || f.Offset > 0 {
		if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM `+from, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count agents: %w", err)
		}
	}
	return out, total, nil
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
	users, _, err := tx.FindUsers(ctx, loci.UserFilter{Workspace: workspace, ID: id})
	if err != nil {
		return nil, false, err
	} else if len(users) == 0 {
		return nil, false, loci.Errorf(loci.ENOTFOUND, "user %s not found", id)
	}
	return users[0], tag.RowsAffected() > 0, nil
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
