package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestPagesOfOtherOrigins: what a page in a browser can make a loci on
// 127.0.0.1 with authentication off (the default) do. A page of another
// site is refused (403) whatever it sends (a form's text/plain or
// urlencoded POST, which a browser sends without asking first; an img's
// GET, which counts the facts a search answers as accessed), and nothing
// is written; a page whose name was made to resolve to 127.0.0.1 (DNS
// rebinding: same-origin, another Host) is refused. Programs (no Origin,
// no Sec-Fetch-Site), the same origin, and localhost are served; with
// authentication on, a key is served by any Host (behind a proxy).
func TestPagesOfOtherOrigins(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	srv := httptest.NewServer(httpapi.NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	send := func(method, path, ctype, body string, header map[string]string, host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body == "" {
			req.Body = nil
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	evil := map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
	for _, c := range []struct{ name, method, path, ctype, body string }{
		{"TextPlainAdd", "POST", "/v1/memories", "text/plain;charset=UTF-8", `{"user_id":"alice","content":"planted"}`},
		{"FormAdd", "POST", "/v1/memories", "text/plain", "{\"user_id\":\"alice\",\"content\":\"x=\"}\r\n"},
		{"UrlencodedKey", "POST", "/v1/keys", "application/x-www-form-urlencoded", `{"role":"admin"}`},
		{"Forget", "POST", "/v1/users/alice/forget", "text/plain", `{"filters":{"kind":"fact"}}`},
		{"Mem0Add", "POST", "/mem0/v3/memories/add/", "text/plain", `{"messages":"planted","user_id":"alice","infer":false}`},
		{"ImgSearch", "GET", "/v1/facts/search?user_id=alice&q=x", "", ""},
	} {
		t.Run("CrossSite/"+c.name, func(t *testing.T) {
			if st, body := send(c.method, c.path, c.ctype, c.body, evil, ""); st != http.StatusForbidden {
				t.Errorf("%s %s from another site: %d %s, want 403", c.method, c.path, st, body)
			}
			// Without Sec-Fetch-Site (an older browser), the Origin alone.
			if c.method != "GET" {
				if st, body := send(c.method, c.path, c.ctype, c.body, map[string]string{"Origin": "https://evil.example"}, ""); st != http.StatusForbidden {
					t.Errorf("%s %s with a foreign Origin: %d %s, want 403", c.method, c.path, st, body)
				}
			}
		})
	}
	t.Run("Rebinding", func(t *testing.T) {
		for _, host := range []string{"evil.example:" + u.Port(), "evil.example", "127.0.0.1.evil.example"} {
			if st, body := send("GET", "/v1/memories", "", "", nil, host); st != http.StatusForbidden {
				t.Errorf("GET /v1/memories with Host %s: %d %s, want 403", host, st, body)
			}
		}
	})
	if st, body := send("GET", "/v1/export", "", "", nil, ""); st != http.StatusOK || body != "" {
		t.Fatalf("what was refused stored something: export %d %q", st, body)
	}
	t.Run("Served", func(t *testing.T) {
		same := map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}
		if st, body := send("POST", "/v1/memories", "application/json", `{"user_id":"alice","content":"mine"}`, same, ""); st != http.StatusCreated {
			t.Errorf("same-origin add: %d %s", st, body)
		}
		if st, body := send("POST", "/v1/memories", "", `{"user_id":"alice","content":"from curl"}`, nil, ""); st != http.StatusCreated {
			t.Errorf("a program's add: %d %s", st, body)
		}
		for _, host := range []string{"localhost:" + u.Port(), "LOCALHOST", "app.localhost", "[::1]:" + u.Port(), "127.0.0.2"} {
			if st, body := send("GET", "/v1/memories?user_id=alice", "", "", nil, host); st != http.StatusOK {
				t.Errorf("GET with Host %s: %d %s, want 200", host, st, body)
			}
		}
	})
	t.Run("AuthOn", func(t *testing.T) {
		admin := loci.WithPrincipal(context.Background(), &loci.Principal{Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace})
		_, secret, err := svc.CreateKey(admin, loci.KeySpec{Role: loci.RoleViewer, Name: "proxy"})
		if err != nil {
			t.Fatal(err)
		}
		if st, body := send("GET", "/v1/memories?user_id=alice", "", "", map[string]string{"Authorization": "Bearer " + secret}, "memory.example.com"); st != http.StatusOK {
			t.Errorf("a key through a proxy's Host: %d %s, want 200", st, body)
		}
		if st, _ := send("GET", "/v1/memories?user_id=alice", "", "", nil, "evil.example"); st != http.StatusUnauthorized {
			t.Errorf("no key, another Host, authentication on: %d, want 401", st)
		}
	})
}
