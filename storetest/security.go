package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// MustUpdate runs fn in a write transaction or fails the test.
func MustUpdate(t testing.TB, s loci.Store, fn func(tx loci.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// MustView runs fn in a read transaction or fails the test.
func MustView(t testing.TB, s loci.Store, fn func(tx loci.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

func testListUsers(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	MustUpdate(t, s, func(tx loci.Tx) error {
		for _, id := range []string{"u2", "u1", "u3"} {
			if _, _, err := tx.EnsureUser(ctx, loci.DefaultWorkspace, id, base); err != nil {
				return err
			}
		}
		_, _, err := tx.EnsureUser(ctx, "other", "u9", base)
		return err
	})
	MustView(t, s, func(tx loci.Tx) error {
		users, total, err := tx.ListUsers(ctx, loci.DefaultWorkspace, 2, 1)
		if err != nil {
			return err
		}
		var got []string
		for _, u := range users {
			got = append(got, u.ID)
		}
		if total != 3 || !slices.Equal(got, []string{"u2", "u3"}) {
			t.Errorf("ListUsers(limit 2, offset 1) = %v of %d, want [u2 u3] of 3", got, total)
		}
		all, total, err := tx.ListUsers(ctx, loci.DefaultWorkspace, 0, 0)
		if err != nil || len(all) != 3 || total != 3 || !all[0].CreatedAt.Equal(base) {
			t.Errorf("ListUsers(all) = %d users of %d, %v", len(all), total, err)
		}
		for ws, want := range map[string]int{loci.DefaultWorkspace: 0, "other": 1} {
			one, total, err := tx.FindUsers(ctx, loci.UserFilter{Workspace: ws, ID: "u9"})
			if err != nil || len(one) != want || total != want || (want == 1 && one[0].ID != "u9") {
				t.Errorf("FindUsers(%s, u9) = %d users of %d, %v; want %d", ws, len(one), total, err, want)
			}
		}
		return nil
	})
}

func testKeys(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	k1 := &loci.APIKey{ID: "k1", Workspace: loci.DefaultWorkspace, Name: "ci", Role: loci.RoleEditor, AgentID: "a1", Hash: "h1", CreatedAt: base}
	k2 := &loci.APIKey{ID: "k2", Workspace: "other", Role: loci.RoleAdmin, Hash: "h2", CreatedAt: base.Add(time.Second)}
	MustUpdate(t, s, func(tx loci.Tx) error {
		if err := tx.InsertKey(ctx, k1); err != nil {
			return err
		}
		return tx.InsertKey(ctx, k2)
	})
	t.Run("ErrDuplicateHash", func(t *testing.T) {
		err := s.Update(ctx, func(tx loci.Tx) error {
			return tx.InsertKey(ctx, &loci.APIKey{ID: "k3", Workspace: "x", Role: loci.RoleViewer, Hash: "h1", CreatedAt: base})
		})
		wantCode(t, err, loci.ECONFLICT)
	})
	t.Run("GetByHash", func(t *testing.T) {
		MustView(t, s, func(tx loci.Tx) error {
			got, err := tx.GetKeyByHash(ctx, "h1")
			if err != nil {
				return err
			}
			if got.ID != "k1" || got.Role != loci.RoleEditor || got.AgentID != "a1" || got.Name != "ci" ||
				got.Workspace != loci.DefaultWorkspace || !got.CreatedAt.Equal(base) || !got.Active() {
				t.Errorf("GetKeyByHash = %+v, want %+v", got, k1)
			}
			_, err = tx.GetKeyByHash(ctx, "nope")
			wantCode(t, err, loci.ENOTFOUND)
			_, err = tx.GetKeyByHash(ctx, "") // not "every key"
			wantCode(t, err, loci.ENOTFOUND)
			return nil
		})
	})
	t.Run("List", func(t *testing.T) {
		MustView(t, s, func(tx loci.Tx) error {
			all, err := tx.ListKeys(ctx, "")
			if err != nil || len(all) != 2 || all[0].ID != "k1" || all[1].ID != "k2" {
				t.Errorf("ListKeys(all) = %v, %v; want k1, k2", all, err)
			}
			other, err := tx.ListKeys(ctx, "other")
			if err != nil || len(other) != 1 || other[0].ID != "k2" {
				t.Errorf("ListKeys(other) = %v, %v; want k2", other, err)
			}
			return nil
		})
	})
	t.Run("Revoke", func(t *testing.T) {
		err := s.Update(ctx, func(tx loci.Tx) error { return tx.RevokeKey(ctx, loci.DefaultWorkspace, "k2", base) })
		wantCode(t, err, loci.ENOTFOUND) // k2 is in another workspace
		MustUpdate(t, s, func(tx loci.Tx) error { return tx.RevokeKey(ctx, "", "k2", base.Add(time.Hour)) })
		err = s.Update(ctx, func(tx loci.Tx) error { return tx.RevokeKey(ctx, "", "k2", base) })
		wantCode(t, err, loci.ENOTFOUND) // already revoked
		MustView(t, s, func(tx loci.Tx) error {
			got, err := tx.GetKeyByHash(ctx, "h2")
			if err != nil || got.Active() || !got.RevokedAt.Equal(base.Add(time.Hour)) {
				t.Errorf("revoked key = %+v, %v", got, err)
			}
			return nil
		})
	})
}

func testAudit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	entry := func(id string, at time.Time, agent, user string) *loci.AuditEntry {
		return &loci.AuditEntry{ID: id, Time: at, KeyID: "k1", Role: loci.RoleViewer, Operation: "GET /x",
			Workspace: loci.DefaultWorkspace, Scope: loci.Scope{AgentID: agent, UserID: user, SessionID: "s", TaskID: "t"},
			Kind: loci.KindNote, RecordIDs: []string{"r1", "r2"}, Count: 2, Status: 200}
	}
	MustUpdate(t, s, func(tx loci.Tx) error {
		for _, e := range []*loci.AuditEntry{
			entry("e1", base, "a1", ""), entry("e2", base.Add(time.Hour), "a2", "u1"), entry("e3", base.Add(2*time.Hour), "a1", "u1"),
		} {
			if err := tx.InsertAudit(ctx, e); err != nil {
				return err
			}
		}
		other := entry("e4", base, "a1", "")
		other.Workspace = "other"
		return tx.InsertAudit(ctx, other)
	})
	find := func(f loci.AuditFilter) ([]string, int) {
		t.Helper()
		var got []string
		var total int
		f.Workspace = loci.DefaultWorkspace
		MustView(t, s, func(tx loci.Tx) error {
			entries, n, err := tx.FindAudit(ctx, f)
			for _, e := range entries {
				got = append(got, e.ID)
			}
			total = n
			return err
		})
		return got, total
	}
	tests := []struct {
		name  string
		f     loci.AuditFilter
		want  []string
		total int
	}{
		{"All", loci.AuditFilter{}, []string{"e3", "e2", "e1"}, 3},
		{"Agent", loci.AuditFilter{AgentID: "a1"}, []string{"e3", "e1"}, 2},
		{"User", loci.AuditFilter{UserID: "u1"}, []string{"e3", "e2"}, 2},
		{"Since", loci.AuditFilter{Since: base.Add(time.Hour)}, []string{"e3", "e2"}, 2},
		{"Limit", loci.AuditFilter{Limit: 1, Offset: 1}, []string{"e2"}, 3},
		{"Key", loci.AuditFilter{KeyID: "k9"}, nil, 0},
		{"Operation", loci.AuditFilter{Operation: "GET /x"}, []string{"e3", "e2", "e1"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total := find(tt.f)
			if !slices.Equal(got, tt.want) || total != tt.total {
				t.Errorf("got %v of %d, want %v of %d", got, total, tt.want, tt.total)
			}
		})
	}
	t.Run("Fields", func(t *testing.T) {
		MustView(t, s, func(tx loci.Tx) error {
			entries, _, err := tx.FindAudit(ctx, loci.AuditFilter{Workspace: loci.DefaultWorkspace, Limit: 1})
			if err != nil {
				return err
			}
			want := entry("e3", base.Add(2*time.Hour), "a1", "u1")
			got := entries[0]
			if got.KeyID != want.KeyID || got.Role != want.Role || got.Operation != want.Operation || got.Scope != want.Scope ||
				got.Kind != want.Kind || !slices.Equal(got.RecordIDs, want.RecordIDs) || got.Count != 2 || got.Status != 200 ||
				!got.Time.Equal(want.Time) || got.Workspace != want.Workspace {
				t.Errorf("got %+v, want %+v", got, want)
			}
			return nil
		})
	})
	testPruneAudit(t, s, entry, find)
}

// testPruneAudit prunes testAudit's log (e1 to e4, e4 in another
// workspace) by age, by count and by both.
func testPruneAudit(t *testing.T, s loci.Store, entry func(id string, at time.Time, agent, user string) *loci.AuditEntry,
	find func(f loci.AuditFilter) ([]string, int)) {
	ctx := context.Background()
	t.Run("PruneBefore", func(t *testing.T) {
		var n int
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			n, err = tx.PruneAudit(ctx, base.Add(time.Hour), 0)
			return err
		})
		if n != 2 { // e1 and e4 (every workspace)
			t.Errorf("deleted %d, want 2", n)
		}
		if got, _ := find(loci.AuditFilter{}); !slices.Equal(got, []string{"e3", "e2"}) {
			t.Errorf("left %v, want [e3 e2]", got)
		}
	})
	t.Run("PruneBeyond", func(t *testing.T) {
		var n int
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			if n, err = tx.PruneAudit(ctx, time.Time{}, 2); err != nil || n != 0 {
				return fmt.Errorf("keep 2 of 2: deleted %d, %v", n, err)
			}
			n, err = tx.PruneAudit(ctx, time.Time{}, 1)
			return err
		})
		if n != 1 { // e2, written before e3
			t.Errorf("deleted %d, want 1", n)
		}
		if got, _ := find(loci.AuditFilter{}); !slices.Equal(got, []string{"e3"}) {
			t.Errorf("left %v, want [e3]", got)
		}
	})
	t.Run("PruneBoth", func(t *testing.T) {
		// e5 is old, e6 new: the age bound takes e5, then the count
		// bound the oldest written of the two left, e3.
		var n int
		MustUpdate(t, s, func(tx loci.Tx) (err error) {
			for _, e := range []*loci.AuditEntry{entry("e5", base, "a1", ""), entry("e6", base.Add(3*time.Hour), "a1", "")} {
				if err := tx.InsertAudit(ctx, e); err != nil {
					return err
				}
			}
			n, err = tx.PruneAudit(ctx, base.Add(time.Hour), 1)
			return err
		})
		if n != 2 {
			t.Errorf("deleted %d, want 2", n)
		}
		if got, _ := find(loci.AuditFilter{}); !slices.Equal(got, []string{"e6"}) {
			t.Errorf("left %v, want [e6]", got)
		}
	})
}
