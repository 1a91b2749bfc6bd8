package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestConcurrentWriters has 16 clients write notes at once through the
// HTTP server on a file database: their own keys, one key they all update,
// and reads in between. No request may fail (no SQLITE_BUSY reaching a
// client), and every update must be kept as a version.
func TestConcurrentWriters(t *testing.T) {
	const writers, ownKeys, sharedUpdates = 16, 20, 10
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(open(t)), slog.New(slog.NewTextHandler(io.Discard, nil))))
		defer srv.Close()
		tr := &http.Transport{MaxIdleConnsPerHost: writers}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr}

		// request sends one request and returns an error unless it got want.
		request := func(method, path, body string, want ...int) error {
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			if err != nil {
				return err
			}
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			for _, w := range want {
				if resp.StatusCode == w {
					return nil
				}
			}
			return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, b)
		}

		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			errs   []error
			start  = make(chan struct{})
			shared = "/v1/agents/crowd/notes/shared"
		)
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				<-start
				fail := func(err error) {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
				for i := 0; i < ownKeys; i++ {
					p := fmt.Sprintf("/v1/agents/crowd/notes/g%02d-%02d", g, i)
					if err := request("PUT", p, fmt.Sprintf(`{"value": "note %d of %d"}`, i, g), 201); err != nil {
						fail(err)
					}
					if err := request("GET", p, "", 200); err != nil {
						fail(err)
					}
					if i < sharedUpdates {
						body := fmt.Sprintf(`{"value": "update %d by %d"}`, i, g)
						if err := request("PUT", shared, body, 200, 201); err != nil {
							fail(err)
						}
					}
				}
			}(g)
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			t.Error(err)
		}

		var list struct {
			Count int `json:"count"`
		}
		if st, body := do(t, srv, "GET", "/v1/agents/crowd/notes", ""); st != 200 || json.Unmarshal(body, &list) != nil {
			t.Fatalf("list: %d %s", st, body)
		}
		if want := writers*ownKeys + 1; list.Count != want {
			t.Errorf("notes: got %d, want %d", list.Count, want)
		}
		var hist struct {
			Count    int `json:"count"`
			Versions []struct {
				Version int `json:"version"`
			} `json:"versions"`
		}
		if st, body := do(t, srv, "GET", shared+"/history", ""); st != 200 || json.Unmarshal(body, &hist) != nil {
			t.Fatalf("history: %d %s", st, body)
		}
		if want := writers * sharedUpdates; hist.Count != want || len(hist.Versions) != want {
			t.Errorf("versions of the shared note: got %d (%d listed), want %d", hist.Count, len(hist.Versions), want)
		}
		for i, v := range hist.Versions {
			if want := len(hist.Versions) - i; v.Version != want {
				t.Errorf("versions[%d]: got version %d, want %d", i, v.Version, want)
				break
			}
		}
	})
}
