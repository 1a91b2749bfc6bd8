package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// listIDs lists q through svc and returns the page's ids and the total.
func listIDs(t *testing.T, svc *rules.Service, q loci.MemoryQuery) ([]string, int) {
	t.Helper()
	got, total, err := svc.ListMemories(context.Background(), q)
	if err != nil {
		t.Fatalf("ListMemories(%+v): %v", q, err)
	}
	ids := []string{}
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	return ids, total
}

// sameListing checks that indexed and scanned answer each filter with
// the same pages and totals, and returns the sum of the totals.
func sameListing(t *testing.T, indexed, scanned *rules.Service, scope loci.Scope, filters []string) int {
	t.Helper()
	sum := 0
	for _, fs := range filters {
		where, err := loci.ParseMemoryFilter([]byte(fs))
		if err != nil {
			t.Fatalf("%s: %v", fs, err)
		}
		for _, page := range []struct{ limit, offset int }{{0, 0}, {3, 0}, {4, 2}, {5, 1000}} {
			q := loci.MemoryQuery{Scope: scope, Filters: where, Limit: page.limit, Offset: page.offset}
			got, n := listIDs(t, indexed, q)
			want, wn := listIDs(t, scanned, q)
			if n != wn || !slices.Equal(got, want) {
				t.Errorf("%s limit %d offset %d: indexed %v (total %d), scanned %v (total %d)", fs, page.limit, page.offset, got, n, want, wn)
			}
			if page.limit == 0 {
				sum += n
			}
		}
	}
	return sum
}

// TestListingIndexMatchesScan checks that a filtered listing answered from
// the search index (index.Cache.List) is the one the scan of the store
// answers (a service whose index budget holds nothing), for every field
// and operator of the filter language, with the listing's own filters
// (kinds, a time window, expiry) and pages, on every backend.
func TestListingIndexMatchesScan(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		clock := loci.NewFakeClock(t0)
		indexed := rules.New(store, rules.WithClock(clock), rules.WithAudit(false))
		scanned := rules.New(store, rules.WithClock(clock), rules.WithAudit(false), rules.WithIndexBudget(1))

		topics := []string{"travel", "music", "food"}
		var ids []string
		for i := range 36 {
			in := loci.MemoryInput{Content: fmt.Sprintf("memory %d about %s", i, topics[i%3]), UserID: "u"}
			switch i % 4 {
			case 0:
				in.Metadata = json.RawMessage(fmt.Sprintf(`{"topic":%q,"stars":%d,"labels":["l%d","all"],"ok":%t}`, topics[i%3], i%6, i%5, i%2 == 0))
			case 1:
				in.Metadata = json.RawMessage(fmt.Sprintf(`{"topic":%q,"stars":"%d"}`, topics[i%3], i%6))
			case 2:
				in.Metadata = json.RawMessage(fmt.Sprintf(`{"stars":%d.5}`, i%6))
			case 3:
				in.Metadata = json.RawMessage(fmt.Sprintf(`{"food":{"kind":%q,"spicy":%t,"n":{"v":%d}},"team":"%s Team","big":%d,"none":null}`,
					[]string{"Veg", "meat"}[i%2], i%3 == 0, i%4, []string{"Data", "data", "Ops"}[i%3], int64(9007199254740992)+int64(i%2)))
			}
			switch i % 3 {
			case 0:
				in.Kind, in.Category, in.Key = loci.KindFact, []string{"food", "work"}[i%2], fmt.Sprintf("k%d", i%4)
			case 1:
				in.Kind, in.AgentID, in.SessionID = loci.KindFact, "a1", []string{"s1", ""}[i%2]
			case 2:
				// A note is its agent's alone: listed in the agents' scopes.
				in.Kind, in.AgentID, in.UserID, in.Key = loci.KindNote, []string{"a1", "a2"}[i%2], "", fmt.Sprintf("n%d", i)
			}
			if i%5 == 0 && in.Kind == loci.KindFact {
				in.Tags = []string{"t", fmt.Sprintf("t%d", i%3)}
			}
			if i%7 == 3 {
				in.TTLSeconds = loci.Ptr(int64(600))
			}
			ev, err := indexed.AddMemory(ctx, in)
			if err != nil {
				t.Fatalf("add %d: %v", i, err)
			}
			ids = append(ids, ev.ID)
			// Some records share a creation time: ties are broken on id.
			if i%3 != 1 {
				clock.Add(time.Second)
			}
			// Another user's records are never listed.
			if in.UserID != "" {
				in.UserID = "v"
				if _, err := indexed.AddMemory(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, id := range ids[:6] {
			clock.Add(time.Second)
			if _, err := indexed.UpdateMemory(ctx, id, loci.MemoryPatch{Metadata: json.RawMessage(fmt.Sprintf(`{"topic":"patched","stars":%d}`, i))}); err != nil {
				t.Fatal(err)
			}
		}
		if err := indexed.DeleteMemory(ctx, ids[7]); err != nil {
			t.Fatal(err)
		}
		at := func(s int) string { return jsonTime(t0.Add(time.Duration(s) * time.Second)) }
		filters := []string{
			`{"metadata.topic": "travel"}`,
			`{"metadata.topic": {"eq": "music"}}`,
			`{"metadata.topic": {"ne": "travel"}}`,
			`{"metadata.topic": {"in": ["music", "patched"]}}`,
			`{"metadata.topic": {"nin": ["music"]}}`,
			`{"metadata.stars": {"gt": 2}}`,
			`{"metadata.stars": {"gte": 2}}`,
			`{"metadata.stars": {"lt": 2}}`,
			`{"metadata.stars": {"lte": 2.5}}`,
			`{"metadata.stars": {"gt": "2"}}`,
			`{"metadata.stars": {"in": [1, "3", 4.5]}}`,
			`{"metadata.labels": {"contains": "all"}}`,
			`{"metadata.labels": "l2"}`,
			`{"metadata.labels": ["l1", "all"]}`,
			`{"metadata.ok": true}`,
			`{"metadata.ok": {"ne": false}}`,
			`{"metadata.missing": {"nin": [1]}}`,
			`{"tags": "t"}`,
			`{"tags": {"contains": "t1"}}`,
			`{"tags": {"ne": "t"}}`,
			`{"tags": {"in": ["t0", "t2"]}}`,
			`{"tags": {"nin": ["t0"]}}`,
			`{"kind": "fact"}`,
			`{"kind": {"in": ["note", "passage"]}}`,
			`{"kind": {"nin": ["note"]}}`,
			`{"category": "food"}`,
			`{"category": {"ne": "food"}}`,
			`{"key": {"in": ["k0", "k2"]}}`,
			`{"key": {"ne": "k0"}}`,
			`{"user_id": "u"}`,
			`{"user_id": {"ne": "u"}}`,
			`{"agent_id": "a2"}`,
			`{"agent_id": {"nin": ["a2"]}}`,
			`{"session_id": "s1"}`,
			`{"session_id": {"ne": "s1"}}`,
			`{"created_at": {"gt": ` + at(10) + `}}`,
			`{"created_at": {"gte": ` + at(10) + `}}`,
			`{"created_at": {"lt": ` + at(10) + `}}`,
			`{"created_at": {"lte": ` + at(10) + `}}`,
			`{"created_at": ` + at(4) + `}`,
			`{"created_at": {"in": [` + at(4) + `, ` + at(6) + `]}}`,
			`{"created_at": {"nin": [` + at(4) + `]}}`,
			`{"updated_at": {"gte": ` + at(24) + `}}`,
			`{"updated_at": {"ne": ` + at(25) + `}}`,
			`{"metadata.food.kind": "meat"}`,
			`{"metadata.food.spicy": {"ne": true}}`,
			`{"metadata.food.n.v": {"gte": 2}}`,
			`{"metadata.team": {"contains": "data"}}`,
			`{"metadata.team": {"icontains": "DATA"}}`,
			`{"metadata.labels": {"icontains": "ALL"}}`,
			`{"metadata.big": 9007199254740993}`,
			`{"metadata.none": null}`,
			`{"tags": {"icontains": "T1"}}`,
			`{"category": {"contains": "oo"}}`,
			`{"or": []}`,
			`{"not": {}}`,
			`{"and": [{}, {"metadata.food.kind": "Veg"}]}`,
			`{"or": [{"not": {}}, {"metadata.food.kind": "Veg"}]}`,
			`{"created_at": {"gte": "` + t0.Add(24*time.Hour).Format(time.DateOnly) + `"}}`,
			`{"and": [{"metadata.topic": "travel"}, {"metadata.stars": {"gte": 2}}]}`,
			`{"or": [{"metadata.topic": "music"}, {"tags": {"contains": "t"}}]}`,
			`{"not": {"metadata.topic": "travel"}}`,
			`{"not": {"or": [{"kind": "note"}, {"and": [{"metadata.stars": {"lt": 3}}, {"tags": "t"}]}]}}`,
		}
		if sum := sameListing(t, indexed, scanned, loci.Scope{UserID: "u"}, filters); sum == 0 {
			t.Fatal("no filter selected anything: the test checks nothing")
		}
		// The listing's own filters and other scopes, with a condition.
		where, _ := loci.ParseMemoryFilter([]byte(`{"metadata.stars": {"gte": 1}}`))
		for _, q := range []loci.MemoryQuery{
			{Scope: loci.Scope{UserID: "u"}, Kinds: []loci.Kind{loci.KindFact, loci.KindNote}},
			{Scope: loci.Scope{UserID: "u"}, After: t0.Add(5 * time.Second), Before: t0.Add(20 * time.Second)},
			{Scope: loci.Scope{UserID: "u", AgentID: "a1"}},
			{Scope: loci.Scope{AgentID: "a2"}},
			{Scope: loci.Scope{}},
		} {
			q.Filters = where
			got, n := listIDs(t, indexed, q)
			want, wn := listIDs(t, scanned, q)
			if n != wn || !slices.Equal(got, want) || n == 0 {
				t.Errorf("%+v: indexed %v (total %d), scanned %v (total %d)", q, got, n, want, wn)
			}
		}
		// Expired records are listed by neither. User u holds 24 facts,
		// one deleted; four of them live ten minutes.
		if sum := sameListing(t, indexed, scanned, loci.Scope{UserID: "u"}, []string{`{"user_id": "u"}`}); sum != 23 {
			t.Errorf("before expiry: %d listed, want 23", sum)
		}
		clock.Add(time.Hour)
		if sum := sameListing(t, indexed, scanned, loci.Scope{UserID: "u"}, []string{`{"user_id": "u"}`}); sum != 19 {
			t.Errorf("after expiry: %d listed, want 19", sum)
		}
		if st := indexed.IndexStats(); st.Loads+st.Hits == 0 {
			t.Errorf("the indexed listings used no index: %+v", st)
		}
		if st := scanned.IndexStats(); st.Loads != 0 || st.Hits != 0 {
			t.Errorf("the scope over its budget was answered from an index: %+v", st)
		}
	})
}

func jsonTime(t time.Time) string {
	b, _ := json.Marshal(t)
	return string(b)
}

// TestListingIndexSeesOtherProcess checks that a filtered listing answered
// from a held index shows what another process (a second store on the
// same database) wrote since: adds, patches, deletes.
func TestListingIndexSeesOtherProcess(t *testing.T) {
	for _, p := range testdb.Pairs() {
		t.Run(p.Name, func(t *testing.T) {
			ctx := context.Background()
			first, second := p.Open(t)
			reader := rules.New(first, rules.WithAudit(false))
			scanned := rules.New(first, rules.WithAudit(false), rules.WithIndexBudget(1))
			writer := rules.New(second, rules.WithAudit(false))
			var ids []string
			for i := range 10 {
				ev, err := writer.AddMemory(ctx, loci.MemoryInput{Content: fmt.Sprintf("note %d", i), UserID: "u",
					Metadata: json.RawMessage(fmt.Sprintf(`{"topic":"t%d"}`, i%2))})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, ev.ID)
			}
			filters := []string{`{"metadata.topic": "t0"}`, `{"metadata.topic": {"ne": "t0"}}`}
			check := func(want int) {
				t.Helper()
				if n := sameListing(t, reader, scanned, loci.Scope{UserID: "u"}, filters[:1]); n != want {
					t.Fatalf("t0 listed %d, want %d", n, want)
				}
				sameListing(t, reader, scanned, loci.Scope{UserID: "u"}, filters[1:])
			}
			check(5)
			loads := reader.IndexStats().Loads
			// The other process adds, patches and deletes.
			if _, err := writer.AddMemory(ctx, loci.MemoryInput{Content: "late note", UserID: "u", Metadata: json.RawMessage(`{"topic":"t0"}`)}); err != nil {
				t.Fatal(err)
			}
			check(6)
			if _, err := writer.UpdateMemory(ctx, ids[0], loci.MemoryPatch{Metadata: json.RawMessage(`{"topic":"t1"}`)}); err != nil {
				t.Fatal(err)
			}
			if _, err := writer.UpdateMemory(ctx, ids[1], loci.MemoryPatch{Metadata: json.RawMessage(`{"topic":"t0"}`)}); err != nil {
				t.Fatal(err)
			}
			check(6)
			if err := writer.DeleteMemory(ctx, ids[2]); err != nil {
				t.Fatal(err)
			}
			if _, err := writer.BatchMemories(ctx, loci.MemoryBatch{Delete: []string{ids[4]}, Add: []loci.MemoryInput{
				{Content: "batched", UserID: "u", Metadata: json.RawMessage(`{"topic":"t0"}`)}}}); err != nil {
				t.Fatal(err)
			}
			check(5)
			// The index was held and patched by the feed (or, right after
			// PostgreSQL's feed started over, which it does while an older
			// transaction of the cluster runs, the store answered).
			if st := reader.IndexStats(); st.Loads+st.Hits <= loads && st.Resets == 0 {
				t.Errorf("the listings used no index: %+v (loads before %d)", st, loads)
			}
		})
	}
}
