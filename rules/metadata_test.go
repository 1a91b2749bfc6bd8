package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// manyKeys is a metadata object of n keys.
func manyKeys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMetadataAnyJSON: metadata of any keys (but '.' and control
// characters) and any JSON values is stored in canonical form, its
// integers exact, and read back as written through every read of the
// record: get, listing, history, the user's memories, export and import;
// it is never searched as text.
func TestMetadataAnyJSON(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		in := `{"topicName": "food", "Ünïcode": "é", "user-agent": "curl/8", "food": {"kind": "vegetarian", "allergy": {"nuts": true, "level": {"n": 3}}},
			"none": null, "big": 9007199254740993, "ratio": 1.50, "list": [1, {"a": [2]}, null], "html": "a & b <c>"}`
		want := `{"big":9007199254740993,"food":{"allergy":{"level":{"n":3},"nuts":true},"kind":"vegetarian"},"html":"a & b <c>",` +
			`"list":[1,{"a":[2]},null],"none":null,"ratio":1.50,"topicName":"food","user-agent":"curl/8","Ünïcode":"é"}`
		ev := mustAdd(t, svc, loci.MemoryInput{Content: "Eats no meat", UserID: "u", Metadata: json.RawMessage(in)}, loci.EventAdd)
		m, err := svc.GetMemory(ctx, ev.ID)
		if err != nil || string(m.Metadata) != want {
			t.Fatalf("GetMemory: metadata %s, %v; want %s", m.Metadata, err, want)
		}
		list, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}})
		if err != nil || len(list) != 1 || string(list[0].Metadata) != want {
			t.Fatalf("ListMemories = %+v, %v", list, err)
		}
		if _, err := svc.UpdateMemory(ctx, ev.ID, loci.MemoryPatch{Metadata: json.RawMessage(`{"topicName": "diet"}`)}); err != nil {
			t.Fatal(err)
		}
		hist, err := svc.MemoryHistory(ctx, ev.ID)
		if err != nil || len(hist) != 2 || string(hist[0].Metadata) != `{"topicName":"diet"}` || string(hist[1].Metadata) != want {
			t.Fatalf("history = %+v, %v", hist, err)
		}
		mine, err := svc.UserMemories(ctx, "u", loci.UserMemoryQuery{})
		if err != nil || len(mine) != 1 || string(mine[0].Metadata) != `{"topicName":"diet"}` {
			t.Fatalf("UserMemories = %+v, %v", mine, err)
		}

		// Not searched as text: a word of the metadata alone finds nothing.
		res, err := svc.Search(ctx, loci.SearchQuery{Query: "vegetarian curl", UserID: "u"})
		if err != nil || len(res.Results) != 0 {
			t.Fatalf("a search for words only in metadata = %+v, %v", res, err)
		}

		// Export and import keep it, versions included.
		var exp bytes.Buffer
		if _, err := svc.Export(ctx, loci.ExportFilter{}, &exp); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(exp.String(), want) || !strings.Contains(exp.String(), `9007199254740993`) {
			t.Fatalf("the export does not hold the metadata as written:\n%s", exp.String())
		}
		other, _ := newService(t, open)
		if _, err := other.Import(ctx, bytes.NewReader(exp.Bytes())); err != nil {
			t.Fatal(err)
		}
		hist, err = other.MemoryHistory(ctx, ev.ID)
		if err != nil || len(hist) != 2 || string(hist[1].Metadata) != want {
			t.Fatalf("imported history = %+v, %v", hist, err)
		}
		var again bytes.Buffer
		if _, err := other.Export(ctx, loci.ExportFilter{}, &again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), exp.Bytes()) {
			t.Fatalf("export, import, export differ:\n%s\n---\n%s", exp.String(), again.String())
		}

		// The limits: 4 KB of the compact JSON, & counted as one byte.
		amps := `{"a":"` + strings.Repeat("&", loci.MaxMetadataBytes-8) + `"}`
		if ev, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "ampersands", UserID: "u", Metadata: json.RawMessage(amps)}); err != nil {
			t.Fatalf("4096 bytes of metadata, of &: %v", err)
		} else if m, err := svc.GetMemory(ctx, ev.ID); err != nil || string(m.Metadata) != amps {
			t.Fatalf("4096 bytes of & read back as %.40s…, %v", m.Metadata, err)
		}
		for name, c := range map[string]struct{ meta, code string }{
			"ErrTooLarge":      {`{"a":"` + strings.Repeat("&", loci.MaxMetadataBytes-7) + `"}`, loci.ETOOLARGE},
			"ErrFiveLevels":    {`{"a":{"b":{"c":{"d":{"e":1}}}}}`, loci.EINVALID},
			"ErrKeyWithDot":    {`{"a.b":1}`, loci.EINVALID},
			"Err33Keys":        {manyKeys(33), loci.EINVALID},
			"ErrNestedDotKey":  {`{"a":{"b.c":1}}`, loci.EINVALID},
			"ErrNestedCtrlKey": {`{"a":{"b\u0007":1}}`, loci.EINVALID},
		} {
			_, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "refused " + name, UserID: "u", Metadata: json.RawMessage(c.meta)})
			if loci.ErrorCode(err) != c.code {
				t.Errorf("%s: AddMemory = %v, want %s", name, err, c.code)
			}
			_, err = svc.UpdateMemory(ctx, ev.ID, loci.MemoryPatch{Metadata: json.RawMessage(c.meta)})
			if loci.ErrorCode(err) != c.code {
				t.Errorf("%s: UpdateMemory = %v, want %s", name, err, c.code)
			}
		}
		if _, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "32 keys", UserID: "u", Metadata: json.RawMessage(manyKeys(32))}); err != nil {
			t.Fatalf("32 keys: %v", err)
		}
		if _, err := svc.AddMemory(ctx, loci.MemoryInput{Content: "four levels", UserID: "u", Metadata: json.RawMessage(`{"a":{"b":{"c":{"d":1}}}}`)}); err != nil {
			t.Fatalf("four levels: %v", err)
		}
	})
}

// TestFiltersV13: nested paths, contains on strings, icontains, the
// filters that always or never hold, and dates, answered alike by a
// listing, a search (filters before ranking), a forget and the index's
// listing and the store's scan, on every backend.
func TestFiltersV13(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		clock := loci.NewFakeClock(t0)
		svc := rules.New(store, rules.WithClock(clock), rules.WithAudit(false))
		scanned := rules.New(store, rules.WithClock(clock), rules.WithAudit(false), rules.WithIndexBudget(1))
		names := map[string]string{}
		for _, c := range []struct{ name, meta string }{
			{"veg", `{"food":{"kind":"vegetarian","spicy":false},"team":"Data Platform","labels":["Alpha","beta"],"big":9007199254740993}`},
			{"meat", `{"food":{"kind":"meat","spicy":true},"team":"data science","labels":["gamma"],"big":9007199254740992}`},
			{"bare", ``},
		} {
			ev := mustAdd(t, svc, loci.MemoryInput{Content: "dinner note " + c.name, UserID: "u", Metadata: json.RawMessage(c.meta)}, loci.EventAdd)
			names[ev.ID] = c.name
			clock.Add(24 * time.Hour)
		}
		// t0 is 2026-02-15 14:30 UTC: veg on the 15th, meat on the 16th,
		// bare on the 17th.
		day2 := t0.Add(24 * time.Hour).Format(time.DateOnly)
		cases := []struct {
			filter string
			want   []string
		}{
			{`{"metadata.food.kind": "vegetarian"}`, []string{"veg"}},
			{`{"metadata.food.spicy": {"ne": true}}`, []string{"bare", "veg"}},
			{`{"metadata.team": {"contains": "data"}}`, []string{"meat"}},
			{`{"metadata.team": {"icontains": "DATA"}}`, []string{"meat", "veg"}},
			{`{"metadata.labels": {"icontains": "alpha"}}`, []string{"veg"}},
			{`{"metadata.labels": {"contains": "alpha"}}`, nil},
			{`{"metadata.big": 9007199254740993}`, []string{"veg"}},
			{`{"and": []}`, []string{"bare", "meat", "veg"}},
			{`{"and": [{}]}`, []string{"bare", "meat", "veg"}},
			{`{"or": []}`, nil},
			{`{"not": {}}`, nil},
			{`{"or": [{}, {"metadata.team": "x"}]}`, []string{"bare", "meat", "veg"}},
			{`{"created_at": {"gte": "` + day2 + `"}}`, []string{"bare", "meat"}},
			{`{"created_at": {"lt": "` + day2 + `"}}`, []string{"veg"}},
		}
		for _, c := range cases {
			where, err := loci.ParseMemoryFilter([]byte(c.filter))
			if err != nil {
				t.Fatalf("%s: %v", c.filter, err)
			}
			for _, s := range []*rules.Service{svc, scanned} {
				got, n, err := s.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}, Filters: where})
				if err != nil {
					t.Fatal(err)
				}
				var gotNames []string
				for _, m := range got {
					gotNames = append(gotNames, names[m.ID])
				}
				slices.Sort(gotNames)
				if n != len(c.want) || !slices.Equal(gotNames, c.want) {
					t.Errorf("list %s: %v (count %d), want %v", c.filter, gotNames, n, c.want)
				}
			}
			// A search filters before it ranks: every match of the
			// query that the filter selects, and nothing else.
			res, err := svc.Search(ctx, loci.SearchQuery{Query: "dinner note", UserID: "u", Filters: json.RawMessage(c.filter), Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var gotNames []string
			for _, r := range res.Results {
				gotNames = append(gotNames, names[r.ID])
			}
			slices.Sort(gotNames)
			if !slices.Equal(gotNames, c.want) {
				t.Errorf("search %s: %v, want %v", c.filter, gotNames, c.want)
			}
			// A forget narrowed by the filter deletes what it selects.
			gone, err := svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Query: "dinner", Filters: json.RawMessage(c.filter), DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			gotNames = nil
			for _, m := range gone {
				gotNames = append(gotNames, names[m.ID])
			}
			slices.Sort(gotNames)
			if !slices.Equal(gotNames, c.want) {
				t.Errorf("forget %s: %v, want %v", c.filter, gotNames, c.want)
			}
		}
		// A wrong-typed value is refused by every way in, and nothing is
		// forgotten.
		for _, bad := range []string{`{"metadata.team": {"icontains": 1}}`, `{"metadata.food.kind": {"gt": true}}`,
			`{"created_at": {"gte": "31-01-2026"}}`, `{"metadata.a.b.c.d.e": 1}`} {
			mustNotParse(t, bad)
			_, err := svc.Search(ctx, loci.SearchQuery{Query: "dinner", UserID: "u", Filters: json.RawMessage(bad)})
			wantCode(t, err, loci.EINVALID)
			_, err = svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Filters: json.RawMessage(bad)})
			wantCode(t, err, loci.EINVALID)
		}
		if _, n, _ := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "u"}}); n != 3 {
			t.Fatalf("after refused forgets: %d memories, want 3", n)
		}
	})
}

// mustNotParse checks that filter is refused as invalid (what the
// listing parses).
func mustNotParse(t *testing.T, filter string) {
	t.Helper()
	if _, err := loci.ParseMemoryFilter([]byte(filter)); loci.ErrorCode(err) != loci.EINVALID {
		t.Fatalf("ParseMemoryFilter(%s) = %v, want invalid", filter, err)
	}
}
