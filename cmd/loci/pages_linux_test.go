//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFileKB reads the resident file-backed memory of this process.
func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseStartupPages: dropping the executable's pages lowers the
// resident file memory, and the process runs on (its code is mapped back
// as it runs).
func TestReleaseStartupPages(t *testing.T) {
	before := rssFileKB(t)
	releaseStartupPages()
	after := rssFileKB(t)
	t.Logf("RssFile %d kB -> %d kB", before, after)
	if after >= before {
		t.Errorf("RssFile %d kB after, %d kB before: nothing released", after, before)
	}
	// Code runs again after its pages are dropped.
	if got := formatSize(256 << 20); got != "256MiB" {
		t.Errorf("formatSize = %q", got)
	}
}
