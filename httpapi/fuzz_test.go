package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
)

// FuzzRoutes sends arbitrary path segments, query strings and bodies to
// every registered route of a server on a temporary store of every backend
// configured (SQLite, and PostgreSQL when LOCI_TEST_POSTGRES_DSN is set, as
// in .ci/run): whatever arrives, the answer is never a 5xx and the server
// never panics. Routes merged later are fuzzed without changes here.
func FuzzRoutes(f *testing.F) {
	f.Add(uint8(0), "a1", "", []byte(`{"value":"hello"}`))
	f.Add(uint8(81), "k", "limit=10&offset=0", []byte(nil))
	f.Add(uint8(85), "a1", "q=foo OR bar*&agent_id=a1", []byte(`{"query":"\"NEAR(a b)\" AND -c","limit":5}`))
	f.Add(uint8(19), "x", "", []byte(`{"type":"record","id":"r","kind":"note","version":1}`))
	var envs []*secEnv
	for _, b := range testdb.Backends() {
		envs = append(envs, newSecEnv(f, b.Open))
	}
	routes := envs[0].srv.Routes()
	// Request shapes that once went wrong, on the routes they went to: lines
	// whose data is not their kind's, versions past the integer columns, an
	// empty maintenance task list.
	line := func(kind, extra string) []byte {
		return []byte(`{"type":"record","id":"r1","workspace":"default","kind":"` + kind + `","agent_id":"a","user_id":"u",` +
			`"session_id":"s","task_id":"t","key":"k","content":"c","confidence":0,"access_count":0,` +
			`"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",` + extra + `}` + "\n")
	}
	for i, rt := range routes {
		switch rt.String() {
		case "POST /v1/import":
			for _, body := range [][]byte{
				line("note", `"version":1,"data":[1,2]`),
				line("note", `"version":1099511627776,"data":{"value":"v"}`),
				line("session", `"version":1,"category":"session","data":"x"`),
				line("block", `"version":1,"data":{"limit":-5}`),
				line("fact", `"version":1,"category":"general_fact","data":{"contradiction_count":99999999999}`),
				line("episode", `"version":1,"outcome":"success","data":{"confidence_score":1e308},"access_count":-1`),
				append(line("note", `"version":1,"data":{"value":"v"}`), line("note", `"version":1,"data":{"value":"v"}`)...),
			} {
				f.Add(uint8(i), "x", "", body)
			}
		case "POST /v1/maintenance":
			f.Add(uint8(i), "x", "", []byte(`{"tasks": []}`))
			f.Add(uint8(i), "x", "", []byte(`{"tasks": [], "dry_run": true}`))
			f.Add(uint8(i), "x", "", []byte(`{"tasks": null}`))
		}
	}
	f.Fuzz(func(t *testing.T, idx uint8, segment, query string, body []byte) {
		rt := routes[int(idx)%len(routes)]
		if segment == "" {
			segment = "x"
		}
		path := rt.Pattern
		for _, name := range patternWildcards(path) {
			path = strings.Replace(path, "{"+name+"...}", url.PathEscape(segment), 1)
			path = strings.Replace(path, "{"+name+"}", url.PathEscape(segment), 1)
		}
		path = strings.Replace(path, "{$}", "", 1)
		method := rt.Method
		if method == "" {
			method = http.MethodPost
		}
		for _, e := range envs {
			req, err := http.NewRequest(method, path+"?"+query, bytes.NewReader(body))
			if err != nil {
				return // not a request a client could send
			}
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			// 501 is the answer of a call loci does not implement (mem0's
			// profiles and the like), not a server failure.
			if rec.Code >= 500 && rec.Code != http.StatusNotImplemented {
				t.Fatalf("%s %s body %q: status %d: %s", method, req.URL, body, rec.Code, rec.Body.String())
			}
		}
	})
}

// FuzzCheckJSON: the body check never panics; its one-pass scan
// (scanJSON) accepts exactly what the tokenizing reference (checkJSON)
// accepts, so checkBody refuses what checkJSON refuses, in its words; and
// what it accepts is valid UTF-8 JSON.
func FuzzCheckJSON(f *testing.F) {
	for _, b := range badBodies {
		if len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"value":"ok","n":1.5e10,"a":[true,null]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ref := checkJSON(body)
		if scanned := scanJSON(body); len(bytes.TrimSpace(body)) > 0 && scanned != (ref == nil) {
			t.Fatalf("scanJSON(%q) = %v, checkJSON: %v", body, scanned, ref)
		}
		if err := checkBody(body); !reflect.DeepEqual(err, ref) {
			t.Fatalf("checkBody(%q) = %v, checkJSON: %v", body, err, ref)
		}
		if ref == nil && len(bytes.TrimSpace(body)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) != nil {
				t.Fatalf("checkJSON accepted malformed %q", body)
			}
		}
	})
}
