package httpapi_test

import (
	"encoding/json"
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
	"github.com/loci-memory/loci/rules"
)

// TestUnknownQueryParameter: every documented GET route refuses a query
// parameter it does not take (docs/api.md, "REST conventions"), naming the
// ones it takes, so that a misspelt user= never widens a read to the
// workspace.
func TestUnknownQueryParameter(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	h := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	wildcard := regexp.MustCompile(`\{[^}]+\}`)
	n := 0
	for path, ops := range doc.Paths {
		if _, ok := ops["get"]; !ok {
			continue
		}
		n++
		url := wildcard.ReplaceAllString(path, "x") + "?user=alice"
		t.Run(url, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
			var env struct {
				Code  string `json:"code"`
				Error string `json:"error"`
			}
			json.Unmarshal(rec.Body.Bytes(), &env)
			if rec.Code != http.StatusBadRequest || env.Code != "invalid" || !strings.Contains(env.Error, "unknown query parameter user") {
				t.Fatalf("status %d %s, want 400 invalid naming the parameter", rec.Code, rec.Body)
			}
			if !strings.Contains(env.Error, "takes") {
				t.Errorf("error %q does not say what the route takes", env.Error)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d GET routes checked", n)
	}
	// The case that widened a read: a misspelt user_id on the listing.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/memories?user=alice", nil))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "user_id") {
		t.Fatalf("GET /v1/memories?user=alice: %d %s, want 400 naming user_id", rec.Code, rec.Body)
	}
}

// TestQueryParameterTwice: a query parameter given twice is refused (a
// handler reads its first value: a second filters was dropped, widening
// the read), but for kind, which GET /v1/memories takes as a list.
func TestQueryParameterTwice(t *testing.T) {
	h := httpapi.NewServer(rules.New(testdb.OpenSQLite(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for url, want := range map[string]int{
		`/v1/memories?user_id=u1&filters={}&filters={"metadata.n":{"gt":2}}`: http.StatusBadRequest,
		`/v1/memories?user_id=u1&user_id=u2`:                                 http.StatusBadRequest,
		`/v1/facts?user_id=u1&user_id=u2`:                                    http.StatusBadRequest,
		`/v1/memories?user_id=u1&kind=fact&kind=note`:                        http.StatusOK,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, strings.ReplaceAll(url, `"`, "%22"), nil))
		if rec.Code != want || want != http.StatusOK && !strings.Contains(rec.Body.String(), "more than once") {
			t.Errorf("GET %s: %d %s, want %d", url, rec.Code, rec.Body, want)
		}
	}
}
