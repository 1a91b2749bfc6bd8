package httpapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// answer sends one request, checks its status and returns its JSON body.
func answer(t *testing.T, srv *httptest.Server, method, path, body string, want int) map[string]any {
	t.Helper()
	st, b := do(t, srv, method, path, body)
	if st != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, st, want, b)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return out
}

// TestRememberRepeatIsUpdated: a remember of the value a note holds answers
// "updated" with the time of this remember, which the note then says, and
// keeps no new version; the memories API's repeat of it still writes nothing.
func TestRememberRepeatIsUpdated(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		first := answer(t, srv, "PUT", "/v1/agents/a/notes/day", `{"value": "Thursday"}`, 201)
		clock.Add(time.Minute)
		for i, value := range []string{`"Thursday"`, `"  thursday "`} {
			clock.Add(time.Minute)
			want := clock.Now().UTC().Format(time.RFC3339Nano)
			got := answer(t, srv, "PUT", "/v1/agents/a/notes/day", `{"value": `+value+`}`, 200)
			if got["action"] != loci.ActionUpdated || got["updated_at"] != want {
				t.Errorf("repeat %d: %v, want action updated at %s (the first said %v)", i, got, want, first["updated_at"])
			}
			note := answer(t, srv, "GET", "/v1/agents/a/notes/day", "", 200)
			if note["updated_at"] != want || note["value"] != "Thursday" {
				t.Errorf("repeat %d: the note is %v, want Thursday updated at %s", i, note, want)
			}
			hist := answer(t, srv, "GET", "/v1/agents/a/notes/day/history", "", 200)
			if vs, _ := hist["versions"].([]any); len(vs) != 1 {
				t.Errorf("repeat %d: history %v, want the one value (no version for a repeat)", i, hist["versions"])
			}
		}
		// The memories API: a repeat is NOOP, nothing written.
		clock.Add(time.Minute)
		ev := answer(t, srv, "POST", "/v1/memories", `{"content": "Thursday", "agent_id": "a", "kind": "note", "key": "day"}`, 200)
		m := answer(t, srv, "GET", "/v1/memories/"+ev["id"].(string), "", 200)
		if ev["event"] != loci.EventNoop || m["updated_at"] == clock.Now().UTC().Format(time.RFC3339Nano) {
			t.Errorf("memories API repeat: %v, then %v; want NOOP and updated_at unchanged", ev, m)
		}
	})
}

// TestRepeatBringsTagsOrMetadata: the same content again that brings tags
// the record lacks, or metadata it does not hold, updates the record in
// place (UPDATE, history kept: the tags added, the metadata keys set);
// only a true repeat is a NOOP; through every way in that answers repeats.
func TestRepeatBringsTagsOrMetadata(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		strs := func(v any) []string {
			var out []string
			for _, x := range v.([]any) {
				out = append(out, x.(string))
			}
			return out
		}
		history := func(id string) []any {
			t.Helper()
			vs, _ := answer(t, srv, "GET", "/v1/memories/"+id+"/history", "", 200)["versions"].([]any)
			return vs
		}

		t.Run("passagesRoute", func(t *testing.T) {
			p := answer(t, srv, "POST", "/v1/agents/a1/passages", `{"content": "c", "tags": ["x"]}`, 201)
			id := p["id"].(string)
			if p["event"] != loci.EventAdd {
				t.Errorf("first add: %v", p)
			}
			clock.Add(time.Minute)
			up := answer(t, srv, "POST", "/v1/agents/a1/passages", `{"content": " C ", "tags": ["y"]}`, 201)
			if up["id"] != id || up["event"] != loci.EventUpdate || !slices.Equal(strs(up["tags"]), []string{"x", "y"}) {
				t.Errorf("repeat with another tag: %v, want UPDATE of %s with tags x, y", up, id)
			}
			found := answer(t, srv, "GET", "/v1/agents/a1/passages?tag=y", "", 200)
			if found["count"] != 1.0 {
				t.Errorf("passages tagged y: %v", found)
			}
			if h := history(id); len(h) != 2 {
				t.Errorf("history %v, want 2 versions", h)
			}
			for _, body := range []string{`{"content": "c", "tags": ["x"]}`, `{"content": "c"}`, `{"content": "c", "tags": ["y", "x"]}`} {
				same := answer(t, srv, "POST", "/v1/agents/a1/passages", body, 201)
				if same["id"] != id || same["event"] != loci.EventNoop || !slices.Equal(strs(same["tags"]), []string{"x", "y"}) {
					t.Errorf("%s: %v, want NOOP", body, same)
				}
			}
			if h := history(id); len(h) != 2 {
				t.Errorf("history after true repeats %v, want 2 versions", h)
			}
		})

		t.Run("memoriesAPI", func(t *testing.T) {
			for _, tc := range []struct{ name, first, scope string }{
				{"fact", `"user_id": "u1"`, `"user_id": "u1"`},
				{"passage", `"agent_id": "a2", "kind": "passage"`, `"agent_id": "a2", "kind": "passage"`},
			} {
				t.Run(tc.name, func(t *testing.T) {
					add := answer(t, srv, "POST", "/v1/memories", `{"content": "likes tea", `+tc.first+`, "tags": ["drink"], "metadata": {"source": "chat", "n": 1}}`, 201)
					id := add["id"].(string)
					clock.Add(time.Minute)
					up := answer(t, srv, "POST", "/v1/memories", `{"content": "Likes  tea", `+tc.scope+`, "metadata": {"n": 2}}`, 201)
					if up["id"] != id || up["event"] != loci.EventUpdate || up["version"] != 2.0 {
						t.Errorf("repeat with other metadata: %v, want UPDATE of %s to version 2", up, id)
					}
					clock.Add(time.Minute)
					up = answer(t, srv, "POST", "/v1/memories", `{"content": "likes tea", `+tc.scope+`, "tags": ["morning"]}`, 201)
					if up["id"] != id || up["event"] != loci.EventUpdate || up["version"] != 3.0 {
						t.Errorf("repeat with another tag: %v, want UPDATE to version 3", up)
					}
					m := answer(t, srv, "GET", "/v1/memories/"+id, "", 200)
					meta, _ := json.Marshal(m["metadata"])
					if string(meta) != `{"n":2,"source":"chat"}` || !slices.Equal(strs(m["tags"]), []string{"drink", "morning"}) {
						t.Errorf("the memory: metadata %s tags %v, want n 2, source chat and tags drink, morning", meta, m["tags"])
					}
					if h := history(id); len(h) != 3 {
						t.Errorf("history %v, want 3 versions", h)
					}
					for _, body := range []string{
						`{"content": "likes tea", ` + tc.scope + `}`,
						`{"content": "likes tea", ` + tc.scope + `, "tags": ["morning"], "metadata": {"source": "chat"}}`,
					} {
						same := answer(t, srv, "POST", "/v1/memories", body, 200)
						if same["id"] != id || same["event"] != loci.EventNoop || same["version"] != 3.0 {
							t.Errorf("%s: %v, want NOOP at version 3", body, same)
						}
					}
				})
			}
		})

		t.Run("factsRoute", func(t *testing.T) {
			f := answer(t, srv, "POST", "/v1/facts", `{"user_id": "u2", "category": "general_fact", "fact": "owns a bike", "keywords": ["bike"]}`, 201)
			id := f["id"].(string)
			again := answer(t, srv, "POST", "/v1/facts", `{"user_id": "u2", "category": "general_fact", "fact": "Owns a bike", "keywords": ["cycling"]}`, 201)
			if again["id"] != id {
				t.Fatalf("repeat: %v, want the fact %s", again, id)
			}
			got := answer(t, srv, "GET", "/v1/facts/"+id, "", 200)
			if !slices.Equal(strs(got["keywords"]), []string{"bike", "cycling"}) {
				t.Errorf("keywords %v, want bike, cycling", got["keywords"])
			}
		})

		t.Run("mem0Door", func(t *testing.T) {
			add := `{"messages": [{"role": "user", "content": "plays chess"}], "user_id": "u3", "metadata": {"level": "club"}}`
			if st, b := do(t, srv, "POST", "/mem0/v3/memories/add/", add); st != 200 {
				t.Fatalf("mem0 add: %d %s", st, b)
			}
			again := `{"messages": [{"role": "user", "content": "plays chess"}], "user_id": "u3", "metadata": {"level": "master"}}`
			st, b := do(t, srv, "POST", "/mem0/v3/memories/add/", again)
			var evs []map[string]any
			if err := json.Unmarshal(b, &evs); st != 200 || err != nil || len(evs) != 1 {
				t.Fatalf("mem0 repeat: %d %s", st, b)
			}
			meta, _ := json.Marshal(evs[0]["metadata"])
			if evs[0]["event"] != loci.EventUpdate || string(meta) != `{"level":"master"}` {
				t.Errorf("mem0 repeat with other metadata: %v, want UPDATE with level master", evs[0])
			}
		})

		t.Run("ErrTooManyTags", func(t *testing.T) {
			var tags []string
			for i := range loci.MaxPassageTags {
				tags = append(tags, "t"+string(rune('a'+i%26))+string(rune('a'+i/26)))
			}
			b, _ := json.Marshal(tags)
			answer(t, srv, "POST", "/v1/agents/a3/passages", `{"content": "full", "tags": `+string(b)+`}`, 201)
			st, body := do(t, srv, "POST", "/v1/agents/a3/passages", `{"content": "full", "tags": ["one-more"]}`)
			if st != 400 {
				t.Errorf("a repeat past the tag limit: %d %s, want 400", st, body)
			}
			got := answer(t, srv, "GET", "/v1/agents/a3/passages", "", 200)
			if ps := got["passages"].([]any); len(ps) != 1 || len(ps[0].(map[string]any)["tags"].([]any)) != loci.MaxPassageTags {
				t.Errorf("after the refused repeat: %v", got)
			}
		})
	})
}
