package rules_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestExpireSessions: the expire task deletes a non-persistent session (and
// its messages) once its expires_at has passed, and never a persistent one.
func TestExpireSessions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		msgs := []loci.Message{{Role: "user", Content: "hello there"}, {Role: "assistant", Content: "hi"}}
		for _, tc := range []struct {
			id         string
			persistent bool
		}{{"brief", false}, {"kept", true}} {
			if _, _, err := e.svc.PutSession(e.ctx, tc.id, loci.SessionPut{
				UserID: "u", Messages: msgs, IsPersistent: tc.persistent, ExpiresAt: lcT0.Add(time.Hour),
			}); err != nil {
				t.Fatal(err)
			}
		}
		expire := func() *loci.MaintenanceResult {
			t.Helper()
			rep, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: []string{"expire"}})
			if err != nil {
				t.Fatal(err)
			}
			return rep.Tasks["expire"]
		}
		if got := expire(); got.Deleted != 0 {
			t.Fatalf("before expiry: deleted %d, want 0", got.Deleted)
		}
		e.clock.Add(time.Hour)
		if got := expire(); got.Deleted != 3 {
			t.Fatalf("at expiry: deleted %d records, want the session and its 2 messages", got.Deleted)
		}
		if _, err := e.svc.GetSession(e.ctx, "brief"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Fatalf("expired session: err %v, want not_found", err)
		}
		if s, err := e.svc.GetSession(e.ctx, "kept"); err != nil || len(s.Messages) != 2 {
			t.Fatalf("persistent session: %+v, %v; want it kept with its messages", s, err)
		}
	})
}

// TestExpireSessionOfItsUser: a session id held by two users' sessions
// (which only an import of another workspace could bring about) is
// expired, and deleted, for the user whose session expired alone: the
// other user's persistent session and its messages stay.
func TestExpireSessionOfItsUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		if _, _, err := e.svc.PutSession(e.ctx, "s1", loci.SessionPut{
			UserID: "u1", IsPersistent: true, Messages: []loci.Message{{Role: "user", Content: "mine"}},
		}); err != nil {
			t.Fatal(err)
		}
		e.lcInsert(t, &loci.Record{Kind: loci.KindSession, Scope: loci.Scope{UserID: "u2", SessionID: "s1"}, Key: "s1",
			Category: "session", Data: json.RawMessage(`{"context":{},"is_persistent":false}`), CreatedAt: lcT0,
			ExpiresAt: lcT0.Add(time.Hour)})
		e.clock.Add(2 * time.Hour)
		rep, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: []string{"expire"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Tasks["expire"].Deleted; got != 1 {
			t.Errorf("expire deleted %d records, want u2's session alone", got)
		}
		if s, err := e.svc.GetSession(e.ctx, "s1"); err != nil || s.UserID != "u1" || len(s.Messages) != 1 {
			t.Errorf("u1's persistent session: %+v, %v; want it kept with its message", s, err)
		}
	})
}
