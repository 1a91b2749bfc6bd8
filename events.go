package loci

import (
	"context"
	"encoding/json"
	"time"
)

// The queue of adds of messages asked to run in the background ("async":
// true): a plain table of both backends, so that pending work survives a
// restart and is shared by every process on the database. A worker claims
// a due event by moving its run_at past a lease (one UPDATE that only one
// process can win, its attempts counted), runs it, and finishes it with
// its result; an event whose worker died is due again when its lease
// ends.

// QueuedEvent is a row of the queue: the event, the request it runs, and
// who asked (the key, its role and agent, the interface), so that the work
// runs with the caller's rights and is audited as theirs.
type QueuedEvent struct {
	ID        string
	Workspace string
	Status    string // EventPending, EventSucceeded, EventFailed
	// Request is the MessagesInput to run, as JSON.
	Request json.RawMessage
	// KeyID, Role and KeyAgentID are the caller's key ("" for a trusted
	// caller: authentication off, embedded use); Via the interface.
	KeyID      string
	Role       Role
	KeyAgentID string
	Via        string
	// UserID and AgentID are the request's scope.
	UserID  string
	AgentID string
	// Result is the MessagesResult once succeeded, as JSON (nil before).
	Result json.RawMessage
	// Error and Code say why it failed, or why its last try did not
	// succeed.
	Error string
	Code  string
	// Attempts counts the claims; RunAt is when it is due (again).
	Attempts  int
	RunAt     time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// eventsTable holds the queue (QueuedEvent).
var eventsTable = &Table{Name: "memory_events", Columns: []Column{
	{"id", ColText}, {"workspace", ColText}, {"status", ColText}, {"request", ColJSON},
	{"key_id", ColText}, {"role", ColText}, {"key_agent_id", ColText}, {"via", ColText},
	{"user_id", ColText}, {"agent_id", ColText}, {"result", ColNullJSON}, {"error", ColText}, {"code", ColText},
	{"attempts", ColInt}, {"run_at", ColTime}, {"created_at", ColTime}, {"updated_at", ColTime},
}}

func queuedEventFrom(r Row) *QueuedEvent {
	return &QueuedEvent{ID: r.text(0), Workspace: r.text(1), Status: r.text(2), Request: r.json(3),
		KeyID: r.text(4), Role: Role(r.text(5)), KeyAgentID: r.text(6), Via: r.text(7),
		UserID: r.text(8), AgentID: r.text(9), Result: r.json(10), Error: r.text(11), Code: r.text(12),
		Attempts: r.int(13), RunAt: r.time(14), CreatedAt: r.time(15), UpdatedAt: r.time(16)}
}

// InsertEvent queues an event. ECONFLICT when its id exists.
func (tx Tx) InsertEvent(ctx context.Context, e *QueuedEvent) error {
	ok, err := tx.InsertRow(ctx, eventsTable, Row{e.ID, e.Workspace, e.Status, e.Request,
		e.KeyID, string(e.Role), e.KeyAgentID, e.Via, e.UserID, e.AgentID, e.Result, e.Error, e.Code,
		e.Attempts, e.RunAt, e.CreatedAt, e.UpdatedAt})
	if err == nil && !ok {
		err = Errorf(ECONFLICT, "event %s already exists", e.ID)
	}
	return err
}

// GetEvent returns an event of the workspace. ENOTFOUND when absent.
func (tx Tx) GetEvent(ctx context.Context, workspace, id string) (*QueuedEvent, error) {
	out, err := findRows(ctx, tx, RowQuery{Table: eventsTable, Where: []Cond{
		{"workspace", CmpEq, workspace}, {"id", CmpEq, id}}}, queuedEventFrom)
	if err != nil {
		return nil, err
	} else if len(out) == 0 {
		return nil, Errorf(ENOTFOUND, "event %s not found", id)
	}
	return out[0], nil
}

// DueEvents returns up to limit pending events of any workspace due at
// now (run_at not after it), the earliest due first.
func (tx Tx) DueEvents(ctx context.Context, now time.Time, limit int) ([]*QueuedEvent, error) {
	return findRows(ctx, tx, RowQuery{Table: eventsTable, Where: []Cond{
		{"status", CmpEq, EventPending}, {"run_at", CmpLe, now}},
		Order: []Sort{{Column: "run_at"}, {Column: "id"}}, Limit: limit}, queuedEventFrom)
}

// CountPendingEvents counts the pending events of every workspace.
func (tx Tx) CountPendingEvents(ctx context.Context) (int, error) {
	return tx.CountRows(ctx, RowQuery{Table: eventsTable, Where: []Cond{{"status", CmpEq, EventPending}}})
}

// ClaimEvent claims e, a pending event read with its Attempts, for a
// worker until leaseUntil: it counts one more attempt and moves RunAt to
// leaseUntil, if the event is still pending, due at now and at the
// attempts read. It reports whether it claimed it (false: another worker
// did first, or it changed); e is updated when it did.
func (tx Tx) ClaimEvent(ctx context.Context, e *QueuedEvent, now, leaseUntil time.Time) (bool, error) {
	n, err := tx.UpdateRows(ctx, RowQuery{Table: eventsTable, Where: []Cond{
		{"workspace", CmpEq, e.Workspace}, {"id", CmpEq, e.ID}, {"status", CmpEq, EventPending},
		{"attempts", CmpEq, e.Attempts}, {"run_at", CmpLe, now}}},
		[]Assign{{"attempts", e.Attempts + 1}, {"run_at", leaseUntil}, {"updated_at", now}})
	if err != nil || n == 0 {
		return false, err
	}
	e.Attempts, e.RunAt, e.UpdatedAt = e.Attempts+1, leaseUntil, now
	return true, nil
}

// FinishEvent records what became of e, an event claimed at its Attempts:
// its Status, Result, Error, Code, RunAt (when it is due again, if still
// pending) and UpdatedAt. It reports whether it recorded it (false: the
// claim was lost, another worker claimed it since).
func (tx Tx) FinishEvent(ctx context.Context, e *QueuedEvent) (bool, error) {
	n, err := tx.UpdateRows(ctx, RowQuery{Table: eventsTable, Where: []Cond{
		{"workspace", CmpEq, e.Workspace}, {"id", CmpEq, e.ID}, {"status", CmpEq, EventPending},
		{"attempts", CmpEq, e.Attempts}}},
		[]Assign{{"status", e.Status}, {"result", e.Result}, {"error", e.Error}, {"code", e.Code},
			{"run_at", e.RunAt}, {"updated_at", e.UpdatedAt}})
	return n > 0, err
}

// EventFilter selects the events of a workspace (ScanEvents): those of
// one user and of one agent, as the request named them; nil is any, ""
// is none.
type EventFilter struct {
	Workspace string
	UserID    *string
	AgentID   *string
	// ResultHolds, when set, narrows to the events whose result's JSON
	// text holds it (a record id): a read that then decodes only those.
	ResultHolds string
}

// ScanEvents calls fn with each event of f, whatever its status, in the
// order of their ids. fn must not use tx: the events are read as they are
// scanned.
func (tx Tx) ScanEvents(ctx context.Context, f EventFilter, fn func(*QueuedEvent) error) error {
	where := []Cond{{"workspace", CmpEq, f.Workspace}}
	if f.UserID != nil {
		where = append(where, Cond{"user_id", CmpEq, *f.UserID})
	}
	if f.AgentID != nil {
		where = append(where, Cond{"agent_id", CmpEq, *f.AgentID})
	}
	if f.ResultHolds != "" {
		where = append(where, Cond{"result", CmpHolds, f.ResultHolds})
	}
	return tx.FindRows(ctx, RowQuery{Table: eventsTable, Where: where, Order: []Sort{{Column: "id"}}},
		func(r Row) error { return fn(queuedEventFrom(r)) })
}

// DeleteEventsByID deletes the events of the workspace that ids names,
// whatever their status (a worker that holds one rolls its work back: its
// finish finds no event), and returns how many it deleted.
func (tx Tx) DeleteEventsByID(ctx context.Context, workspace string, ids []string) (int, error) {
	n := 0
	for _, id := range ids {
		d, err := tx.DeleteRows(ctx, RowQuery{Table: eventsTable, Where: []Cond{
			{"workspace", CmpEq, workspace}, {"id", CmpEq, id}}})
		if err != nil {
			return n, err
		}
		n += d
	}
	return n, nil
}

// DeleteEvents deletes the events of the workspace ("" for every
// workspace's) that are done (succeeded or failed) and were last updated
// before before, or, when userID is set, every event of that user
// whatever its status. It returns how many it deleted.
func (tx Tx) DeleteEvents(ctx context.Context, workspace, userID string, before time.Time) (int, error) {
	if userID != "" {
		return tx.DeleteRows(ctx, RowQuery{Table: eventsTable, Where: []Cond{
			{"workspace", CmpEq, workspace}, {"user_id", CmpEq, userID}}})
	}
	n := 0
	for _, st := range []string{EventSucceeded, EventFailed} {
		d, err := tx.DeleteRows(ctx, RowQuery{Table: eventsTable, Where: eqIf([]Cond{
			{"status", CmpEq, st}, {"updated_at", CmpLt, before}}, "workspace", workspace)})
		if err != nil {
			return n, err
		}
		n += d
	}
	return n, nil
}
