package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// testUserSummaries: the user list holds registered users and every user
// a record names, once each, newest first, with the earliest creation,
// the latest update and the record count; match and paging narrow it.
func testUserSummaries(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	insertUserSummaries(t, s, at)
	list := func(f loci.UserFilter) ([]*loci.UserSummary, int) {
		t.Helper()
		f.Workspace = loci.DefaultWorkspace
		var users []*loci.UserSummary
		var total int
		MustView(t, s, func(tx loci.Tx) (err error) {
			users, total, err = tx.ListUserSummaries(ctx, f)
			return err
		})
		return users, total
	}
	t.Run("All", func(t *testing.T) {
		users, total := list(loci.UserFilter{})
		want := []loci.UserSummary{
			{UserID: "carol", CreatedAt: at(8), UpdatedAt: at(8), Memories: 0},
			{UserID: "bob", CreatedAt: at(3), UpdatedAt: at(4), Memories: 1},
			{UserID: "Alice", CreatedAt: at(1), UpdatedAt: at(9), Memories: 2},
		}
		if total != len(want) || len(users) != len(want) {
			t.Fatalf("got %d users of %d, want %d", len(users), total, len(want))
		}
		for i, w := range want {
			got := *users[i]
			if got.UserID != w.UserID || !got.CreatedAt.Equal(w.CreatedAt) || !got.UpdatedAt.Equal(w.UpdatedAt) || got.Memories != w.Memories {
				t.Errorf("user %d = %+v, want %+v", i, got, w)
			}
		}
	})
	t.Run("Page", func(t *testing.T) {
		users, total := list(loci.UserFilter{Limit: 1, Offset: 1})
		if total != 3 || len(users) != 1 || users[0].UserID != "bob" {
			t.Errorf("page = %v of %d, want [bob] of 3", summaryIDs(users), total)
		}
		users, total = list(loci.UserFilter{Limit: 5, Offset: 10})
		if total != 3 || len(users) != 0 {
			t.Errorf("page past the end = %v of %d, want none of 3", summaryIDs(users), total)
		}
	})
	t.Run("Match", func(t *testing.T) {
		users, total := list(loci.UserFilter{Match: "ALI"})
		if total != 1 || !slices.Equal(summaryIDs(users), []string{"Alice"}) {
			t.Errorf("match ALI = %v of %d, want [Alice] of 1", summaryIDs(users), total)
		}
		users, total = list(loci.UserFilter{Match: "o"})
		if total != 2 || !slices.Equal(summaryIDs(users), []string{"carol", "bob"}) {
			t.Errorf("match o = %v of %d, want [carol bob] of 2", summaryIDs(users), total)
		}
		users, total = list(loci.UserFilter{Match: "%"})
		if total != 0 || len(users) != 0 {
			t.Errorf("match %% = %v of %d, want none: the text is matched as is", summaryIDs(users), total)
		}
	})
	t.Run("LargePage", func(t *testing.T) {
		// More users than one statement of a backend may name (SQLite
		// reads a page's users' updates 500 at a time): each with its
		// own first and last time and count, half registered too.
		const n = 1200
		var recs []*loci.Record
		for i := range n {
			user := fmt.Sprintf("many-%04d", i)
			for j := range 1 + i%3 {
				r := NewRecord(loci.KindFact, loci.Scope{AgentID: "a", UserID: user}, "", "x")
				r.Workspace = "many"
				r.CreatedAt, r.UpdatedAt = at(100+i+j), at(5000+i-j)
				recs = append(recs, r)
			}
		}
		MustInsert(t, s, recs...)
		MustUpdate(t, s, func(tx loci.Tx) error {
			for i := 0; i < n; i += 2 {
				// Registered after its records, and updated last there.
				if _, _, err := tx.EnsureUser(ctx, "many", fmt.Sprintf("many-%04d", i), at(9000+i)); err != nil {
					return err
				}
			}
			return nil
		})
		var users []*loci.UserSummary
		var total int
		MustView(t, s, func(tx loci.Tx) (err error) {
			users, total, err = tx.ListUserSummaries(ctx, loci.UserFilter{Workspace: "many", Limit: 1000, Offset: 100})
			return err
		})
		if total != n || len(users) != 1000 {
			t.Fatalf("got %d users of %d, want 1000 of %d", len(users), total, n)
		}
		for k, u := range users {
			i := n - 1 - 100 - k // newest first: the latest first record
			want := loci.UserSummary{UserID: fmt.Sprintf("many-%04d", i), CreatedAt: at(100 + i), UpdatedAt: at(5000 + i), Memories: 1 + i%3}
			if i%2 == 0 {
				want.UpdatedAt = at(9000 + i)
			}
			if u.UserID != want.UserID || !u.CreatedAt.Equal(want.CreatedAt) || !u.UpdatedAt.Equal(want.UpdatedAt) || u.Memories != want.Memories {
				t.Fatalf("user %d = %+v, want %+v", k, *u, want)
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		var users []*loci.UserSummary
		var total int
		MustView(t, s, func(tx loci.Tx) (err error) {
			users, total, err = tx.ListUserSummaries(ctx, loci.UserFilter{Workspace: "nobody"})
			return err
		})
		if total != 0 || users == nil || len(users) != 0 {
			t.Errorf("empty workspace = %v of %d, want an empty list", users, total)
		}
	})
}

// insertUserSummaries stores the users testUserSummaries lists: Alice
// (two records, registered after the first), bob (one record), carol
// (registered only, newest), a global record and, in another workspace,
// mallory.
func insertUserSummaries(t *testing.T, s loci.Store, at func(h int) time.Time) {
	ctx := context.Background()
	rec := func(k loci.Kind, user string, created, updated int) *loci.Record {
		r := NewRecord(k, loci.Scope{AgentID: "a", UserID: user}, "", "x")
		r.CreatedAt, r.UpdatedAt = at(created), at(updated)
		return r
	}
	MustInsert(t, s,
		rec(loci.KindFact, "Alice", 1, 1),
		rec(loci.KindEpisode, "Alice", 5, 9), // Alice: created at 1, updated at 9, 2 records (+ registered)
		rec(loci.KindPreference, "bob", 3, 4),
		rec(loci.KindFact, "", 7, 7), // global: no user
	)
	other := NewRecord(loci.KindFact, loci.Scope{UserID: "mallory"}, "", "x")
	other.Workspace = "other"
	MustInsert(t, s, other)
	MustUpdate(t, s, func(tx loci.Tx) error {
		// Alice registered after her first record; carol is registered
		// only, and newest.
		if _, _, err := tx.EnsureUser(ctx, loci.DefaultWorkspace, "Alice", at(2)); err != nil {
			return err
		}
		if _, _, err := tx.EnsureUser(ctx, loci.DefaultWorkspace, "carol", at(8)); err != nil {
			return err
		}
		_, _, err := tx.EnsureUser(ctx, "other", "mallory", at(8))
		return err
	})
}

func gc(value string, count int) loci.GroupCount { return loci.GroupCount{Value: value, Count: count} }

func summaryIDs(users []*loci.UserSummary) []string {
	out := []string{}
	for _, u := range users {
		out = append(out, u.UserID)
	}
	return out
}

// testCountRecordsBy: groups by kind, agent, user and UTC day, most
// records first, ties by value; the filter applies; empty scope values
// are left out; the total counts every group whatever the limit.
func testCountRecordsBy(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 30, 0, 0, time.UTC) }
	rec := func(k loci.Kind, agent, user string, created time.Time) *loci.Record {
		r := NewRecord(k, loci.Scope{AgentID: agent, UserID: user}, "", "x")
		r.CreatedAt, r.UpdatedAt = created, created
		return r
	}
	MustInsert(t, s,
		rec(loci.KindNote, "a1", "", day(1, 0)),
		rec(loci.KindNote, "a1", "", day(1, 23)),
		rec(loci.KindNote, "a2", "", day(2, 1)),
		rec(loci.KindFact, "", "u1", day(2, 2)),
		rec(loci.KindFact, "a2", "u2", day(4, 5)),
		rec(loci.KindEpisode, "a1", "u1", day(4, 6)),
	)
	other := NewRecord(loci.KindNote, loci.Scope{AgentID: "a1"}, "", "x")
	other.Workspace = "other"
	MustInsert(t, s, other)
	count := func(f loci.RecordFilter, by loci.Grouping, limit int) ([]loci.GroupCount, int) {
		t.Helper()
		var groups []loci.GroupCount
		var total int
		MustView(t, s, func(tx loci.Tx) (err error) {
			groups, total, err = tx.CountRecordsBy(ctx, f, by, limit)
			return err
		})
		return groups, total
	}
	tests := []struct {
		name      string
		f         loci.RecordFilter
		by        loci.Grouping
		limit     int
		want      []loci.GroupCount
		wantTotal int
	}{
		{"Kind", all(), loci.GroupKind, 0, []loci.GroupCount{gc("note", 3), gc("fact", 2), gc("episode", 1)}, 3},
		{"KindLimit", all(), loci.GroupKind, 1, []loci.GroupCount{gc("note", 3)}, 3},
		{"Agent", all(), loci.GroupAgent, 0, []loci.GroupCount{gc("a1", 3), gc("a2", 2)}, 2},
		{"User", all(), loci.GroupUser, 0, []loci.GroupCount{gc("u1", 2), gc("u2", 1)}, 2},
		{"UserOfAgent", loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a2")}, loci.GroupUser, 0,
			[]loci.GroupCount{gc("u2", 1)}, 1},
		{"Day", all(), loci.GroupDay, 0, []loci.GroupCount{gc("2026-03-01", 2), gc("2026-03-02", 2), gc("2026-03-04", 2)}, 3},
		{"DaySince", loci.RecordFilter{Workspace: loci.DefaultWorkspace, CreatedAfter: day(2, 1)}, loci.GroupDay, 0,
			[]loci.GroupCount{gc("2026-03-04", 2), gc("2026-03-02", 1)}, 2},
		{"KindsFiltered", loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindEpisode}}, loci.GroupAgent, 0,
			[]loci.GroupCount{gc("a1", 1)}, 1},
		{"None", loci.RecordFilter{Workspace: "nobody"}, loci.GroupKind, 0, []loci.GroupCount{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, total := count(tt.f, tt.by, tt.limit)
			if !slices.Equal(got, tt.want) || total != tt.wantTotal {
				t.Errorf("got %v of %d, want %v of %d", got, total, tt.want, tt.wantTotal)
			}
		})
	}
}
