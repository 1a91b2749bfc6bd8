package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// t0 is the fake clock's start: every response's timestamps derive from it,
// so golden bodies are exact.
var t0 = time.Date(2026, 2, 15, 14, 30, 0, 0, time.UTC)

// newServer starts an httptest server on a fresh store of the backend
// open opens, with a fake clock.
func newServer(t *testing.T, open func(testing.TB) loci.Store) (*httptest.Server, *loci.FakeClock) {
	t.Helper()
	clock := loci.NewFakeClock(t0)
	svc := rules.New(open(t), rules.WithClock(clock))
	srv := httptest.NewServer(httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	return srv, clock
}

// scenario is one request and what it must answer.
type scenario struct {
	name       string
	method     string
	path       string
	body       string // sent as is when not ""
	wantStatus int
	// want holds top-level fields of the JSON answer and their values.
	want map[string]any
	// golden compares the whole (indented) body with
	// testdata/<test>/<name>.json.
	golden bool
}

// runScenarios runs each scenario in order against srv, as subtests.
// Before each request the clock moves one second on, so each write has
// its own time.
func runScenarios(t *testing.T, srv *httptest.Server, clock *loci.FakeClock, goldenDir string, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			clock.Add(time.Second)
			status, body := do(t, srv, sc.method, sc.path, sc.body)
			if status != sc.wantStatus {
				t.Errorf("%s %s: status: got %d, want %d; body %s", sc.method, sc.path, status, sc.wantStatus, body)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body is not a JSON object: %v: %s", err, body)
			}
			if _, ok := got["success"]; !ok {
				t.Errorf("body has no success field: %s", body)
			}
			for k, want := range sc.want {
				if g, w := jsonOf(t, got[k]), jsonOf(t, want); g != w {
					t.Errorf("field %q: got %s, want %s", k, g, w)
				}
			}
			if sc.golden {
				checkGolden(t, filepath.Join("testdata", goldenDir, sc.name+".json"), body)
			}
		})
	}
}

// do sends one request and returns the status and body; every answer must
// be JSON.
func do(t testing.TB, srv *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type: got %q, want application/json", method, path, ct)
	}
	return resp.StatusCode, b
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkGolden compares body, indented, with the golden file at path, or
// rewrites the file under -update.
func checkGolden(t testing.TB, path string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	got := buf.Bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("body differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// ts formats the fake clock's time after n ticks, as the API writes it.
func ts(n int) string {
	return t0.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano)
}

func TestHealth(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "TestHealth", []scenario{
			{name: "Healthz", method: "GET", path: "/healthz", wantStatus: 200,
				want: map[string]any{"success": true, "status": "ok"}, golden: true},
			{name: "Readyz", method: "GET", path: "/readyz", wantStatus: 200,
				want: map[string]any{"success": true, "status": "ready", "writes": "ok"}, golden: true},
		})
	})
}

func TestReadyzStorageDown(t *testing.T) {
	store := testdb.OpenSQLite(t)
	store.Close()
	srv := httptest.NewServer(httpapi.NewServer(rules.New(store), slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer srv.Close()
	// Liveness does not depend on storage; readiness does.
	if status, body := do(t, srv, "GET", "/healthz", ""); status != http.StatusOK {
		t.Errorf("healthz with storage down: got %d %s, want 200", status, body)
	}
	status, body := do(t, srv, "GET", "/readyz", "")
	if status != http.StatusServiceUnavailable {
		t.Errorf("readyz with storage down: got %d %s, want 503", status, body)
	}
	var got struct {
		Success bool   `json:"success"`
		Code    string `json:"code"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Success || got.Code != loci.EUNAVAILABLE {
		t.Errorf("readyz with storage down: got %s, want success false, code unavailable", body)
	}
}
