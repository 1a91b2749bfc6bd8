//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The end-to-end tests build the real binary once and run it as a child
// process on port 0.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	// The tests look for no model server on this machine (one the
	// developer runs would change what searches find), unless a test
	// points LOCI_EMBED_PROBE at its own.
	if os.Getenv("LOCI_EMBED_PROBE") == "" {
		os.Setenv("LOCI_EMBED_PROBE", "none")
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// lociBinary builds cmd/loci once per test run and returns its path.
func lociBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped in -short mode")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "loci-e2e-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "loci")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// server is a running `loci serve` child process.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's result, once done is closed
}

// startServer runs `loci serve --addr 127.0.0.1:0 args...` with the extra
// environment env and waits for its address line.
func startServer(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(lociBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	s := &server{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case line := <-lines:
		addr, ok := strings.CutPrefix(line, "loci listening on ")
		if !ok {
			t.Fatalf("first stdout line: got %q, want \"loci listening on http://ADDR\"", line)
		}
		s.url = addr
	case <-s.done:
		t.Fatalf("loci serve exited before listening: %v\n%s", s.err, s.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("loci serve did not print its address\n%s", s.stderr)
	}
	return s
}

// signal sends sig and waits for the process to exit.
func (s *server) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("loci serve did not exit after %v\n%s", sig, s.stderr)
	}
}

// put remembers key=value for agent and reports whether it was
// acknowledged (2xx with a JSON body read in full).
func put(c *http.Client, base, agent, key, value string) (bool, error) {
	body, _ := json.Marshal(map[string]string{"value": value})
	req, err := http.NewRequest(http.MethodPut, base+"/v1/agents/"+agent+"/notes/"+key, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var res struct {
		Success bool `json:"success"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return false, err
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK || !res.Success {
		return false, fmt.Errorf("PUT %s: status %d", key, resp.StatusCode)
	}
	return true, nil
}

// getJSON GETs path and decodes the JSON answer into out; it returns the
// status.
func getJSON(t *testing.T, c *http.Client, url string, out any) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: decode: %v", url, err)
	}
	return resp.StatusCode
}

// TestE2EKill9 writes notes from several clients, SIGKILLs the server in
// the middle of the writes, restarts it on the same database and finds
// every note whose write was acknowledged.
func TestE2EKill9(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	s := startServer(t, nil, "--db", db)
	c := &http.Client{Timeout: 30 * time.Second}

	const writers, killAfter = 4, 400
	var (
		mu      sync.Mutex
		acked   = map[string]string{} // key -> value
		counter = -1                  // last acknowledged value of the updated note
		updates int                   // acknowledged updates of it
		total   int
		reached = make(chan struct{}) // closed once killAfter writes are acknowledged
		killed  = make(chan struct{}) // closed just before the SIGKILL
		once    sync.Once
		wg      sync.WaitGroup
	)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				key, value := fmt.Sprintf("w%d-%05d", g, i), fmt.Sprintf("value %d of writer %d", i, g)
				if g == 0 && i%2 == 1 {
					key, value = "counter", fmt.Sprint(i) // one note updated again and again
				}
				ok, err := put(c, s.url, "agent", key, value)
				if err != nil || !ok {
					select {
					case <-killed:
						return // the server is gone: expected
					default:
						t.Errorf("write before the kill failed: %v", err)
						return
					}
				}
				mu.Lock()
				if key == "counter" {
					counter, updates = i, updates+1
				} else {
					acked[key] = value
				}
				total++
				n := total
				mu.Unlock()
				if n >= killAfter {
					once.Do(func() { close(reached) })
				}
			}
		}(g)
	}
	// Kill while the writers are still writing.
	select {
	case <-reached:
	case <-s.done:
		t.Fatalf("server exited during the writes: %v\n%s", s.err, s.stderr)
	}
	close(killed)
	s.signal(t, syscall.SIGKILL)
	wg.Wait()
	if status := s.cmd.ProcessState; status == nil || status.Success() {
		t.Fatalf("server after SIGKILL: got %v, want killed", status)
	}
	t.Logf("%d notes and %d updates acknowledged before the kill", len(acked), updates)

	s2 := startServer(t, nil, "--db", db)
	var list struct {
		Count    int `json:"count"`
		Memories []struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		} `json:"memories"`
	}
	if st := getJSON(t, c, s2.url+"/v1/agents/agent/notes?limit=1000", &list); st != 200 {
		t.Fatalf("list after restart: status %d", st)
	}
	found := map[string]string{}
	for _, m := range list.Memories {
		var v string
		json.Unmarshal(m.Value, &v)
		found[m.Key] = v
	}
	for k, v := range acked {
		if got, ok := found[k]; !ok {
			t.Errorf("acknowledged note %s lost", k)
		} else if got != v {
			t.Errorf("note %s: got %q, want %q", k, got, v)
		}
	}
	if updates > 0 {
		var n struct {
			Value string `json:"value"`
		}
		if st := getJSON(t, c, s2.url+"/v1/agents/agent/notes/counter", &n); st != 200 {
			t.Fatalf("recall counter: status %d", st)
		}
		var got int
		fmt.Sscan(n.Value, &got)
		if got < counter {
			t.Errorf("counter: got %d, want at least the last acknowledged %d", got, counter)
		}
		var h struct {
			Count int `json:"count"`
		}
		getJSON(t, c, s2.url+"/v1/agents/agent/notes/counter/history", &h)
		if h.Count < updates {
			t.Errorf("counter history: got %d versions, want at least the %d acknowledged", h.Count, updates)
		}
	}
	s2.signal(t, syscall.SIGTERM)
}

// TestE2EGracefulShutdown checks SIGTERM and SIGINT: exit status 0, what
// was written is there after a restart, and health endpoints answer.
func TestE2EGracefulShutdown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "loci.db")
			s := startServer(t, nil, "--db", db)
			c := &http.Client{Timeout: 30 * time.Second}
			for _, p := range []string{"/healthz", "/readyz"} {
				var h struct {
					Success bool `json:"success"`
				}
				if st := getJSON(t, c, s.url+p, &h); st != 200 || !h.Success {
					t.Errorf("GET %s: got %d %v, want 200 success", p, st, h.Success)
				}
			}
			if _, err := put(c, s.url, "a", "k", "v"); err != nil {
				t.Fatal(err)
			}
			s.signal(t, sig)
			if s.err != nil {
				t.Errorf("exit after %v: got %v, want status 0\n%s", sig, s.err, s.stderr)
			}
			if !strings.Contains(s.stderr.String(), "shutting down") {
				t.Errorf("log has no shutdown line:\n%s", s.stderr)
			}
			s2 := startServer(t, nil, "--db", db)
			var n struct {
				Value string `json:"value"`
			}
			if st := getJSON(t, c, s2.url+"/v1/agents/a/notes/k", &n); st != 200 || n.Value != "v" {
				t.Errorf("after restart: got %d %q, want 200 \"v\"", st, n.Value)
			}
		})
	}
}

// TestE2ELociDB checks that serve reads LOCI_DB when --db is absent, and
// that --db wins over it.
func TestE2ELociDB(t *testing.T) {
	dir := t.TempDir()
	envDB, flagDB := filepath.Join(dir, "env", "loci.db"), filepath.Join(dir, "flag.db")
	c := &http.Client{Timeout: 30 * time.Second}

	s := startServer(t, []string{"LOCI_DB=" + envDB})
	if _, err := put(c, s.url, "a", "k", "in env db"); err != nil {
		t.Fatal(err)
	}
	s.signal(t, syscall.SIGTERM)
	if _, err := os.Stat(envDB); err != nil {
		t.Fatalf("LOCI_DB file: %v", err)
	}

	s = startServer(t, []string{"LOCI_DB=" + envDB}, "--db", flagDB)
	var n struct {
		Success bool `json:"success"`
	}
	if st := getJSON(t, c, s.url+"/v1/agents/a/notes/k", &n); st != 404 {
		t.Errorf("--db beside LOCI_DB: got %d, want 404 (a different, empty database)", st)
	}
	s.signal(t, syscall.SIGTERM)

	// The CLI verbs read the same variable.
	cmd := exec.Command(lociBinary(t), "recall", "k", "--agent", "a")
	cmd.Env = append(os.Environ(), "LOCI_DB="+envDB)
	out, err := cmd.Output()
	if err != nil || string(out) != "in env db\n" {
		t.Errorf("loci recall with LOCI_DB: got %q, %v; want \"in env db\"", out, err)
	}
}
