package web_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
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
	srv := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), logger, httpapi.WithAuth(true), httpapi.WithInspector(web.Handler()))
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
		{"Script", "GET", "/ui/main.js", http.StatusOK, "text/javascript; charset=utf-8", "static/main.js"},
		{"ScriptModule", "GET", "/ui/core.js", http.StatusOK, "text/javascript; charset=utf-8", "static/core.js"},
		{"Stylesheet", "GET", "/ui/inspector.css", http.StatusOK, "text/css; charset=utf-8", "static/inspector.css"},
		{"HeadPage", "HEAD", "/", http.StatusOK, "text/html; charset=utf-8", ""},
		{"ErrUnknownAsset", "GET", "/ui/app.js", http.StatusNotFound, "", ""},
		{"ErrPageUnderAssets", "GET", "/ui/index.html", http.StatusNotFound, "", ""},
		{"ErrOtherPath", "GET", "/index.html", http.StatusNotFound, "", ""},
		{"ErrMethod", "POST", "/", http.StatusMethodNotAllowed, "", ""},
		{"ErrMethodAsset", "DELETE", "/ui/core.js", http.StatusMethodNotAllowed, "", ""},
		{"ErrOldScript", "GET", "/ui/inspector.js", http.StatusNotFound, "", ""},
		{"ErrAssetInSubfolder", "GET", "/ui/static/core.js", http.StatusNotFound, "", ""},
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
	first, _ := do(t, "GET", ts.URL+"/ui/main.js", nil)
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
			res, _ := do(t, "GET", ts.URL+"/ui/main.js", http.Header{"If-None-Match": {tc.etag}})
			if res.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", res.StatusCode, tc.wantStatus)
			}
		})
	}
}

// TestInspectorOff: a server without WithInspector has no page.
func TestInspectorOff(t *testing.T) {
	srv := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, path := range []string{"/", "/ui/main.js"} {
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
	for _, name := range staticFiles(t) {
		// The SVG namespace is a name, not a resource: nothing is fetched.
		text := strings.ReplaceAll(string(mustRead(t, name)), `"http://www.w3.org/2000/svg"`, "")
		for _, bad := range []string{"://", "@import", "url("} {
			if strings.Contains(text, bad) {
				t.Errorf("%s holds %q: every resource must be embedded and same-origin", name, bad)
			}
		}
	}
}

// staticFiles lists the embedded files, as paths relative to this
// package.
func staticFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, "static/"+e.Name())
	}
	return out
}

// scripts returns every script module's name and text.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range staticFiles(t) {
		if strings.HasSuffix(name, ".js") {
			out[name] = string(mustRead(t, name))
		}
	}
	if len(out) < 2 {
		t.Fatalf("found %d scripts, want the core and the views", len(out))
	}
	return out
}

// TestEveryFileServed: each embedded file is served, at "/" (the page)
// or under /ui/, and nothing else is.
func TestEveryFileServed(t *testing.T) {
	_, ts := newServer(t)
	want := []string{"/"}
	for _, name := range staticFiles(t) {
		if name != "static/index.html" {
			want = append(want, "/ui/"+strings.TrimPrefix(name, "static/"))
		}
	}
	slices.Sort(want)
	if got := web.Assets(); !slices.Equal(got, want) {
		t.Errorf("served %v, want %v", got, want)
	}
	for _, path := range want {
		if res, _ := do(t, "GET", ts.URL+path, nil); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", path, res.StatusCode)
		}
	}
}

var importRef = regexp.MustCompile(`(?m)^import\b[^;]*?"([^"]+)";`)

// TestModuleImports: every module a script imports is one of the served
// scripts, named relative to it ("./core.js"), so the page loads with no
// build step and nothing from elsewhere.
func TestModuleImports(t *testing.T) {
	all := scripts(t)
	imports := 0
	for name, js := range all {
		for _, m := range importRef.FindAllStringSubmatch(js, -1) {
			imports++
			ref := m[1]
			if !strings.HasPrefix(ref, "./") || strings.Contains(ref[2:], "/") {
				t.Errorf("%s imports %q: want a sibling module, ./name.js", name, ref)
				continue
			}
			if _, ok := all["static/"+ref[2:]]; !ok {
				t.Errorf("%s imports %q, which is not embedded", name, ref)
			}
		}
	}
	if imports < len(all)-1 {
		t.Errorf("found %d imports in %d scripts: the pattern no longer sees them", imports, len(all))
	}
}

// TestScriptsStaySmall: the inspector's script is split by view; no
// module grows past what a reader takes in (about 800 lines).
func TestScriptsStaySmall(t *testing.T) {
	for name, js := range scripts(t) {
		if n := strings.Count(js, "\n"); n > 800 {
			t.Errorf("%s has %d lines: split it", name, n)
		}
	}
}

// TestScriptBuildsNoHTML: memories are untrusted input, so no script
// turns strings into markup.
func TestScriptBuildsNoHTML(t *testing.T) {
	for name, js := range scripts(t) {
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser", "createContextualFragment", "srcdoc"} {
			if strings.Contains(js, bad) {
				t.Errorf("%s uses %s: build elements with el() and text nodes", name, bad)
			}
		}
	}
}

// routeLiteral matches a "METHOD /path" string literal in the script.
var routeLiteral = regexp.MustCompile(`"((?:GET|HEAD|POST|PUT|PATCH|DELETE) (/[^"]*))"`)

// TestScriptCallsRegisteredRoutes: every API call the scripts can make is
// a route the server registers (method and pattern, wildcard names
// included), and no /v1 path hides outside the route table in core.js, so
// the inspector cannot drift from the API.
func TestScriptCallsRegisteredRoutes(t *testing.T) {
	srv, _ := newServer(t)
	registered := map[string]bool{}
	for _, rt := range srv.Routes() {
		registered[rt.String()] = true
	}
	all := scripts(t)
	found := map[string]bool{}
	for _, js := range all {
		for _, m := range routeLiteral.FindAllStringSubmatch(js, -1) {
			found[m[1]] = true
		}
	}
	for name, js := range all {
		inLiterals := 0
		for _, m := range routeLiteral.FindAllStringSubmatch(js, -1) {
			inLiterals += strings.Count(m[1], "/v1/")
			switch {
			case !registered[m[1]]:
				t.Errorf("%s calls %q, which the server does not register", name, m[1])
			}
			if strings.ContainsAny(m[2], "?#") {
				t.Errorf("route %q holds a query or fragment: pass those as call() options", m[1])
			}
		}
		if inLiterals > 0 && name != "static/core.js" {
			t.Errorf("%s holds route literals: keep them all in core.js's ROUTES", name)
		}
		// Outside ROUTES, a string may name a /v1/ path only to quote a
		// route's (the review view's "answered 404").
		rest := routeLiteral.ReplaceAllString(js, "")
		for _, str := range stringLiteral.FindAllString(rest, -1) {
			for _, m := range apiPath.FindAllString(str, -1) {
				if !quotesRoute(m, found) {
					t.Errorf("%s names %s outside a route literal: keep every API path in ROUTES (core.js)", name, m)
				}
			}
		}
	}
	// What the inspector is for (docs/api.md, "The inspector": browse, search
	// with explanations, edit and delete, read the audit log): the test is
	// not vacuous.
	for _, want := range []string{
		"GET /v1/whoami",
		"GET /v1/stats",
		"GET /v1/users",
		"GET /v1/memories",
		"GET /v1/agents",
		"GET /v1/agents/{agent_id}/notes",
		"GET /v1/agents/{agent_id}/notes/{key}/history",
		"DELETE /v1/agents/{agent_id}/notes/{key}",
		"GET /v1/agents/{agent_id}/blocks",
		"GET /v1/agents/{agent_id}/blocks/{label}",
		"PUT /v1/agents/{agent_id}/blocks/{label}",
		"GET /v1/agents/{agent_id}/blocks/{label}/history",
		"GET /v1/blocks/{block_id}/consumers",
		"PUT /v1/blocks/{block_id}/consumers/{agent_id}",
		"DELETE /v1/blocks/{block_id}/consumers/{agent_id}",
		"GET /v1/agents/{agent_id}/prompt",
		"GET /v1/agents/{agent_id}/passages",
		"DELETE /v1/agents/{agent_id}/passages/{id}",
		"GET /v1/users/{user_id}/memories",
		"GET /v1/users/{user_id}/preferences",
		"DELETE /v1/users/{user_id}/preferences/{type}",
		"GET /v1/users/{user_id}/sessions",
		"POST /v1/users/{user_id}/forget",
		"GET /v1/users/{user_id}/review",
		"POST /v1/facts/{id}/resolve",
		"POST /v1/users/{user_id}/preferences/{type}/resolve",
		"POST /v1/search",
		"GET /v1/audit",
	} {
		if !found[want] {
			t.Errorf("the inspector does not call %s", want)
		}
	}
}

var (
	stringLiteral = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|` + "`[^`]*`")
	apiPath       = regexp.MustCompile(`/v1/[^\s"'` + "`" + `?]*`)
)

// quotesRoute reports whether path is the path of a route in routes.
func quotesRoute(path string, routes map[string]bool) bool {
	for r := range routes {
		if strings.HasSuffix(r, " "+path) {
			return true
		}
	}
	return false
}
