package httpapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// syncBuffer is a log sink several goroutines write to.
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

// TestBodyStopsArriving: a request whose body stops arriving before the
// server's read timeout is a client fault: 400 or 408, never 5xx, and no
// ERROR log line, whether authentication is off, on with a valid key, on
// with a wrong key or on with no key.
func TestBodyStopsArriving(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tc := range []struct{ name, auth string }{
			{"AuthOff", ""}, {"ValidKey", "valid"}, {"WrongKey", "wrong"}, {"NoKey", "none"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				svc := rules.New(open(t))
				header := ""
				if tc.auth != "" {
					_, secret, err := svc.CreateKey(loci.WithPrincipal(context.Background(), &loci.Principal{Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace}),
						loci.KeySpec{Role: loci.RoleAdmin})
					if err != nil {
						t.Fatal(err)
					}
					switch tc.auth {
					case "valid":
						header = "\r\nAuthorization: Bearer " + secret
					case "wrong":
						header = "\r\nAuthorization: Bearer loci_wrongwrongwrong"
					}
				}
				var logs syncBuffer
				logger := slog.New(slog.NewTextHandler(&logs, nil))
				srv := httptest.NewUnstartedServer(httpapi.NewServer(svc, logger))
				srv.Config.ReadTimeout = 300 * time.Millisecond
				srv.Start()
				defer srv.Close()
				for _, path := range []string{"PUT /v1/agents/a/notes/k", "POST /v1/search"} {
					c := rawRequest(t, srv, path+" HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 100"+header, `{"value":`)
					resp, out := readResponse(t, c, &http.Request{Method: strings.Fields(path)[0]})
					if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusRequestTimeout {
						t.Errorf("%s with a body that stops arriving: %d %v; want 400 or 408", path, resp.StatusCode, out)
					}
				}
				time.Sleep(50 * time.Millisecond)
				if strings.Contains(logs.String(), "level=ERROR") {
					t.Errorf("a client fault logged an error:\n%s", logs.String())
				}
				if st, _, out := call(t, srv.URL, "GET", "/healthz", ""); st != http.StatusOK {
					t.Errorf("healthz after: %d %v", st, out)
				}
			})
		}
	})
}

// TestCancelledRequestIsNot5xx: a request whose client went away before
// the database answered is not a server fault: no 5xx, no ERROR line.
func TestCancelledRequestIsNot5xx(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		var logs syncBuffer
		h := httpapi.NewServer(rules.New(open(t)), slog.New(slog.NewTextHandler(&logs, nil)))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, path := range []string{"/v1/agents/a/notes", "/v1/users/u/memories"} {
			req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code >= 500 {
				t.Errorf("GET %s cancelled by its client: %d %s", path, w.Code, w.Body)
			}
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("a cancelled request logged an error:\n%s", logs.String())
		}
	})
}

// TestDrain: once the server drains (a shutdown began), every request is
// answered 503 unavailable with Retry-After and Connection: close, and
// nothing is done.
func TestDrain(t *testing.T) {
	store := testdb.OpenSQLite(t)
	h := httpapi.NewServer(rules.New(store), quiet)
	srv := httptest.NewServer(h)
	defer srv.Close()
	h.Drain()
	c := rawRequest(t, srv, "PUT /v1/agents/a/notes/k HTTP/1.1\r\nContent-Length: 13", `{"value":"v"}`)
	resp, out := readResponse(t, c, &http.Request{Method: "PUT"})
	if resp.StatusCode != http.StatusServiceUnavailable || out["code"] != loci.EUNAVAILABLE || resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Errorf("a write while draining: %d %v %v close %v; want 503 unavailable with Retry-After and Connection: close", resp.StatusCode, out, resp.Header, resp.Close)
	}
	var n int
	err := store.View(context.Background(), func(tx loci.Tx) (err error) {
		n, err = tx.CountRecords(context.Background(), loci.RecordFilter{Workspace: loci.DefaultWorkspace})
		return err
	})
	if err != nil || n != 0 {
		t.Errorf("a write refused while draining stored %d records (%v)", n, err)
	}
}
