//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestE2ESIGTERMUnderWriters sends SIGTERM to `loci serve` while 16
// writers keep writing over keep-alive connections, for a bounded number
// of rounds (LOCI_SHUTDOWN_ROUNDS, default 3): every request the server
// accepted is answered (a success, or 503 while it drains), new
// connections are refused, the process exits 0, and after a restart every
// acknowledged write is there and nothing else is.
func TestE2ESIGTERMUnderWriters(t *testing.T) {
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("LOCI_SHUTDOWN_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	const writers = 16
	db := filepath.Join(t.TempDir(), "loci.db")
	var total struct{ answered, acked, refused, drained, unanswered int }
	for round := range rounds {
		s := startServer(t, nil, "--db", db)
		var answered, acked, refused, drained, unanswered atomic.Int64
		var firstUnanswered atomic.Value
		ackedBy := make([]int, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				tr := &http.Transport{MaxIdleConnsPerHost: writers, DialContext: (&net.Dialer{}).DialContext}
				c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
				defer tr.CloseIdleConnections()
				for i := 0; ; i++ {
					body := fmt.Sprintf(`{"value":"round %d write %d"}`, round, i)
					req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/v1/agents/r%d-w%d/notes/k%d", s.url, round, w, i), bytes.NewReader([]byte(body)))
					resp, err := c.Do(req)
					if err != nil {
						var op *net.OpError
						if errors.As(err, &op) && op.Op == "dial" {
							refused.Add(1)
							return // the server no longer accepts connections
						}
						unanswered.Add(1)
						firstUnanswered.CompareAndSwap(nil, err.Error())
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					answered.Add(1)
					switch {
					case resp.StatusCode == http.StatusCreated:
						acked.Add(1)
						ackedBy[w]++
					case resp.StatusCode == http.StatusServiceUnavailable:
						drained.Add(1)
					default:
						t.Errorf("write: status %d", resp.StatusCode)
					}
				}
			})
		}
		time.Sleep(400 * time.Millisecond)
		s.signal(t, syscall.SIGTERM)
		wg.Wait()
		if s.err != nil {
			t.Errorf("round %d: exit %v\n%s", round, s.err, s.stderr)
		}
		total.answered += int(answered.Load())
		total.acked += int(acked.Load())
		total.refused += int(refused.Load())
		total.drained += int(drained.Load())
		total.unanswered += int(unanswered.Load())
		if n := unanswered.Load(); n > 0 {
			t.Errorf("round %d: %d accepted requests got no answer (first: %v)", round, n, firstUnanswered.Load())
		}
		// Every acknowledged write is there, and nothing refused was
		// applied.
		s2 := startServer(t, nil, "--db", db)
		c := &http.Client{Timeout: 30 * time.Second}
		for w := range writers {
			var out struct {
				Count int `json:"count"`
			}
			getJSON(t, c, fmt.Sprintf("%s/v1/agents/r%d-w%d/notes?limit=1", s2.url, round, w), &out)
			if out.Count != ackedBy[w] {
				t.Errorf("round %d, writer %d: %d notes stored, %d acknowledged", round, w, out.Count, ackedBy[w])
			}
		}
		s2.signal(t, syscall.SIGTERM)
	}
	t.Logf("%d rounds, %d writers: %d answered (%d acknowledged, %d refused while draining), %d refused connections, %d unanswered",
		rounds, writers, total.answered, total.acked, total.drained, total.refused, total.unanswered)
}

// TestE2ESIGTERMWithMCPStream sends SIGTERM to `loci serve` while an MCP
// client holds its event stream (GET /mcp with its session id): the
// stream is closed at once, and the server exits 0 without waiting out its
// shutdown timeout (which, waited out, is exit 1).
func TestE2ESIGTERMWithMCPStream(t *testing.T) {
	s := startServer(t, nil, "--db", ":memory:", "--shutdown-timeout", "5s")
	post := func(body, session string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+"/mcp", bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Loci-Agent", "a1")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(initializeBody, "")
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, session)
	}
	if resp := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", s.url+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Loci-Agent", "a1")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK || stream.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /mcp: status %d, %s", stream.StatusCode, stream.Header.Get("Content-Type"))
	}
	closed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stream.Body)
		closed <- err
	}()

	start := time.Now()
	s.signal(t, syscall.SIGTERM)
	t.Logf("exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	if s.err != nil {
		t.Errorf("exit %v, want 0\n%s", s.err, s.stderr)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("the event stream was cut (%v), want it ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the event stream is still open after the server exited")
	}
}
