package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// FindUsers returns the users f selects by id.
func (tx *Tx) FindUsers(ctx context.Context, f loci.UserFilter) ([]*loci.User, int, error) {
	where, args := `workspace = ?`, []any{f.Workspace}
	if f.ID != "" {
		where, args = where+` AND id = ?`, append(args, f.ID)
	}
	rows, err := tx.query(ctx, `SELECT id, defaults, created_at, updated_at FROM users WHERE `+where+` ORDER BY id`+
		limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []*loci.User
	for rows.Next() {
		u := loci.User{Workspace: f.Workspace}
		var defaults string
		var created, updated int64
		if err := rows.Scan(&u.ID, &defaults, &created, &updated); err != nil {
			return nil, 0, fmt.Errorf("scan user: %w", err)
		}
		u.Defaults, u.CreatedAt, u.UpdatedAt = json.RawMessage(defaults), fromMicros(created), fromMicros(updated)
		out = append(out, &u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	total := len(out)
	if f.Limit > 0 || f.Offset > 0 {
		if err := tx.queryRow(ctx, `SELECT count(*) FROM users WHERE `+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count users: %w", err)
		}
	}
	return out, total, nil
}

const keyColumns = `id, workspace, name, role, agent_id, hash, created_at, revoked_at`

// InsertKey stores an API key's hash and attributes.
func (tx *Tx) InsertKey(ctx context.Context, k *loci.APIKey) error {
	_, err := tx.exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Workspace, k.Name, string(k.Role), k.AgentID, k.Hash, micros(k.CreatedAt), nullMicros(k.RevokedAt))
	if err != nil {
		return translate(fmt.Errorf("insert key: %w", err))
	}
	return nil
}

// FindKeys returns the keys of a workspace, or of all, oldest first, or
// the key with f.Hash.
func (tx *Tx) FindKeys(ctx context.Context, f loci.KeyFilter) ([]*loci.APIKey, error) {
	switch {
	case f.Hash != "":
		return tx.queryKeys(ctx, sqlKeyByHash, f.Hash)
	case f.Workspace == "":
		return tx.queryKeys(ctx, sqlAllKeys)
	}
	return tx.queryKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE workspace = ? ORDER BY created_at, id`, f.Workspace)
}

// RevokeKey marks an active key revoked.
func (tx *Tx) RevokeKey(ctx context.Context, workspace, id string, at time.Time) error {
	q := `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`
	args := []any{micros(at), id}
	if workspace != "" {
		q += ` AND workspace = ?`
		args = append(args, workspace)
	}
	res, err := tx.exec(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loci.Errorf(loci.ENOTFOUND, "no active key %s", id)
	}
	return nil
}

func (tx *Tx) queryKeys(ctx context.Context, q string, args ...any) ([]*loci.APIKey, error) {
	rows, err := tx.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query keys: %w", err)
	}
	defer rows.Close()
	var out []*loci.APIKey
	for rows.Next() {
		var k loci.APIKey
		var role string
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&k.ID, &k.Workspace, &k.Name, &role, &k.AgentID, &k.Hash, &created, &revoked); err != nil {
			return nil, fmt.Errorf("scan key: %w", err)
		}
		k.Role, k.CreatedAt = loci.Role(role), fromMicros(created)
		if revoked.Valid {
			k.RevokedAt = fromMicros(revoked.Int64)
		}
		out = append(out, &k)
	}
	return out, rows.Err()
}

// InsertAudit appends an access-log entry.
func (tx *Tx) InsertAudit(ctx context.Context, e *loci.AuditEntry) error {
	ids, err := json.Marshal(nonNil(e.RecordIDs))
	if err != nil {
		return fmt.Errorf("encode record ids: %w", err)
	}
	_, err = tx.exec(ctx, sqlInsertAudit,
		e.ID, micros(e.Time), e.KeyID, string(e.Role), e.Operation, e.Workspace,
		e.AgentID, e.UserID, e.SessionID, e.TaskID, string(e.Kind), string(ids), e.Count, e.Status, e.Via, e.DryRun)
	if err != nil {
		return translate(fmt.Errorf("insert audit entry: %w", err))
	}
	return nil
}

// FindAudit returns matching entries, newest first.
func (tx *Tx) FindAudit(ctx context.Context, f loci.AuditFilter) ([]*loci.AuditEntry, int, error) {
	conds := []string{"workspace = ?"}
	args := []any{f.Workspace}
	eq := func(col, v string) {
		if v != "" {
			conds = append(conds, col+" = ?")
			args = append(args, v)
		}
	}
	eq("agent_id", f.AgentID)
	eq("user_id", f.UserID)
	eq("key_id", f.KeyID)
	eq("operation", f.Operation)
	if !f.Since.IsZero() {
		conds = append(conds, "at >= ?")
		args = append(args, micros(f.Since))
	}
	where := strings.Join(conds, " AND ")
	var total int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM audit_log WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count audit entries: %w", err)
	}
	rows, err := tx.query(ctx, `SELECT id, at, key_id, role, operation, workspace, agent_id, user_id,
		session_id, task_id, kind, record_ids, count, status, via, dry_run FROM audit_log WHERE `+where+
		` ORDER BY seq DESC`+limitClause(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("find audit entries: %w", err)
	}
	defer rows.Close()
	var out []*loci.AuditEntry
	for rows.Next() {
		var e loci.AuditEntry
		var at int64
		var role, kind, ids string
		if err := rows.Scan(&e.ID, &at, &e.KeyID, &role, &e.Operation, &e.Workspace, &e.AgentID, &e.UserID,
			&e.SessionID, &e.TaskID, &kind, &ids, &e.Count, &e.Status, &e.Via, &e.DryRun); err != nil {
			return nil, 0, fmt.Errorf("scan audit entry: %w", err)
		}
		e.Time, e.Role, e.Kind = fromMicros(at), loci.Role(role), loci.Kind(kind)
		if err := json.Unmarshal([]byte(ids), &e.RecordIDs); err != nil {
			return nil, 0, fmt.Errorf("decode record ids of audit entry %s: %w", e.ID, err)
		}
		out = append(out, &e)
	}
	return out, total, rows.Err()
}

// PruneAudit deletes the entries older than before, then the oldest
// beyond the newest keep by the log's sequence (AUTOINCREMENT: no gaps
// but what was deleted from its start): one index lookup, however long
// the log.
func (tx *Tx) PruneAudit(ctx context.Context, before time.Time, keep int) (int, error) {
	n := int64(0)
	if !before.IsZero() {
		res, err := tx.exec(ctx, `DELETE FROM audit_log WHERE at < ?`, micros(before))
		if err != nil {
			return 0, fmt.Errorf("delete audit entries: %w", err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	if keep > 0 {
		res, err := tx.exec(ctx, `DELETE FROM audit_log WHERE seq <= (SELECT max(seq) FROM audit_log) - ?`, keep)
		if err != nil {
			return 0, fmt.Errorf("delete audit entries: %w", err)
		}
		d, _ := res.RowsAffected()
		n += d
	}
	return int(n), nil
}
