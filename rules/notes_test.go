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

var t0 = time.Date(2026, 2, 15, 14, 30, 0, 0, time.UTC)

// newService returns a notes service on a fresh store with a fake clock.
func newService(t *testing.T, open func(testing.TB) loci.Store) (*rules.Service, *loci.FakeClock) {
	t.Helper()
	clock := loci.NewFakeClock(t0)
	return rules.New(open(t), rules.WithClock(clock)), clock
}

// jsonString returns s as a JSON string value.
func jsonString(s string) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// MustRemember remembers a note or fails the test.
func MustRemember(t testing.TB, svc loci.NoteService, agent, key string, value json.RawMessage) *loci.RememberResult {
	t.Helper()
	res, err := svc.Remember(context.Background(), agent, key, value)
	if err != nil {
		t.Fatalf("Remember(%q, %q): %v", agent, key, err)
	}
	return res
}

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := loci.ErrorCode(err); got != code {
		t.Fatalf("error code: got %q (%v), want %q", got, err, code)
	}
}

func TestRememberActions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)

		res := MustRemember(t, svc, "writer", "best_posting_time", jsonString("Thursday 9am"))
		if res.Action != loci.ActionCreated || res.Key != "best_posting_time" || !res.UpdatedAt.Equal(t0) {
			t.Fatalf("first remember: got %+v, want created at %v", res, t0)
		}
		clock.Add(time.Minute)
		res = MustRemember(t, svc, "writer", "best_posting_time", jsonString("Friday 10am"))
		if res.Action != loci.ActionUpdated || !res.UpdatedAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("second remember: got %+v, want updated at %v", res, t0.Add(time.Minute))
		}
		n, err := svc.Recall(ctx, "writer", "best_posting_time")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(n.Value), `"Friday 10am"`; got != want {
			t.Errorf("value: got %s, want %s", got, want)
		}
		if !n.UpdatedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("updated_at: got %v, want %v", n.UpdatedAt, t0.Add(time.Minute))
		}
	})
}

func TestRememberValues(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  string // the value recalled
	}{
		{"String", `"Educational content performs 3x better"`, `"Educational content performs 3x better"`},
		{"StringUnicode", `"caf\u00e9 ☕"`, `"caf\u00e9 ☕"`},
		{"Object", `{"posts_per_day": 3, "platforms": ["x", "linkedin"]}`, `{"posts_per_day":3,"platforms":["x","linkedin"]}`},
		{"Array", `[1, 2, 3]`, `[1,2,3]`},
		{"Number", `42`, `42`},
		{"Zero", `0`, `0`},
		{"False", `false`, `false`},
		{"PaddedString", "  \"x\"\n", `"x"`},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, _ := newService(t, open)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				MustRemember(t, svc, "a", tt.name, json.RawMessage(tt.value))
				n, err := svc.Recall(context.Background(), "a", tt.name)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(n.Value); got != tt.want {
					t.Errorf("value: got %s, want %s", got, tt.want)
				}
			})
		}
	})
}

func TestRememberValidation(t *testing.T) {
	// bigObject returns a compact JSON object of exactly n bytes.
	bigObject := func(n int) json.RawMessage {
		return json.RawMessage(`{"a":"` + strings.Repeat("x", n-len(`{"a":""}`)) + `"}`)
	}
	tests := []struct {
		name     string
		agent    string
		key      string
		value    json.RawMessage
		wantCode string // "" for success
	}{
		{"OK", "a", "k", jsonString("v"), ""},
		{"ErrEmptyAgent", "", "k", jsonString("v"), loci.EINVALID},
		{"ErrWhitespaceAgent", " \t", "k", jsonString("v"), loci.EINVALID},
		{"ErrEmptyKey", "a", "", jsonString("v"), loci.EINVALID},
		{"ErrWhitespaceKey", "a", "  \n\t", jsonString("v"), loci.EINVALID},
		{"ErrMissingValue", "a", "k", nil, loci.EINVALID},
		{"ErrBlankValue", "a", "k", json.RawMessage("   "), loci.EINVALID},
		{"ErrNullValue", "a", "k", json.RawMessage(`null`), loci.EINVALID},
		{"ErrEmptyStringValue", "a", "k", jsonString(""), loci.EINVALID},
		{"ErrWhitespaceValue", "a", "k", jsonString(" \t\n "), loci.EINVALID},
		{"ErrMalformedValue", "a", "k", json.RawMessage(`{"a":`), loci.EINVALID},
		{"KeyMaxBytes", "a", strings.Repeat("k", loci.MaxNoteKeyBytes), jsonString("v"), ""},
		{"ErrKeyTooLong", "a", strings.Repeat("k", loci.MaxNoteKeyBytes+1), jsonString("v"), loci.EINVALID},
		{"KeyMaxBytesMultibyte", "a", strings.Repeat("é", loci.MaxNoteKeyBytes/2), jsonString("v"), ""},
		{"ErrKeyTooLongMultibyte", "a", strings.Repeat("é", loci.MaxNoteKeyBytes/2) + "x", jsonString("v"), loci.EINVALID},
		{"StringValueMaxBytes", "a", "k", jsonString(strings.Repeat("v", loci.MaxNoteValueBytes)), ""},
		{"ErrStringValueTooLarge", "a", "k", jsonString(strings.Repeat("v", loci.MaxNoteValueBytes+1)), loci.ETOOLARGE},
		{"ObjectValueMaxBytes", "a", "k", bigObject(loci.MaxNoteValueBytes), ""},
		{"ErrObjectValueTooLarge", "a", "k", bigObject(loci.MaxNoteValueBytes + 1), loci.ETOOLARGE},
		{"ErrKeyInvalidUTF8", "a", "k\xff", jsonString("v"), loci.EINVALID},
		{"ErrAgentInvalidUTF8", "a\xff", "k", jsonString("v"), loci.EINVALID},
		{"ErrValueInvalidUTF8", "a", "k", json.RawMessage("\"v\xff\""), loci.EINVALID},
		{"ErrObjectValueInvalidUTF8", "a", "k", json.RawMessage("{\"v\":\"\xff\"}"), loci.EINVALID},
		{"ErrKeyNUL", "a", "k\x00", jsonString("v"), loci.EINVALID},
		{"ErrValueNUL", "a", "k", jsonString("v\x00"), loci.EINVALID},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				svc, _ := newService(t, open)
				ctx := context.Background()
				_, err := svc.Remember(ctx, tt.agent, tt.key, tt.value)
				wantCode(t, err, tt.wantCode)
				if tt.wantCode == "" {
					n, err := svc.Recall(ctx, tt.agent, tt.key)
					if err != nil {
						t.Fatalf("recall after remember: %v", err)
					}
					var want, got any
					json.Unmarshal(tt.value, &want)
					json.Unmarshal(n.Value, &got)
					if mustJSON(t, got) != mustJSON(t, want) {
						t.Errorf("recalled value differs from the value remembered")
					}
					return
				}
				// Nothing is stored: not under this agent, not anywhere.
				var count int
				if err := svc.Store().View(ctx, func(tx loci.Tx) (err error) {
					count, err = tx.CountRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace})
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if count != 0 {
					t.Errorf("records after a refused remember: got %d, want 0", count)
				}
			})
		}
	})
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRecall(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		MustRemember(t, svc, "a", "k", jsonString("v"))
		tests := []struct {
			name, agent, key string
			wantCode         string
		}{
			{"OK", "a", "k", ""},
			{"ErrNotFound", "a", "missing", loci.ENOTFOUND},
			{"ErrOtherAgent", "b", "k", loci.ENOTFOUND},
			{"ErrEmptyKey", "a", "", loci.EINVALID},
			{"ErrWhitespaceKey", "a", "  ", loci.EINVALID},
			{"ErrEmptyAgent", "", "k", loci.EINVALID},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				n, err := svc.Recall(ctx, tt.agent, tt.key)
				wantCode(t, err, tt.wantCode)
				if tt.wantCode == loci.ENOTFOUND {
					if got, want := loci.ErrorMessage(err), "Memory not found"; got != want {
						t.Errorf("message: got %q, want %q", got, want)
					}
				}
				if tt.wantCode == "" && (n.Key != "k" || string(n.Value) != `"v"` || !n.UpdatedAt.Equal(t0)) {
					t.Errorf("note: got %+v", n)
				}
			})
		}
	})
}

func TestRecallAll(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)

		notes, err := svc.RecallAll(ctx, "writer")
		if err != nil {
			t.Fatal(err)
		}
		if notes == nil || len(notes) != 0 {
			t.Fatalf("no notes: got %#v, want an empty, non-nil slice", notes)
		}

		for _, k := range []string{"c", "a", "b"} {
			MustRemember(t, svc, "writer", k, jsonString("value of "+k))
			clock.Add(time.Second)
		}
		MustRemember(t, svc, "other", "z", jsonString("not writer's"))
		notes, err = svc.RecallAll(ctx, "writer")
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, n := range notes {
			keys = append(keys, n.Key)
			if got, want := string(n.Value), `"value of `+n.Key+`"`; got != want {
				t.Errorf("value of %s: got %s, want %s", n.Key, got, want)
			}
		}
		if got, want := strings.Join(keys, ","), "a,b,c"; got != want {
			t.Errorf("keys: got %s, want %s", got, want)
		}

		_, err = svc.RecallAll(ctx, " ")
		wantCode(t, err, loci.EINVALID)
	})
}

func TestHistory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)
		values := []string{`"one"`, `{"n":2}`, `"three"`}
		for _, v := range values {
			MustRemember(t, svc, "a", "k", json.RawMessage(v))
			clock.Add(time.Hour)
		}
		got, err := svc.History(ctx, "a", "k")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(values) {
			t.Fatalf("versions: got %d, want %d", len(got), len(values))
		}
		for i, v := range got {
			j := len(values) - 1 - i // current first
			if string(v.Value) != values[j] {
				t.Errorf("versions[%d].value: got %s, want %s", i, v.Value, values[j])
			}
			if v.Version != j+1 {
				t.Errorf("versions[%d].version: got %d, want %d", i, v.Version, j+1)
			}
			if want := t0.Add(time.Duration(j) * time.Hour); !v.UpdatedAt.Equal(want) {
				t.Errorf("versions[%d].updated_at: got %v, want %v", i, v.UpdatedAt, want)
			}
		}

		t.Run("ErrNotFound", func(t *testing.T) {
			_, err := svc.History(ctx, "a", "missing")
			wantCode(t, err, loci.ENOTFOUND)
		})
		t.Run("ErrOtherAgent", func(t *testing.T) {
			_, err := svc.History(ctx, "b", "k")
			wantCode(t, err, loci.ENOTFOUND)
		})
		t.Run("ErrEmptyKey", func(t *testing.T) {
			_, err := svc.History(ctx, "a", "")
			wantCode(t, err, loci.EINVALID)
		})
	})
}

func TestForget(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, clock := newService(t, open)
		for _, v := range []string{"one", "two", "three"} {
			MustRemember(t, svc, "a", "k", jsonString(v))
			clock.Add(time.Second)
		}
		MustRemember(t, svc, "a", "kept", jsonString("kept"))
		recs := mustFind(t, svc.Store(), "a", "k")
		if len(recs) != 1 {
			t.Fatalf("records of a/k: got %d, want 1", len(recs))
		}
		id := recs[0].ID
		if n := len(mustVersions(t, svc.Store(), id)); n != 2 {
			t.Fatalf("kept versions before forget: got %d, want 2", n)
		}

		if err := svc.Forget(ctx, "a", "k"); err != nil {
			t.Fatal(err)
		}
		_, err := svc.Recall(ctx, "a", "k")
		wantCode(t, err, loci.ENOTFOUND)
		_, err = svc.History(ctx, "a", "k")
		wantCode(t, err, loci.ENOTFOUND)
		if n := len(mustVersions(t, svc.Store(), id)); n != 0 {
			t.Errorf("kept versions after forget: got %d, want 0", n)
		}
		if _, err := svc.Recall(ctx, "a", "kept"); err != nil {
			t.Errorf("other note after forget: %v", err)
		}

		// Remembering again starts afresh: created, one version.
		res := MustRemember(t, svc, "a", "k", jsonString("again"))
		if res.Action != loci.ActionCreated {
			t.Errorf("action after forget: got %q, want created", res.Action)
		}
		h, err := svc.History(ctx, "a", "k")
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 1 || string(h[0].Value) != `"again"` {
			t.Errorf("history after forget and remember: got %d versions (%v)", len(h), h)
		}

		tests := []struct {
			name, agent, key, wantCode string
		}{
			{"ErrNotFound", "a", "missing", loci.ENOTFOUND},
			{"OK", "a", "kept", ""},
			{"ErrAlreadyForgotten", "a", "kept", loci.ENOTFOUND},
			{"ErrEmptyKey", "a", "", loci.EINVALID},
			{"ErrWhitespaceAgent", "\t", "k", loci.EINVALID},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := svc.Forget(ctx, tt.agent, tt.key)
				wantCode(t, err, tt.wantCode)
				if tt.wantCode == loci.ENOTFOUND && loci.ErrorMessage(err) != "Memory not found" {
					t.Errorf("message: got %q, want %q", loci.ErrorMessage(err), "Memory not found")
				}
			})
		}
	})
}

func TestAgentIsolation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc, _ := newService(t, open)
		MustRemember(t, svc, "A", "shared_key", jsonString("A's value"))
		MustRemember(t, svc, "A", "only_a", jsonString("A's secret"))
		if res := MustRemember(t, svc, "B", "shared_key", jsonString("B's value")); res.Action != loci.ActionCreated {
			t.Errorf("B's first remember of a key A has: got %q, want created", res.Action)
		}

		if _, err := svc.Recall(ctx, "B", "only_a"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("B recalls A's note: got %v, want not found", err)
		}
		if _, err := svc.History(ctx, "B", "only_a"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("B reads A's history: got %v, want not found", err)
		}
		if err := svc.Forget(ctx, "B", "only_a"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("B forgets A's note: got %v, want not found", err)
		}
		n, err := svc.Recall(ctx, "B", "shared_key")
		if err != nil || string(n.Value) != `"B's value"` {
			t.Errorf("B's shared_key: got %v, %v; want B's value", n, err)
		}
		h, err := svc.History(ctx, "B", "shared_key")
		if err != nil || len(h) != 1 {
			t.Errorf("B's history of shared_key: got %d versions, %v; want 1", len(h), err)
		}
		all, err := svc.RecallAll(ctx, "B")
		if err != nil || len(all) != 1 || all[0].Key != "shared_key" {
			t.Errorf("B's notes: got %v, %v; want only shared_key", all, err)
		}
		if err := svc.Forget(ctx, "B", "shared_key"); err != nil {
			t.Fatal(err)
		}
		// A is untouched by everything B did.
		all, err = svc.RecallAll(ctx, "A")
		if err != nil || len(all) != 2 {
			t.Fatalf("A's notes: got %d, %v; want 2", len(all), err)
		}
		n, err = svc.Recall(ctx, "A", "shared_key")
		if err != nil || string(n.Value) != `"A's value"` {
			t.Errorf("A's shared_key: got %v, %v; want A's value", n, err)
		}
		// Agent ids match exactly: no case folding, no trimming.
		if _, err := svc.Recall(ctx, "a", "only_a"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("agent a recalls agent A's note: got %v, want not found", err)
		}
	})
}

func TestWorkspaceIsolation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, _ := newService(t, open)
		ws1 := loci.WithWorkspace(context.Background(), "one")
		ws2 := loci.WithWorkspace(context.Background(), "two")
		if _, err := svc.Remember(ws1, "a", "k", jsonString("v")); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Recall(ws2, "a", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("recall from another workspace: got %v, want not found", err)
		}
		if all, err := svc.RecallAll(ws2, "a"); err != nil || len(all) != 0 {
			t.Errorf("recall all from another workspace: got %d, %v; want 0", len(all), err)
		}
	})
}

func mustFind(t testing.TB, s loci.Store, agent, key string) []*loci.Record {
	t.Helper()
	var recs []*loci.Record
	ctx := context.Background()
	if err := s.View(ctx, func(tx loci.Tx) (err error) {
		recs, err = tx.FindRecords(ctx, loci.RecordFilter{
			Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindNote},
			AgentID: &agent, Key: &key,
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

func mustVersions(t testing.TB, s loci.Store, id string) []loci.RecordVersion {
	t.Helper()
	var vs []loci.RecordVersion
	ctx := context.Background()
	if err := s.View(ctx, func(tx loci.Tx) (err error) {
		vs, err = tx.ListVersions(ctx, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return vs
}
