package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestServeInspector: loci serve's handler serves the web inspector at /,
// public even once a key exists, while the API it calls needs the key.
func TestServeInspector(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	if _, _, err := svc.CreateKey(context.Background(), loci.KeySpec{Role: loci.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newHandler(svc, slog.New(slog.NewTextHandler(io.Discard, nil)), true))
	t.Cleanup(ts.Close)
	for _, tc := range []struct {
		name       string
		path       string
		wantStatus int
		wantType   string
	}{
		{"Page", "/", http.StatusOK, "text/html"},
		{"Script", "/ui/main.js", http.StatusOK, "text/javascript"},
		{"Stylesheet", "/ui/inspector.css", http.StatusOK, "text/css"},
		{"ErrAPINeedsKey", "/v1/agents", http.StatusUnauthorized, "application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := http.Get(ts.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", res.StatusCode, tc.wantStatus)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.wantType) {
				t.Errorf("Content-Type = %q, want %s", ct, tc.wantType)
			}
		})
	}
}
