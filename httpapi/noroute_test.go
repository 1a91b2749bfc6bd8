package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestNoRoute: an unknown path and a known path with another method answer the
// error envelope (docs/api.md, "Errors"), never the standard library's plain
// text: 404 not_found, and 405 invalid with an Allow header.
func TestNoRoute(t *testing.T) {
	inspector := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page")) })
	h := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)),
		httpapi.WithAuth(true), httpapi.WithInspector(inspector))
	for _, tc := range []struct {
		name, method, path string
		wantStatus         int
		wantCode           string
		wantAllow          string
	}{
		{"ErrUnknownPath", "GET", "/v1/nothing", 404, "not_found", ""},
		{"ErrUnknownNested", "GET", "/v1/agents/a1/notes/k/history/more", 404, "not_found", ""},
		{"ErrUnknownRoot", "DELETE", "/nothing", 404, "not_found", ""},
		{"ErrMethodHealth", "POST", "/healthz", 405, "invalid", "GET, HEAD"},
		{"ErrMethodAgents", "DELETE", "/v1/agents", 405, "invalid", "GET, HEAD, POST"},
		{"ErrMethodNote", "PATCH", "/v1/agents/a1/notes/k", 405, "invalid", "DELETE, GET, HEAD, PUT"},
		{"ErrMethodOpenAPI", "PUT", "/v1/openapi.json", 405, "invalid", "GET, HEAD"},
		{"ErrMethodPage", "POST", "/", 405, "invalid", "GET, HEAD"},
		{"Page", "GET", "/", 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d (%q)", rec.Code, tc.wantStatus, rec.Body.String())
			}
			if got := rec.Header().Get("Allow"); got != tc.wantAllow {
				t.Errorf("Allow: got %q, want %q", got, tc.wantAllow)
			}
			if tc.wantCode == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			var env struct {
				Success *bool  `json:"success"`
				Error   string `json:"error"`
				Code    string `json:"code"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatalf("body %q: %v", rec.Body.String(), err)
			}
			if env.Success == nil || *env.Success || env.Code != tc.wantCode || env.Error == "" {
				t.Errorf("body %q: want the envelope with code %s", rec.Body.String(), tc.wantCode)
			}
		})
	}
}
