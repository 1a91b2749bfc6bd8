package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/storetest"
)

// BenchmarkScopeReads reads what the service reads of one scope among
// 100,000 records of others: a session by its id among a user's 2,000
// sessions of 50 messages (findSession), a page of 20 of the user's
// sessions, and their count (ListUserSessions), an expiry sweep that finds 10 expired
// episodes among 100,000 live ones (expire), and one agent's 100 notes
// among 1,000 agents' (ListNotes: its count and a page by key; a search
// index's load of the agent's scope: all its records of no user; and an
// agent's scope for one of 100 users: its records of the user or of none;
// a user's review queue among the user's 100,000 facts).
// Each
// should cost what it returns, or what its scope holds, not what the
// workspace holds.
//
//	go test ./sqlite -run XXX -bench ScopeReads
func BenchmarkScopeReads(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "loci.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UTC()
	var recs []*loci.Record
	for s := range 2000 {
		sid := fmt.Sprint("s", s)
		r := storetest.NewRecord(loci.KindSession, loci.Scope{UserID: "u", SessionID: sid}, sid, "")
		r.Category = "session"
		recs = append(recs, r)
		for m := range 50 {
			r := storetest.NewRecord(loci.KindSession, loci.Scope{UserID: "u", SessionID: sid}, "", fmt.Sprint("message ", m))
			r.Category = "message"
			recs = append(recs, r)
		}
	}
	for i := range 100000 {
		r := storetest.NewRecord(loci.KindEpisode, loci.Scope{AgentID: "a", UserID: fmt.Sprint("u", i%100)}, "", fmt.Sprint("episode ", i))
		r.ExpiresAt = now.Add(time.Hour)
		if i%10000 == 0 {
			r.ExpiresAt = now.Add(-time.Hour)
		}
		recs = append(recs, r)
	}
	for i := range 100000 {
		recs = append(recs, storetest.NewRecord(loci.KindNote, loci.Scope{AgentID: fmt.Sprint("a", i%1000)}, fmt.Sprint("k", i/1000), "value"))
	}
	// One user's 100,000 facts, 5 of them disputed.
	for i := range 100000 {
		r := storetest.NewRecord(loci.KindFact, loci.Scope{AgentID: "a", UserID: "rv"}, "", fmt.Sprint("fact ", i))
		if i%20000 == 0 {
			r.Review = loci.ReviewDisputed
		}
		recs = append(recs, r)
	}
	if err := db.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, recs) }); err != nil {
		b.Fatal(err)
	}
	none := ""
	notes := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindNote}, AgentID: loci.Ptr("a7"),
		UserID: &none, SessionID: &none, TaskID: &none, LiveAt: now}
	page := notes
	page.Order, page.Limit = loci.OrderKeyAsc, 50
	agentScope := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a7"), UserID: &none, Order: loci.OrderNone}
	agentUserScope := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a"), UserID: loci.Ptr("u7"), OrGlobalUser: true, Order: loci.OrderNone}
	review := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: loci.ReviewedKinds(), UserID: loci.Ptr("rv"),
		Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}, Order: loci.OrderUpdatedDesc, Limit: 50,
		AsOf: now, LiveAt: now}
	sessions := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession}, UserID: loci.Ptr("u"),
		Category: loci.Ptr("session"), Keyed: true, Order: loci.OrderUpdatedDesc, Limit: 20}
	for _, c := range []struct {
		name  string
		f     loci.RecordFilter
		count bool
		want  int
	}{
		{"FindSession", loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession},
			SessionID: loci.Ptr("s7"), Key: loci.Ptr("s7"), Category: loci.Ptr("session")}, false, 1},
		{"UserSessions", sessions, false, 20},
		{"CountUserSessions", func() loci.RecordFilter { f := sessions; f.Order, f.Limit = 0, 0; return f }(), true, 2000},
		{"Expire", loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindEpisode, loci.KindWorking, loci.KindNote},
			ExpiredAt: now, Order: loci.OrderCreatedAsc}, false, 10},
		{"CountNotes", notes, true, 100},
		// A search index's scope: the agent's records of no user, every
		// kind (index/cache.go load).
		{"AgentScope", agentScope, false, 100},
		{"CountAgentScope", agentScope, true, 100},
		// An agent's search for a user: the agent's records of that user
		// or of none (SearchAgentMemory, OrGlobalUser).
		{"AgentUserScope", agentUserScope, false, 1000},
		{"CountAgentUserScope", agentUserScope, true, 1000},
		{"ListNotes", page, false, 50},
		// A note by its key (recall, and every remember's read),
		// among the 1,000 agents' notes of that key.
		{"FindNote", func() loci.RecordFilter { f := notes; f.Key = loci.Ptr("k3"); return f }(), false, 1},
		// A user's review queue (rules.ReviewQueue): 5 waiting among
		// the user's 100,000 facts.
		{"ReviewQueue", review, false, 5},
		{"CountReviewQueue", review, true, 5},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				readScope(b, db, c.f, c.count, c.want)
			}
		})
	}
}

// readScope reads (or counts, when count) what f selects in a read
// transaction, and fails b unless it finds want.
func readScope(b *testing.B, db *DB, f loci.RecordFilter, count bool, want int) {
	b.Helper()
	ctx := context.Background()
	err := db.View(ctx, func(tx loci.Tx) error {
		var n int
		var err error
		if count {
			n, err = tx.CountRecords(ctx, f)
		} else {
			var recs []*loci.Record
			recs, err = tx.FindRecords(ctx, f)
			n = len(recs)
		}
		if err == nil && n != want {
			err = fmt.Errorf("found %d, want %d", n, want)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// TestScopeReadsUseTheirIndexes: reads that find a few records among a
// workspace's, or one agent's, search the index of what they ask, not of
// a wider scope that the planner (without statistics) preferred for the
// number of its equality terms: a session by its id (findSession names
// its session), a user's sessions without their messages (Keyed), an expiry sweep's records and its deletion, and an
// agent's notes, counted and listed by key.
func TestScopeReadsUseTheirIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	none, now := "", time.Now()
	notes := loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindNote}, AgentID: loci.Ptr("a"),
		UserID: &none, SessionID: &none, TaskID: &none, LiveAt: now}
	expired := loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindEpisode, loci.KindWorking}, ExpiredAt: now}
	// As rules.ReviewQueue asks it.
	review := loci.RecordFilter{Workspace: "w", Kinds: loci.ReviewedKinds(), UserID: loci.Ptr("u"),
		Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}, Order: loci.OrderUpdatedDesc, Limit: 50,
		AsOf: now, LiveAt: now}
	for _, c := range []struct {
		name  string
		f     loci.RecordFilter
		count bool
		index string
	}{
		{"Session", loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindSession}, SessionID: loci.Ptr("s1"),
			Key: loci.Ptr("s1"), Category: loci.Ptr("session")}, false, "records_session"},
		{"UserSessions", loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindSession}, UserID: loci.Ptr("u"),
			Category: loci.Ptr("session"), Keyed: true, Order: loci.OrderUpdatedDesc, Limit: 20}, false, "records_key_versions"},
		{"Expired", expired, false, "records_expires"},
		{"ExpiredFacts", loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindFact}, ExpiredAt: now,
			Order: loci.OrderCreatedAsc}, false, "records_expires"},
		{"CountNotes", notes, true, "records_agent"},
		{"ListNotes", func() loci.RecordFilter { f := notes; f.Order, f.Limit = loci.OrderKeyAsc, 50; return f }(), false, "records_agent"},
		{"AgentPassages", loci.RecordFilter{Workspace: "w", Kinds: []loci.Kind{loci.KindPassage}, AgentID: loci.Ptr("a"),
			UserID: &none, Limit: 10}, false, "records_agent"},
		{"ReviewQueue", review, false, "records_review"},
		{"CountReviewQueue", review, true, "records_review"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, args, err := selectRecords(c.f)
			if err != nil {
				t.Fatal(err)
			}
			if c.count {
				where, wargs := whereClause(c.f, "")
				q, args = `SELECT count(*) FROM `+recordsFrom(c.f)+` WHERE `+where, wargs
			}
			checkPlan(t, db, q, args, "INDEX "+c.index+" ")
		})
	}
	// A note by its key (findNote): the agent's note found by a seek, not
	// among every agent's notes of the key (migration 0017).
	note := notes
	note.Key = loci.Ptr("k1")
	q, args, err := selectRecords(note)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, db, q, args, "INDEX records_key_versions (workspace=? AND kind=? AND user_id=? AND key=? AND agent_id=?)")
	// The sweep's deletion, as DeleteRecords writes it.
	where, args := whereClause(expired, "")
	q = `DELETE FROM ` + recordsFrom(expired) + ` WHERE ` + where
	checkPlan(t, db, q, args, "INDEX records_expires ")
}

// TestAgentScopeReadsItsOwnKinds: a search index's scope of an agent's
// records of no user is read in two parts, the agent's own kinds on
// records_agent (not every agent's on records_user), and finds and counts
// what one read would.
func TestAgentScopeReadsItsOwnKinds(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a"), UserID: loci.Ptr(""), Order: loci.OrderNone}
	parts := scopeParts(f)
	if len(parts) != 2 {
		t.Fatalf("scopeParts: %d parts, want 2", len(parts))
	}
	q, args, err := selectRecords(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, db, q, args, "INDEX records_agent ")
	a, u := loci.Scope{AgentID: "a"}, loci.Scope{AgentID: "a", UserID: "u"}
	want := []*loci.Record{
		storetest.NewRecord(loci.KindNote, a, "k", "note"),
		storetest.NewRecord(loci.KindPassage, a, "", "passage"),
		storetest.NewRecord(loci.KindEpisode, a, "", "episode of no user"),
	}
	storetest.MustInsert(t, db, want...)
	storetest.MustInsert(t, db,
		storetest.NewRecord(loci.KindEpisode, u, "", "a user's episode"),
		storetest.NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k", "another agent's note"))
	checkScopeRead(t, db, f, want)
}

// TestAgentUserScopeReadInParts: an agent's search scope for a user (its
// records of the user or of none: OrGlobalUser) is read as the user's
// records and those of no user, which finds and counts what one read
// would: the user's, and the agent's own of no user, not another user's
// or another agent's.
func TestAgentUserScopeReadInParts(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a"), UserID: loci.Ptr("u"), OrGlobalUser: true, Order: loci.OrderNone}
	if parts := scopeParts(f); len(parts) != 3 {
		t.Fatalf("scopeParts: %d parts, want 3 (the user's; the agent's own kinds and the others, of no user)", len(parts))
	}
	a, u := loci.Scope{AgentID: "a"}, loci.Scope{AgentID: "a", UserID: "u"}
	want := []*loci.Record{
		storetest.NewRecord(loci.KindNote, a, "k", "note"),
		storetest.NewRecord(loci.KindEpisode, a, "", "episode of no user"),
		storetest.NewRecord(loci.KindEpisode, u, "", "the user's episode"),
		storetest.NewRecord(loci.KindFact, u, "", "the user's fact"),
	}
	storetest.MustInsert(t, db, want...)
	storetest.MustInsert(t, db,
		storetest.NewRecord(loci.KindEpisode, loci.Scope{AgentID: "a", UserID: "v"}, "", "another user's episode"),
		storetest.NewRecord(loci.KindEpisode, loci.Scope{AgentID: "b", UserID: "u"}, "", "another agent's episode of the user"),
		storetest.NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k", "another agent's note"))
	checkScopeRead(t, db, f, want)
}

// checkScopeRead checks that f reads each of want once and nothing else,
// and counts as many.
func checkScopeRead(t *testing.T, db *DB, f loci.RecordFilter, want []*loci.Record) {
	t.Helper()
	got := map[string]bool{}
	for _, r := range storetest.MustFind(t, db, f) {
		if got[r.ID] {
			t.Errorf("scope read finds %s twice", r.ID)
		}
		got[r.ID] = true
	}
	for _, r := range want {
		if !got[r.ID] {
			t.Errorf("scope read misses %s (%s)", r.ID, r.Content)
		}
	}
	if len(got) != len(want) {
		t.Errorf("scope read found %d, want %d", len(got), len(want))
	}
	var n int
	if err := db.View(context.Background(), func(tx loci.Tx) (err error) { n, err = tx.CountRecords(context.Background(), f); return err }); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("count: %d, want %d", n, len(want))
	}
}
