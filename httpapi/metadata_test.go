package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// decodeExact decodes a JSON answer keeping its numbers as written.
func decodeExact(t *testing.T, body []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, body)
	}
	return m
}

// compact is v written as compact JSON, its numbers as decoded.
func compact(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(buf.String())
}

// TestMetadataREST: metadata of any keys (but '.' and control characters)
// and any JSON is answered exactly as sent, integers past 2^53 included,
// by every route that answers the record; its 4 KB are counted without
// escaping &, < and >; past its limits it is refused, and nothing is
// stored.
func TestMetadataREST(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		const meta = `{"big":9007199254740993,"food":{"allergy":{"nuts":true},"kind":"vegetarian"},"html":"a & b <c>","none":null,` +
			`"topicName":"food","user-agent":"curl/8","Ünïcode":"é"}`
		st, body := do(t, srv, "POST", "/v1/memories", `{"content": "Eats no meat", "user_id": "u", "metadata": `+meta+`}`)
		if st != 201 {
			t.Fatalf("add: %d %s", st, body)
		}
		id := decodeExact(t, body)["id"].(string)

		// Every route answers the metadata as it was sent; GET by id once
		// rounded 9007199254740993 to …992.
		st, body = do(t, srv, "GET", "/v1/memories/"+id, "")
		if got := compact(t, decodeExact(t, body)["metadata"]); st != 200 || got != meta {
			t.Errorf("GET /v1/memories/{id}: %d metadata %s, want %s", st, got, meta)
		}
		st, body = do(t, srv, "GET", "/v1/memories?user_id=u", "")
		if ms := decodeExact(t, body)["memories"].([]any); st != 200 || len(ms) != 1 || compact(t, ms[0].(map[string]any)["metadata"]) != meta {
			t.Errorf("GET /v1/memories: %d %s", st, body)
		}
		st, body = do(t, srv, "GET", "/v1/users/u/memories", "")
		if st != 200 || !strings.Contains(string(body), meta) {
			t.Errorf("GET /v1/users/u/memories: %d %s", st, body)
		}
		st, body = do(t, srv, "PATCH", "/v1/memories/"+id, `{"metadata": {"n": 18446744073709551617}}`)
		if st != 200 {
			t.Fatalf("patch: %d %s", st, body)
		}
		st, body = do(t, srv, "GET", "/v1/memories/"+id+"/history", "")
		vs := decodeExact(t, body)["versions"].([]any)
		if st != 200 || len(vs) != 2 || compact(t, vs[0].(map[string]any)["metadata"]) != `{"n":18446744073709551617}` ||
			compact(t, vs[1].(map[string]any)["metadata"]) != meta {
			t.Errorf("history: %d %s", st, body)
		}
		st, body = exportOf(t, srv, "")
		if st != 200 || !strings.Contains(string(body), meta) || !strings.Contains(string(body), `{"n":18446744073709551617}`) {
			t.Errorf("export: %d %s", st, body)
		}

		// The 4 KB are the compact JSON's bytes, & counted as one: 4,096
		// bytes of & pass as 4,096 bytes of a do.
		fill := func(c string, n int) string { return `{"a":"` + strings.Repeat(c, n) + `"}` }
		for _, c := range []string{"a", "&", "<", ">"} {
			st, body := do(t, srv, "POST", "/v1/memories", `{"content": "4096 bytes of `+c+`", "user_id": "u", "metadata": `+fill(c, loci.MaxMetadataBytes-8)+`}`)
			if st != 201 {
				t.Errorf("4,096 bytes of %s: %d %s, want 201", c, st, body)
				continue
			}
			_, body = do(t, srv, "GET", "/v1/memories/"+decodeExact(t, body)["id"].(string), "")
			if got := compact(t, decodeExact(t, body)["metadata"]); got != fill(c, loci.MaxMetadataBytes-8) {
				t.Errorf("4,096 bytes of %s read back as %.40s…", c, got)
			}
		}
		keys := make([]string, 33)
		for i := range keys {
			keys[i] = fmt.Sprintf(`"k%d": %d`, i, i)
		}
		for _, c := range []struct {
			name, meta string
			status     int
			says       string
		}{
			{"ErrTooLarge", fill("&", loci.MaxMetadataBytes-7), 413, "4096 bytes"},
			{"ErrFiveLevels", `{"a": {"b": {"c": {"d": {"e": 1}}}}}`, 400, "levels"},
			{"ErrKeyWithDot", `{"a.b": 1}`, 400, `a.b`},
			{"ErrControlKey", `{"a\u0001b": 1}`, 400, "control"},
			{"Err33Keys", "{" + strings.Join(keys, ",") + "}", 400, "32 keys"},
			{"ErrNotObject", `[1]`, 400, "object"},
		} {
			t.Run(c.name, func(t *testing.T) {
				for _, req := range []struct{ method, path, body string }{
					{"POST", "/v1/memories", `{"content": "refused", "user_id": "u", "metadata": ` + c.meta + `}`},
					{"PATCH", "/v1/memories/" + id, `{"metadata": ` + c.meta + `}`},
					{"POST", "/v1/memories/batch", `{"add": [{"content": "refused", "user_id": "u", "metadata": ` + c.meta + `}]}`},
				} {
					st, body := do(t, srv, req.method, req.path, req.body)
					if st != c.status || !strings.Contains(string(body), c.says) {
						t.Errorf("%s %s: %d %s, want %d saying %s", req.method, req.path, st, body, c.status, c.says)
					}
				}
			})
		}
		st, body = do(t, srv, "GET", "/v1/memories?user_id=u", "")
		if n := decodeExact(t, body)["count"]; st != 200 || n != json.Number("5") {
			t.Errorf("after refused writes: %d memories, want 5", n)
		}
		st, body = do(t, srv, "GET", "/v1/memories/"+id, "")
		if got := compact(t, decodeExact(t, body)["metadata"]); got != `{"n":18446744073709551617}` {
			t.Errorf("after refused patches: metadata %s", got)
		}
	})
}

// TestFiltersREST: the filter language on the listing, the search and the
// forget, alike: nested paths, contains on strings, icontains, dates, and
// {} that always holds wherever it stands ({"and": []} holds, {"or": []}
// and {"not": {}} do not); a wrong-typed value is 400 on each.
func TestFiltersREST(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		names := map[string]string{}
		for _, c := range []struct{ name, meta string }{
			{"veg", `{"food": {"kind": "vegetarian"}, "team": "Data Platform", "labels": ["Alpha", "beta"]}`},
			{"meat", `{"food": {"kind": "meat"}, "team": "data science", "labels": ["gamma"]}`},
			{"bare", `{}`},
		} {
			st, body := do(t, srv, "POST", "/v1/memories", `{"content": "dinner note `+c.name+`", "user_id": "u", "metadata": `+c.meta+`}`)
			if st != 201 {
				t.Fatalf("add %s: %d %s", c.name, st, body)
			}
			names[decodeExact(t, body)["id"].(string)] = c.name
			clock.Add(24 * 3600e9)
		}
		// t0 is 2026-02-15: veg was written on the 15th, meat on the 16th,
		// bare on the 17th.
		picked := func(t *testing.T, list []any) []string {
			var out []string
			for _, e := range list {
				out = append(out, names[e.(map[string]any)["id"].(string)])
			}
			slices.Sort(out)
			return out
		}
		all := []string{"bare", "meat", "veg"}
		for _, c := range []struct {
			filter string
			want   []string
		}{
			{`{}`, all},
			{`{"and": []}`, all},
			{`{"and": [{}]}`, all},
			{`{"or": []}`, nil},
			{`{"not": {}}`, nil},
			{`{"or": [{"not": {}}, {"metadata.food.kind": "meat"}]}`, []string{"meat"}},
			{`{"metadata.food.kind": "vegetarian"}`, []string{"veg"}},
			{`{"metadata.team": {"contains": "data"}}`, []string{"meat"}},
			{`{"metadata.team": {"icontains": "data"}}`, []string{"meat", "veg"}},
			{`{"metadata.labels": {"icontains": "ALPHA"}}`, []string{"veg"}},
			{`{"created_at": {"gte": "2026-02-16"}}`, []string{"bare", "meat"}},
			{`{"created_at": {"lt": "2026-02-16T00:00:00Z"}}`, []string{"veg"}},
		} {
			t.Run(c.filter, func(t *testing.T) {
				st, body := do(t, srv, "GET", "/v1/memories?user_id=u&filters="+url.QueryEscape(c.filter), "")
				if got := picked(t, decodeExact(t, body)["memories"].([]any)); st != 200 || !slices.Equal(got, c.want) {
					t.Errorf("listing: %d %v, want %v", st, got, c.want)
				}
				st, body = do(t, srv, "POST", "/v1/search", `{"query": "dinner note", "user_id": "u", "filters": `+c.filter+`}`)
				if got := picked(t, decodeExact(t, body)["results"].([]any)); st != 200 || !slices.Equal(got, c.want) {
					t.Errorf("search: %d %v, want %v", st, got, c.want)
				}
				st, body = do(t, srv, "POST", "/v1/users/u/forget", `{"query": "dinner", "dry_run": true, "filters": `+c.filter+`}`)
				if got := picked(t, decodeExact(t, body)["deleted"].([]any)); st != 200 || !slices.Equal(got, c.want) {
					t.Errorf("forget: %d %v, want %v", st, got, c.want)
				}
			})
		}
		for _, bad := range []string{`{"metadata.team": {"icontains": 5}}`, `{"metadata.food.kind": {"gt": true}}`, `{"tags": {"contains": 1}}`,
			`{"created_at": {"gte": "16/02/2026"}}`, `{"metadata.a.b.c.d.e": 1}`, `{"metadata.team": {"like": "x"}}`} {
			t.Run("Err"+bad, func(t *testing.T) {
				for _, req := range []struct{ method, path, body string }{
					{"GET", "/v1/memories?user_id=u&filters=" + url.QueryEscape(bad), ""},
					{"POST", "/v1/search", `{"query": "dinner", "user_id": "u", "filters": ` + bad + `}`},
					{"POST", "/v1/users/u/forget", `{"filters": ` + bad + `}`},
				} {
					st, body := do(t, srv, req.method, req.path, req.body)
					if st != 400 || decodeExact(t, body)["code"] != "invalid" {
						t.Errorf("%s %s: %d %s, want 400 invalid", req.method, req.path, st, body)
					}
				}
			})
		}
		if st, body := do(t, srv, "GET", "/v1/memories?user_id=u", ""); decodeExact(t, body)["count"] != json.Number("3") {
			t.Errorf("after refused forgets: %d %s", st, body)
		}
	})
}

// exportOf answers GET /v1/export (query, if not "", its query string):
// JSON Lines, not one object.
func exportOf(t *testing.T, srv *httptest.Server, query string) (int, []byte) {
	t.Helper()
	path := "/v1/export"
	if query != "" {
		path += "?" + query
	}
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestMetadataExactAndEmptyFilters: metadata that every version took,
// answered exactly by GET /v1/memories/{id} (an integer past 2^53 was
// rounded there, not in the listing); its 4 KB counted without escaping
// & (4,096 bytes of & were 413 while as many of a passed); and the
// filters that always or never hold, which contradicted each other ({}
// and {"not": {}} both matched everything, {"and": [{}]} nothing), on the
// listing and the search alike.
func TestMetadataExactAndEmptyFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		st, body := do(t, srv, "POST", "/v1/memories", `{"content": "a big number", "user_id": "u", "metadata": {"n": 9007199254740993}}`)
		if st != 201 {
			t.Fatalf("add: %d %s", st, body)
		}
		id := decodeExact(t, body)["id"].(string)
		st, body = do(t, srv, "GET", "/v1/memories/"+id, "")
		if got := compact(t, decodeExact(t, body)["metadata"]); st != 200 || got != `{"n":9007199254740993}` {
			t.Errorf("GET /v1/memories/{id}: %d metadata %s, want {\"n\":9007199254740993}", st, got)
		}
		amps := `{"a":"` + strings.Repeat("&", loci.MaxMetadataBytes-8) + `"}`
		if st, body := do(t, srv, "POST", "/v1/memories", `{"content": "ampersands", "user_id": "u", "metadata": `+amps+`}`); st != 201 {
			t.Errorf("4,096 bytes of &: %d %s, want 201", st, body)
		}
		for filter, want := range map[string]string{`{}`: "2", `{"and": [{}]}`: "2", `{"not": {}}`: "0", `{"or": []}`: "0", `{"and": []}`: "2"} {
			st, body := do(t, srv, "GET", "/v1/memories?user_id=u&filters="+url.QueryEscape(filter), "")
			if got := decodeExact(t, body)["count"]; st != 200 || got != json.Number(want) {
				t.Errorf("listing %s: %d count %v, want %s", filter, st, got, want)
			}
			st, body = do(t, srv, "POST", "/v1/search", `{"query": "ampersands", "user_id": "u", "filters": `+filter+`}`)
			n := 0
			if rs, ok := decodeExact(t, body)["results"].([]any); ok {
				n = len(rs)
			}
			if st != 200 || (want == "0") != (n == 0) {
				t.Errorf("search %s: %d %d results, want %s", filter, st, n, map[bool]string{true: "none", false: "some"}[want == "0"])
			}
		}
	})
}

// TestMetadataExactAndEmptyFiltersOtherDoors: what
// TestMetadataExactAndEmptyFilters holds of /v1/memories holds of the search's
// results, the mem0 API and an add of messages: an integer past 2^53 answered
// exactly, 4,096 bytes of & accepted, and the filters that always or never
// hold agreeing with each other.
func TestMetadataExactAndEmptyFiltersOtherDoors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		const big = `{"n":9007199254740993}`
		st, body := do(t, srv, "POST", "/mem0/v3/memories/add/", `{"messages": "a big number", "user_id": "u", "metadata": `+big+`}`)
		if st != 200 || !strings.Contains(string(body), big) {
			t.Fatalf("mem0 add: %d %s", st, body)
		}
		var added []map[string]any
		if err := json.Unmarshal(body, &added); err != nil || len(added) != 1 {
			t.Fatalf("mem0 add: %v %s", err, body)
		}
		id := added[0]["id"].(string)
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/mem0/v1/memories/" + id + "/", ""},
			{"POST", "/mem0/v3/memories/", `{"filters": {"user_id": "u"}}`},
			{"POST", "/mem0/v3/memories/search/", `{"query": "big number", "filters": {"user_id": "u"}}`},
			{"POST", "/v1/search", `{"query": "big number", "user_id": "u"}`},
		} {
			if st, body := do(t, srv, req.method, req.path, req.body); st != 200 || !strings.Contains(string(body), `"metadata":`+big) {
				t.Errorf("%s %s: %d %s, want metadata %s", req.method, req.path, st, body, big)
			}
		}
		amps := `{"a":"` + strings.Repeat("&", loci.MaxMetadataBytes-8) + `"}`
		for _, req := range []struct{ path, body string }{
			{"/mem0/v3/memories/add/", `{"messages": "ampersands", "user_id": "u", "metadata": ` + amps + `}`},
			{"/v1/memories", `{"messages": [{"role": "user", "content": "more ampersands"}], "user_id": "u", "metadata": ` + amps + `}`},
		} {
			if st, body := do(t, srv, "POST", req.path, req.body); st != 200 && st != 201 {
				t.Errorf("4,096 bytes of & through %s: %d %.200s", req.path, st, body)
			}
		}
		for filter, want := range map[string]int{`{}`: 3, `{"and": [{}]}`: 3, `{"not": {"not": {}}}`: 3, `{"not": {}}`: 0, `{"or": []}`: 0, `{"and": [{"not": {}}]}`: 0} {
			st, body := do(t, srv, "POST", "/mem0/v3/memories/", `{"filters": {"AND": [{"user_id": "u"}, `+filter+`]}}`)
			if got := decodeExact(t, body)["count"]; st != 200 || got != json.Number(fmt.Sprint(want)) {
				t.Errorf("mem0 list %s: %d count %v, want %d", filter, st, got, want)
			}
			st, body = do(t, srv, "POST", "/mem0/v3/memories/search/", `{"query": "ampersands", "filters": {"AND": [{"user_id": "u"}, `+filter+`]}}`)
			rs, _ := decodeExact(t, body)["results"].([]any)
			if st != 200 || (want == 0) != (len(rs) == 0) {
				t.Errorf("mem0 search %s: %d %d results, want %s", filter, st, len(rs), map[bool]string{true: "none", false: "some"}[want == 0])
			}
		}
	})
}
