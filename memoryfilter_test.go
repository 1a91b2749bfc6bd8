package loci_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// filterRecords are the records TestMemoryFilterMatch filters.
func filterRecords(t *testing.T) map[string]*loci.Record {
	t.Helper()
	day := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	recs := map[string]*loci.Record{
		"veg": {Kind: loci.KindFact, Category: "food", Scope: loci.Scope{UserID: "alice"}, Tags: []string{"Diet", "health"},
			CreatedAt: day.Add(-time.Hour), UpdatedAt: day.Add(-time.Hour),
			Metadata: json.RawMessage(`{"food":{"kind":"vegetarian","spicy":false,"level":{"n":3}},"team":"Data Platform","labels":["Alpha","beta"],"big":9007199254740993,"none":null,"topicName":"food"}`)},
		"meat": {Kind: loci.KindFact, Category: "food", Scope: loci.Scope{UserID: "alice"},
			CreatedAt: day, UpdatedAt: day.Add(time.Hour),
			Metadata: json.RawMessage(`{"food":{"kind":"meat","spicy":true},"team":"data science","labels":["gamma"],"big":9007199254740992,"Ünïcode":"é"}`)},
		"bare": {Kind: loci.KindPassage, Scope: loci.Scope{AgentID: "ops"}, Key: "runbook",
			CreatedAt: day.Add(48 * time.Hour), UpdatedAt: day.Add(48 * time.Hour)},
		// Written by an earlier version, whose keys could hold '.'.
		"dotted": {Kind: loci.KindNote, Scope: loci.Scope{AgentID: "ops"}, Key: "k",
			CreatedAt: day.Add(72 * time.Hour), UpdatedAt: day.Add(72 * time.Hour),
			Metadata: json.RawMessage(`{"app.name":"loci"}`)},
	}
	return recs
}

func TestMemoryFilterMatch(t *testing.T) {
	recs := filterRecords(t)
	for _, c := range []struct {
		filter string
		want   []string // the records it selects, in the order veg, meat, bare, dotted
	}{
		// {} always holds, wherever it stands.
		{`{}`, []string{"veg", "meat", "bare", "dotted"}},
		{`{"and": []}`, []string{"veg", "meat", "bare", "dotted"}},
		{`{"or": []}`, nil},
		{`{"not": {}}`, nil},
		{`{"and": [{}]}`, []string{"veg", "meat", "bare", "dotted"}},
		{`{"or": [{}]}`, []string{"veg", "meat", "bare", "dotted"}},
		{`{"not": {"and": []}}`, nil},
		{`{"not": {"or": []}}`, []string{"veg", "meat", "bare", "dotted"}},
		{`{"and": [{}, {"kind": "passage"}]}`, []string{"bare"}},
		{`{"or": [{"not": {}}, {"kind": "passage"}]}`, []string{"bare"}},
		{`{"kind": "passage", "and": []}`, []string{"bare"}},

		// Nested paths.
		{`{"metadata.food.kind": "vegetarian"}`, []string{"veg"}},
		{`{"metadata.food.spicy": true}`, []string{"meat"}},
		{`{"metadata.food.level.n": {"gte": 3}}`, []string{"veg"}},
		{`{"metadata.food.kind.x": "vegetarian"}`, nil},
		{`{"metadata.food.kind": {"ne": "meat"}}`, []string{"veg", "bare", "dotted"}},
		{`{"metadata.topicName": "food"}`, []string{"veg"}},
		{`{"metadata.Ünïcode": "é"}`, []string{"meat"}},
		{`{"metadata.app.name": "loci"}`, []string{"dotted"}},
		{`{"metadata.none": null}`, []string{"veg"}},
		{`{"metadata.none": {"ne": null}}`, []string{"meat", "bare", "dotted"}},

		// contains: a substring of a string (case-sensitive), an element
		// of an array; icontains: the same without case.
		{`{"metadata.team": {"contains": "data"}}`, []string{"meat"}},
		{`{"metadata.team": {"contains": "Data"}}`, []string{"veg"}},
		{`{"metadata.team": {"icontains": "DATA"}}`, []string{"veg", "meat"}},
		{`{"metadata.team": {"icontains": "platform"}}`, []string{"veg"}},
		{`{"metadata.labels": {"contains": "beta"}}`, []string{"veg"}},
		{`{"metadata.labels": {"contains": "Beta"}}`, nil},
		{`{"metadata.labels": {"contains": "bet"}}`, nil},
		{`{"metadata.labels": {"icontains": "ALPHA"}}`, []string{"veg"}},
		{`{"metadata.labels": {"icontains": "alp"}}`, nil},
		{`{"metadata.food": {"contains": "veg"}}`, nil},
		{`{"tags": {"contains": "Diet"}}`, []string{"veg"}},
		{`{"tags": {"contains": "diet"}}`, nil},
		{`{"tags": {"icontains": "diet"}}`, []string{"veg"}},
		{`{"category": {"contains": "oo"}}`, []string{"veg", "meat"}},
		{`{"user_id": {"icontains": "ALI"}}`, []string{"veg", "meat"}},
		{`{"key": {"contains": "book"}}`, []string{"bare"}},

		// Integers compare exactly.
		{`{"metadata.big": 9007199254740993}`, []string{"veg"}},
		{`{"metadata.big": {"gt": 9007199254740992}}`, []string{"veg"}},
		{`{"metadata.big": {"in": [9007199254740992]}}`, []string{"meat"}},

		// Times: RFC 3339, or a date meaning its midnight UTC.
		{`{"created_at": {"gte": "2026-01-31"}}`, []string{"meat", "bare", "dotted"}},
		{`{"created_at": {"lt": "2026-01-31"}}`, []string{"veg"}},
		{`{"created_at": "2026-01-31"}`, []string{"meat"}},
		{`{"created_at": {"in": ["2026-01-31", "2026-02-02T00:00:00Z"]}}`, []string{"meat", "bare"}},
		{`{"updated_at": {"gt": "2026-01-31T00:30:00+00:00"}}`, []string{"meat", "bare", "dotted"}},
	} {
		t.Run(c.filter, func(t *testing.T) {
			f, err := loci.ParseMemoryFilter([]byte(c.filter))
			if err != nil {
				t.Fatalf("ParseMemoryFilter: %v", err)
			}
			// The filter written back parses to one that selects the
			// same (what the HTTP client sends).
			raw, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			again, err := loci.ParseMemoryFilter(raw)
			if err != nil {
				t.Fatalf("ParseMemoryFilter(%s), the filter written back: %v", raw, err)
			}
			for _, name := range []string{"veg", "meat", "bare", "dotted"} {
				r := recs[name]
				want := false
				for _, w := range c.want {
					want = want || w == name
				}
				fields, err := loci.DecodeMetadataFields(r.Metadata)
				if err != nil {
					t.Fatal(err)
				}
				if got := f.Match(r); got != want {
					t.Errorf("Match(%s) = %t, want %t", name, got, want)
				}
				if got := f.MatchFields(r, fields); got != want {
					t.Errorf("MatchFields(%s) = %t, want %t", name, got, want)
				}
				if got := again.Match(r); got != want {
					t.Errorf("written back as %s: Match(%s) = %t, want %t", raw, name, got, want)
				}
			}
		})
	}
}

func TestParseMemoryFilterErrors(t *testing.T) {
	for _, bad := range []string{
		`[1]`,
		`{"colour": "red"}`,
		`{"metadata.": 1}`,
		`{"metadata.a..b": 1}`,
		`{"metadata.a.b.c.d.e": 1}`,
		`{"metadata.a\tb": 1}`,
		`{"metadata.x": {"like": 1}}`,
		`{"metadata.food": {"kind": "veg"}}`,
		`{"metadata.x": {"in": "a"}}`,
		`{"metadata.x": {"gt": true}}`,
		`{"metadata.x": {"gt": null}}`,
		`{"metadata.x": {"icontains": 5}}`,
		`{"metadata.x": {"contains": ["a"]}}`,
		`{"metadata.x": {"eq": {"a": 1}}}`,
		`{"metadata.x": {}}`,
		`{"tags": {"gt": "a"}}`,
		`{"tags": {"contains": 5}}`,
		`{"tags": {"icontains": ["a"]}}`,
		`{"kind": "memo"}`,
		`{"kind": 1}`,
		`{"user_id": {"contains": 1}}`,
		`{"user_id": null}`,
		`{"created_at": {"gt": "yesterday"}}`,
		`{"created_at": {"gt": "2026-1-31"}}`,
		`{"created_at": {"gt": 5}}`,
		`{"created_at": {"contains": "2026"}}`,
		`{"and": {}}`,
		`{"or": [1]}`,
		`{"not": []}`,
	} {
		if _, err := loci.ParseMemoryFilter([]byte(bad)); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("ParseMemoryFilter(%s) = %v, want invalid", bad, err)
		}
	}
	// A filter that always holds is no filter.
	for _, none := range []string{``, `null`, `{}`, `{"and": []}`, `{"and": [{}, {}]}`, `{"not": {"or": []}}`, `{"or": [{}, {"kind": "fact"}]}`} {
		if f, err := loci.ParseMemoryFilter([]byte(none)); f != nil || err != nil {
			t.Errorf("ParseMemoryFilter(%q) = %v, %v; want no filter", none, f, err)
		}
	}
}

func TestParseFilterTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026-01-31":                time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
		"2026-01-31T10:00:00Z":      time.Date(2026, 1, 31, 10, 0, 0, 0, time.UTC),
		"2026-01-31T10:00:00+02:00": time.Date(2026, 1, 31, 8, 0, 0, 0, time.UTC),
	} {
		got, err := loci.ParseFilterTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseFilterTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-02-30", "31/01/2026"} {
		if _, err := loci.ParseFilterTime(bad); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("ParseFilterTime(%q) = %v, want invalid", bad, err)
		}
	}
}
