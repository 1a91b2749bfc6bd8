package main

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci/internal/testdb"
)

// TestServeFailover runs `loci serve` on a multi-host DSN
// (target_session_attrs=read-write) naming a primary of the test's own and
// its streaming standby, with writers putting notes all along. The primary
// is stopped and the standby promoted: meanwhile loci answers 503 with
// Retry-After (never another error), then writes go to the new primary,
// and every write loci acknowledged is there. Stopped: a fast shutdown,
// which sends the standby all it wrote. Crashed: an immediate one, with
// synchronous replication (a commit is acknowledged once the standby has
// it), without which a crash may lose what the standby had not received.
func TestServeFailover(t *testing.T) {
	if os.Getenv(testdb.PostgresEnv) == "" {
		t.Skipf("%s is not set: the PostgreSQL suites are off (.ci/run always sets it)", testdb.PostgresEnv)
	}
	t.Run("Stopped", func(t *testing.T) { testFailover(t, false) })
	t.Run("CrashedSynchronous", func(t *testing.T) { testFailover(t, true) })
}

func testFailover(t *testing.T, crash bool) {
	primary := testdb.NewCluster(t)
	standby := primary.Standby(t)
	if crash {
		// Set after the base backup, so that the standby, once promoted,
		// does not wait for a standby of its own.
		primary.Exec("postgres", "ALTER SYSTEM SET synchronous_standby_names = '*'")
		primary.Exec("postgres", "SELECT pg_reload_conf()")
	}
	// The servers are the test's own: no schema to drop after.
	schema := "loci"
	primary.Exec("postgres", "CREATE SCHEMA loci")
	dsn, err := testdb.PostgresDSN(fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		primary.Port, standby.Port), schema)
	if err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, lociBinary(t), "serve on a multi-host DSN", dsn)
	res := failover(t, r, 4, func() {
		if crash {
			primary.Kill()
		} else {
			primary.Stop()
		}
		standby.Promote()
	})
	t.Logf("failover: %d writes acknowledged, %d answered 503; writes stopped for %s (the longest gap between acknowledged writes), "+
		"first write on the new primary %s after the stop began; %d acknowledged writes lost",
		res.acked, res.unavailable, res.gap.Round(time.Millisecond), res.firstAfter.Round(time.Millisecond), res.lost)
	if res.lost != 0 {
		t.Fatalf("%d acknowledged writes lost across the failover", res.lost)
	}
	if res.unavailable == 0 {
		t.Logf("no write met the switch (it was quicker than the writers)")
	}
}

// failoverResult is what a failover under writers measured.
type failoverResult struct {
	acked, unavailable, lost int
	// gap is the longest time without an acknowledged write; firstAfter
	// the time from the switch's start to the first write acknowledged
	// after it ended.
	gap, firstAfter time.Duration
}

// failover runs writers writers putting notes on r, runs switchOver once
// they have written for a second, lets them write on for two seconds after
// it, then checks every acknowledged note reads back. A failed write must
// be 503 with Retry-After.
func failover(t testing.TB, r *replica, writers int, switchOver func()) failoverResult {
	t.Helper()
	var (
		mu      sync.Mutex
		acked   []string
		ackedAt []time.Time
		other   []string
		unavail atomic.Int64
		stop    atomic.Bool
		wg      sync.WaitGroup
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for i := 0; !stop.Load(); i++ {
				key := fmt.Sprintf("w%d-%d", w, i)
				req, _ := http.NewRequest("PUT", r.url+"/v1/agents/failover/notes/"+key, strings.NewReader(fmt.Sprintf(`{"value": %d}`, i)))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					other = append(other, err.Error())
					mu.Unlock()
					continue
				}
				resp.Body.Close()
				switch {
				case resp.StatusCode == http.StatusCreated, resp.StatusCode == http.StatusOK:
					// 200: an update, when a retry found the note a commit
					// whose answer was lost had written.
					mu.Lock()
					acked, ackedAt = append(acked, key), append(ackedAt, time.Now())
					mu.Unlock()
				case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
					unavail.Add(1)
					time.Sleep(50 * time.Millisecond)
				default:
					mu.Lock()
					other = append(other, fmt.Sprintf("%s: status %d, Retry-After %q", key, resp.StatusCode, resp.Header.Get("Retry-After")))
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(time.Second)
	start := time.Now()
	switchOver()
	ended := time.Now()
	time.Sleep(2 * time.Second)
	stop.Store(true)
	wg.Wait()
	if len(other) > 0 {
		t.Errorf("%d writes failed otherwise than 503 with Retry-After, e.g. %s", len(other), other[0])
	}
	res := failoverResult{acked: len(acked), unavailable: int(unavail.Load())}
	sort.Slice(ackedAt, func(i, j int) bool { return ackedAt[i].Before(ackedAt[j]) })
	for i := 1; i < len(ackedAt); i++ {
		res.gap = max(res.gap, ackedAt[i].Sub(ackedAt[i-1]))
	}
	for _, at := range ackedAt {
		if at.After(ended) {
			res.firstAfter = at.Sub(start)
			break
		}
	}
	if res.firstAfter == 0 {
		t.Fatalf("no write acknowledged in the 2s after the switch")
	}
	for _, key := range acked {
		status, out, err := r.try("GET", "/v1/agents/failover/notes/"+key, nil)
		if err != nil || status != http.StatusOK {
			t.Errorf("acknowledged note %s: status %d %v %v", key, status, out, err)
			res.lost++
		}
	}
	return res
}
