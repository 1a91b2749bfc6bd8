package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
)

// FindUsers returns the users f selects by id.
func (tx *Tx) FindUsers(ctx context.Context, f loci.UserFilter) ([]*loci.User, int, error) {
	where, args := `workspace = $1`, []any{f.Workspace}
	if f.ID != "" {
		where, args = where+` AND id = $2`, append(args, f.ID)
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, defaults::text, created_at, updated_at FROM users WHERE `+where+` ORDER BY id`+
		limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []*loci.User
	for rows.Next() {
		u := loci.User{Workspace: f.Workspace}
		var defaults string
		if err := rows.Scan(&u.ID, &defaults, &u.CreatedAt, &u.UpdatedAt); err != nil {
			return nil, 0, fmt.Errorf("scan user: %w", err)
		}
		u.Defaults, u.CreatedAt, u.UpdatedAt = json.RawMessage(defaults), u.CreatedAt.UTC(), u.UpdatedAt.UTC()
		out = append(out, &u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	total := len(out)
	if f.Limit > 0 || f.Offset > 0 {
		if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count users: %w", err)
		}
	}
	return out, total, nil
}

const keyColumns = `id, workspace, name, role, agent_id, hash, created_at, revoked_at`

// InsertKey stores an API key's hash and attributes.
func (tx *Tx) InsertKey(ctx context.Context, k *loci.APIKey) error {
	tag, err := tx.tx.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT DO NOTHING`,
		k.ID, k.Workspace, k.Name, string(k.Role), k.AgentID, k.Hash, k.CreatedAt, nullTime(k.RevokedAt))
	if err != nil {
		return translate(fmt.Errorf("insert key: %w", err))
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ECONFLICT, "key %s already exists", k.ID)
	}
	return nil
}

// FindKeys returns the keys of a workspace, or of all, oldest first, or
// the key with f.Hash.
func (tx *Tx) FindKeys(ctx context.Context, f loci.KeyFilter) ([]*loci.APIKey, error) {
	switch {
	case f.Hash != "":
		return tx.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, f.Hash)
	case f.Workspace == "":
		return tx.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	}
	return tx.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE workspace = $1 ORDER BY created_at, id`, f.Workspace)
}

// RevokeKey marks an active key revoked.
func (tx *Tx) RevokeKey(ctx context.Context, workspace, id string, at time.Time) error {
	q := `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`
	args := []any{at, id}
	if workspace != "" {
		q += ` AND workspace = $3`
		args = append(args, workspace)
	}
	tag, err := tx.tx.Exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return loci.Errorf(loci.ENOTFOUND, "no active key %s", id)
	}
	return nil
}

func (tx *Tx) queryKeys(ctx context.Context, q string, args ...any) ([]*loci.APIKey, error) {
	rows, err := tx.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query keys: %w", err)
	}
	defer rows.Close()
	var out []*loci.APIKey
	for rows.Next() {
		var k loci.APIKey
		var role string
		var revoked *time.Time
		if err := rows.Scan(&k.ID, &k.Workspace, &k.Name, &role, &k.AgentID, &k.Hash, &k.CreatedAt, &revoked); err != nil {
			return nil, fmt.Errorf("scan key: %w", err)
		}
		k.Role, k.CreatedAt = loci.Role(role), k.CreatedAt.UTC()
		if revoked != nil {
			k.RevokedAt = revoked.UTC()
		}
		out = append(out, &k)
	}
	return out, rows.Err()
}

// InsertAudit appends an access-log entry.
func (tx *Tx) InsertAudit(ctx context.Context, e *loci.AuditEntry) error {
	ids := e.RecordIDs
	if ids == nil {
		ids = []string{}
	}
	_, err := tx.tx.Exec(ctx, `INSERT INTO audit_log (id, at, key_id, role, operation, workspace,
		agent_id, user_id, session_id, task_id, kind, record_ids, count, status, via, dry_run)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		e.ID, e.Time, e.KeyID, string(e.Role), e.Operation, e.Workspace,
		e.AgentID, e.UserID, e.SessionID, e.TaskID, string(e.Kind), ids, e.Count, e.Status, e.Via, e.DryRun)
	if err != nil {
		return translate(fmt.Errorf("insert audit entry: %w", err))
	}
	return nil
}

// FindAudit returns matching entries, newest first.
func (tx *Tx) FindAudit(ctx context.Context, f loci.AuditFilter) ([]*loci.AuditEntry, int, error) {
	conds := []string{"workspace = $1"}
	args := []any{f.Workspace}
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	for col, v := range map[string]string{"agent_id": f.AgentID, "user_id": f.UserID, "key_id": f.KeyID, "operation": f.Operation} {
		if v != "" {
			add(col+" = $%d", v)
		}
	}
	if !f.Since.IsZero() {
		add("at >= $%d", f.Since)
	}
	where := strings.Join(conds, " AND ")
	var total int
	if err := tx.tx.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count audit entries: %w", err)
	}
	rows, err := tx.tx.Query(ctx, `SELECT id, at, key_id, role, operation, workspace, agent_id, user_id,
		session_id, task_id, kind, record_ids, count, status, via, dry_run FROM audit_log WHERE `+where+
		` ORDER BY seq DESC`+limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("find audit entries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*loci.AuditEntry, error) {
		var e loci.AuditEntry
		var role, kind string
		if err := row.Scan(&e.ID, &e.Time, &e.KeyID, &role, &e.Operation, &e.Workspace, &e.AgentID, &e.UserID,
			&e.SessionID, &e.TaskID, &kind, &e.RecordIDs, &e.Count, &e.Status, &e.Via, &e.DryRun); err != nil {
			return nil, fmt.Errorf("scan audit entry: %w", err)
		}
		e.Time, e.Role, e.Kind = e.Time.UTC(), loci.Role(role), loci.Kind(kind)
		return &e, nil
	})
	return out, total, err
}

// PruneAudit deletes the entries older than before, then the oldest
// beyond the newest keep by the log's sequence: one index lookup, however
// long the log. A write rolled back leaves a gap in the sequence, so it
// may keep a few fewer.
func (tx *Tx) PruneAudit(ctx context.Context, before time.Time, keep int) (int, error) {
	n := int64(0)
	if !before.IsZero() {
		tag, err := tx.tx.Exec(ctx, `DELETE FROM audit_log WHERE at < $1`, before)
		if err != nil {
			return 0, fmt.Errorf("delete audit entries: %w", err)
		}
		n += tag.RowsAffected()
	}
	if keep > 0 {
		tag, err := tx.tx.Exec(ctx, `DELETE FROM audit_log WHERE seq <= (SELECT max(seq) FROM audit_log) - $1`, keep)
		if err != nil {
			return 0, fmt.Errorf("delete audit entries: %w", err)
		}
		n += tag.RowsAffected()
	}
	return int(n), nil
}
