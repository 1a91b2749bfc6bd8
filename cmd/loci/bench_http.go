package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loci-memory/loci/internal/textgen"
)

// benchServer is a `loci serve` process started by the bench.
type benchServer struct {
	cmd  *exec.Cmd
	url  string
	done chan error
}

// startBenchServer runs bin serve on a free port with args, and waits until it
// answers /readyz.
func startBenchServer(ctx context.Context, bin string, args ...string) (*benchServer, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	if os.Getenv("LOCI_EMBEDDER") == "" {
		// Lexical unless an embedder is named (--serve-args '--embedder
		// …' or $LOCI_EMBEDDER), as the in-process bench: "hash", which
		// every loci takes.
		cmd.Env = append(os.Environ(), "LOCI_EMBEDDER=hash")
	}
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	s := &benchServer{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "loci listening on "); ok {
				lines <- u
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case s.url = <-lines:
	case err := <-s.done:
		return nil, fmt.Errorf("%s serve exited: %v", bin, err)
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s serve did not start", bin)
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s serve is not ready", bin)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rssMB returns the process's resident set size and its peak, in MB.
func (s *benchServer) rssMB() (cur, peak float64) {
	return procRSS(s.cmd.Process.Pid)
}

func (s *benchServer) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// procRSS reads VmRSS and VmHWM of a process (Linux), in MB.
func procRSS(pid int) (cur, peak float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		for name, dst := range map[string]*float64{"VmRSS:": &cur, "VmHWM:": &peak} {
			if rest, ok := strings.CutPrefix(line, name); ok {
				kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
				*dst = round2(float64(kb) / 1024)
			}
		}
	}
	return cur, peak
}

// client is a keep-alive HTTP client for the bench.
type client struct {
	base string
	http *http.Client
}

func newClient(base string) *client {
	return &client{base: base, http: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// post sends body as JSON and decodes a 2xx answer into out (if not nil).
func (c *client) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

type searchAnswer struct {
	Results []struct {
		ID string `json:"id"`
	} `json:"results"`
	Pending int `json:"pending_embeddings"`
}

// httpReport is the --http run's report.
type httpReport struct {
	Server      string                        `json:"server"`
	LoadPerS    float64                       `json:"load_per_s"`
	Search      map[string]map[string]float64 `json:"search"`
	ServerRSSMB float64                       `json:"server_rss_mb"`
	ServerPeak  float64                       `json:"server_peak_rss_mb"`
}

// runHTTPBench stores passages of one agent through a real server's REST
// API and times POST /v1/search at each size, sequentially, as a client
// would; it reports the server's resident memory after.
func runHTTPBench(ctx context.Context, e *env, o benchOptions) error {
	bin := o.serveBin
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		bin = exe
	}
	srv, err := startBenchServer(ctx, bin, append([]string{"--db", filepath.Join(o.dir, "bench.db")}, o.serveArgs...)...)
	if err != nil {
		return err
	}
	defer srv.stop()
	o.progress("server %s at %s", bin, srv.url)
	c := newClient(srv.url)
	gen := textgen.New(1)
	rep := &httpReport{Server: bin, Search: map[string]map[string]float64{}}
	stored := 0
	var loadTime time.Duration
	for _, n := range o.sizes {
		t0 := time.Now()
		if err := o.storeOverHTTP(ctx, c, gen, stored, n); err != nil {
			return err
		}
		stored = n
		loadTime += time.Since(t0)
		if err := o.awaitEmbeddings(ctx, c, gen, n); err != nil {
			return err
		}
		lat, err := timeSearches(ctx, o, func(ctx context.Context) error {
			return c.post(ctx, "/v1/search", map[string]any{"query": gen.Query(), "agent_id": benchAgent, "kinds": []string{"passage"}, "limit": 10}, nil)
		})
		if err != nil {
			return err
		}
		rep.Search[strconv.Itoa(n)] = latencyReport(lat)
		o.progress("%d passages over HTTP: search p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, %.0f/s", n,
			percentile(lat, 50), percentile(lat, 95), percentile(lat, 99), rep.Search[strconv.Itoa(n)]["per_s"])
	}
	rep.LoadPerS = round2(float64(stored) / loadTime.Seconds())
	rep.ServerRSSMB, rep.ServerPeak = srv.rssMB()
	if err := o.inspectServer(srv); err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.stdout, rep)
	}
	printHTTPReport(e, o, rep)
	return nil
}

// storeOverHTTP stores passages of the bench agent from stored up to n,
// four clients at once, through POST /v1/agents/{id}/passages.
func (o benchOptions) storeOverHTTP(ctx context.Context, c *client, gen *textgen.Gen, stored, n int) error {
	texts := make(chan string)
	errc := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for t := range texts {
				if err := c.post(ctx, "/v1/agents/"+benchAgent+"/passages", map[string]any{"content": t}, nil); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	for ; stored < n; stored++ {
		if stored%5000 == 0 {
			o.progress("storing passages: %d of %d", stored, n)
		}
		select {
		case texts <- gen.Passage():
		case err := <-errc:
			close(texts)
			return err
		}
	}
	close(texts)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// awaitEmbeddings waits until the server's embedding worker has embedded
// every passage of the bench agent.
func (o benchOptions) awaitEmbeddings(ctx context.Context, c *client, gen *textgen.Gen, n int) error {
	for {
		var ans searchAnswer
		if err := c.post(ctx, "/v1/search", map[string]any{"query": gen.Query(), "agent_id": benchAgent, "limit": 1}, &ans); err != nil {
			return err
		}
		if ans.Pending == 0 {
			return nil
		}
		o.progress("%d passages: waiting for %d embeddings", n, ans.Pending)
		time.Sleep(time.Second)
	}
}

// printHTTPReport prints rep as a table.
func printHTTPReport(e *env, o benchOptions, rep *httpReport) {
	fmt.Fprintf(e.stdout, "server                %s\n", rep.Server)
	fmt.Fprintf(e.stdout, "load_per_s (REST, 4 clients) %6.0f\n", rep.LoadPerS)
	for _, n := range o.sizes {
		s := rep.Search[strconv.Itoa(n)]
		fmt.Fprintf(e.stdout, "search @%-8d p50 %6.2f ms  p95 %6.2f ms  p99 %6.2f ms  %6.0f/s\n", n, s["p50_ms"], s["p95_ms"], s["p99_ms"], s["per_s"])
	}
	fmt.Fprintf(e.stdout, "server_rss_mb         %10.1f (peak %.1f)\n", rep.ServerRSSMB, rep.ServerPeak)
}

// timeSearches runs o.queries searches one after another, after a warm-up,
// and returns their latencies in ms, sorted.
func timeSearches(ctx context.Context, o benchOptions, search func(context.Context) error) ([]float64, error) {
	for range 20 {
		if err := search(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, o.queries)
	for range o.queries {
		t0 := time.Now()
		if err := search(ctx); err != nil {
			return nil, err
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(out)
	return out, nil
}

// latencyReport summarizes sorted latencies in ms.
func latencyReport(lat []float64) map[string]float64 {
	var sum float64
	for _, x := range lat {
		sum += x
	}
	perS := 0.0
	if sum > 0 {
		perS = round2(float64(len(lat)) / (sum / 1000))
	}
	return map[string]float64{"p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99), "per_s": perS}
}

// inspectServer reports the server's memory by kind on stderr, and saves
// its heap profile when --server-heap asks.
func (o benchOptions) inspectServer(srv *benchServer) error {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", srv.cmd.Process.Pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "Rss") || strings.HasPrefix(line, "VmHWM") {
				o.progress("server %s", strings.Join(strings.Fields(line), " "))
			}
		}
	}
	if o.serverHeap == "" {
		return nil
	}
	return fetchHeapProfile(o.serveArgs, o.serverHeap)
}

// fetchHeapProfile saves the server's heap profile to file; serveArgs must
// hold --pprof ADDR.
func fetchHeapProfile(serveArgs []string, file string) error {
	addr := ""
	for i, a := range serveArgs {
		if a == "--pprof" && i+1 < len(serveArgs) {
			addr = serveArgs[i+1]
		} else if v, ok := strings.CutPrefix(a, "--pprof="); ok {
			addr = v
		}
	}
	if addr == "" {
		return usagef("--server-heap needs --serve-args '--pprof ADDR'")
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}
