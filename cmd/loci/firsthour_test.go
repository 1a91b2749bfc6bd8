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
