package loci

import "context"

// Tx is one transaction's view of the store, as the rules above the
// backends use it: the backend's StoreTx, and the methods derived from it,
// written once for every backend (the records' here, the plain tables' in
// tables.go). A Store hands its transactions out as a Tx; a wrapper (a
// test's fault, a counter) wraps the StoreTx inside, and an optional
// interface a backend offers is asserted on tx.StoreTx.
type Tx struct {
	StoreTx
}

// InsertRecord stores a new record. ECONFLICT when the id, or the key in
// the same workspace, kind and scope, already exists.
func (tx Tx) InsertRecord(ctx context.Context, r *Record) error {
	return tx.InsertRecords(ctx, []*Record{r})
}

// GetRecord returns one record of the workspace. ENOTFOUND when absent.
func (tx Tx) GetRecord(ctx context.Context, workspace, id string) (*Record, error) {
	var found *Record
	err := tx.ScanRecords(ctx, RecordFilter{Workspace: workspace, IDs: []string{id}}, func(r *Record) error {
		found = r
		return nil
	})
	if err != nil {
		return nil, err
	} else if found == nil {
		return nil, Errorf(ENOTFOUND, "record %s not found", id)
	}
	return found, nil
}

// FindRecords returns the records that match f, in f.Order.
func (tx Tx) FindRecords(ctx context.Context, f RecordFilter) ([]*Record, error) {
	var out []*Record
	err := tx.ScanRecords(ctx, f, func(r *Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// GetAgent returns an agent. ENOTFOUND when absent.
func (tx Tx) GetAgent(ctx context.Context, workspace, id string) (*Agent, error) {
	agents, _, err := tx.FindAgents(ctx, AgentFilter{Workspace: workspace, ID: id})
	if err != nil {
		return nil, err
	} else if len(agents) == 0 {
		return nil, Errorf(ENOTFOUND, "agent %s not found", id)
	}
	return agents[0], nil
}

// ListAgents returns the workspace's agents by id, and their total.
func (tx Tx) ListAgents(ctx context.Context, workspace string, limit, offset int) ([]*Agent, int, error) {
	return tx.FindAgents(ctx, AgentFilter{Workspace: workspace, Limit: limit, Offset: offset})
}

// ListKnownAgents is ListAgents with, besides, every agent id the
// workspace's records name that has no agent (an agent with only notes),
// with no name and its first record's time.
func (tx Tx) ListKnownAgents(ctx context.Context, workspace string, limit, offset int) ([]*Agent, int, error) {
	return tx.FindAgents(ctx, AgentFilter{Workspace: workspace, Known: true, Limit: limit, Offset: offset})
}

// GetUser returns a user. ENOTFOUND when absent.
func (tx Tx) GetUser(ctx context.Context, workspace, id string) (*User, error) {
	users, _, err := tx.FindUsers(ctx, UserFilter{Workspace: workspace, ID: id})
	if err != nil {
		return nil, err
	} else if len(users) == 0 {
		return nil, Errorf(ENOTFOUND, "user %s not found", id)
	}
	return users[0], nil
}

// ListUsers returns the workspace's users by id, and their total.
func (tx Tx) ListUsers(ctx context.Context, workspace string, limit, offset int) ([]*User, int, error) {
	return tx.FindUsers(ctx, UserFilter{Workspace: workspace, Limit: limit, Offset: offset})
}

// GetKeyByHash returns the key, active or revoked, whose secret hashes to
// hash, in any workspace. ENOTFOUND when absent.
func (tx Tx) GetKeyByHash(ctx context.Context, hash string) (*APIKey, error) {
	if hash == "" {
		// An empty Hash selects by workspace: no key has an empty hash.
		return nil, Errorf(ENOTFOUND, "key not found")
	}
	keys, err := tx.FindKeys(ctx, KeyFilter{Hash: hash})
	if err != nil {
		return nil, err
	} else if len(keys) == 0 {
		return nil, Errorf(ENOTFOUND, "key not found")
	}
	return keys[0], nil
}

// ListKeys returns the keys of a workspace ("" for every workspace),
// oldest first, revoked ones included.
func (tx Tx) ListKeys(ctx context.Context, workspace string) ([]*APIKey, error) {
	return tx.FindKeys(ctx, KeyFilter{Workspace: workspace})
}
