package rules

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// TestPagesOfKindsMerged: a page of several kinds in written order, read
// a kind at a time and merged (findPage), and a live count, counted as
// all less the expired (countLive), give what the backend's one read and
// count give, for records written at the same microsecond in different
// kinds, expired ones and a lasting kind, newest or oldest first, at
// every offset, on every backend.
func TestPagesOfKindsMerged(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		ctx := context.Background()
		db := open(t)
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		now := base.Add(time.Hour)
		kinds := []loci.Kind{loci.KindEpisode, loci.KindFact, loci.KindPreference, loci.KindWorking, loci.KindSession}
		var recs []*loci.Record
		for i := range 240 {
			r := storetest.NewRecord(kinds[i*7%len(kinds)], loci.Scope{AgentID: "a", UserID: fmt.Sprint("u", i%2)}, "", fmt.Sprint("memory ", i))
			r.CreatedAt = base.Add(time.Duration(i/6) * time.Minute) // six at each time
			r.UpdatedAt = r.CreatedAt
			switch i % 5 {
			case 1:
				r.ExpiresAt = now.Add(-time.Minute) // expired, but kept for a lasting kind
			case 2:
				r.ExpiresAt = now.Add(time.Minute)
			}
			recs = append(recs, r)
		}
		storetest.MustInsert(t, db, recs...)
		ids := func(rs []*loci.Record) []string {
			var out []string
			for _, r := range rs {
				out = append(out, r.ID)
			}
			return out
		}
		for _, kinds := range [][]loci.Kind{nil, {loci.KindEpisode, loci.KindFact}, {loci.KindFact, loci.KindSession, loci.KindWorking, loci.KindFact}} {
			for _, order := range []loci.Order{loci.OrderCreatedDesc, loci.OrderCreatedAsc} {
				for _, user := range []*string{loci.Ptr("u1"), nil} {
					for _, page := range [][2]int{{10, 0}, {7, 3}, {25, 40}, {50, 100}, {5, 500}} {
						f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: kinds, AgentID: loci.Ptr("a"), UserID: user,
							Order: order, Limit: page[0], Offset: page[1], LiveAt: now, Lasting: []loci.Kind{loci.KindSession}}
						if page[1] == 40 {
							f.CreatedBefore = base.Add(30 * time.Minute)
						}
						name := fmt.Sprintf("%v/%v/%v/%v", kinds, order, user != nil, page)
						err := db.View(ctx, func(tx loci.Tx) error {
							want, err := tx.FindRecords(ctx, f)
							if err != nil {
								return err
							}
							wantN, err := tx.CountRecords(ctx, f)
							if err != nil {
								return err
							}
							got, err := findPage(ctx, tx, f)
							if err != nil {
								return err
							}
							n, err := countLive(ctx, tx, f)
							if err != nil {
								return err
							}
							if !slices.Equal(ids(got), ids(want)) {
								t.Errorf("%s: page\n%v\nwant\n%v", name, ids(got), ids(want))
							}
							if n != wantN || n == 0 {
								t.Errorf("%s: count %d, want %d", name, n, wantN)
							}
							return nil
						})
						if err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	})
}

// BenchmarkListMemories lists a page of one user's 100,000 memories of
// four kinds, newest first, with their count, as GET /v1/memories does.
//
//	go test ./rules -run XXX -bench ListMemories
func BenchmarkListMemories(b *testing.B) {
	store := testdb.OpenSQLite(b)
	kinds := []loci.Kind{loci.KindEpisode, loci.KindFact, loci.KindPreference, loci.KindWorking}
	var recs []*loci.Record
	for i := range 100000 {
		recs = append(recs, storetest.NewRecord(kinds[i%4], loci.Scope{AgentID: "a", UserID: "u"}, "", fmt.Sprint("memory ", i)))
	}
	ctx := context.Background()
	if err := store.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, recs) }); err != nil {
		b.Fatal(err)
	}
	s := New(store)
	defer s.Close()
	for b.Loop() {
		page, total, err := s.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}, Limit: 50})
		if err != nil || len(page) != 50 || total != 100000 {
			b.Fatalf("listed %d of %d: %v", len(page), total, err)
		}
	}
}
