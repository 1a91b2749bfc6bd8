package main

import (
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/textgen"
)

// BenchmarkPostgresProduction measures loci on the PostgreSQL set-ups of
// production, side by side in one run, each through real `loci serve`
// processes over HTTP:
//
//   - searches direct to PostgreSQL against through PgBouncer in
//     transaction mode (the server of LOCI_TEST_POSTGRES_DSN), p50/p95 at 1
//     and 8 clients;
//   - a read-heavy mix (45% searches, 45% note reads, 10% note writes,
//     each client its own API key) at 2 and 8 clients, on a primary of the
//     bench's own alone against the primary plus a streaming standby
//     (--db-read): throughput, read p50/p95, the standby's share of reads;
//   - a failover (the primary stopped, the standby promoted) under 4
//     writers: the writes' longest gap and the acknowledged writes lost.
//
// It prints a table; run it once:
//
//	LOCI_TEST_POSTGRES_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	  go test ./cmd/loci -run '^$' -bench PostgresProduction -benchtime 1x -v
func BenchmarkPostgresProduction(b *testing.B) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		b.Skipf("%s is not set", testdb.PostgresEnv)
	}
	bin := lociBinary(b)
	dur := 5 * time.Second
	if s := os.Getenv("LOCI_BENCH_SECONDS"); s != "" {
		if d, err := time.ParseDuration(s + "s"); err == nil {
			dur = d
		}
	}
	var report []string
	add := func(format string, args ...any) { report = append(report, fmt.Sprintf(format, args...)) }

	// 1. Direct against PgBouncer.
	{
		bouncer := testdb.NewPgBouncer(b, dsn)
		schema := testdb.NewSchema(b, dsn)
		direct, _ := testdb.PostgresDSN(dsn, schema)
		pooled, _ := testdb.PostgresDSN(bouncer.DSN(), schema)
		d := startReplica(b, bin, "direct", direct)
		p := startReplica(b, bin, "pgbouncer", pooled, "--db-pooler")
		loadPassages(b, d, "", 8, 250)
		add("search, 8 agents x 250 passages          p50       p95   searches/s")
		for _, clients := range []int{1, 8} {
			for _, s := range []struct {
				name string
				r    *replica
			}{{"direct", d}, {"pgbouncer (transaction)", p}, {"direct (again)", d}, {"pgbouncer (again)", p}} {
				m := runMix(b, s.r, nil, clients, dur/2, 100, 0, 0)
				add("  %-24s %d clients  %7.2fms %7.2fms %8.0f", s.name, clients, ms(m.p(0.5)), ms(m.p(0.95)), m.rate())
			}
		}
	}

	// 2. Primary alone against primary + standby, and 3. a failover.
	{
		primary := testdb.NewCluster(b)
		standby := primary.Standby(b)
		primary.Exec("postgres", "CREATE SCHEMA loci")
		pdsn, _ := testdb.PostgresDSN(primary.DSN("postgres"), "loci")
		sdsn, _ := testdb.PostgresDSN(standby.DSN("postgres"), "loci")
		keys := make([]string, 8)
		for i := range keys {
			out, err := exec.Command(bin, "keys", "create", "--role", "editor", "--db", pdsn).Output()
			if err != nil {
				b.Fatalf("keys create: %v", err)
			}
			keys[i] = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		}
		alone := startReplica(b, bin, "primary alone", pdsn)
		both := startReplica(b, bin, "primary + standby", pdsn, "--db-read", sdsn)
		loadPassages(b, alone, keys[0], 8, 250)
		add("")
		add("read-heavy mix (45%% search, 45%% note read, 10%% note write)   ops/s   read p50  read p95  read transactions on the standby")
		for _, clients := range []int{2, 8} {
			for _, s := range []struct {
				name string
				r    *replica
			}{{"primary alone", alone}, {"primary + standby", both}} {
				pb, sb := storeReads(b, s.r, keys[0])
				m := runMix(b, s.r, keys, clients, dur, 45, 45, 10)
				share := "-"
				if s.r == both {
					pa, sa := storeReads(b, s.r, keys[0])
					share = fmt.Sprintf("%.0f%%", 100*(sa-sb)/(sa-sb+pa-pb))
				}
				add("  %-20s %d clients %28.0f %8.2fms %8.2fms  %s", s.name, clients, m.rate(), ms(m.p(0.5)), ms(m.p(0.95)), share)
			}
		}
		failDSN, _ := testdb.PostgresDSN(fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
			primary.Port, standby.Port), "loci_failover")
		// A schema of its own: without API keys.
		primary.Exec("postgres", "CREATE SCHEMA loci_failover")
		f := startReplica(b, bin, "multi-host", failDSN)
		res := failover(b, f, 4, func() {
			primary.Stop()
			standby.Promote()
		})
		add("")
		add("failover (fast stop + promote, 4 writers): %d writes acknowledged, %d answered 503 with Retry-After, "+
			"longest gap between acknowledged writes %s, first write on the new primary %s after the stop began, acknowledged writes lost: %d",
			res.acked, res.unavailable, res.gap.Round(time.Millisecond), res.firstAfter.Round(time.Millisecond), res.lost)
	}
	fmt.Println(strings.Join(report, "\n"))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadPassages writes per passages to each of agents agents.
func loadPassages(t testing.TB, r *replica, key string, agents, per int) {
	t.Helper()
	gen := textgen.New(1)
	c := &http.Client{}
	for a := range agents {
		for range per {
			status, body := send(c, r, key, "POST", fmt.Sprintf("/v1/agents/a%d/passages", a), fmt.Sprintf(`{"content": %q}`, gen.Passage()))
			if status != http.StatusCreated {
				t.Fatalf("load: status %d %s", status, body)
			}
		}
	}
}

func send(c *http.Client, r *replica, key, method, path, body string) (int, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, r.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// mixResult is what runMix measured.
type mixResult struct {
	lat     []time.Duration // of reads (searches and note reads)
	ops     int
	reads   int
	elapsed time.Duration
}

func (m mixResult) p(q float64) time.Duration {
	if len(m.lat) == 0 {
		return 0
	}
	return m.lat[min(len(m.lat)-1, int(q*float64(len(m.lat))))]
}

func (m mixResult) rate() float64 { return float64(m.ops) / m.elapsed.Seconds() }

// runMix runs clients clients for d, each choosing a search, a note read
// or a note write by the weights given, on its own agent (and its own API
// key when keys are given); it fails on any answer but success.
func runMix(t testing.TB, r *replica, keys []string, clients int, d time.Duration, search, read, write int) mixResult {
	t.Helper()
	var (
		mu  sync.Mutex
		res mixResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	for cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := ""
			if keys != nil {
				key = keys[cl%len(keys)]
			}
			gen := textgen.New(int64(100 + cl))
			rng := rand.New(rand.NewSource(int64(cl)))
			c := &http.Client{}
			agent := fmt.Sprintf("a%d", cl%8)
			var lat []time.Duration
			ops, reads := 0, 0
			for n := 0; time.Since(start) < d; n++ {
				x := rng.Intn(search + read + write)
				var status int
				var body string
				t0 := time.Now()
				switch {
				case x < search:
					status, body = send(c, r, key, "GET", "/v1/agents/"+agent+"/passages/search?q="+url.QueryEscape(gen.Query()), "")
				case x < search+read:
					status, body = send(c, r, key, "GET", fmt.Sprintf("/v1/agents/%s/notes/n%d", agent, rng.Intn(20)), "")
					if status == http.StatusNotFound {
						status = http.StatusOK
					}
				default:
					status, body = send(c, r, key, "PUT", fmt.Sprintf("/v1/agents/%s/notes/n%d", agent, rng.Intn(20)), fmt.Sprintf(`{"value": %d}`, n))
					if status == http.StatusCreated {
						status = http.StatusOK
					}
				}
				el := time.Since(t0)
				if status != http.StatusOK {
					t.Errorf("%s: status %d %s", r.name, status, body)
					return
				}
				ops++
				if x < search+read {
					reads++
					lat = append(lat, el)
				}
			}
			mu.Lock()
			res.lat, res.ops, res.reads = append(res.lat, lat...), res.ops+ops, res.reads+reads
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	sort.Slice(res.lat, func(i, j int) bool { return res.lat[i] < res.lat[j] })
	return res
}

// storeReads reads loci_store_reads_total from r's /metrics: the
// primary's, and the standbys' summed.
func storeReads(t testing.TB, r *replica, key string) (primary, standbys float64) {
	status, body := send(http.DefaultClient, r, key, "GET", "/metrics", "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	for _, line := range strings.Split(body, "\n") {
		var n float64
		if strings.HasPrefix(line, "loci_store_reads_total{") {
			fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &n)
		}
		if strings.HasPrefix(line, `loci_store_reads_total{server="standby `) {
			standbys += n
		} else if strings.HasPrefix(line, `loci_store_reads_total{server="primary"}`) {
			primary += n
		}
	}
	return primary, standbys
}
