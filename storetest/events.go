package storetest

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// testEvents: the queue of adds run in the background (loci.QueuedEvent):
// an event round-trips every field; due events are the pending ones whose
// run_at has come, earliest first; a claim is won by one worker only, and
// a finish by the claim that holds it; finished events and a user's
// events are deleted; a workspace's events are scanned by user and agent
// and deleted by id, whatever their status.
func testEvents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	event := func(id, ws, user string, runAt time.Time) *loci.QueuedEvent {
		return &loci.QueuedEvent{ID: id, Workspace: ws, Status: loci.EventPending,
			Request: json.RawMessage(`{"messages":[{"role":"user","content":"I love hiking"}],"user_id":"` + user + `"}`),
			KeyID:   "k1", Role: loci.RoleCreator, KeyAgentID: "a1", Via: "rest", UserID: user, AgentID: "a1",
			RunAt: runAt, CreatedAt: base, UpdatedAt: base}
	}
	e1 := event("ev1", loci.DefaultWorkspace, "u1", base.Add(2*time.Second))
	MustUpdate(t, s, func(tx loci.Tx) error {
		for _, e := range []*loci.QueuedEvent{
			e1, event("ev2", loci.DefaultWorkspace, "u2", base.Add(time.Second)),
			event("ev3", "other", "u1", base.Add(time.Hour)),
		} {
			if err := tx.InsertEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	t.Run("ErrConflict", func(t *testing.T) {
		err := s.Update(ctx, func(tx loci.Tx) error { return tx.InsertEvent(ctx, event("ev1", loci.DefaultWorkspace, "u1", base)) })
		wantCode(t, err, loci.ECONFLICT)
	})
	t.Run("Get", func(t *testing.T) {
		var got *loci.QueuedEvent
		MustView(t, s, func(tx loci.Tx) (err error) {
			got, err = tx.GetEvent(ctx, loci.DefaultWorkspace, "ev1")
			return err
		})
		if !reflect.DeepEqual(got, e1) {
			t.Errorf("GetEvent = %+v,\nwant %+v", got, e1)
		}
		err := s.View(ctx, func(tx loci.Tx) error { _, err := tx.GetEvent(ctx, "other", "ev1"); return err })
		wantCode(t, err, loci.ENOTFOUND)
	})
	due := func(at time.Time) []string {
		t.Helper()
		var out []string
		MustView(t, s, func(tx loci.Tx) error {
			evs, err := tx.DueEvents(ctx, at, 10)
			for _, e := range evs {
				out = append(out, e.ID)
			}
			return err
		})
		return out
	}
	t.Run("Due", func(t *testing.T) {
		if got := due(base); len(got) != 0 {
			t.Errorf("due before any run_at: %v", got)
		}
		if got, want := due(base.Add(2*time.Second)), []string{"ev2", "ev1"}; !reflect.DeepEqual(got, want) {
			t.Errorf("due = %v, want %v (earliest first)", got, want)
		}
		if got := due(base.Add(2 * time.Hour)); len(got) != 3 {
			t.Errorf("due across workspaces = %v, want 3", got)
		}
	})
	now := base.Add(3 * time.Second)
	t.Run("ClaimOnce", func(t *testing.T) {
		// Workers that read the same event race to claim it: one wins.
		var mu sync.Mutex
		wins := 0
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := *e1
				var ok bool
				if err := s.Update(ctx, func(tx loci.Tx) (err error) {
					ok, err = tx.ClaimEvent(ctx, &c, now, now.Add(time.Minute))
					return err
				}); err != nil {
					t.Errorf("claim: %v", err)
				}
				if ok {
					mu.Lock()
					wins++
					if c.Attempts != 1 || !c.RunAt.Equal(now.Add(time.Minute)) {
						t.Errorf("claimed event = %+v, want attempts 1 and run_at in a minute", c)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d workers claimed the event, want 1", wins)
		}
		if got := due(now); !reflect.DeepEqual(got, []string{"ev2"}) {
			t.Errorf("due while claimed = %v, want [ev2]", got)
		}
		// Due again once the lease ends.
		if got := due(now.Add(time.Minute)); !reflect.DeepEqual(got, []string{"ev1", "ev2"}) && !reflect.DeepEqual(got, []string{"ev2", "ev1"}) {
			t.Errorf("due after the lease = %v, want ev1 and ev2", got)
		}
	})
	t.Run("Finish", func(t *testing.T) {
		stale := *e1 // attempts 0: a claim since lost
		stale.Status, stale.UpdatedAt = loci.EventFailed, now
		var ok bool
		MustUpdate(t, s, func(tx loci.Tx) (err error) { ok, err = tx.FinishEvent(ctx, &stale); return err })
		if ok {
			t.Errorf("a finish without the claim was recorded")
		}
		done := *e1
		done.Attempts, done.Status, done.Result, done.RunAt, done.UpdatedAt = 1, loci.EventSucceeded, json.RawMessage(`{"results":[]}`), now, now
		MustUpdate(t, s, func(tx loci.Tx) (err error) { ok, err = tx.FinishEvent(ctx, &done); return err })
		if !ok {
			t.Fatalf("the claim's finish was not recorded")
		}
		var got *loci.QueuedEvent
		MustView(t, s, func(tx loci.Tx) (err error) { got, err = tx.GetEvent(ctx, loci.DefaultWorkspace, "ev1"); return err })
		if got.Status != loci.EventSucceeded || string(got.Result) != `{"results":[]}` || got.Attempts != 1 || !got.UpdatedAt.Equal(now) {
			t.Errorf("finished event = %+v", got)
		}
		if got := due(now.Add(time.Minute)); !reflect.DeepEqual(got, []string{"ev2"}) {
			t.Errorf("due after the finish = %v, want [ev2]", got)
		}
		var n int
		MustView(t, s, func(tx loci.Tx) (err error) { n, err = tx.CountPendingEvents(ctx); return err })
		if n != 2 {
			t.Errorf("pending events = %d, want 2 (ev2, and ev3 of another workspace)", n)
		}
		// A finished event is not claimed again.
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			ok, err = tx.ClaimEvent(ctx, got, now.Add(time.Hour), now.Add(2*time.Hour))
			return err
		})
		if ok {
			t.Errorf("a finished event was claimed")
		}
	})
	t.Run("Delete", func(t *testing.T) {
		var n int
		MustUpdate(t, s, func(tx loci.Tx) (err error) { n, err = tx.DeleteEvents(ctx, "", "", now); return err })
		if n != 0 {
			t.Errorf("deleted %d finished before their finish, want 0", n)
		}
		MustUpdate(t, s, func(tx loci.Tx) (err error) { n, err = tx.DeleteEvents(ctx, "", "", now.Add(time.Second)); return err })
		if n != 1 {
			t.Errorf("deleted %d finished events, want 1 (ev1; pending ones stay)", n)
		}
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			n, err = tx.DeleteEvents(ctx, loci.DefaultWorkspace, "u2", time.Time{})
			return err
		})
		if n != 1 {
			t.Errorf("deleted %d events of user u2, want 1", n)
		}
		if got := due(now.Add(2 * time.Hour)); !reflect.DeepEqual(got, []string{"ev3"}) {
			t.Errorf("left = %v, want [ev3] (another workspace's)", got)
		}
	})
	t.Run("ScanAndDeleteByID", func(t *testing.T) {
		ws := "scan"
		at := func(id, user, agent string) *loci.QueuedEvent {
			e := event(id, ws, user, base)
			e.AgentID = agent
			return e
		}
		done := at("s4", "u2", "a2")
		done.Status, done.Result, done.Attempts = loci.EventSucceeded, json.RawMessage(`{"results":[{"id":"r1"}]}`), 1
		other := event("s5", "scan-other", "u1", base)
		MustUpdate(t, s, func(tx loci.Tx) error {
			for _, e := range []*loci.QueuedEvent{at("s2", "u1", ""), done, at("s1", "u1", "a1"), at("s3", "", "a1"), other} {
				if err := tx.InsertEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		scan := func(f loci.EventFilter) []string {
			t.Helper()
			var out []string
			MustView(t, s, func(tx loci.Tx) error {
				out = out[:0]
				return tx.ScanEvents(ctx, f, func(e *loci.QueuedEvent) error {
					if e.ID == done.ID && !reflect.DeepEqual(e, done) {
						t.Errorf("scanned %+v,\nwant %+v", e, done)
					}
					out = append(out, e.ID)
					return nil
				})
			})
			return out
		}
		none, u1, a1 := "", "u1", "a1"
		for _, tc := range []struct {
			name string
			f    loci.EventFilter
			want []string
		}{
			{"Workspace", loci.EventFilter{Workspace: ws}, []string{"s1", "s2", "s3", "s4"}},
			{"User", loci.EventFilter{Workspace: ws, UserID: &u1}, []string{"s1", "s2"}},
			{"NoUser", loci.EventFilter{Workspace: ws, UserID: &none}, []string{"s3"}},
			{"Agent", loci.EventFilter{Workspace: ws, AgentID: &a1}, []string{"s1", "s3"}},
			{"NoAgent", loci.EventFilter{Workspace: ws, AgentID: &none}, []string{"s2"}},
			{"UserAndAgent", loci.EventFilter{Workspace: ws, UserID: &u1, AgentID: &a1}, []string{"s1"}},
			{"OtherWorkspace", loci.EventFilter{Workspace: "scan-other", UserID: &u1}, []string{"s5"}},
			{"NoWorkspace", loci.EventFilter{UserID: &u1}, nil},
		} {
			if got := scan(tc.f); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: scanned %v, want %v", tc.name, got, tc.want)
			}
		}
		var n int
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			n, err = tx.DeleteEventsByID(ctx, ws, []string{"s1", "s4", "s5", "missing"})
			return err
		})
		if n != 2 {
			t.Errorf("deleted %d events by id, want 2 (s1 pending and s4 done; s5 is another workspace's)", n)
		}
		if got := scan(loci.EventFilter{Workspace: ws}); !reflect.DeepEqual(got, []string{"s2", "s3"}) {
			t.Errorf("left = %v, want [s2 s3]", got)
		}
		if got := scan(loci.EventFilter{Workspace: "scan-other"}); !reflect.DeepEqual(got, []string{"s5"}) {
			t.Errorf("another workspace's left = %v, want [s5]", got)
		}
	})
}
