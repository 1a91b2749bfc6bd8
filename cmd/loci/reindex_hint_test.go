//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReindexHintTrue: the hint a search prints for records that wait for
// their embedding is true with and without a server on the database:
// without one, loci reindex embeds what the CLI wrote; with one, the
// server embeds it by itself and reindex says nothing waits.
func TestReindexHintTrue(t *testing.T) {
	// An embedder that makes vectors: the hash embedder's are off by
	// default (search is then lexical, and nothing waits).
	t.Setenv("LOCI_HASH_VECTORS", "true")
	db := filepath.Join(t.TempDir(), "loci.db")
	if code, _, stderr := runCLI(t, "remember", "tone", "dry wit", "--agent", "a", "--db", db); code != 0 {
		t.Fatalf("remember: %s", stderr)
	}
	code, _, stderr := runCLI(t, "search", "wit", "--agent", "a", "--db", db)
	if code != 0 || !strings.Contains(stderr, "loci reindex embeds them now") || !strings.Contains(stderr, "loci serve") {
		t.Errorf("search with a pending record, no server: exit %d, stderr %q; want the hint naming loci serve and loci reindex", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "reindex", "--quiet", "--db", db); code != 0 || !strings.HasPrefix(stdout, "Re-embedded 1 records") {
		t.Errorf("reindex without a server: exit %d, %q %q; want 1 record embedded", code, stdout, stderr)
	}
	if _, _, stderr := runCLI(t, "search", "wit", "--agent", "a", "--db", db); stderr != "" {
		t.Errorf("search after reindex: stderr %q, want none", stderr)
	}

	// With a server on the same database, what the CLI writes is embedded
	// by the server.
	s := startServer(t, []string{"LOCI_HASH_VECTORS=true"}, "--db", db)
	defer s.signal(t, syscall.SIGTERM)
	if code, _, stderr := runCLI(t, "remember", "plan", "weekly wit digest", "--agent", "a", "--db", db); code != 0 {
		t.Fatalf("remember: %s", stderr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, _, stderr := runCLI(t, "search", "wit", "--agent", "a", "--db", db)
		if stderr == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not embed what the CLI wrote: %q", stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, stdout, _ := runCLI(t, "reindex", "--quiet", "--db", db); code != 0 || !strings.HasPrefix(stdout, "Nothing waits") {
		t.Errorf("reindex with a server that embedded everything: exit %d, %q; want it to say nothing waits", code, stdout)
	}
}
