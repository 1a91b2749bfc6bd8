package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// workingData is a working entry's kind-specific data.
type workingData struct {
	Value json.RawMessage `json:"value"`
}

func errWorkingNotFound() error { return loci.Errorf(loci.ENOTFOUND, "working memory entry not found") }

// workingFilter selects a task's entries, narrowed by f.
func (s *Service) workingFilter(ctx context.Context, taskID string, f loci.WorkingFilter) (loci.RecordFilter, error) {
	if err := loci.RequireText("task_id", taskID, loci.MaxTaskIDBytes); err != nil {
		return loci.RecordFilter{}, err
	}
	rf := loci.RecordFilter{
		Workspace: loci.WorkspaceFrom(ctx),
		Kinds:     []loci.Kind{loci.KindWorking},
		TaskID:    &taskID,
	}
	if f.AgentID != "" {
		rf.AgentID = &f.AgentID
	}
	if f.UserID != "" {
		rf.UserID = &f.UserID
	}
	return rf, nil
}

// SetWorking creates or replaces a working-memory value. The task's live
// values, this one included, must total at most the task limit.
func (s *Service) SetWorking(ctx context.Context, in loci.WorkingInput) (_ *loci.WorkingEntry, _ bool, err error) {
	a, err := s.begin(ctx, loci.OpWorkingSet, loci.Scope{TaskID: in.TaskID, AgentID: in.AgentID, UserID: in.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, false, err
	}
	if err := in.Validate(); err != nil {
		return nil, false, err
	}
	value, err := requiredJSON("value", in.Value)
	if err != nil {
		return nil, false, err
	}
	limit := s.keep.workingLimitOr()
	if valueBytes(value) > limit {
		return nil, false, loci.Errorf(loci.ETOOLARGE, "working memory of a task must total at most %d bytes", limit)
	}
	data, err := json.Marshal(workingData{Value: value})
	if err != nil {
		return nil, false, fmt.Errorf("encode working entry: %w", err)
	}
	ws := loci.WorkspaceFrom(ctx)
	scope := loci.Scope{TaskID: in.TaskID, AgentID: in.AgentID, UserID: in.UserID}
	var entry *loci.WorkingEntry
	created := false
	err = a.update(func(tx loci.Tx) error {
		created = false // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "working", in.TaskID)); err != nil {
			return err
		}
		now := s.now()
		if err := checkTaskBytes(ctx, tx, ws, in, scope, value, limit, now); err != nil {
			return err
		}
		old, err := tx.FindRecords(ctx, loci.RecordFilter{
			Workspace: ws, Kinds: []loci.Kind{loci.KindWorking}, TaskID: &in.TaskID,
			AgentID: &in.AgentID, UserID: &in.UserID, Key: &in.Key,
		})
		if err != nil {
			return err
		}
		rec := &loci.Record{
			ID: newID(), Workspace: ws, Kind: loci.KindWorking, Scope: scope, Key: in.Key,
			Content: string(value), SearchText: searchText(in.Key + " " + string(value)), Data: data,
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.keep.workingTTLOr()), Version: 1,
		}
		if len(old) > 0 && !old[0].Expired(now) {
			// Creating needs the creator role (the route's); replacing a
			// live value needs editor.
			if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
				return err
			}
			prev := old[0]
			rec.ID, rec.CreatedAt, rec.Version = prev.ID, prev.CreatedAt, prev.Version+1
			if err := tx.UpdateRecord(ctx, rec, prev.Version); err != nil {
				return err
			}
			a.touch(rec.ID)
		} else {
			created = true
			a.created()
			a.touch(rec.ID)
			if len(old) > 0 { // expired, not yet removed: a new entry replaces it
				if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: []string{old[0].ID}}); err != nil {
					return err
				}
				a.touch(old[0].ID)
			}
			if err := tx.InsertRecord(ctx, rec); err != nil {
				return err
			}
		}
		entry, err = workingOf(rec)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("set working: %w", err)
	}
	return entry, created, nil
}

// checkTaskBytes refuses a write of value under in's key and scope when
// the task's live values, with value in place of what it replaces, would
// total more than limit bytes.
func checkTaskBytes(ctx context.Context, tx loci.Tx, ws string, in loci.WorkingInput, scope loci.Scope, value json.RawMessage, limit int, now time.Time) error {
	live, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindWorking}, TaskID: &in.TaskID, LiveAt: now,
	})
	if err != nil {
		return err
	}
	total := valueBytes(value)
	for _, r := range live {
		if r.Scope == scope && r.Key == in.Key {
			continue // replaced by this write
		}
		total += valueBytes([]byte(r.Content))
	}
	if total > limit {
		return loci.Errorf(loci.ETOOLARGE, "working memory of task %q would total %d bytes, more than %d", in.TaskID, total, limit)
	}
	return nil
}

// GetWorking returns the most recently written live value of key.
func (s *Service) GetWorking(ctx context.Context, taskID, key string, f loci.WorkingFilter) (_ *loci.WorkingEntry, err error) {
	a, err := s.begin(ctx, loci.OpWorkingGet, loci.Scope{TaskID: taskID, AgentID: f.AgentID, UserID: f.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	rf, err := s.workingFilter(ctx, taskID, f)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("key", key, loci.MaxWorkingKeyBytes); err != nil {
		return nil, err
	}
	rf.Key, rf.LiveAt, rf.Order, rf.Limit = &key, s.now(), loci.OrderUpdatedDesc, 1
	var entry *loci.WorkingEntry
	err = a.view(func(tx loci.Tx) error {
		recs, err := tx.FindRecords(ctx, rf)
		if err != nil {
			return err
		} else if len(recs) == 0 {
			return errWorkingNotFound()
		}
		a.touch(recs[0].ID)
		entry, err = workingOf(recs[0])
		return err
	})
	return entry, err
}

// ListWorking returns the task's live values by key, the most recently
// written first within a key.
func (s *Service) ListWorking(ctx context.Context, taskID string, f loci.WorkingFilter) (_ []*loci.WorkingEntry, err error) {
	a, err := s.begin(ctx, loci.OpWorkingGetAll, loci.Scope{TaskID: taskID, AgentID: f.AgentID, UserID: f.UserID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	rf, err := s.workingFilter(ctx, taskID, f)
	if err != nil {
		return nil, err
	}
	rf.LiveAt, rf.Order = s.now(), loci.OrderUpdatedDesc
	out := []*loci.WorkingEntry{}
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		recs, err := tx.FindRecords(ctx, rf)
		if err != nil {
			return err
		}
		for _, r := range recs {
			e, err := workingOf(r)
			if err != nil {
				s.malformed(r, err)
				continue
			}
			a.touch(r.ID)
			out = append(out, e)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, err
}

// ClearWorking deletes the task's values (expired ones too).
func (s *Service) ClearWorking(ctx context.Context, taskID string, f loci.WorkingFilter) (n int, err error) {
	a, err := s.begin(ctx, loci.OpWorkingClear, loci.Scope{TaskID: taskID, AgentID: f.AgentID, UserID: f.UserID})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	rf, err := s.workingFilter(ctx, taskID, f)
	if err != nil {
		return 0, err
	}
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(rf.Workspace, "working", taskID)); err != nil {
			return err
		}
		// Their ids, for the audit entry (it keeps maxAuditIDs).
		scan := rf
		scan.Order, scan.Limit = loci.OrderNone, maxAuditIDs
		if err := tx.ScanRecords(ctx, scan, func(r *loci.Record) error {
			a.touch(r.ID)
			return nil
		}); err != nil {
			return err
		}
		n, err = tx.DeleteRecords(ctx, rf)
		a.count(n)
		return err
	})
	return n, err
}

// DeleteWorking deletes the task's entries of one key, narrowed by f.
func (s *Service) DeleteWorking(ctx context.Context, taskID, key string, f loci.WorkingFilter) (n int, err error) {
	a, err := s.begin(ctx, loci.OpWorkingDelete, loci.Scope{TaskID: taskID, AgentID: f.AgentID, UserID: f.UserID})
	defer a.end(&err)
	if err != nil {
		return 0, err
	}
	rf, err := s.workingFilter(ctx, taskID, f)
	if err != nil {
		return 0, err
	}
	if err := loci.RequireText("key", key, loci.MaxWorkingKeyBytes); err != nil {
		return 0, err
	}
	rf.Key = &key
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(rf.Workspace, "working", taskID)); err != nil {
			return err
		}
		recs, err := tx.FindRecords(ctx, rf)
		if err != nil {
			return err
		} else if len(recs) == 0 {
			return errWorkingNotFound()
		}
		a.touchRecords(recs)
		n, err = tx.DeleteRecords(ctx, rf)
		a.count(n)
		return err
	})
	return n, err
}

func workingOf(r *loci.Record) (*loci.WorkingEntry, error) {
	var d workingData
	if err := decodeData(r, &d); err != nil {
		return nil, err
	}
	return &loci.WorkingEntry{
		TaskID: r.TaskID, AgentID: r.AgentID, UserID: r.UserID, Key: r.Key, Value: d.Value,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt, Metadata: ownMetadata(r),
	}, nil
}

// valueBytes is the size of a JSON value as the working-memory limit
// counts it: the length of its compact encoding with strings as UTF-8, so
// a value is counted the same whichever way the client escaped it ("é"
// and "\u00e9" are both 2 bytes). Only what JSON must escape counts as
// its escape (a quote, a backslash, a control character). Text that is
// not JSON counts as its length.
func valueBytes(raw []byte) int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	// Each open array or object, with how many keys and values it has
	// had: every one after the first follows a comma or a colon.
	var stack []int
	n := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n
		} else if err != nil {
			return len(raw)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			n++
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) > 0 {
			if stack[len(stack)-1] > 0 {
				n++ // a comma, or an object's colon
			}
			stack[len(stack)-1]++
		}
		switch t := tok.(type) {
		case json.Delim:
			n++
			stack = append(stack, 0)
		case string:
			n += jsonStringBytes(t)
		case json.Number:
			n += len(t)
		case bool:
			n += len(strconv.FormatBool(t))
		case nil:
			n += len("null")
		}
	}
}

// jsonStringBytes is the length of s as a JSON string with nothing escaped
// that JSON does not require.
func jsonStringBytes(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20:
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}
