package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedURL returns the URL of a local port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestEnvironmentErrors: what the environment gets wrong (no server at
// --server, a URL without a scheme, a database that cannot be opened) is
// said plainly and names what failed, never "internal error".
func TestEnvironmentErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "afile")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	down := closedURL(t)
	for _, tc := range []struct {
		name       string
		args       []string
		wantExit   int
		wantStderr []string
	}{
		{"ErrServerDown", []string{"recall", "--agent", "w", "--server", down}, exitDomain,
			[]string{"cannot reach loci at " + down + ": connection refused; is `loci serve` running?"}},
		{"ErrServerDownRemember", []string{"remember", "k", "v", "--agent", "w", "--server", down + "/"}, exitDomain,
			[]string{"cannot reach loci at " + down + ": connection refused"}},
		{"ErrServerDownSearch", []string{"search", "x", "--server", down}, exitDomain,
			[]string{"cannot reach loci at " + down}},
		{"ErrServerNoScheme", []string{"recall", "--agent", "w", "--server", "127.0.0.1:8420"}, exitUsage,
			[]string{`--server "127.0.0.1:8420"`, "http://127.0.0.1:8420"}},
		{"ErrServerHostNoScheme", []string{"recall", "--agent", "w", "--server", "localhost:8420"}, exitUsage,
			[]string{`--server "localhost:8420"`, "http://"}},
		{"ErrServerOtherScheme", []string{"maintain", "--server", "ftp://example.com"}, exitUsage,
			[]string{`--server "ftp://example.com"`}},
		{"ErrDBUnderAFile", []string{"recall", "--agent", "w", "--db", filepath.Join(notDir, "x.db")}, exitDomain,
			[]string{"cannot open the database " + filepath.Join(notDir, "x.db")}},
		{"ErrDBNotADatabase", []string{"remember", "k", "v", "--agent", "w", "--db", garbage}, exitDomain,
			[]string{"cannot open the database " + garbage}},
		{"ErrDBBlock", []string{"block", "list", "--agent", "w", "--db", garbage}, exitDomain,
			[]string{"cannot open the database " + garbage}},
		{"ErrDBKeys", []string{"keys", "list", "--db", garbage}, exitDomain,
			[]string{"cannot open the database " + garbage}},
		{"ErrDBServe", []string{"serve", "--addr", "127.0.0.1:0", "--db", garbage}, exitDomain,
			[]string{"cannot open the database " + garbage}},
		{"ErrPostgresDown", []string{"recall", "--agent", "w", "--db", "postgres://loci:secret@127.0.0.1:1/loci"}, exitDomain,
			[]string{"cannot open the database postgres://loci:xxxxx@127.0.0.1:1/loci"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.wantExit {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.wantExit, stderr)
			}
			for _, want := range tc.wantStderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}
			if strings.Contains(stderr, "internal error") || strings.Contains(stderr, "secret") {
				t.Errorf("stderr %q: says internal error, or shows the password", stderr)
			}
		})
	}
}
