package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a goroutine writing and a test
// reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runCLIInput runs the command line with stdin and returns its exit status and output.
func runCLIInput(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestServeRefusesNonLoopbackWithoutAuth(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		code, _, stderr := runCLIInput(t, "", "serve", "--addr", addr, "--db", db)
		if code != exitDomain || !strings.Contains(stderr, "authentication off") || !strings.Contains(stderr, "loci keys create") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want 1 and why", addr, code, stderr)
		}
	}
}

func TestServeNonLoopbackWithAuth(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	url, stop := serveInProcess(t, "--addr", "0.0.0.0:0", "--db", db, "--auth")
	for path, want := range map[string]int{"/v1/agents/a/notes": 401, "/healthz": 200} {
		if got := getStatus(t, url+path); got != want {
			t.Errorf("GET %s: %d, want %d", path, got, want)
		}
	}
	stop()
}

// TestServeNonLoopbackKeepsAuth: a server that listens beyond loopback
// because a key existed keeps authentication on when every key is
// revoked (on loopback, revoking the last key turns it off).
func TestServeNonLoopbackKeepsAuth(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	if code, _, stderr := runCLIInput(t, "", "keys", "create", "--role", "admin", "--db", db); code != exitOK {
		t.Fatalf("keys create: %d %s", code, stderr)
	}
	url, stop := serveInProcess(t, "--addr", "0.0.0.0:0", "--db", db)
	defer stop()
	code, list, _ := runCLIInput(t, "", "keys", "list", "--db", db)
	if code != exitOK {
		t.Fatalf("keys list: %d", code)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	if code, _, stderr := runCLIInput(t, "", "keys", "revoke", id, "--db", db); code != exitOK {
		t.Fatalf("keys revoke: %d %s", code, stderr)
	}
	if got := getStatus(t, url+"/v1/agents/a/notes"); got != http.StatusUnauthorized {
		t.Errorf("GET with every key revoked on 0.0.0.0: %d, want 401", got)
	}
}

// serveInProcess runs `loci serve args…` in this process until stop is
// called, and returns its URL (on 127.0.0.1).
func serveInProcess(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), &out, &errb)
	}()
	var url string
	for i := 0; i < 500 && url == ""; i++ {
		if line, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "loci listening on "); ok {
			url = strings.Replace(line, "0.0.0.0", "127.0.0.1", 1)
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("serve did not start: %s", errb.String())
	}
	stopped := false
	return url, func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	}
}

// getStatus GETs url and returns the status.
func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8420", true}, {"localhost:1", true}, {"[::1]:80", true}, {"127.1.2.3:0", true},
		{"0.0.0.0:8420", false}, {":8420", false}, {"[::]:80", false}, {"10.0.0.1:80", false}, {"example.com:80", false}, {"nonsense", false},
	}
	for _, tt := range tests {
		if got := isLoopback(tt.addr); got != tt.want {
			t.Errorf("isLoopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestKeysCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	code, secret, stderr := runCLIInput(t, "", "keys", "create", "--role", "editor", "--agent", "a1", "--db", db)
	secret = strings.TrimSpace(secret)
	if code != exitOK || !strings.HasPrefix(secret, "loci_") || !strings.Contains(stderr, "only once") {
		t.Fatalf("create: exit %d, %q, %q", code, secret, stderr)
	}
	code, list, _ := runCLIInput(t, "", "keys", "list", "--db", db)
	if code != exitOK || !strings.Contains(list, "editor") || !strings.Contains(list, "a1") || strings.Contains(list, secret) {
		t.Fatalf("list: exit %d\n%s", code, list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	if code, _, stderr := runCLIInput(t, "", "keys", "revoke", id, "--db", db); code != exitOK {
		t.Fatalf("revoke: exit %d %s", code, stderr)
	}
	if _, list, _ := runCLIInput(t, "", "keys", "list", "--db", db); !strings.Contains(list, "revoked") {
		t.Errorf("list after revoke:\n%s", list)
	}
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"ErrNoRole", []string{"keys", "create", "--db", db}, exitUsage},
		{"ErrBadRole", []string{"keys", "create", "--role", "root", "--db", db}, exitUsage},
		{"ErrRevokeUnknown", []string{"keys", "revoke", "nope", "--db", db}, exitDomain},
		{"ErrRevokeTwice", []string{"keys", "revoke", id, "--db", db}, exitDomain},
		{"ErrNoVerb", []string{"keys"}, exitUsage},
		{"ErrUnknownVerb", []string{"keys", "rotate"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _, stderr := runCLIInput(t, "", tt.args...); code != tt.want {
				t.Errorf("exit %d (%s), want %d", code, stderr, tt.want)
			}
		})
	}
}

func TestExportImportCLI(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.db"), filepath.Join(dir, "dst.db")
	for _, v := range []string{"one", "two"} {
		if code, _, stderr := runCLIInput(t, "", "remember", "k", v, "--agent", "a1", "--db", src); code != exitOK {
			t.Fatalf("remember: %s", stderr)
		}
	}
	code, first, _ := runCLIInput(t, "", "export", "--db", src)
	if code != exitOK || !strings.Contains(first, `"type":"record"`) {
		t.Fatalf("export: exit %d\n%s", code, first)
	}
	if code, out, stderr := runCLIInput(t, first, "import", "--db", dst); code != exitOK || !strings.Contains(out, "imported 1 records (1 versions)") {
		t.Fatalf("import: exit %d %s %s", code, out, stderr)
	}
	if _, second, _ := runCLIInput(t, "", "export", "--db", dst); second != first {
		t.Errorf("round trip differs:\n%s\n%s", first, second)
	}
	// Run again (as after a failure mid-way), the import skips what is there.
	if code, out, _ := runCLIInput(t, first, "import", "--db", dst); code != exitOK || !strings.Contains(out, "imported 0 records") || !strings.Contains(out, "1 records already there skipped") {
		t.Errorf("second import: exit %d %q, want 0 with 1 skipped", code, out)
	}
	if code, _, _ := runCLIInput(t, "not json", "import", "--db", filepath.Join(dir, "x.db")); code != exitDomain {
		t.Errorf("bad import: exit %d, want 1", code)
	}
	if code, out, _ := runCLIInput(t, "", "export", "--user", "nobody", "--db", src); code != exitOK || out != "" {
		t.Errorf("export --user nobody: exit %d %q", code, out)
	}
}
