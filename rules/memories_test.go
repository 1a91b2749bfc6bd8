package rules_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

func mustAdd(t *testing.T, svc *rules.Service, in loci.MemoryInput, want string) *loci.MemoryEvent {
	t.Helper()
	ev, err := svc.AddMemory(context.Background(), in)
	if err != nil {
		t.Fatalf("AddMemory(%+v): %v", in, err)
	}
	if ev.Event != want {
		t.Fatalf("AddMemory(%q): event %s, want %s", in.Content, ev.Event, want)
	}
	return ev
}

func TestMemoriesAddGetNoop(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)

		// A memory with no kind is a general fact of the user.
		ev := mustAdd(t, svc, loci.MemoryInput{Content: "Alice likes  green tea", UserID: "alice",
			Metadata: json.RawMessage(`{"source":"chat","n":2}`)}, loci.EventAdd)
		if ev.Kind != loci.KindFact {
			t.Fatalf("kind = %s, want fact", ev.Kind)
		}
		m, err := svc.GetMemory(ctx, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m.Category != loci.CategoryGeneralFact || m.UserID != "alice" || string(m.Metadata) != `{"n":2,"source":"chat"}` {
			t.Fatalf("memory = %+v", m)
		}
		// The same content again, case and spacing aside: NOOP, the same id.
		again := mustAdd(t, svc, loci.MemoryInput{Content: "alice likes green TEA", UserID: "alice"}, loci.EventNoop)
		if again.ID != ev.ID {
			t.Fatalf("NOOP id = %s, want %s", again.ID, ev.ID)
		}
		// Another user: another memory.
		mustAdd(t, svc, loci.MemoryInput{Content: "Alice likes green tea", UserID: "bob"}, loci.EventAdd)

		// A keyed fact: another content supersedes, the same is NOOP.
		home := mustAdd(t, svc, loci.MemoryInput{Content: "Lives in Paris", UserID: "alice", Key: "home"}, loci.EventAdd)
		clock.Add(time.Minute)
		up := mustAdd(t, svc, loci.MemoryInput{Content: "Lives in Berlin", UserID: "alice", Key: "home"}, loci.EventUpdate)
		if up.Previous != home.ID || up.ID == home.ID {
			t.Fatalf("update = %+v, want a new id superseding %s", up, home.ID)
		}
		mustAdd(t, svc, loci.MemoryInput{Content: "lives in berlin", UserID: "alice", Key: "home"}, loci.EventNoop)
		hist, err := svc.MemoryHistory(ctx, up.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 2 || hist[0].Content != "Lives in Berlin" || hist[0].Event != loci.EventUpdate || hist[1].Event != loci.EventAdd || !hist[0].Current || hist[1].Current {
			t.Fatalf("history = %+v", hist)
		}

		// Open categories; a bad one is refused.
		mustAdd(t, svc, loci.MemoryInput{Content: "Allergic to peanuts", UserID: "alice", Category: "food"}, loci.EventAdd)
		_, err = svc.AddMemory(ctx, loci.MemoryInput{Content: "x", UserID: "alice", Category: "Food!"})
		wantCode(t, err, loci.EINVALID)

		// Passages and notes where their rules hold.
		p := mustAdd(t, svc, loci.MemoryInput{Content: "Deploy failed at 3am", AgentID: "ops", Kind: loci.KindPassage, Tags: []string{"incident"}}, loci.EventAdd)
		mustAdd(t, svc, loci.MemoryInput{Content: "deploy failed at 3AM", AgentID: "ops", Kind: loci.KindPassage}, loci.EventNoop)
		n := mustAdd(t, svc, loci.MemoryInput{Content: "Thursday", AgentID: "ops", Kind: loci.KindNote, Key: "day"}, loci.EventAdd)
		mustAdd(t, svc, loci.MemoryInput{Content: "thursday", AgentID: "ops", Kind: loci.KindNote, Key: "day"}, loci.EventNoop)
		mustAdd(t, svc, loci.MemoryInput{Content: "Friday", AgentID: "ops", Kind: loci.KindNote, Key: "day"}, loci.EventUpdate)
		note, err := svc.Recall(ctx, "ops", "day")
		if err != nil || string(note.Value) != `"Friday"` {
			t.Fatalf("Recall = %+v, %v", note, err)
		}
		for name, in := range map[string]loci.MemoryInput{
			"ErrNoteWithoutKey":      {Content: "x", AgentID: "ops", Kind: loci.KindNote},
			"ErrPassageWithoutAgent": {Content: "x", Kind: loci.KindPassage},
			"ErrEpisode":             {Content: "x", UserID: "u", AgentID: "a", Kind: loci.KindEpisode},
			"ErrUnknownKind":         {Content: "x", Kind: "memo"},
			"ErrEmpty":               {Content: "  ", UserID: "u"},
			"ErrMetadataKeyWithDot":  {Content: "x", UserID: "u", Metadata: json.RawMessage(`{"a.b":1}`)},
			"ErrMetadataControlKey":  {Content: "x", UserID: "u", Metadata: json.RawMessage(`{"a\nb":1}`)},
			"ErrMetadataFiveLevels":  {Content: "x", UserID: "u", Metadata: json.RawMessage(`{"a":{"b":{"c":{"d":{"e":1}}}}}`)},
			"ErrMetadata33Keys":      {Content: "x", UserID: "u", Metadata: json.RawMessage(manyKeys(33))},
			"ErrPastExpiry":          {Content: "x", UserID: "u", ExpiresAt: loci.Ptr(t0.Add(-time.Hour))},
			"ErrTTLZero":             {Content: "x", UserID: "u", TTLSeconds: loci.Ptr(int64(0))},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := svc.AddMemory(ctx, in)
				wantCode(t, err, loci.EINVALID)
			})
		}
		big := `{"a":"` + strings.Repeat("x", loci.MaxMetadataBytes) + `"}`
		_, err = svc.AddMemory(ctx, loci.MemoryInput{Content: "x", UserID: "u", Metadata: json.RawMessage(big)})
		wantCode(t, err, loci.ETOOLARGE)
		// One value longer than the whole's limit is too large too, not invalid.
		for _, big := range []string{`{"a":"` + strings.Repeat("x", loci.MaxMetadataBytes+1) + `"}`, `{"a":["` + strings.Repeat("x", loci.MaxMetadataBytes+1) + `"]}`} {
			_, err = svc.AddMemory(ctx, loci.MemoryInput{Content: "x", UserID: "u", Metadata: json.RawMessage(big)})
			wantCode(t, err, loci.ETOOLARGE)
		}

		// Delete by id, any kind.
		if err := svc.DeleteMemory(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		_, err = svc.GetMemory(ctx, p.ID)
		wantCode(t, err, loci.ENOTFOUND)
		wantCode(t, svc.DeleteMemory(ctx, p.ID), loci.ENOTFOUND)
		if err := svc.DeleteMemory(ctx, n.ID); err != nil {
			t.Fatal(err)
		}
		_, err = svc.Recall(ctx, "ops", "day")
		wantCode(t, err, loci.ENOTFOUND)
	})
}

func TestMemoriesPatchAndTTL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)
		f := mustAdd(t, svc, loci.MemoryInput{Content: "Prefers email", UserID: "u"}, loci.EventAdd)
		ev, err := svc.UpdateMemory(ctx, f.ID, loci.MemoryPatch{Content: loci.Ptr("Prefers phone calls")})
		if err != nil || ev.Event != loci.EventUpdate || ev.ID != f.ID || ev.Version != 2 {
			t.Fatalf("patch = %+v, %v", ev, err)
		}
		ev, err = svc.UpdateMemory(ctx, f.ID, loci.MemoryPatch{Content: loci.Ptr("prefers phone  calls")})
		if err != nil || ev.Event != loci.EventNoop || ev.Version != 2 {
			t.Fatalf("same content = %+v, %v", ev, err)
		}
		ev, err = svc.UpdateMemory(ctx, f.ID, loci.MemoryPatch{Metadata: json.RawMessage(`{"v":1}`)})
		if err != nil || ev.Event != loci.EventUpdate || ev.Version != 3 {
			t.Fatalf("metadata = %+v, %v", ev, err)
		}
		hist, err := svc.MemoryHistory(ctx, f.ID)
		if err != nil || len(hist) != 3 || hist[0].Version != 3 || string(hist[0].Metadata) != `{"v":1}` || hist[2].Content != "Prefers email" {
			t.Fatalf("history = %+v, %v", hist, err)
		}
		// One patch of content, tags and metadata together is one version.
		ev, err = svc.UpdateMemory(ctx, f.ID, loci.MemoryPatch{Content: loci.Ptr("Prefers texts"), Tags: &[]string{"contact"},
			Metadata: json.RawMessage(`{"v":2}`)})
		if err != nil || ev.Event != loci.EventUpdate || ev.Version != 4 {
			t.Fatalf("patch of three fields = %+v, %v", ev, err)
		}
		hist, err = svc.MemoryHistory(ctx, f.ID)
		if err != nil || len(hist) != 4 || hist[0].Content != "Prefers texts" || string(hist[0].Metadata) != `{"v":2}` ||
			hist[1].Content != "Prefers phone calls" || string(hist[1].Metadata) != `{"v":1}` {
			t.Fatalf("history after one patch of three fields = %+v, %v", hist, err)
		}

		// The same patch again changes nothing.
		ev, err = svc.UpdateMemory(ctx, f.ID, loci.MemoryPatch{Content: loci.Ptr("Prefers texts"), Metadata: json.RawMessage(`{"v":2}`)})
		if err != nil || ev.Event != loci.EventNoop || ev.Version != 4 {
			t.Fatalf("the same patch again = %+v, %v; want NOOP at version 4", ev, err)
		}

		// A session message is not edited this way.
		if _, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u", Messages: []loci.Message{{Role: "user", Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		msgs, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{SessionID: "s1"}})
		if err != nil || len(msgs) == 0 {
			t.Fatalf("session records = %v, %v", msgs, err)
		}
		_, err = svc.UpdateMemory(ctx, msgs[0].ID, loci.MemoryPatch{Content: loci.Ptr("bye")})
		wantCode(t, err, loci.ECONFLICT)

		// A time to live: answered nowhere once past.
		tmp := mustAdd(t, svc, loci.MemoryInput{Content: "Temporary code 1234", UserID: "u", TTLSeconds: loci.Ptr(int64(60))}, loci.EventAdd)
		if _, err := svc.GetMemory(ctx, tmp.ID); err != nil {
			t.Fatal(err)
		}
		clock.Add(2 * time.Minute)
		_, err = svc.GetMemory(ctx, tmp.ID)
		wantCode(t, err, loci.ENOTFOUND)
		res, err := svc.Search(ctx, loci.SearchQuery{Query: "temporary code", UserID: "u"})
		if err != nil || len(res.Results) != 0 {
			t.Fatalf("search after expiry = %+v, %v", res, err)
		}
		list, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range list {
			if m.ID == tmp.ID {
				t.Fatal("an expired memory is listed")
			}
		}
		facts, _, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range facts {
			if f.ID == tmp.ID {
				t.Fatal("an expired fact is listed by the fact routes")
			}
		}
	})
}

func TestMemoriesFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		for i, c := range []struct{ content, meta string }{
			{"Paris trip in May", `{"topic":"travel","stars":5,"labels":["trip","eu"]}`},
			{"Rome trip in June", `{"topic":"travel","stars":3}`},
			{"Likes jazz", `{"topic":"music","stars":4}`},
			{"Likes trips to the sea", ``},
		} {
			in := loci.MemoryInput{Content: c.content, UserID: "u", Metadata: json.RawMessage(c.meta)}
			if i == 3 {
				in.Tags = []string{"sea"}
			}
			mustAdd(t, svc, in, loci.EventAdd)
		}
		cases := []struct {
			filter string
			want   int
		}{
			{`{"metadata.topic": "travel"}`, 2},
			{`{"metadata.stars": {"gte": 4}}`, 2},
			{`{"and": [{"metadata.topic": "travel"}, {"metadata.stars": {"lt": 4}}]}`, 1},
			{`{"or": [{"metadata.topic": "music"}, {"tags": {"contains": "sea"}}]}`, 2},
			{`{"not": {"metadata.topic": "travel"}}`, 2},
			{`{"metadata.topic": {"ne": "travel"}}`, 2},
			{`{"metadata.topic": {"in": ["music", "art"]}}`, 1},
			{`{"metadata.topic": {"nin": ["music"]}}`, 3},
			{`{"metadata.labels": {"contains": "eu"}}`, 1},
			{`{"kind": "fact", "metadata.stars": {"gt": 3}}`, 2},
			{`{"metadata.stars": {"lte": 3}}`, 1},
			{`{"metadata.stars": {"eq": 4}}`, 1},
			{`{"tags": "sea"}`, 1},
			{`{"tags": {"nin": ["sea"]}}`, 3},
			{`{"created_at": {"gte": "2000-01-01T00:00:00Z"}}`, 4},
			{`{"updated_at": {"lt": "2000-01-01T00:00:00Z"}}`, 0},
			{`{"user_id": "u", "category": {"in": ["general_fact"]}}`, 4},
			{`{"key": {"ne": "x"}}`, 4},
		}
		for _, c := range cases {
			where, err := loci.ParseMemoryFilter([]byte(c.filter))
			if err != nil {
				t.Fatalf("%s: %v", c.filter, err)
			}
			got, total, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}, Filters: where, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if total != c.want || len(got) != min(1, c.want) {
				t.Errorf("list %s: total %d (page %d), want %d", c.filter, total, len(got), c.want)
			}
			res, err := svc.Search(ctx, loci.SearchQuery{Query: "trip jazz sea likes", UserID: "u", Filters: json.RawMessage(c.filter), Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) > c.want {
				t.Errorf("search %s: %d results, want at most %d", c.filter, len(res.Results), c.want)
			}
		}
		// A filtered search fills its limit when enough match.
		res, err := svc.Search(ctx, loci.SearchQuery{Query: "trip", UserID: "u", Filters: json.RawMessage(`{"metadata.topic": "travel"}`), Limit: 2})
		if err != nil || len(res.Results) != 2 {
			t.Fatalf("filtered search = %+v, %v", res, err)
		}
		for _, bad := range []string{`{"metadata.a..b": 1}`, `{"colour": "red"}`, `{"metadata.x": {"like": 1}}`, `{"tags": {"gt": "a"}}`,
			`{"created_at": {"gt": "yesterday"}}`, `{"and": {}}`, `{"metadata.x": {"in": "a"}}`, `{"kind": "memo"}`, `[1]`,
			`{"metadata.x": {"icontains": 1}}`, `{"metadata.a.b.c.d.e": 1}`} {
			if _, err := loci.ParseMemoryFilter([]byte(bad)); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("ParseMemoryFilter(%s) = %v, want invalid", bad, err)
			}
			_, err := svc.Search(ctx, loci.SearchQuery{Query: "trip", UserID: "u", Filters: json.RawMessage(bad)})
			wantCode(t, err, loci.EINVALID)
		}
	})
}

func TestMemoriesBatch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		a := mustAdd(t, svc, loci.MemoryInput{Content: "one", UserID: "u"}, loci.EventAdd)
		b := mustAdd(t, svc, loci.MemoryInput{Content: "two", UserID: "u"}, loci.EventAdd)

		// One bad operation: nothing is applied, the error names it.
		_, err := svc.BatchMemories(ctx, loci.MemoryBatch{
			Add:    []loci.MemoryInput{{Content: "three", UserID: "u"}, {Content: "four", UserID: "u", Category: "Bad!"}},
			Delete: []string{a.ID},
		})
		wantCode(t, err, loci.EINVALID)
		if !strings.Contains(loci.ErrorMessage(err), "add[1]") {
			t.Fatalf("error %q does not name add[1]", loci.ErrorMessage(err))
		}
		_, total, _ := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}})
		if total != 2 {
			t.Fatalf("after a refused batch: %d memories, want 2", total)
		}
		_, err = svc.BatchMemories(ctx, loci.MemoryBatch{Delete: []string{"nope"}})
		wantCode(t, err, loci.ENOTFOUND)

		evs, err := svc.BatchMemories(ctx, loci.MemoryBatch{
			Add:    []loci.MemoryInput{{Content: "three", UserID: "u"}, {Content: "THREE", UserID: "u"}},
			Update: []loci.MemoryUpdate{{ID: b.ID, MemoryPatch: loci.MemoryPatch{Content: loci.Ptr("two!")}}},
			Delete: []string{a.ID},
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.Event)
		}
		if strings.Join(got, ",") != "ADD,NOOP,UPDATE,DELETE" {
			t.Fatalf("events = %v", got)
		}
		if evs[1].ID != evs[0].ID {
			t.Fatalf("a repeat within the batch names %s, want %s", evs[1].ID, evs[0].ID)
		}
		ops := make([]loci.MemoryInput, loci.MaxBatchOps+1)
		_, err = svc.BatchMemories(ctx, loci.MemoryBatch{Add: ops})
		wantCode(t, err, loci.EINVALID)
	})
}

func TestMemoriesAgentBoundKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, _ := newService(t, open)
		admin := context.Background()
		mine := mustAdd(t, svc, loci.MemoryInput{Content: "mine", AgentID: "a", Kind: loci.KindPassage}, loci.EventAdd)
		theirs := mustAdd(t, svc, loci.MemoryInput{Content: "theirs", AgentID: "b", Kind: loci.KindPassage}, loci.EventAdd)
		theirFact := mustAdd(t, svc, loci.MemoryInput{Content: "their fact", AgentID: "b", UserID: "u"}, loci.EventAdd)
		ctx := loci.WithPrincipal(admin, &loci.Principal{Role: loci.RoleEditor, AgentID: "a"})
		if _, err := svc.GetMemory(ctx, mine.ID); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{theirs.ID, theirFact.ID} {
			_, err := svc.GetMemory(ctx, id)
			wantCode(t, err, loci.ENOTFOUND)
			_, err = svc.UpdateMemory(ctx, id, loci.MemoryPatch{Content: loci.Ptr("mine now")})
			wantCode(t, err, loci.ENOTFOUND)
			wantCode(t, svc.DeleteMemory(ctx, id), loci.ENOTFOUND)
			_, err = svc.MemoryHistory(ctx, id)
			wantCode(t, err, loci.ENOTFOUND)
			_, err = svc.BatchMemories(ctx, loci.MemoryBatch{Delete: []string{mine.ID, id}})
			wantCode(t, err, loci.ENOTFOUND)
		}
		_, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "x", AgentID: "b", Kind: loci.KindPassage})
		wantCode(t, err, loci.EFORBIDDEN)
		_, err = svc.BatchMemories(ctx, loci.MemoryBatch{Add: []loci.MemoryInput{{Content: "x", AgentID: "b", Kind: loci.KindPassage}}})
		wantCode(t, err, loci.EFORBIDDEN)
		// The refused batch deleted nothing.
		if _, err := svc.GetMemory(admin, mine.ID); err != nil {
			t.Fatal(err)
		}
		// A creator may add but not update or delete.
		creator := loci.WithPrincipal(admin, &loci.Principal{Role: loci.RoleCreator})
		_, err = svc.UpdateMemory(creator, mine.ID, loci.MemoryPatch{Content: loci.Ptr("x")})
		wantCode(t, err, loci.EFORBIDDEN)
		wantCode(t, svc.DeleteMemory(creator, mine.ID), loci.EFORBIDDEN)
	})
}

// TestRepeatsThroughKindRoutes: the same content again through a kind's
// own route is a repeat too: no new record, no new version.
func TestRepeatsThroughKindRoutes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)

		p1, err := svc.AddPassage(ctx, "a", "Deploy failed at 3am", nil)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := svc.AddPassage(ctx, "a", "deploy  failed at 3AM", nil)
		if err != nil || p2.ID != p1.ID {
			t.Fatalf("repeat passage = %+v, %v; want %s", p2, err, p1.ID)
		}
		f1, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "Likes tea"})
		if err != nil {
			t.Fatal(err)
		}
		f2, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "likes TEA"})
		if err != nil || f2.ID != f1.ID {
			t.Fatalf("repeat fact = %+v, %v; want %s", f2, err, f1.ID)
		}
		k1, _ := svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "Lives in Paris", Key: "home"})
		k2, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "lives in paris", Key: "home"})
		if err != nil || k2.ID != k1.ID {
			t.Fatalf("repeat keyed fact = %+v, %v; want %s", k2, err, k1.ID)
		}
		res, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "u", Query: "tea"})
		if err != nil || len(res.Results) != 1 {
			t.Fatalf("search after a repeat: %+v, %v; want one fact", res, err)
		}

		b1, _, err := svc.SetBlock(ctx, "a", "persona", loci.BlockWrite{Content: "Improv fan"})
		if err != nil {
			t.Fatal(err)
		}
		clock.Add(time.Minute)
		b2, _, err := svc.SetBlock(ctx, "a", "persona", loci.BlockWrite{Content: "improv  fan"})
		if err != nil || b2.Version != b1.Version {
			t.Fatalf("repeat block = %+v, %v; want version %d", b2, err, b1.Version)
		}
		MustRemember(t, svc, "a", "k", jsonString("Thursday"))
		MustRemember(t, svc, "a", "k", jsonString("thursday"))
		hist, err := svc.History(ctx, "a", "k")
		if err != nil || len(hist) != 1 {
			t.Fatalf("note history after a repeat = %+v, %v; want one version", hist, err)
		}
	})
}

func TestForgetWithFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		a := mustAdd(t, svc, loci.MemoryInput{Content: "Trip to Paris", UserID: "u", Metadata: json.RawMessage(`{"topic":"travel"}`)}, loci.EventAdd)
		b := mustAdd(t, svc, loci.MemoryInput{Content: "Trip to the dentist", UserID: "u", Metadata: json.RawMessage(`{"topic":"health"}`)}, loci.EventAdd)
		c := mustAdd(t, svc, loci.MemoryInput{Content: "Likes jazz", UserID: "u", Metadata: json.RawMessage(`{"topic":"travel"}`)}, loci.EventAdd)
		other := mustAdd(t, svc, loci.MemoryInput{Content: "Trip to Rome", UserID: "v", Metadata: json.RawMessage(`{"topic":"travel"}`)}, loci.EventAdd)

		// A query narrowed by a filter.
		got, err := svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Query: "trip", Filters: json.RawMessage(`{"metadata.topic": "travel"}`), DryRun: true})
		if err != nil || len(got) != 1 || got[0].ID != a.ID {
			t.Fatalf("query + filter = %v, %v; want only %s", got, err, a.ID)
		}
		// A filter alone, within the user only.
		got, err = svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Filters: json.RawMessage(`{"metadata.topic": "travel"}`)})
		if err != nil || len(got) != 2 {
			t.Fatalf("filter alone = %v, %v; want %s and %s", got, err, a.ID, c.ID)
		}
		for _, id := range []string{a.ID, c.ID} {
			_, err := svc.GetMemory(ctx, id)
			wantCode(t, err, loci.ENOTFOUND)
		}
		for _, id := range []string{b.ID, other.ID} {
			if _, err := svc.GetMemory(ctx, id); err != nil {
				t.Fatalf("%s was not to be forgotten: %v", id, err)
			}
		}
		_, err = svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Filters: json.RawMessage(`{"colour": "red"}`)})
		wantCode(t, err, loci.EINVALID)
	})
}

// TestMemoriesAddKindsAsDeclared: the memories API adds exactly the kinds
// that declare it (loci.KindTraits.Added, which the transports list); a
// kind that does not is refused, naming its own route.
func TestMemoriesAddKindsAsDeclared(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, _ := newService(t, open)
		for _, k := range loci.Kinds {
			t.Run(string(k), func(t *testing.T) {
				in := loci.MemoryInput{Kind: k, Content: "c " + string(k), UserID: "u", AgentID: "a", SessionID: "s", Key: "k"}
				_, err := svc.AddMemory(t.Context(), in)
				refused := loci.ErrorCode(err) == loci.EINVALID && strings.Contains(loci.ErrorMessage(err), "through /v1/memories")
				if added := k.Traits().Added; added == refused {
					t.Errorf("AddMemory(kind %s) = %v; declared Added: %v", k, err, added)
				}
			})
		}
	})
}
