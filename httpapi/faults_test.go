package httpapi_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// noteLine is an import line of a valid note.
func noteLine(id, key string) string {
	return `{"type":"record","id":"` + id + `","workspace":"default","kind":"note","agent_id":"a","key":"` + key +
		`","content":"v","data":{"value":"v"},"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z",` +
		`"updated_at":"2026-01-01T00:00:00Z","version":1}`
}

// rawRequest opens a connection to srv and sends head (a request's line
// and headers, without the blank line) and then body, and returns the
// connection without waiting for an answer.
func rawRequest(t *testing.T, srv *httptest.Server, head, body string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, head+"\r\nHost: localhost\r\n\r\n"+body); err != nil {
		t.Fatal(err)
	}
	return c
}

// readResponse reads the answer on c, failing the test if none comes
// within a generous bound (a hang, not a slow answer).
func readResponse(t *testing.T, c net.Conn, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp, out
}

// patient is a client whose only deadline is a bound on the test: a
// request that hangs fails instead of blocking the run.
var patient = &http.Client{Timeout: 30 * time.Second}

func call(t *testing.T, base, method, path, body string) (int, http.Header, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := patient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header, out
}

// TestImportStalledHoldsNothing: imports whose clients send one line and
// stop (more of them than the PostgreSQL pool has connections) block no
// other request: writes, reads and readiness answer meanwhile. A stalled
// import fails once its body stops arriving for the idle timeout, and
// imports nothing.
func TestImportStalledHoldsNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t))
		srv := httptest.NewServer(httpapi.NewServer(svc, quiet, httpapi.WithStreamIdleTimeout(time.Minute)))
		t.Cleanup(srv.Close) // after the stalled connections close
		for i := range 6 {
			rawRequest(t, srv, "POST /v1/import HTTP/1.1\r\nContent-Length: 100000", noteLine(fmt.Sprint("stalled", i), fmt.Sprint("k", i))+"\n")
		}
		time.Sleep(300 * time.Millisecond) // let the stalled imports start
		if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/tone", `{"value":"friendly"}`); st != http.StatusCreated {
			t.Errorf("a write beside stalled imports: %d %v", st, out)
		}
		if st, _, out := call(t, srv.URL, "GET", "/v1/agents/a/notes", ""); st != http.StatusOK || out["count"] != 1.0 {
			t.Errorf("a read beside stalled imports: %d %v", st, out)
		}
		if st, _, out := call(t, srv.URL, "GET", "/readyz", ""); st != http.StatusOK {
			t.Errorf("readyz beside stalled imports: %d %v", st, out)
		}

		short := httptest.NewServer(httpapi.NewServer(svc, quiet, httpapi.WithStreamIdleTimeout(200*time.Millisecond)))
		t.Cleanup(short.Close)
		c := rawRequest(t, short, "POST /v1/import HTTP/1.1\r\nContent-Length: 100000", noteLine("late", "late")+"\n")
		resp, out := readResponse(t, c, &http.Request{Method: "POST"})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out["error"]), "stopped arriving") {
			t.Errorf("a stalled import: %d %v, want 400 saying the body stopped arriving", resp.StatusCode, out)
		}
		if st, _, out := call(t, srv.URL, "GET", "/v1/agents/a/notes", ""); st != http.StatusOK || out["count"] != 1.0 {
			t.Errorf("a stalled import stored something: %v", out)
		}
	})
}

// TestImportDeclaredTooLarge: a declared Content-Length over the import
// limit is refused at once, before any of the body is read.
func TestImportDeclaredTooLarge(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	srv := httptest.NewServer(httpapi.NewServer(svc, quiet, httpapi.WithMaxImportBytes(1000)))
	t.Cleanup(srv.Close)
	c := rawRequest(t, srv, "POST /v1/import HTTP/1.1\r\nContent-Length: 5000", "")
	resp, out := readResponse(t, c, &http.Request{Method: "POST"})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || out["code"] != loci.ETOOLARGE {
		t.Errorf("declared oversize import: %d %v, want 413 too_large", resp.StatusCode, out)
	}
}

// TestImportChecksEveryLine: import checks each line as strictly as the
// API checks a write; a refused line is named, and nothing of the file is
// imported (the good line before it neither).
func TestImportChecksEveryLine(t *testing.T) {
	good := noteLine("r0", "k0")
	bad := func(old, new string) string { return strings.Replace(noteLine("r1", "k1"), old, new, 1) }
	tests := []struct {
		name, line, code, want string
	}{
		{"ErrDataNotObject", bad(`{"value":"v"}`, `[1,2]`), loci.EINVALID, "must be a JSON object"},
		{"ErrDataWrongType", strings.Replace(bad(`"kind":"note"`, `"kind":"block"`), `{"value":"v"}`, `{"limit":"many"}`, 1), loci.EINVALID, "limit"},
		{"ErrNoteWithoutValue", bad(`{"value":"v"}`, `{"other":1}`), loci.EINVALID, "value"},
		{"ErrVersionHuge", bad(`"version":1`, `"version":1099511627776`), loci.EINVALID, "version"},
		{"ErrAccessCountNegative", bad(`"access_count":0`, `"access_count":-1`), loci.EINVALID, "access_count"},
		{"ErrConfidenceRange", bad(`"confidence":0`, `"confidence":1e300`), loci.EINVALID, "confidence"},
		{"ErrYearZero", bad(`"created_at":"2026-01-01T00:00:00Z"`, `"created_at":"0000-01-01T00:00:00Z"`), loci.EINVALID, "created_at"},
		{"ErrUpdatedBeforeCreated", bad(`"updated_at":"2026-01-01T00:00:00Z"`, `"updated_at":"2025-01-01T00:00:00Z"`), loci.EINVALID, "updated_at"},
		{"ErrNoAgent", bad(`"agent_id":"a",`, ``), loci.EINVALID, "agent_id"},
		{"ErrNUL", bad(`"content":"v"`, `"content":"a\u0000b"`), loci.EINVALID, "NUL"},
		{"ErrContentTooLarge", bad(`"content":"v"`, `"content":"`+strings.Repeat("x", loci.MaxNoteValueBytes+1)+`"`), loci.EINVALID, "content must be at most"},
		{"ErrEmbeddingWithoutModel", bad(`"version":1`, `"version":1,"embedding":[0.5]`), loci.EINVALID, "embedding"},
		{"ErrVersionAhead", bad(`"version":1`, `"version":1,"versions":[{"record_id":"r1","version":1,"content":"old","data":{"value":"o"},"updated_at":"2026-01-01T00:00:00Z"}]`), loci.EINVALID, "version"},
		{"ErrFactCategory", `{"type":"record","id":"f1","workspace":"default","kind":"fact","category":"Gossip!","content":"x","data":{},"confidence":1,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`, loci.EINVALID, "category"},
		{"ErrEpisodeScore", `{"type":"record","id":"e1","workspace":"default","kind":"episode","user_id":"u","agent_id":"a","outcome":"success","content":"x","data":{"confidence_score":5},"confidence":0.5,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`, loci.EINVALID, "confidence_score"},
		{"ErrSessionCategory", `{"type":"record","id":"s1","workspace":"default","kind":"session","user_id":"u","session_id":"s","category":"x","content":"x","data":{},"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`, loci.EINVALID, "category"},
		{"ErrDuplicateID", noteLine("r0", "other"), loci.ECONFLICT, "also on line 1"},
		{"ErrDuplicateKey", noteLine("r9", "k0"), loci.ECONFLICT, "also on line 1"},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				srv, _ := newServer(t, open)
				st, _, out := call(t, srv.URL, "POST", "/v1/import", good+"\n"+tt.line+"\n")
				msg := fmt.Sprint(out["error"])
				if st < 400 || out["code"] != tt.code || !strings.HasPrefix(msg, "line 2: ") || !strings.Contains(msg, tt.want) {
					t.Errorf("status %d %v; want %s naming line 2 and %q", st, out, tt.code, tt.want)
				}
				if st, _, out := call(t, srv.URL, "GET", "/v1/agents/a/notes", ""); st != http.StatusOK || out["count"] != 0.0 {
					t.Errorf("a refused import stored: %d %v", st, out)
				}
			})
		}
		t.Run("OK", func(t *testing.T) {
			srv, _ := newServer(t, open)
			if st, _, out := call(t, srv.URL, "POST", "/v1/import", good+"\n"+noteLine("r1", "k1")+"\n"); st != http.StatusCreated || out["records"] != 2.0 {
				t.Errorf("import: %d %v", st, out)
			}
		})
	})
}

// TestMalformedRowsDoNotBreakReads: a stored row whose data is not its
// kind's (written before imports were checked, or by hand) is left out of
// listings and maintenance, with a log line, instead of failing them; an
// empty maintenance task list means every task, on every backend.
func TestMalformedRowsDoNotBreakReads(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		svc := rules.New(store)
		srv := httptest.NewServer(httpapi.NewServer(svc, quiet))
		defer srv.Close()
		for _, w := range [][3]string{
			{"PUT", "/v1/agents/a/notes/good", `{"value":"fine"}`},
			{"POST", "/v1/facts", `{"user_id":"u","category":"general_fact","fact":"good fact"}`},
			{"POST", "/v1/episodes", `{"user_id":"u","agent_id":"a","action_type":"x","action_description":"good","outcome":"success"}`},
			{"PUT", "/v1/sessions/good", `{"user_id":"u","summary":"good"}`},
			{"POST", "/v1/users/u/preferences", `{"type":"tone","value":"formal","source":"explicit"}`},
			{"PUT", "/v1/tasks/t/working/good", `{"value":1,"agent_id":"a"}`},
		} {
			if st, _, out := call(t, srv.URL, w[0], w[1], w[2]); st >= 300 {
				t.Fatalf("%s %s: %d %v", w[0], w[1], st, out)
			}
		}
		now := time.Now().UTC()
		bad := []*loci.Record{
			{Kind: loci.KindNote, Scope: loci.Scope{AgentID: "a"}, Key: "bad"},
			{Kind: loci.KindBlock, Scope: loci.Scope{AgentID: "a"}, Key: "bad"},
			{Kind: loci.KindFact, Scope: loci.Scope{UserID: "u"}, Category: "general_fact"},
			{Kind: loci.KindEpisode, Scope: loci.Scope{UserID: "u", AgentID: "a"}, Outcome: "success", Confidence: 0.9},
			{Kind: loci.KindSession, Scope: loci.Scope{UserID: "u", SessionID: "bad"}, Key: "bad", Category: "session"},
			{Kind: loci.KindPreference, Scope: loci.Scope{UserID: "u"}, Key: "bad"},
			{Kind: loci.KindWorking, Scope: loci.Scope{AgentID: "a", TaskID: "t"}, Key: "bad"},
		}
		err := store.Update(context.Background(), func(tx loci.Tx) error {
			if err := tx.InsertAgent(context.Background(), &loci.Agent{Workspace: loci.DefaultWorkspace, ID: "a", CreatedAt: now}); err != nil && loci.ErrorCode(err) != loci.ECONFLICT {
				return err
			}
			for i, r := range bad {
				r.ID, r.Workspace, r.Content, r.Data = fmt.Sprint("bad-", i), loci.DefaultWorkspace, "bad", json.RawMessage(`[1,2]`)
				r.Version, r.CreatedAt, r.UpdatedAt = 1, now.Add(-time.Hour), now.Add(-time.Hour)
				if err := tx.InsertRecord(context.Background(), r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{
			"/v1/agents/a/notes", "/v1/agents/a/blocks", "/v1/facts?user_id=u&keyword=good", "/v1/facts/search?user_id=u&q=fact",
			"/v1/episodes?user_id=u&agent_id=a", "/v1/episodes/search?user_id=u&agent_id=a&q=good", "/v1/users/u/sessions",
			"/v1/users/u/preferences", "/v1/users/u/context", "/v1/tasks/t/working", "/v1/users/u/memories",
		} {
			if st, _, out := call(t, srv.URL, "GET", path, ""); st != http.StatusOK {
				t.Errorf("GET %s beside a malformed row: %d %v", path, st, out)
			}
		}
		st, _, out := call(t, srv.URL, "POST", "/v1/maintenance", `{"tasks": []}`)
		tasks, _ := out["tasks"].(map[string]any)
		if st != http.StatusOK || len(tasks) != 4 {
			t.Errorf(`maintenance {"tasks": []} beside malformed rows: %d %v; want 200 with every task`, st, out)
		}
	})
}

// openSQLiteFile opens a SQLite store at path with opts, behind the retry
// policy with a short backoff.
func openSQLiteFile(t *testing.T, path string, opts ...sqlite.Option) (loci.Store, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return retry.New(db, 10*time.Millisecond, retry.WithLogger(quiet)), db
}

// TestUnavailableWhileLocked: a database another process keeps locked
// past the store's timeout (and one retry) answers 503 unavailable with
// Retry-After, not 500; once released, writes work again.
func TestUnavailableWhileLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	store, _ := openSQLiteFile(t, path, sqlite.WithTimeout(100*time.Millisecond))
	srv := httptest.NewServer(httpapi.NewServer(rules.New(store), quiet))
	defer srv.Close()
	holder, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, h, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/k", `{"value":"v"}`)
	if st != http.StatusServiceUnavailable || out["code"] != loci.EUNAVAILABLE || h.Get("Retry-After") == "" {
		t.Errorf("write while another process holds the lock: %d %v Retry-After %q; want 503 unavailable with Retry-After", st, out, h.Get("Retry-After"))
	}
	tx.Rollback()
	if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/k", `{"value":"v"}`); st != http.StatusCreated {
		t.Errorf("write after the lock is released: %d %v", st, out)
	}
}

// TestStorageFull: a write that finds no room answers 507 storage_full
// with Retry-After, reads still work, and /readyz stays ready (reads are
// served) with "writes": "storage_full"; once space is freed and a write
// succeeds, it says "writes": "ok" again at once.
func TestStorageFull(t *testing.T) {
	store, _ := openSQLiteFile(t, filepath.Join(t.TempDir(), "loci.db"), sqlite.WithMaxSize(1<<20))
	srv := httptest.NewServer(httpapi.NewServer(rules.New(store), quiet))
	defer srv.Close()
	var st int
	var h http.Header
	var out map[string]any
	for i := range 100 {
		// Each passage its own content: a repeat would write nothing.
		body, _ := json.Marshal(map[string]string{"content": fmt.Sprint(i, " ", strings.Repeat("lorem ipsum ", 5000))})
		if st, h, out = call(t, srv.URL, "POST", "/v1/agents/a/passages", string(body)); st != http.StatusCreated {
			break
		}
	}
	if st != http.StatusInsufficientStorage || out["code"] != loci.ESTORAGEFULL || h.Get("Retry-After") == "" {
		t.Fatalf("write into a full database: %d %v; want 507 storage_full with Retry-After", st, out)
	}
	if st, _, out := call(t, srv.URL, "GET", "/v1/agents/a/passages?limit=1", ""); st != http.StatusOK {
		t.Errorf("read with a full disk: %d %v", st, out)
	}
	if st, _, out := call(t, srv.URL, "GET", "/readyz", ""); st != http.StatusOK || out["status"] != "ready" || out["writes"] != "storage_full" {
		t.Errorf("readyz with a full disk: %d %v; want 200 ready with writes storage_full", st, out)
	}
	// Free space: delete the passages (a write that needs no new page).
	_, _, list := call(t, srv.URL, "GET", "/v1/agents/a/passages?limit=1000", "")
	passages, _ := list["passages"].([]any)
	if len(passages) == 0 {
		t.Fatalf("no passages to delete: %v", list)
	}
	for _, p := range passages {
		id := p.(map[string]any)["id"].(string)
		if st, _, out := call(t, srv.URL, "DELETE", "/v1/agents/a/passages/"+id, ""); st != http.StatusOK {
			t.Fatalf("delete passage: %d %v", st, out)
		}
	}
	if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/after", `{"value":"room again"}`); st != http.StatusCreated {
		t.Fatalf("a write after space was freed: %d %v", st, out)
	}
	// Within seconds (diskfull.Settle after the failure), not a minute.
	var writes any
	for range 50 {
		_, _, out := call(t, srv.URL, "GET", "/readyz", "")
		if writes = out["writes"]; writes == "ok" {
			break
		}
		if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/after", `{"value":"room again"}`); st != http.StatusOK {
			t.Fatalf("a write after space was freed: %d %v", st, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if writes != "ok" {
		t.Errorf("readyz 10 s after space was freed and writes succeeded: writes %v; want ok", writes)
	}
}

// TestPartitionHTTP cuts the network between the server and PostgreSQL:
// requests answer 503 unavailable with Retry-After within the timeout
// (never hang, never a 4xx), /readyz answers 503, and everything answers
// again once the network is back.
func TestPartitionHTTP(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set", testdb.PostgresEnv)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testdb.NewProxy(t, u.Host)
	db := testdb.OpenPostgresWith(t, dsn, testdb.ViaProxy(proxy), postgres.WithTimeout(300*time.Millisecond))
	srv := httptest.NewServer(httpapi.NewServer(rules.New(retry.New(db, 10*time.Millisecond, retry.WithLogger(quiet))), quiet))
	defer srv.Close()
	if st, _, out := call(t, srv.URL, "PUT", "/v1/agents/a/notes/k", `{"value":"v"}`); st != http.StatusCreated {
		t.Fatalf("before the partition: %d %v", st, out)
	}
	proxy.Blackhole()
	for _, r := range [][3]string{
		{"PUT", "/v1/agents/a/notes/k", `{"value":"w"}`},
		{"GET", "/v1/agents/a/notes/k", ""},
		{"POST", "/v1/search", `{"query":"v","agent_id":"a"}`},
		{"GET", "/readyz", ""},
	} {
		st, h, out := call(t, srv.URL, r[0], r[1], r[2])
		if st != http.StatusServiceUnavailable || out["code"] != loci.EUNAVAILABLE || h.Get("Retry-After") == "" {
			t.Errorf("%s %s during the partition: %d %v; want 503 unavailable with Retry-After", r[0], r[1], st, out)
		}
	}
	proxy.Restore()
	var st int
	var out map[string]any
	for range 50 {
		if st, _, out = call(t, srv.URL, "GET", "/v1/agents/a/notes/k", ""); st == http.StatusOK {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st != http.StatusOK || out["value"] != "v" {
		t.Errorf("after the partition: %d %v", st, out)
	}
}

// TestBodyReadBeforeStorageWait: a request whose authentication waits on
// busy storage past the server's read timeout is not told its body could
// not be read: the body is read first, and the request succeeds once the
// storage answers.
func TestBodyReadBeforeStorageWait(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		svc := rules.New(store)
		_, secret, err := svc.CreateKey(loci.WithPrincipal(context.Background(), &loci.Principal{Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace}),
			loci.KeySpec{Role: loci.RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(httpapi.NewServer(svc, quiet))
		srv.Config.ReadTimeout = 300 * time.Millisecond
		srv.Start()
		defer srv.Close()

		// Every connection of the store is taken for a second.
		release := make(chan struct{})
		var held sync.WaitGroup
		for range 64 {
			held.Go(func() {
				store.View(context.Background(), func(loci.Tx) error { <-release; return nil })
			})
		}
		time.Sleep(100 * time.Millisecond)
		go func() {
			time.Sleep(time.Second)
			close(release)
		}()
		// The body follows its headers a moment later (as a large body
		// would): it is not in the server's first read.
		body := `{"value":"v"}`
		c := rawRequest(t, srv, "PUT /v1/agents/a/notes/k HTTP/1.1\r\nAuthorization: Bearer "+secret+
			"\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(body)), "")
		time.Sleep(100 * time.Millisecond)
		if _, err := io.WriteString(c, body); err != nil {
			t.Fatal(err)
		}
		resp, out := readResponse(t, c, &http.Request{Method: "PUT"})
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("a request that waited on storage: %d %v; want 201", resp.StatusCode, out)
		}
		held.Wait()
	})
}
