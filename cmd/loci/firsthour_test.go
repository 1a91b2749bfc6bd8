package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBusyPort: loci serve on an address another program listens on
// says that the address is in use and that --addr picks another, as a
// domain error (exit 1), not "internal error".
func TestServeBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := runCLI(t, "serve", "--addr", ln.Addr().String(), "--db", filepath.Join(t.TempDir(), "loci.db"))
	if code != exitDomain || !strings.Contains(stderr, "already in use") || !strings.Contains(stderr, "--addr") ||
		strings.Contains(stderr, "internal error") {
		t.Errorf("serve on a busy port: exit %d, stderr %q; want 1 saying the address is in use and that --addr picks another", code, stderr)
	}
}

// TestFactsListSaysNone: a facts listing or search that finds nothing
// says so on stderr (stdout stays empty) and exits 0.
func TestFactsListSaysNone(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	if code, _, stderr := runCLI(t, "facts", "add", "Lives in Berlin", "--user", "u1", "--category", "general_fact", "--db", db); code != 0 {
		t.Fatalf("facts add: %s", stderr)
	}
	for _, args := range [][]string{
		{"facts", "list", "--user", "u1", "--as-of", "2020-01-01T00:00:00Z"},
		{"facts", "list", "--user", "u2"},
		{"facts", "search", "Paris", "--user", "u1"},
	} {
		code, stdout, stderr := runCLI(t, append(args, "--db", db)...)
		if code != 0 || stdout != "" || !strings.Contains(stderr, "No facts") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, nothing, a line saying there are none", args, code, stdout, stderr)
		}
	}
}
