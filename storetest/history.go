package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// testKeyHistory: a key is unique among the records that are not history
// (invalid_at unset), and a fact's key among the open facts of its user
// whatever the agent; validity and review round-trip through an update and
// filter searches.
func testKeyHistory(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	at := base.Add(time.Hour)
	old := NewRecord(loci.KindFact, loci.Scope{UserID: "u", AgentID: "a"}, "home_city", "lives in Paris")
	old.ValidAt, old.InvalidAt = base, at
	cur := NewRecord(loci.KindFact, loci.Scope{UserID: "u", AgentID: "a"}, "home_city", "lives in Berlin")
	cur.ValidAt = at
	MustInsert(t, s, old, cur)
	t.Run("ErrSecondOpenVersion", func(t *testing.T) {
		dup := NewRecord(loci.KindFact, loci.Scope{UserID: "u", AgentID: "a"}, "home_city", "lives in Rome")
		wantCode(t, s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, dup) }), loci.ECONFLICT)
	})
	t.Run("ErrOpenFactOfAnotherAgent", func(t *testing.T) {
		dup := NewRecord(loci.KindFact, loci.Scope{UserID: "u", AgentID: "b"}, "home_city", "lives in Rome")
		wantCode(t, s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, dup) }), loci.ECONFLICT)
	})
	t.Run("OtherUserOrKindIsAnotherSlot", func(t *testing.T) {
		MustInsert(t, s, NewRecord(loci.KindFact, loci.Scope{AgentID: "a"}, "home_city", "global"),
			NewRecord(loci.KindNote, loci.Scope{UserID: "u", AgentID: "b"}, "home_city", "a note"))
	})
	t.Run("ErrReopenOntoOpenVersion", func(t *testing.T) {
		err := s.Update(ctx, func(tx loci.Tx) error {
			reopened := *old
			reopened.InvalidAt, reopened.Version = time.Time{}, 2
			if err := tx.UpdateRecord(ctx, &reopened, 1); loci.ErrorCode(err) != loci.ECONFLICT {
				t.Errorf("reopen: error code = %q (%v), want conflict", loci.ErrorCode(err), err)
			}
			// The transaction is still usable: supersede cur instead.
			next := *cur
			next.InvalidAt, next.Review, next.Version = at.Add(time.Hour), loci.ReviewDisputed, 2
			return tx.UpdateRecord(ctx, &next, 1)
		})
		if err != nil {
			t.Fatal(err)
		}
		got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{cur.ID}})
		if len(got) != 1 || !got[0].ValidAt.Equal(at) || !got[0].InvalidAt.Equal(at.Add(time.Hour)) || got[0].Review != loci.ReviewDisputed {
			t.Fatalf("after update: %+v", got)
		}
		// With cur closed, a new open version fits.
		rome := NewRecord(loci.KindFact, loci.Scope{UserID: "u", AgentID: "b"}, "home_city", "lives in Rome")
		rome.ValidAt = at.Add(time.Hour)
		MustInsert(t, s, rome)
	})
	t.Run("SearchAsOf", func(t *testing.T) {
		search := func(asOf time.Time) []string {
			t.Helper()
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindFact}, UserID: loci.Ptr("u"), AsOf: asOf}
			var ids []string
			for _, r := range SearchLexical(t, s, f, []string{"lives"}, 10) {
				ids = append(ids, r.Record.ID)
			}
			var got []string
			for _, r := range MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: ids}) {
				got = append(got, r.Content)
			}
			slices.Sort(got)
			return got
		}
		if got, want := search(base), []string{"lives in Paris"}; !slices.Equal(got, want) {
			t.Errorf("as of %v: %v, want %v", base, got, want)
		}
		if got, want := search(at), []string{"lives in Berlin"}; !slices.Equal(got, want) {
			t.Errorf("as of %v: %v, want %v", at, got, want)
		}
		if got, want := search(at.Add(2*time.Hour)), []string{"lives in Rome"}; !slices.Equal(got, want) {
			t.Errorf("as of %v: %v, want %v", at.Add(2*time.Hour), got, want)
		}
	})
}
