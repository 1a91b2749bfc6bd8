package web_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/memory"
	"github.com/loci-memory/loci/web"
)

// The inspector touches no storage itself (the page, script and
// stylesheet are embedded), so these tests run on SQLite only; the API
// the page calls is tested on every backend in httpapi.

// newServer is a real httpapi server with the inspector and
// authentication required, listening on a loopback port.
func newServer(t *testing.T) (*httpapi.Server, *httptest.Server) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httpapi.NewServer(memory.New(testdb.OpenSQLite(t)), logger, httpapi.WithAuth(true), httpapi.WithInspector(web.Handler()))
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func do(t *testing.T, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// TestServed: the page and its assets are served, public, with fixed
// content types and security headers, through the real server; anything
// else under them is not.
func TestServed(t *testing.T) {
	_, ts := newServer(t)
	for _, tc := range []struct {
		name       string
		method     string
		path       string
		wantStatus int
		wantType   string // "" for an error
		wantFile   string // the embedded file the body must equal
	}{
		{"Page", "GET", "/", http.StatusOK, "text/html; charset=utf-8", "static/index.html"},
		{"Script", "GET", "/ui/inspector.js", http.StatusOK, "text/javascript; charset=utf-8", "static/inspector.js"},
		{"Stylesheet", "GET", "/ui/inspector.css", http.StatusOK, "text/css; charset=utf-8", "static/inspector.css"},
		{"HeadPage", "HEAD", "/", http.StatusOK, "text/html; charset=utf-8", ""},
		{"ErrUnknownAsset", "GET", "/ui/app.js", http.StatusNotFound, "", ""},
		{"ErrPageUnderAssets", "GET", "/ui/index.html", http.StatusNotFound, "", ""},
		{"ErrOtherPath", "GET", "/index.html", http.StatusNotFound, "", ""},
		{"ErrMethod", "POST", "/", http.StatusMethodNotAllowed, "", ""},
		{"ErrMethodAsset", "DELETE", "/ui/inspector.js", http.StatusMethodNotAllowed, "", ""},
		// The page is public, the API it calls is not.
		{"ErrAPINeedsKey", "GET", "/v1/agents", http.StatusUnauthorized, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, tc.method, ts.URL+tc.path, nil)
			if res.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", res.StatusCode, tc.wantStatus, body)
			}
			if tc.wantType == "" {
				return
			}
			if got := res.Header.Get("Content-Type"); got != tc.wantType {
				t.Errorf("Content-Type = %q, want %q", got, tc.wantType)
			}
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"Cache-Control":          "no-cache",
			} {
				if got := res.Header.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy = %q, want it to hold %q", csp, want)
				}
			}
			if res.Header.Get("ETag") == "" {
				t.Errorf("no ETag")
			}
			if tc.wantFile != "" && !bytes.Equal(body, mustRead(t, tc.wantFile)) {
				t.Errorf("body is not %s", tc.wantFile)
			}
			if tc.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered a body of %d bytes", len(body))
			}
		})
	}
}

// TestRevalidation: a client that has the page gets 304 for the same
// ETag, and the page again for another.
func TestRevalidation(t *testing.T) {
	_, ts := newServer(t)
	first, _ := do(t, "GET", ts.URL+"/ui/inspector.js", nil)
	etag := first.Header.Get("ETag")
	for _, tc := range []struct {
		name       string
		etag       string
		wantStatus int
	}{
		{"Same", etag, http.StatusNotModified},
		{"Other", `"0000"`, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := do(t, "GET", ts.URL+"/ui/inspector.js", http.Header{"If-None-Match": {tc.etag}})
			if res.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", res.StatusCode, tc.wantStatus)
			}
		})
	}
}

// TestInspectorOff: a server without WithInspector has no page.
func TestInspectorOff(t *testing.T) {
	srv := httpapi.NewServer(memory.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, path := range []string{"/", "/ui/inspector.js"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status = %d, want 404", path, rec.Code)
		}
	}
}

var attrRef = regexp.MustCompile(`(?i)\b(?:src|href|action)\s*=\s*"([^"]*)"`)

// TestPageAssetsSameOrigin: the page refers only to its own fragments and
// to same-origin paths the server serves; no file names another origin,
// so the inspector works offline.
func TestPageAssetsSameOrigin(t *testing.T) {
	_, ts := newServer(t)
	page := string(mustRead(t, "static/index.html"))
	refs := attrRef.FindAllStringSubmatch(page, -1)
	assets := 0
	for _, m := range refs {
		ref := m[1]
		switch {
		case strings.HasPrefix(ref, "#"):
			continue // a tab of the page itself
		case !strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "//"):
			t.Errorf("page refers to %q: want a same-origin absolute path", ref)
			continue
		}
		assets++
		if res, _ := do(t, "GET", ts.URL+ref, nil); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s (referenced by the page): status %d, want 200", ref, res.StatusCode)
		}
	}
	if assets < 2 {
		t.Errorf("the page refers to %d assets, want the script and the stylesheet", assets)
	}
	for _, name := range []string{"static/index.html", "static/inspector.js", "static/inspector.css"} {
		text := string(mustRead(t, name))
		for _, bad := range []string{"://", "@import", "url("} {
			if strings.Contains(text, bad) {
				t.Errorf("%s holds %q: every resource must be embedded and same-origin", name, bad)
			}
		}
	}
}

// TestScriptBuildsNoHTML: memories are untrusted input, so the script
// never turns strings into markup.
func TestScriptBuildsNoHTML(t *testing.T) {
	js := string(mustRead(t, "static/inspector.js"))
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser", "createContextualFragment"} {
		if strings.Contains(js, bad) {
			t.Errorf("inspector.js uses %s: build elements with el() and text nodes", bad)
		}
	}
}

// routeLiteral matches a "METHOD /path" string literal in the script.
var routeLiteral = regexp.MustCompile(`"((?:GET|HEAD|POST|PUT|PATCH|DELETE) (/[^"]*))"`)

// TestScriptCallsRegisteredRoutes: every API call the script can make is
// a route the server registers (method and pattern, wildcard names
// included), and no /v1 path hides outside the script's route table, so
// the inspector cannot drift from the API.
func TestScriptCallsRegisteredRoutes(t *testing.T) {
	srv, _ := newServer(t)
	registered := map[string]bool{}
	for _, rt := range srv.Routes() {
		registered[rt.String()] = true
	}
	js := string(mustRead(t, "static/inspector.js"))
	found := map[string]bool{}
	inLiterals := 0
	for _, m := range routeLiteral.FindAllStringSubmatch(js, -1) {
		found[m[1]] = true
		inLiterals += strings.Count(m[1], "/v1/")
		if !registered[m[1]] {
			t.Errorf("inspector.js calls %q, which the server does not register", m[1])
		}
		if strings.ContainsAny(m[2], "?#") {
			t.Errorf("route %q holds a query or fragment: pass those as call() options", m[1])
		}
	}
	if all := strings.Count(js, "/v1/"); all != inLiterals {
		t.Errorf("inspector.js names /v1/ %d times, %d of them in route literals: keep every API path in ROUTES", all, inLiterals)
	}
	// What the inspector is for (DESIGN §4): the test is not vacuous.
	for _, want := range []string{
		"GET /v1/agents",
		"GET /v1/agents/{agent_id}/notes",
		"GET /v1/agents/{agent_id}/notes/{key}/history",
		"DELETE /v1/agents/{agent_id}/notes/{key}",
		"GET /v1/agents/{agent_id}/blocks",
		"PUT /v1/agents/{agent_id}/blocks/{label}",
		"GET /v1/agents/{agent_id}/prompt",
		"GET /v1/agents/{agent_id}/passages",
		"DELETE /v1/agents/{agent_id}/passages/{id}",
		"GET /v1/users/{user_id}/memories",
		"GET /v1/users/{user_id}/preferences",
		"DELETE /v1/users/{user_id}/preferences/{type}",
		"GET /v1/users/{user_id}/sessions",
		"POST /v1/users/{user_id}/forget",
		"POST /v1/search",
		"GET /v1/audit",
	} {
		if !found[want] {
			t.Errorf("inspector.js does not call %s", want)
		}
	}
}
