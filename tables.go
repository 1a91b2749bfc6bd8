package loci

import (
	"context"
	"encoding/json"
	"time"
)

// The plain tables, and the typed methods Tx derives from StoreTx's
// generic rows for each: written once, for every backend. A table's
// columns are listed in the order of its Row; the names are the columns
// of both backends' schemas.

// agentsTable holds the agents (Agent).
var agentsTable = &Table{Name: "agents", Columns: []Column{
	{"workspace", ColText}, {"id", ColText}, {"name", ColText}, {"created_at", ColTime},
}}

// InsertAgent creates an agent. ECONFLICT when it exists.
func (tx Tx) InsertAgent(ctx context.Context, a *Agent) error {
	ok, err := tx.InsertRow(ctx, agentsTable, Row{a.Workspace, a.ID, a.Name, a.CreatedAt})
	if err == nil && !ok {
		err = Errorf(ECONFLICT, "agent %s already exists", a.ID)
	}
	return err
}

// DeleteAgent deletes an agent row and its block links (not its records:
// the rules above do that). ENOTFOUND when absent.
func (tx Tx) DeleteAgent(ctx context.Context, workspace, id string) error {
	_, err := tx.DeleteRows(ctx, RowQuery{Table: blockLinksTable, Where: []Cond{
		{"workspace", CmpEq, workspace}, {"agent_id", CmpEq, id}}})
	if err != nil {
		return err
	}
	n, err := tx.DeleteRows(ctx, RowQuery{Table: agentsTable, Where: []Cond{
		{"workspace", CmpEq, workspace}, {"id", CmpEq, id}}})
	if err == nil && n == 0 {
		err = Errorf(ENOTFOUND, "agent %s not found", id)
	}
	return err
}

// blockLinksTable holds the links of shared blocks to the agents that
// read them (BlockLink).
var blockLinksTable = &Table{Name: "block_links", Columns: []Column{
	{"workspace", ColText}, {"block_id", ColText}, {"agent_id", ColText}, {"created_at", ColTime},
}}

// AttachBlock links a shared block to a consuming agent; attaching twice
// is not an error.
func (tx Tx) AttachBlock(ctx context.Context, workspace, blockID, agentID string, at time.Time) error {
	_, err := tx.InsertRow(ctx, blockLinksTable, Row{workspace, blockID, agentID, at})
	return err
}

// DetachBlock removes a link and reports whether there was one.
func (tx Tx) DetachBlock(ctx context.Context, workspace, blockID, agentID string) (bool, error) {
	n, err := tx.DeleteRows(ctx, RowQuery{Table: blockLinksTable, Where: []Cond{
		{"workspace", CmpEq, workspace}, {"block_id", CmpEq, blockID}, {"agent_id", CmpEq, agentID}}})
	return n > 0, err
}

// ListBlockLinks returns the links of a block (blockID set) or of a
// consuming agent (agentID set), oldest first.
func (tx Tx) ListBlockLinks(ctx context.Context, workspace, blockID, agentID string) ([]BlockLink, error) {
	where := eqIf(eqIf([]Cond{{"workspace", CmpEq, workspace}}, "block_id", blockID), "agent_id", agentID)
	return findRows(ctx, tx, RowQuery{Table: blockLinksTable, Where: where,
		Order: []Sort{{Column: "created_at"}, {Column: "block_id"}, {Column: "agent_id"}}},
		func(r Row) BlockLink { return BlockLink{BlockID: r.text(1), AgentID: r.text(2), CreatedAt: r.time(3)} })
}

// usersTable holds the users registered with their defaults (User).
var usersTable = &Table{Name: "users", Columns: []Column{
	{"workspace", ColText}, {"id", ColText}, {"defaults", ColJSON}, {"created_at", ColTime}, {"updated_at", ColTime},
}}

func userFrom(r Row) *User {
	return &User{Workspace: r.text(0), ID: r.text(1), Defaults: r.json(2), CreatedAt: r.time(3), UpdatedAt: r.time(4)}
}

// EnsureUser creates the user with empty defaults unless it exists, and
// returns it with whether it was created.
func (tx Tx) EnsureUser(ctx context.Context, workspace, id string, at time.Time) (*User, bool, error) {
	created, err := tx.InsertRow(ctx, usersTable, Row{workspace, id, json.RawMessage("{}"), at, at})
	if err != nil {
		return nil, false, err
	}
	u, err := tx.GetUser(ctx, workspace, id)
	return u, created, err
}

// FindUsers returns the users of the table f selects (Workspace, ID when
// set, Limit, Offset; not Match) by id, and how many it selects ignoring
// its limit and offset.
func (tx Tx) FindUsers(ctx context.Context, f UserFilter) ([]*User, int, error) {
	return findCounted(ctx, tx, RowQuery{Table: usersTable,
		Where: eqIf([]Cond{{"workspace", CmpEq, f.Workspace}}, "id", f.ID),
		Order: []Sort{{Column: "id"}}, Limit: f.Limit, Offset: f.Offset}, userFrom)
}

// UpdateUser replaces a user's defaults. ENOTFOUND when absent.
func (tx Tx) UpdateUser(ctx context.Context, u *User) error {
	n, err := tx.UpdateRows(ctx, RowQuery{Table: usersTable, Where: []Cond{
		{"workspace", CmpEq, u.Workspace}, {"id", CmpEq, u.ID}}},
		[]Assign{{"defaults", u.Defaults}, {"updated_at", u.UpdatedAt}})
	if err == nil && n == 0 {
		err = Errorf(ENOTFOUND, "user %s not found", u.ID)
	}
	return err
}

// DeleteUser deletes a user row (not its records) and reports whether it
// existed.
func (tx Tx) DeleteUser(ctx context.Context, workspace, id string) (bool, error) {
	n, err := tx.DeleteRows(ctx, RowQuery{Table: usersTable, Where: []Cond{
		{"workspace", CmpEq, workspace}, {"id", CmpEq, id}}})
	return n > 0, err
}

// versionsTable holds the kept previous values of records (RecordVersion).
var versionsTable = &Table{Name: "record_versions", Columns: []Column{
	{"record_id", ColText}, {"version", ColInt}, {"content", ColText}, {"data", ColJSON},
	{"updated_at", ColTime}, {"metadata", ColNullJSON},
}}

// InsertVersion keeps a previous value of a record. ECONFLICT when that
// version is kept already.
func (tx Tx) InsertVersion(ctx context.Context, v RecordVersion) error {
	ok, err := tx.InsertRow(ctx, versionsTable, Row{v.RecordID, v.Version, v.Content, v.Data, v.UpdatedAt, v.Metadata})
	if err == nil && !ok {
		err = Errorf(ECONFLICT, "version %d of %s already exists", v.Version, v.RecordID)
	}
	return err
}

// DeleteVersion removes one kept version of a record from its history,
// and reports whether it was kept.
func (tx Tx) DeleteVersion(ctx context.Context, recordID string, version int) (bool, error) {
	n, err := tx.DeleteRows(ctx, RowQuery{Table: versionsTable, Where: []Cond{
		{"record_id", CmpEq, recordID}, {"version", CmpEq, version}}})
	return n > 0, err
}

// ListVersions returns a record's kept versions, newest first.
func (tx Tx) ListVersions(ctx context.Context, recordID string) ([]RecordVersion, error) {
	return findRows(ctx, tx, RowQuery{Table: versionsTable, Where: []Cond{{"record_id", CmpEq, recordID}},
		Order: []Sort{{Column: "version", Desc: true}}},
		func(r Row) RecordVersion {
			return RecordVersion{RecordID: r.text(0), Version: r.int(1), Content: r.text(2), Data: r.json(3),
				UpdatedAt: r.time(4), Metadata: r.json(5)}
		})
}

// keysTable holds the API keys: their hashes, never their secrets (APIKey).
var keysTable = &Table{Name: "api_keys", Columns: []Column{
	{"id", ColText}, {"workspace", ColText}, {"name", ColText}, {"role", ColText}, {"agent_id", ColText},
	{"hash", ColText}, {"created_at", ColTime}, {"revoked_at", ColNullTime},
}}

// InsertKey stores an API key (its hash, never its secret). ECONFLICT
// when the id or the hash exists.
func (tx Tx) InsertKey(ctx context.Context, k *APIKey) error {
	ok, err := tx.InsertRow(ctx, keysTable, Row{k.ID, k.Workspace, k.Name, string(k.Role), k.AgentID, k.Hash,
		k.CreatedAt, k.RevokedAt})
	if err == nil && !ok {
		err = Errorf(ECONFLICT, "key %s already exists", k.ID)
	}
	return err
}

// FindKeys returns the keys f selects, active or revoked, oldest first.
func (tx Tx) FindKeys(ctx context.Context, f KeyFilter) ([]*APIKey, error) {
	q := keysOf(f.Workspace)
	if f.Hash != "" {
		q = keyByHash(f.Hash)
	}
	return findRows(ctx, tx, q, func(r Row) *APIKey {
		return &APIKey{ID: r.text(0), Workspace: r.text(1), Name: r.text(2), Role: Role(r.text(3)),
			AgentID: r.text(4), Hash: r.text(5), CreatedAt: r.time(6), RevokedAt: r.time(7)}
	})
}

// keyByHash is the query of the key whose secret hashes to hash.
func keyByHash(hash string) RowQuery {
	return RowQuery{Table: keysTable, Where: []Cond{{"hash", CmpEq, hash}}}
}

// keysOf is the query of a workspace's keys ("" for every workspace's),
// oldest first.
func keysOf(workspace string) RowQuery {
	return RowQuery{Table: keysTable, Where: eqIf(nil, "workspace", workspace),
		Order: []Sort{{Column: "created_at"}, {Column: "id"}}}
}

// RequestQueries are the plain-table queries requests run on their way
// in: a key by its hash (a request with a key), every key (one without:
// whether authentication is on). A backend that prepares its statements
// ahead prepares these (SQLite does); their values are placeholders.
func RequestQueries() []RowQuery {
	return []RowQuery{keyByHash(""), keysOf("")}
}

// RevokeKey marks an active key of the workspace ("" for any) revoked at
// at. ENOTFOUND when there is no such active key.
func (tx Tx) RevokeKey(ctx context.Context, workspace, id string, at time.Time) error {
	where := eqIf([]Cond{{"id", CmpEq, id}, {"revoked_at", CmpNull, nil}}, "workspace", workspace)
	n, err := tx.UpdateRows(ctx, RowQuery{Table: keysTable, Where: where}, []Assign{{"revoked_at", at}})
	if err == nil && n == 0 {
		err = Errorf(ENOTFOUND, "no active key %s", id)
	}
	return err
}

// auditTable holds the access log (AuditEntry); seq numbers its entries
// in the order they were written.
var auditTable = &Table{Name: "audit_log", Columns: []Column{
	{"seq", ColSerial}, {"id", ColText}, {"at", ColTime}, {"key_id", ColText}, {"role", ColText},
	{"operation", ColText}, {"workspace", ColText}, {"agent_id", ColText}, {"user_id", ColText},
	{"session_id", ColText}, {"task_id", ColText}, {"kind", ColText}, {"record_ids", ColStrings},
	{"count", ColInt}, {"status", ColInt}, {"via", ColText}, {"dry_run", ColBool},
}}

// InsertAudit appends an entry to the access log.
func (tx Tx) InsertAudit(ctx context.Context, e *AuditEntry) error {
	ok, err := tx.InsertRow(ctx, auditTable, Row{nil, e.ID, e.Time, e.KeyID, string(e.Role), e.Operation,
		e.Workspace, e.AgentID, e.UserID, e.SessionID, e.TaskID, string(e.Kind), e.RecordIDs, e.Count,
		e.Status, e.Via, e.DryRun})
	if err == nil && !ok {
		err = Errorf(ECONFLICT, "audit entry %s already exists", e.ID)
	}
	return err
}

// FindAudit returns the entries that match f, newest first, and how many
// match ignoring f's limit and offset.
func (tx Tx) FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, int, error) {
	where := []Cond{{"workspace", CmpEq, f.Workspace}}
	where = eqIf(where, "agent_id", f.AgentID)
	where = eqIf(where, "user_id", f.UserID)
	where = eqIf(where, "key_id", f.KeyID)
	where = eqIf(where, "operation", f.Operation)
	if !f.Since.IsZero() {
		where = append(where, Cond{"at", CmpGe, f.Since})
	}
	q := RowQuery{Table: auditTable, Where: where, Order: []Sort{{Column: "seq", Desc: true}}, Limit: f.Limit, Offset: f.Offset}
	return findCounted(ctx, tx, q, func(r Row) *AuditEntry {
		return &AuditEntry{ID: r.text(1), Time: r.time(2), KeyID: r.text(3), Role: Role(r.text(4)),
			Operation: r.text(5), Workspace: r.text(6),
			Scope: Scope{AgentID: r.text(7), UserID: r.text(8), SessionID: r.text(9), TaskID: r.text(10)},
			Kind:  Kind(r.text(11)), RecordIDs: r.strings(12), Count: r.int(13), Status: r.int(14),
			Via: r.text(15), DryRun: r.bool(16)}
	})
}

// PruneAudit deletes the entries of every workspace older than before
// (unless zero) and then, in each workspace, the oldest beyond its newest
// keep (unless 0: a workspace's activity never pushes another's history
// out), and returns how many it deleted. Below keep entries in all (the
// newest and oldest entries' numbers tell, however long the log) nothing
// more is read; above, each workspace's keep-th newest entry is found,
// and those before it go.
func (tx Tx) PruneAudit(ctx context.Context, before time.Time, keep int) (int, error) {
	n := 0
	if !before.IsZero() {
		d, err := tx.DeleteRows(ctx, RowQuery{Table: auditTable, Where: []Cond{{"at", CmpLt, before}}})
		if err != nil {
			return 0, err
		}
		n += d
	}
	if keep <= 0 {
		return n, nil
	}
	seq := func(desc bool) (int, error) {
		v := -1
		err := tx.FindRows(ctx, RowQuery{Table: auditTable, Order: []Sort{{Column: "seq", Desc: desc}}, Limit: 1},
			func(r Row) error { v = r.int(0); return nil })
		return v, err
	}
	newest, err := seq(true)
	if err != nil || newest < 0 {
		return n, err
	}
	oldest, err := seq(false)
	if err != nil || newest-oldest < keep {
		return n, err // at most keep entries in all
	}
	// Each workspace in turn (the next after the last, on its index).
	for ws, more := "", true; more; {
		more = false
		err := tx.FindRows(ctx, RowQuery{Table: auditTable, Where: []Cond{{"workspace", CmpGt, ws}}, Order: []Sort{{Column: "workspace"}}, Limit: 1},
			func(r Row) error { ws, more = r.text(6), true; return nil })
		if err != nil || !more {
			return n, err
		}
		cut := -1
		err = tx.FindRows(ctx, RowQuery{Table: auditTable, Where: []Cond{{"workspace", CmpEq, ws}},
			Order: []Sort{{Column: "seq", Desc: true}}, Offset: keep - 1, Limit: 1},
			func(r Row) error { cut = r.int(0); return nil })
		if err != nil {
			return n, err
		}
		if cut < 0 {
			continue // at most keep entries
		}
		d, err := tx.DeleteRows(ctx, RowQuery{Table: auditTable, Where: []Cond{{"workspace", CmpEq, ws}, {"seq", CmpLt, cut}}})
		if err != nil {
			return n, err
		}
		n += d
	}
	return n, nil
}
