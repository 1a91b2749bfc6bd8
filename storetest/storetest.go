// Package storetest is the conformance suite every loci.Store backend runs:
// SQLite always, PostgreSQL whenever a DSN is configured. Each test opens a
// fresh store with the opener it is given. It tests every method of
// loci.StoreTx, what a backend implements, and the methods loci.Tx derives
// from them, over each backend.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// Opener returns a fresh, empty store that lives until the test ends.
type Opener func(t testing.TB) loci.Store

// Run runs the whole suite against the backend that open opens.
func Run(t *testing.T, open Opener) {
	t.Run("Records", func(t *testing.T) { testRecords(t, open) })
	t.Run("EveryKind", func(t *testing.T) { testEveryKind(t, open) })
	t.Run("Filters", func(t *testing.T) { testFilters(t, open) })
	t.Run("Versions", func(t *testing.T) { testVersions(t, open) })
	t.Run("Metadata", func(t *testing.T) { testMetadata(t, open) })
	t.Run("KeyHistory", func(t *testing.T) { testKeyHistory(t, open) })
	t.Run("Lexical", func(t *testing.T) { testLexical(t, open) })
	t.Run("LexicalRanking", func(t *testing.T) { testLexicalRanking(t, open) })
	t.Run("Vectors", func(t *testing.T) { testVectors(t, open) })
	t.Run("PendingEmbeddings", func(t *testing.T) { testPendingEmbeddings(t, open) })
	t.Run("Agents", func(t *testing.T) { testAgents(t, open) })
	t.Run("BlockLinks", func(t *testing.T) { testBlockLinks(t, open) })
	t.Run("Users", func(t *testing.T) { testUsers(t, open) })
	t.Run("Rollback", func(t *testing.T) { testRollback(t, open) })
	t.Run("PanicRollsBack", func(t *testing.T) { testPanicRollsBack(t, open) })
	t.Run("ConflictKeepsTx", func(t *testing.T) { testConflictKeepsTx(t, open) })
	t.Run("ExactValues", func(t *testing.T) { testExactValues(t, open) })
	t.Run("ScanRowByRow", func(t *testing.T) { testScanRowByRow(t, open) })
	t.Run("LockSerializes", func(t *testing.T) { testLockSerializes(t, open) })
	t.Run("LockRecords", func(t *testing.T) { testLockRecords(t, open) })
	t.Run("ListUsers", func(t *testing.T) { testListUsers(t, open) })
	t.Run("UserSummaries", func(t *testing.T) { testUserSummaries(t, open) })
	t.Run("CountRecordsBy", func(t *testing.T) { testCountRecordsBy(t, open) })
	t.Run("Keys", func(t *testing.T) { testKeys(t, open) })
	t.Run("Audit", func(t *testing.T) { testAudit(t, open) })
	t.Run("Snapshot", func(t *testing.T) { testSnapshot(t, open) })
	t.Run("Rows", func(t *testing.T) { testRows(t, open) })
	t.Run("Events", func(t *testing.T) { testEvents(t, open) })
}

var base = time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)

var seq atomic.Int64 // NewRecord may be called from several goroutines

// NewRecord returns a valid record of kind k in the default workspace.
func NewRecord(k loci.Kind, scope loci.Scope, key, content string) *loci.Record {
	n := seq.Add(1)
	at := base.Add(time.Duration(n) * time.Second)
	return &loci.Record{
		ID: fmt.Sprintf("0190a000-0000-7000-8000-%012d", n), Workspace: loci.DefaultWorkspace, Kind: k,
		Scope: scope, Key: key, Content: content, Data: json.RawMessage(`{}`),
		CreatedAt: at, UpdatedAt: at, Version: 1,
	}
}

// MustInsert inserts records in one transaction or fails the test.
func MustInsert(t testing.TB, s loci.Store, recs ...*loci.Record) {
	t.Helper()
	if err := s.Update(context.Background(), func(tx loci.Tx) error {
		for _, r := range recs {
			if err := tx.InsertRecord(context.Background(), r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("insert: %v", err)
	}
}

// MustFind returns the records that match f or fails the test.
func MustFind(t testing.TB, s loci.Store, f loci.RecordFilter) []*loci.Record {
	t.Helper()
	var out []*loci.Record
	if err := s.View(context.Background(), func(tx loci.Tx) (err error) {
		out, err = tx.FindRecords(context.Background(), f)
		return err
	}); err != nil {
		t.Fatalf("find: %v", err)
	}
	return out
}

func ids(recs []*loci.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := loci.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func all() loci.RecordFilter { return loci.RecordFilter{Workspace: loci.DefaultWorkspace} }

func testRecords(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	r := NewRecord(loci.KindFact, loci.Scope{AgentID: "a", UserID: "u"}, "", "the sky is blue")
	r.Data = json.RawMessage(`{"evidence":{"source_episodes":["e1"]}}`)
	r.Tags = []string{"sky", "colour"}
	r.Category, r.Confidence = "general_fact", 0.75
	r.ExpiresAt = base.Add(48 * time.Hour)
	r.LastAccessedAt = base.Add(time.Hour)
	r.Embedding, r.EmbeddingModel = []float32{0.5, -0.25, 1}, "hash-v1"
	MustInsert(t, s, r)

	t.Run("GetRoundTrip", func(t *testing.T) { testGetRoundTrip(t, s, r) })
	t.Run("ErrNotFound", func(t *testing.T) {
		err := s.View(ctx, func(tx loci.Tx) error {
			_, err := tx.GetRecord(ctx, loci.DefaultWorkspace, "missing")
			return err
		})
		wantCode(t, err, loci.ENOTFOUND)
	})
	t.Run("OtherWorkspaceInvisible", func(t *testing.T) {
		err := s.View(ctx, func(tx loci.Tx) error {
			_, err := tx.GetRecord(ctx, "other", r.ID)
			return err
		})
		wantCode(t, err, loci.ENOTFOUND)
	})
	t.Run("UpdateCompareAndSet", func(t *testing.T) {
		u := *r
		u.Content, u.Version, u.UpdatedAt = "the sky is grey", 2, base.Add(time.Hour)
		if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) }); err != nil {
			t.Fatal(err)
		}
		err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) })
		wantCode(t, err, loci.ECONFLICT)
		missing := u
		missing.ID = "missing"
		err = s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &missing, 1) })
		wantCode(t, err, loci.ENOTFOUND)
		got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
		if len(got) != 1 || got[0].Content != "the sky is grey" || got[0].Version != 2 {
			t.Fatalf("after update: %+v", got)
		}
	})
	t.Run("Touch", func(t *testing.T) {
		at := base.Add(5 * time.Hour)
		if err := s.Update(ctx, func(tx loci.Tx) error {
			return tx.TouchRecords(ctx, loci.DefaultWorkspace, []string{r.ID}, at)
		}); err != nil {
			t.Fatal(err)
		}
		got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
		if got[0].AccessCount != 1 || !got[0].LastAccessedAt.Equal(at) {
			t.Fatalf("access_count %d last_accessed_at %v", got[0].AccessCount, got[0].LastAccessedAt)
		}
	})
	t.Run("UpdateKeepsAccess", func(t *testing.T) { testUpdateKeepsAccess(t, s, r) })
	t.Run("ErrDuplicateKey", func(t *testing.T) { testDuplicateKey(t, s) })
	t.Run("InsertMany", func(t *testing.T) { testInsertMany(t, s) })
	t.Run("Delete", func(t *testing.T) {
		var n int
		if err := s.Update(ctx, func(tx loci.Tx) (err error) {
			n, err = tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
			return err
		}); err != nil || n != 1 {
			t.Fatalf("delete: n=%d err=%v", n, err)
		}
		if got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}}); len(got) != 0 {
			t.Fatalf("record still there: %+v", got)
		}
	})
}

// testGetRoundTrip reads r back with every field it was stored with.
func testGetRoundTrip(t *testing.T, s loci.Store, r *loci.Record) {
	ctx := context.Background()
	var got *loci.Record
	if err := s.View(ctx, func(tx loci.Tx) (err error) {
		got, err = tx.GetRecord(ctx, loci.DefaultWorkspace, r.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got.Content != r.Content || got.Kind != r.Kind || got.Scope != r.Scope || got.Category != r.Category ||
		got.Confidence != r.Confidence || !slices.Equal(got.Tags, r.Tags) || !slices.Equal(got.Embedding, r.Embedding) ||
		got.EmbeddingModel != r.EmbeddingModel || got.Version != 1 {
		t.Fatalf("got %+v, want %+v", got, r)
	}
	if !got.CreatedAt.Equal(r.CreatedAt) || !got.ExpiresAt.Equal(r.ExpiresAt) || !got.LastAccessedAt.Equal(r.LastAccessedAt) {
		t.Fatalf("times: got %v %v %v", got.CreatedAt, got.ExpiresAt, got.LastAccessedAt)
	}
	var a, b any
	json.Unmarshal(got.Data, &a)
	json.Unmarshal(r.Data, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("data = %s, want %s", got.Data, r.Data)
	}
}

// testUpdateKeepsAccess: an access recorded after r was read survives an
// update made from that read.
func testUpdateKeepsAccess(t *testing.T, s loci.Store, r *loci.Record) {
	ctx := context.Background()
	var read *loci.Record
	s.View(ctx, func(tx loci.Tx) (err error) { read, err = tx.GetRecord(ctx, loci.DefaultWorkspace, r.ID); return err })
	at := read.LastAccessedAt.Add(time.Hour)
	if err := s.Update(ctx, func(tx loci.Tx) error {
		return tx.TouchRecords(ctx, loci.DefaultWorkspace, []string{r.ID}, at)
	}); err != nil {
		t.Fatal(err)
	}
	u := *read
	u.Content, u.Version = "updated from a stale read", read.Version+1
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, read.Version) }); err != nil {
		t.Fatal(err)
	}
	got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
	if got[0].AccessCount != read.AccessCount+1 || !got[0].LastAccessedAt.Equal(at) || got[0].Content != u.Content {
		t.Fatalf("access_count %d last_accessed_at %v content %q; want %d, %v and the update",
			got[0].AccessCount, got[0].LastAccessedAt, got[0].Content, read.AccessCount+1, at)
	}
	// A record never accessed keeps no access time.
	fresh := NewRecord(loci.KindNote, loci.Scope{AgentID: "fresh"}, "k", "v")
	MustInsert(t, s, fresh)
	f2 := *fresh
	f2.Content, f2.Version = "v2", 2
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &f2, 1) }); err != nil {
		t.Fatal(err)
	}
	if got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{fresh.ID}}); !got[0].LastAccessedAt.IsZero() || got[0].AccessCount != 0 {
		t.Fatalf("never-accessed record: %+v", got[0])
	}
}

// testDuplicateKey: a key is unique in its workspace, kind and scope.
func testDuplicateKey(t *testing.T, s loci.Store) {
	ctx := context.Background()
	a := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "one")
	MustInsert(t, s, a)
	b := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "two")
	err := s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, b) })
	wantCode(t, err, loci.ECONFLICT)
	// The same key in another scope or kind is another record.
	MustInsert(t, s, NewRecord(loci.KindNote, loci.Scope{AgentID: "b"}, "k", "three"),
		NewRecord(loci.KindWorking, loci.Scope{AgentID: "a", TaskID: "t"}, "k", "four"))
}

// testInsertMany stores a batch of records, and a batch with a taken id
// that fails whole.
func testInsertMany(t *testing.T, s loci.Store) {
	ctx := context.Background()
	var batch []*loci.Record
	for i := range 50 {
		r := NewRecord(loci.KindPassage, loci.Scope{AgentID: "many"}, "", fmt.Sprint("passage ", i))
		r.Embedding, r.EmbeddingModel = []float32{1, float32(i)}, "m"
		batch = append(batch, r)
	}
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, batch) }); err != nil {
		t.Fatal(err)
	}
	got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("many"), Order: loci.OrderCreatedAsc})
	if len(got) != 50 || got[7].Content != "passage 7" || got[7].Embedding[1] != 7 {
		t.Fatalf("stored %d records: %+v", len(got), got)
	}
	// A record with every field set reads back from a batch as it does
	// when stored alone.
	rich := func(key string) *loci.Record {
		r := NewRecord(loci.KindNote, loci.Scope{AgentID: "many", UserID: "u", SessionID: "s", TaskID: "t"}, key, `say "hi" \ there`)
		r.CreatedAt, r.UpdatedAt = base, base.Add(time.Minute)
		r.Tags = []string{`a "quoted" tag`, `back\slash`, "{braces}", "plain"}
		r.Data, r.Metadata = json.RawMessage(`{"n":1}`), json.RawMessage(`{"topic":"x","nested":{"k":[1,2]}}`)
		r.Category, r.ActionType, r.Outcome, r.Confidence, r.AccessCount = "c", "act", "ok", 0.75, 3
		r.LastAccessedAt, r.ExpiresAt = base.Add(time.Hour), base.Add(48*time.Hour)
		r.ValidAt, r.InvalidAt, r.Review = base.Add(-time.Hour), base.Add(time.Hour), "disputed"
		r.Embedding, r.EmbeddingModel, r.SearchText = []float32{0.5, -0.25, 1e-7}, "m", "say hi there"
		return r
	}
	inBatch, alone := rich("k-batch"), rich("k-alone")
	if err := s.Update(ctx, func(tx loci.Tx) error {
		return tx.InsertRecords(ctx, []*loci.Record{inBatch, NewRecord(loci.KindPassage, loci.Scope{AgentID: "many"}, "", "filler")})
	}); err != nil {
		t.Fatal(err)
	}
	MustInsert(t, s, alone)
	a := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{inBatch.ID}})
	b := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{alone.ID}})
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("read %d and %d records", len(a), len(b))
	}
	a[0].ID, a[0].Key, b[0].ID, b[0].Key = "", "", "", ""
	if !reflect.DeepEqual(a[0], b[0]) {
		t.Errorf("stored in a batch:\n%+v\nstored alone:\n%+v", a[0], b[0])
	}
	if !slices.Equal(a[0].Tags, inBatch.Tags) || a[0].Content != inBatch.Content {
		t.Errorf("tags %q content %q, want %q %q", a[0].Tags, a[0].Content, inBatch.Tags, inBatch.Content)
	}
	// A batch holding a taken id or key fails, and rolled back it
	// stores nothing.
	dup := NewRecord(loci.KindPassage, loci.Scope{AgentID: "many"}, "", "dup")
	dup.ID = batch[3].ID
	fresh := NewRecord(loci.KindPassage, loci.Scope{AgentID: "many"}, "", "fresh")
	err := s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, []*loci.Record{fresh, dup}) })
	wantCode(t, err, loci.ECONFLICT)
	if got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{fresh.ID}}); len(got) != 0 {
		t.Fatalf("a failed batch stored %+v", got)
	}
	// A batch larger than a statement holds (an import's: PostgreSQL
	// inserts 5,000 a statement) stores every record; a taken id past
	// the first statement fails it all.
	var big []*loci.Record
	for i := range 5003 {
		big = append(big, NewRecord(loci.KindPassage, loci.Scope{AgentID: "big"}, "", fmt.Sprint("big ", i)))
	}
	dup.ID = big[2].ID
	err = s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, append(slices.Clone(big), dup)) })
	wantCode(t, err, loci.ECONFLICT)
	if !strings.Contains(loci.ErrorMessage(err), dup.ID) && !strings.Contains(loci.ErrorMessage(err), "already exists") {
		t.Errorf("a taken id past the first statement: %v", err)
	}
	if got := MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("big"), Limit: 1}); len(got) != 0 {
		t.Fatalf("a failed large batch stored %d records", len(got))
	}
	if err := s.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecords(ctx, big) }); err != nil {
		t.Fatal(err)
	}
	got = MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("big"), Order: loci.OrderCreatedAsc})
	if len(got) != len(big) || got[5002].Content != "big 5002" || got[4999].Content != "big 4999" || got[5000].Content != "big 5000" {
		t.Fatalf("a large batch stored %d records of %d", len(got), len(big))
	}
}

// testEveryKind stores, reads and filters one record of each of the eight
// kinds with the scope that kind requires.
func testEveryKind(t *testing.T, open Opener) {
	s := open(t)
	scopes := map[loci.Kind]loci.Scope{
		loci.KindNote:       {AgentID: "agent-1"},
		loci.KindBlock:      {AgentID: "agent-1"},
		loci.KindPassage:    {AgentID: "agent-1"},
		loci.KindWorking:    {AgentID: "agent-1", UserID: "user-1", TaskID: "task-1"},
		loci.KindEpisode:    {AgentID: "agent-1", UserID: "user-1"},
		loci.KindFact:       {UserID: "user-1"},
		loci.KindPreference: {UserID: "user-1", SessionID: "s-1"},
		loci.KindSession:    {UserID: "user-1", SessionID: "s-1"},
	}
	want := map[loci.Kind]string{}
	for _, k := range loci.Kinds {
		r := NewRecord(k, scopes[k], "", string(k)+" content")
		switch k {
		case loci.KindNote, loci.KindBlock, loci.KindWorking, loci.KindPreference, loci.KindSession:
			r.Key = string(k) + "-key"
		case loci.KindEpisode:
			r.ActionType, r.Outcome = "search", "success"
		}
		MustInsert(t, s, r)
		// A record of the same kind in someone else's scope must not match.
		other := NewRecord(k, loci.Scope{AgentID: "agent-2", UserID: "user-2", TaskID: "task-2", SessionID: "s-2"}, r.Key, "other")
		MustInsert(t, s, other)
		want[k] = r.ID
	}
	for _, k := range loci.Kinds {
		t.Run(string(k), func(t *testing.T) {
			sc := scopes[k]
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{k}}
			if sc.AgentID != "" {
				f.AgentID = &sc.AgentID
			}
			if sc.UserID != "" {
				f.UserID = &sc.UserID
			}
			if sc.TaskID != "" {
				f.TaskID = &sc.TaskID
			}
			if sc.SessionID != "" {
				f.SessionID = &sc.SessionID
			}
			got := MustFind(t, s, f)
			if len(got) != 1 || got[0].ID != want[k] || got[0].Kind != k || got[0].Scope != sc {
				t.Fatalf("got %+v, want the one %s record %s", got, k, want[k])
			}
		})
	}
}

func testFilters(t *testing.T, open Opener) {
	s := open(t)
	u1, u2, global := loci.Scope{UserID: "u1"}, loci.Scope{UserID: "u2"}, loci.Scope{}
	f1 := NewRecord(loci.KindFact, u1, "", "u1 fact")
	f1.Category, f1.Confidence, f1.Tags = "user_preference", 0.9, []string{"a", "b"}
	f2 := NewRecord(loci.KindFact, u2, "", "u2 fact")
	f2.Category, f2.Confidence, f2.Tags = "general_fact", 0.05, []string{"a"}
	g := NewRecord(loci.KindFact, global, "", "global fact")
	g.Category, g.Confidence = "general_fact", 0.5
	e1 := NewRecord(loci.KindEpisode, loci.Scope{UserID: "u1", AgentID: "x"}, "", "episode")
	e1.ActionType, e1.Outcome, e1.ExpiresAt = "search", "failure", base.Add(24*time.Hour)
	MustInsert(t, s, f1, f2, g, e1)
	// In a workspace of their own, a keyed fact's versions: past (valid
	// from t1 until t2, superseded), current (from t2, disputed) and a
	// future one (from t3), with a fact whose valid_at is unset (always
	// true) and a preference flagged for removal.
	t1, t2, t3 := base.Add(10*time.Hour), base.Add(20*time.Hour), base.Add(30*time.Hour)
	past := NewRecord(loci.KindFact, loci.Scope{UserID: "u3"}, "home_city", "lived in Paris")
	past.ValidAt, past.InvalidAt = t1, t2
	cur := NewRecord(loci.KindFact, loci.Scope{UserID: "u3"}, "home_city", "lives in Berlin")
	cur.ValidAt, cur.InvalidAt, cur.Review = t2, t3, loci.ReviewDisputed
	next := NewRecord(loci.KindFact, loci.Scope{UserID: "u3"}, "home_city", "will live in Rome")
	next.ValidAt = t3
	always := NewRecord(loci.KindFact, loci.Scope{UserID: "u3"}, "", "likes tea")
	flagged := NewRecord(loci.KindPreference, loci.Scope{UserID: "u3"}, "tone", "tone: casual")
	flagged.Review = loci.ReviewFlaggedForRemoval
	const hist = "history"
	for _, r := range []*loci.Record{past, cur, next, always, flagged} {
		r.Workspace = hist
	}
	MustInsert(t, s, past, cur, next, always, flagged)
	u3 := loci.Ptr("u3")

	facts := []loci.Kind{loci.KindFact}
	cases := []struct {
		name string
		f    loci.RecordFilter
		want []string
	}{
		{"User", loci.RecordFilter{Kinds: facts, UserID: loci.Ptr("u1")}, []string{f1.ID}},
		{"UserOrGlobal", loci.RecordFilter{Kinds: facts, UserID: loci.Ptr("u1"), OrGlobalUser: true}, []string{g.ID, f1.ID}},
		{"GlobalOnly", loci.RecordFilter{Kinds: facts, UserID: loci.Ptr("")}, []string{g.ID}},
		{"Category", loci.RecordFilter{Kinds: facts, Category: loci.Ptr("general_fact")}, []string{g.ID, f2.ID}},
		{"Tags", loci.RecordFilter{Kinds: facts, Tags: []string{"a", "b"}}, []string{f1.ID}},
		{"MinConfidence", loci.RecordFilter{Kinds: facts, MinConfidence: loci.Ptr(0.5)}, []string{g.ID, f1.ID}},
		{"MaxConfidence", loci.RecordFilter{Kinds: facts, MaxConfidence: loci.Ptr(0.1)}, []string{f2.ID}},
		{"ActionTypeOutcome", loci.RecordFilter{ActionType: loci.Ptr("search"), Outcome: loci.Ptr("failure")}, []string{e1.ID}},
		{"LiveBeforeExpiry", loci.RecordFilter{Kinds: []loci.Kind{loci.KindEpisode}, LiveAt: base.Add(23 * time.Hour)}, []string{e1.ID}},
		{"LiveAtExpiry", loci.RecordFilter{Kinds: []loci.Kind{loci.KindEpisode}, LiveAt: e1.ExpiresAt}, nil},
		{"ExpiredAt", loci.RecordFilter{ExpiredAt: e1.ExpiresAt}, []string{e1.ID}},
		{"CreatedAfter", loci.RecordFilter{Kinds: facts, CreatedAfter: f2.CreatedAt}, []string{g.ID}},
		{"CreatedAsc", loci.RecordFilter{Kinds: facts, Order: loci.OrderCreatedAsc}, []string{f1.ID, f2.ID, g.ID}},
		{"LimitOffset", loci.RecordFilter{Kinds: facts, Limit: 1, Offset: 1}, []string{f2.ID}},
		{"ConfidenceDesc", loci.RecordFilter{Kinds: facts, Order: loci.OrderConfidenceDesc}, []string{f1.ID, g.ID, f2.ID}},
		{"AsOfBeforeAll", loci.RecordFilter{Workspace: hist, Kinds: facts, Key: loci.Ptr("home_city"), AsOf: t1.Add(-time.Microsecond)}, nil},
		{"AsOfAtValidAt", loci.RecordFilter{Workspace: hist, Kinds: facts, UserID: u3, AsOf: t1}, []string{always.ID, past.ID}},
		{"AsOfAtInvalidAt", loci.RecordFilter{Workspace: hist, Kinds: facts, UserID: u3, AsOf: t2}, []string{always.ID, cur.ID}},
		{"AsOfJustBeforeInvalidAt", loci.RecordFilter{Workspace: hist, Kinds: facts, UserID: u3, AsOf: t2.Add(-time.Microsecond)}, []string{always.ID, past.ID}},
		{"AsOfOpenEnded", loci.RecordFilter{Workspace: hist, Kinds: facts, UserID: u3, AsOf: t3.Add(time.Hour)}, []string{always.ID, next.ID}},
		{"AsOfOtherKinds", loci.RecordFilter{Workspace: hist, Kinds: []loci.Kind{loci.KindPreference}, AsOf: t1}, []string{flagged.ID}},
		{"Keyed", loci.RecordFilter{Workspace: hist, Kinds: facts, UserID: u3, Keyed: true}, []string{next.ID, cur.ID, past.ID}},
		{"KeyEveryVersion", loci.RecordFilter{Workspace: hist, Key: loci.Ptr("home_city")}, []string{next.ID, cur.ID, past.ID}},
		{"ValidDesc", loci.RecordFilter{Workspace: hist, Kinds: facts, Key: loci.Ptr("home_city"), Order: loci.OrderValidDesc}, []string{next.ID, cur.ID, past.ID}},
		{"ReviewDisputed", loci.RecordFilter{Workspace: hist, Review: []string{loci.ReviewDisputed}}, []string{cur.ID}},
		{"ReviewAnyReason", loci.RecordFilter{Workspace: hist, UserID: u3, Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}}, []string{flagged.ID, cur.ID}},
		{"ReviewAsOf", loci.RecordFilter{Workspace: hist, UserID: u3, Review: []string{loci.ReviewDisputed, loci.ReviewFlaggedForRemoval}, AsOf: t3}, []string{flagged.ID}},
		{"EmptyIDs", loci.RecordFilter{IDs: []string{}}, nil},
		{"OtherWorkspace", loci.RecordFilter{Workspace: "elsewhere"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Workspace == "" {
				tc.f.Workspace = loci.DefaultWorkspace
			}
			checkFilter(t, s, tc.f, tc.want, hist)
		})
	}
}

// checkFilter checks that f selects want (in order) from s, that
// CountRecords counts them and that RecordFilter.Match, which in-memory
// indexes filter with, agrees with the backend over the default and hist
// workspaces.
func checkFilter(t *testing.T, s loci.Store, f loci.RecordFilter, want []string, hist string) {
	got := ids(MustFind(t, s, f))
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("got %v, want %v", got, want)
	}
	var n int
	if err := s.View(context.Background(), func(tx loci.Tx) (err error) {
		n, err = tx.CountRecords(context.Background(), f)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if f.Limit == 0 && n != len(want) {
		t.Fatalf("count = %d, want %d", n, len(want))
	}
	if f.Limit == 0 && f.Offset == 0 {
		var matched []string
		for _, r := range append(MustFind(t, s, all()), MustFind(t, s, loci.RecordFilter{Workspace: hist})...) {
			if f.Match(r) {
				matched = append(matched, r.ID)
			}
		}
		slices.Sort(matched)
		sorted := slices.Sorted(slices.Values(want))
		if !slices.Equal(matched, sorted) && !(len(matched) == 0 && len(sorted) == 0) {
			t.Fatalf("Match selects %v, want %v", matched, sorted)
		}
	}
}

func testVersions(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	r := NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "v1")
	MustInsert(t, s, r)
	if err := s.Update(ctx, func(tx loci.Tx) error {
		for v := 1; v <= 2; v++ {
			if err := tx.InsertVersion(ctx, loci.RecordVersion{RecordID: r.ID, Version: v, Content: fmt.Sprint("v", v),
				Data: json.RawMessage(`{"value":1}`), UpdatedAt: base.Add(time.Duration(v) * time.Minute)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var vs []loci.RecordVersion
	s.View(ctx, func(tx loci.Tx) (err error) { vs, err = tx.ListVersions(ctx, r.ID); return err })
	if len(vs) != 2 || vs[0].Version != 2 || vs[1].Content != "v1" || !vs[0].UpdatedAt.Equal(base.Add(2*time.Minute)) {
		t.Fatalf("versions = %+v", vs)
	}
	// Deleting the record deletes its versions.
	if err := s.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{r.ID}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.View(ctx, func(tx loci.Tx) (err error) { vs, err = tx.ListVersions(ctx, r.ID); return err })
	if len(vs) != 0 {
		t.Fatalf("versions left after delete: %+v", vs)
	}
	// A version of a record that is gone (deleted by another writer
	// meanwhile) is not found.
	err := s.Update(ctx, func(tx loci.Tx) error {
		return tx.InsertVersion(ctx, loci.RecordVersion{RecordID: r.ID, Version: 3, Content: "v3", Data: json.RawMessage(`{}`), UpdatedAt: base})
	})
	if loci.ErrorCode(err) != loci.ENOTFOUND {
		t.Fatalf("a version of a deleted record: %v, want not found", err)
	}
}

func testLexical(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	a := NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "Michael grilled his foot on the george foreman grill")
	b := NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "Dwight keeps beets on the farm; beets and bears")
	c := NewRecord(loci.KindPassage, loci.Scope{AgentID: "b"}, "", "grilled foot, agent b's secret")
	a.SearchText, b.SearchText, c.SearchText = "michael grilled his foot on the george foreman grill", "dwight keeps beets on the farm beets and bears", "grilled foot agent b s secret"
	MustInsert(t, s, a, b, c)
	search := func(f loci.RecordFilter, terms ...string) []loci.ScoredRecord {
		t.Helper()
		return SearchLexical(t, s, f, terms, 10)
	}
	agentA := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
	t.Run("Ranks", func(t *testing.T) {
		got := search(agentA, "beets")
		if len(got) != 1 || got[0].Record.ID != b.ID || got[0].Score <= 0 {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("ScopeBeforeRanking", func(t *testing.T) {
		for _, r := range search(agentA, "grilled", "foot") {
			if r.Record.AgentID != "a" {
				t.Fatalf("agent b's record leaked: %+v", r.Record)
			}
		}
	})
	t.Run("HostileTerms", func(t *testing.T) {
		for _, q := range []string{`"`, `NEAR(`, `*`, `a OR`, `(`, `col:foo`, "\x00", "\xff\xfe", `""""`, `-`, `^x`,
			`'`, `\`, `it's`, `a\'b`, `x:*`, `'a' | 'b'`, `!x`, `<->`, "two words", strings.Repeat("x", 3000)} {
			search(agentA, q)
		}
	})
	t.Run("UpdateReindexes", func(t *testing.T) {
		u := *b
		u.Content, u.SearchText, u.Version = "nothing left", "nothing left", 2
		if err := s.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) }); err != nil {
			t.Fatal(err)
		}
		if got := search(agentA, "beets"); len(got) != 0 {
			t.Fatalf("stale index entry: %+v", got)
		}
		if got := search(agentA, "nothing"); len(got) != 1 {
			t.Fatalf("new text not indexed: %+v", got)
		}
	})
	t.Run("DeleteUnindexes", func(t *testing.T) {
		if err := s.Update(ctx, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{a.ID}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got := search(agentA, "michael"); len(got) != 0 {
			t.Fatalf("deleted record found: %+v", got)
		}
	})
}
