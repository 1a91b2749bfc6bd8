//go:build unix

package main

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci/internal/testdb"
)

// TestServePartitionWithinDBTimeout: with the network to PostgreSQL cut,
// every request of `loci serve` answers 503 within --db-timeout of its
// start, the retry included (the retry never adds its backoff and a
// second timeout), and answers again once the network is back.
func TestServePartitionWithinDBTimeout(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set", testdb.PostgresEnv)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testdb.NewProxy(t, u.Host)
	target, err := testdb.PostgresDSN(dsn, testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	tu, _ := url.Parse(target)
	tu.Host = proxy.Addr()
	const timeout = 2 * time.Second
	srv := startServer(t, nil, "--db", tu.String(), "--db-timeout", timeout.String(), "--retry-backoff", "1s")
	c := &http.Client{Timeout: 30 * time.Second}
	do := func(method, path, body string) (int, time.Duration) {
		req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", method, path, err)
			return 0, time.Since(start)
		}
		resp.Body.Close()
		return resp.StatusCode, time.Since(start)
	}
	if st, _ := do("PUT", "/v1/agents/a/notes/k", `{"value":"v"}`); st != http.StatusCreated {
		t.Fatalf("before the partition: %d\n%s", st, srv.stderr)
	}
	time.Sleep(1100 * time.Millisecond) // the pool's connections are idle long enough to be pinged
	proxy.Blackhole()
	reqs := [][3]string{
		{"PUT", "/v1/agents/a/notes/k", `{"value":"w"}`},
		{"GET", "/v1/agents/a/notes/k", ""},
		{"POST", "/v1/search", `{"query":"v","agent_id":"a"}`},
		{"GET", "/v1/agents/a/notes", ""},
	}
	var mu sync.Mutex
	var longest time.Duration
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Go(func() {
			st, took := do(r[0], r[1], r[2])
			t.Logf("%s %s: %d in %v", r[0], r[1], st, took)
			if st != http.StatusServiceUnavailable {
				t.Errorf("%s %s during the partition: %d, want 503", r[0], r[1], st)
			}
			mu.Lock()
			longest = max(longest, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("longest request during the partition: %v (--db-timeout %v, --retry-backoff 1s)", longest, timeout)
	// A bound on behaviour, not a speed target: before, a timeout, the
	// backoff and a second timeout passed (5 s here).
	if longest > timeout+time.Second {
		t.Errorf("longest request during the partition took %v; want within --db-timeout %v (and scheduling slack)", longest, timeout)
	}
	proxy.Restore()
	var st int
	for range 50 {
		if st, _ = do("GET", "/v1/agents/a/notes/k", ""); st == http.StatusOK {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st != http.StatusOK {
		t.Errorf("after the partition: %d", st)
	}
}
