package httpapi

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
)

// FuzzRoutes sends arbitrary path segments, query strings and bodies to
// every registered route of a server on a temporary store: whatever
// arrives, the answer is never a 5xx and the server never panics. Routes
// merged later are fuzzed without changes here.
func FuzzRoutes(f *testing.F) {
	f.Add(uint8(0), "a1", "", []byte(`{"value":"hello"}`))
	f.Add(uint8(2), "k", "limit=10&offset=0", []byte(nil))
	f.Add(uint8(5), "a1", "q=foo OR bar*&agent_id=a1", []byte(`{"query":"\"NEAR(a b)\" AND -c","limit":5}`))
	f.Add(uint8(9), "x", "", []byte(`{"type":"record","id":"r","kind":"note","version":1}`))
	e := newSecEnv(f, testdb.OpenSQLite)
	routes := e.srv.Routes()
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
		req, err := http.NewRequest(method, path+"?"+query, bytes.NewReader(body))
		if err != nil {
			return // not a request a client could send
		}
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s body %q: status %d: %s", method, req.URL, body, rec.Code, rec.Body.String())
		}
	})
}

// FuzzCheckJSON: the generic body check never panics, and what it accepts
// is valid UTF-8 JSON.
func FuzzCheckJSON(f *testing.F) {
	for _, b := range badBodies {
		if len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"value":"ok","n":1.5e10,"a":[true,null]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := checkJSON(body); err == nil && len(bytes.TrimSpace(body)) > 0 {
			var v any
			if dec := jsonDecoder(body); dec.Decode(&v) != nil {
				t.Fatalf("checkJSON accepted malformed %q", body)
			}
		}
	})
}
