package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci/internal/testdb"
)

// replica is one running `loci serve` process.
type replica struct {
	name string
	url  string
	cmd  *exec.Cmd
}

// do sends a JSON request and returns the status and the decoded answer.
func (r *replica) do(t testing.TB, method, path string, body any) (int, map[string]any) {
	t.Helper()
	status, out, err := r.try(method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, out
}

// try is do for goroutines other than the test's: it returns its error.
func (r *replica) try(method, path string, body any) (int, map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s on %s: %w", method, path, r.name, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, nil, fmt.Errorf("%s %s on %s: decode answer: %w", method, path, r.name, err)
	}
	return resp.StatusCode, out, nil
}

// must is do that fails the test unless the status is want.
func (r *replica) must(t testing.TB, want int, method, path string, body any) map[string]any {
	t.Helper()
	status, out := r.do(t, method, path, body)
	if status != want {
		t.Fatalf("%s %s on %s: status %d (%v), want %d", method, path, r.name, status, out, want)
	}
	return out
}

// startReplica starts `loci serve` on port 0 and waits for its address.
func startReplica(t testing.TB, bin, name, dsn string, args ...string) *replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	r := &replica{name: name, cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", name, stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("%s printed no address: %v\n%s", name, err, stderr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "loci listening on ")
	if !ok {
		t.Fatalf("%s: first line %q, want \"loci listening on http://ADDR\"", name, line)
	}
	r.url = addr
	go io.Copy(io.Discard, stdout)
	return r
}

// TestReplicas runs two stateless `loci serve` processes on one PostgreSQL
// schema and interleaves work across them. Each step gets the two replicas
// and must hold whichever one serves a request; add steps for new shared
// state here (a shared block's compare-and-set from both replicas, search on
// one finding the other's writes) as their endpoints land.
func TestReplicas(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL server for the replicas to share (.ci/run always sets it)", testdb.PostgresEnv)
	}
	schemaDSN, err := testdb.PostgresDSN(dsn, testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	bin := lociBinary(t)
	a := startReplica(t, bin, "replica A", schemaDSN)
	b := startReplica(t, bin, "replica B", schemaDSN)
	runReplicaSteps(t, a, b)
}

// TestReplicasPgBouncer runs the replicas' steps with both replicas going
// through a real PgBouncer in transaction mode: A told so by --db-pooler,
// B finding out (PgBouncer refuses the DSN's search_path at connection
// time).
func TestReplicasPgBouncer(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL server for the replicas to share (.ci/run always sets it)", testdb.PostgresEnv)
	}
	bouncer := testdb.NewPgBouncer(t, dsn)
	schemaDSN, err := testdb.PostgresDSN(bouncer.DSN(), testdb.NewSchema(t, dsn))
	if err != nil {
		t.Fatal(err)
	}
	bin := lociBinary(t)
	a := startReplica(t, bin, "replica A", schemaDSN, "--db-pooler")
	b := startReplica(t, bin, "replica B", schemaDSN)
	runReplicaSteps(t, a, b)
}

func runReplicaSteps(t *testing.T, a, b *replica) {
	steps := []struct {
		name string
		fn   func(t *testing.T, a, b *replica)
	}{
		{"NoteWrittenOnOneReadOnOther", testReplicaNoteVisible},
		{"ConcurrentNoteUpdatesLoseNothing", testReplicaConcurrentNotes},
		{"ForgetOnOneGoneOnOther", testReplicaForget},
		{"SharedBlockCompareAndSetFromBoth", testReplicaSharedBlockCAS},
		{"SearchOnOneFindsOthersWrites", testReplicaSearch},
		{"UnifiedSearchOnOneFindsOthersWrites", testReplicaUnifiedSearch},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.fn(t, a, b) })
	}
}

func testReplicaNoteVisible(t *testing.T, a, b *replica) {
	a.must(t, http.StatusCreated, "PUT", "/v1/agents/writer/notes/tone", map[string]any{"value": "friendly"})
	got := b.must(t, http.StatusOK, "GET", "/v1/agents/writer/notes/tone", nil)
	if got["value"] != "friendly" {
		t.Fatalf("B reads %v, want the value A wrote", got)
	}
	b.must(t, http.StatusOK, "PUT", "/v1/agents/writer/notes/tone", map[string]any{"value": map[string]any{"style": "dry"}})
	got = a.must(t, http.StatusOK, "GET", "/v1/agents/writer/notes/tone", nil)
	if v, _ := got["value"].(map[string]any); v["style"] != "dry" {
		t.Fatalf("A reads %v, want the value B wrote", got)
	}
	list := a.must(t, http.StatusOK, "GET", "/v1/agents/writer/notes", nil)
	if list["count"] != float64(1) {
		t.Fatalf("A lists %v, want one note", list)
	}
}

// testReplicaConcurrentNotes writes one note key from both replicas at once:
// every write must succeed and land in the history, with no version lost.
func testReplicaConcurrentNotes(t *testing.T, a, b *replica) {
	const writers, each = 4, 5 // per replica
	var wg sync.WaitGroup
	errs := make(chan string, 2*writers*each)
	for _, r := range []*replica{a, b} {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					status, out, err := r.try("PUT", "/v1/agents/counter/notes/shared",
						map[string]any{"value": fmt.Sprintf("%s writer %d write %d", r.name, w, i)})
					if err != nil {
						errs <- err.Error()
					} else if status != http.StatusOK && status != http.StatusCreated {
						errs <- fmt.Sprintf("%s: status %d: %v", r.name, status, out)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, r := range []*replica{a, b} {
		h := r.must(t, http.StatusOK, "GET", "/v1/agents/counter/notes/shared/history", nil)
		if want := float64(2 * writers * each); h["count"] != want {
			t.Fatalf("history on %s has %v versions, want %v (one per write)", r.name, h["count"], want)
		}
	}
}

func testReplicaForget(t *testing.T, a, b *replica) {
	b.must(t, http.StatusCreated, "PUT", "/v1/agents/writer/notes/temp", map[string]any{"value": "soon gone"})
	a.must(t, http.StatusOK, "DELETE", "/v1/agents/writer/notes/temp", nil)
	b.must(t, http.StatusNotFound, "GET", "/v1/agents/writer/notes/temp", nil)
}

// testReplicaSharedBlockCAS increments a counter in one shared block from
// both replicas with compare-and-set (read, PUT with expected_version, retry
// on 409): no increment may be lost, and the final version counts the writes.
func testReplicaSharedBlockCAS(t *testing.T, a, b *replica) {
	a.must(t, http.StatusCreated, "POST", "/v1/agents", map[string]any{"id": "owner"})
	created := a.must(t, http.StatusCreated, "POST", "/v1/agents/owner/blocks",
		map[string]any{"label": "counter", "content": "0", "shared": true})
	blockID, _ := created["id"].(string)
	b.must(t, http.StatusCreated, "POST", "/v1/agents", map[string]any{"id": "consumer"})
	b.must(t, http.StatusOK, "PUT", "/v1/blocks/"+blockID+"/consumers/consumer", nil)

	const perReplica, each = 2, 5
	var wg sync.WaitGroup
	errs := make(chan string, 2*perReplica*each)
	for i, r := range []*replica{a, b} {
		agent := []string{"owner", "consumer"}[i]
		for range perReplica {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := "/v1/agents/" + agent + "/blocks/counter"
				for done := 0; done < each; {
					status, blk, err := r.try("GET", path, nil)
					if err != nil || status != http.StatusOK {
						errs <- fmt.Sprintf("%s: read block: %d %v %v", r.name, status, blk, err)
						return
					}
					var n int
					fmt.Sscan(blk["content"].(string), &n)
					status, out, err := r.try("PUT", path, map[string]any{
						"content": fmt.Sprint(n + 1), "expected_version": blk["version"]})
					switch {
					case err != nil:
						errs <- err.Error()
						return
					case status == http.StatusConflict:
						continue // someone else wrote first: read again
					case status != http.StatusOK && status != http.StatusCreated:
						errs <- fmt.Sprintf("%s: write block: %d %v", r.name, status, out)
						return
					}
					done++
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	writes := 2 * perReplica * each
	for _, r := range []*replica{a, b} {
		blk := r.must(t, http.StatusOK, "GET", "/v1/agents/owner/blocks/counter", nil)
		if blk["content"] != fmt.Sprint(writes) || blk["version"] != float64(1+writes) {
			t.Fatalf("%s: block %v, want content %d and version %d", r.name, blk, writes, 1+writes)
		}
	}
}

// testReplicaSearch stores passages on one replica and searches on the other.
func testReplicaSearch(t *testing.T, a, b *replica) {
	a.must(t, http.StatusCreated, "POST", "/v1/agents/archivist/passages",
		map[string]any{"content": "Michael grilled his foot on a George Foreman grill", "tags": []string{"lore"}})
	b.must(t, http.StatusCreated, "POST", "/v1/agents/archivist/passages",
		map[string]any{"content": "Dwight grows beets on his farm"})
	for _, tc := range []struct {
		r     *replica
		query string
		want  string
	}{{b, "grilled foot", "Michael"}, {a, "beets", "Dwight"}} {
		out := tc.r.must(t, http.StatusOK, "GET", "/v1/agents/archivist/passages/search?q="+url.QueryEscape(tc.query), nil)
		results, _ := out["results"].([]any)
		if len(results) == 0 {
			t.Fatalf("%s: search %q found nothing: %v", tc.r.name, tc.query, out)
		}
		first, _ := results[0].(map[string]any)
		if content, _ := first["content"].(string); !strings.Contains(content, tc.want) {
			t.Fatalf("%s: search %q ranked %v first, want the passage about %s", tc.r.name, tc.query, first, tc.want)
		}
	}
}

// testReplicaUnifiedSearch writes on one replica and searches every kind
// with POST /v1/search on the other, at once: fresh writes are found, and
// an overwrite is found by its new text only.
func testReplicaUnifiedSearch(t *testing.T, a, b *replica) {
	search := func(r *replica, query string) []map[string]any {
		t.Helper()
		out := r.must(t, http.StatusOK, "POST", "/v1/search", map[string]any{"query": query, "agent_id": "scout"})
		var res []map[string]any
		for _, x := range out["results"].([]any) {
			res = append(res, x.(map[string]any))
		}
		return res
	}
	has := func(res []map[string]any, word string) bool {
		for _, r := range res {
			if c, _ := r["content"].(string); strings.Contains(c, word) {
				return true
			}
		}
		return false
	}
	a.must(t, http.StatusCreated, "PUT", "/v1/agents/scout/notes/ranch", map[string]any{"value": "the ranch keeps alpacas"})
	b.must(t, http.StatusCreated, "POST", "/v1/agents/scout/passages", map[string]any{"content": "a lighthouse on the granite cape"})
	if res := search(b, "alpacas"); !has(res, "alpacas") {
		t.Fatalf("B: search alpacas = %v, want A's note", res)
	}
	if res := search(a, "lighthouse granite"); !has(res, "lighthouse") {
		t.Fatalf("A: search lighthouse = %v, want B's passage", res)
	}
	b.must(t, http.StatusOK, "PUT", "/v1/agents/scout/notes/ranch", map[string]any{"value": "the ranch keeps llamas"})
	if res := search(a, "llamas"); !has(res, "llamas") {
		t.Fatalf("A: search llamas = %v, want the note as B overwrote it", res)
	}
	if res := search(a, "alpacas"); has(res, "alpacas") {
		t.Fatalf("A: search alpacas = %v, want nothing: B overwrote the note", res)
	}
}

// TestServeReadReplica runs `loci serve --db PRIMARY --db-read STANDBY` on a
// primary of the test's own with a streaming standby (pg_basebackup): every
// read and search right after a client's write finds it, reads go to the
// standby (loci_store_reads_total in /metrics), and a --db-read that does
// not answer (a closed port) is skipped: reads go to the primary.
func TestServeReadReplica(t *testing.T) {
	if os.Getenv(testdb.PostgresEnv) == "" {
		t.Skipf("%s is not set: the PostgreSQL suites are off (.ci/run always sets it)", testdb.PostgresEnv)
	}
	primary := testdb.NewCluster(t)
	standby := primary.Standby(t)
	schema := testdb.NewSchema(t, primary.DSN("postgres"))
	primaryDSN, err := testdb.PostgresDSN(primary.DSN("postgres"), schema)
	if err != nil {
		t.Fatal(err)
	}
	standbyDSN, _ := testdb.PostgresDSN(standby.DSN("postgres"), schema)
	closed, _ := testdb.PostgresDSN("postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1", schema)
	bin := lociBinary(t)
	r := startReplica(t, bin, "serve --db-read", primaryDSN, "--db-read", standbyDSN, "--db-read", closed)

	for i := range 30 {
		content := fmt.Sprintf("heron number %d nests by the weir", i)
		r.must(t, http.StatusCreated, "POST", "/v1/agents/birder/passages", map[string]any{"content": content})
		note := fmt.Sprintf("/v1/agents/birder/notes/n%d", i)
		r.must(t, http.StatusCreated, "PUT", note, map[string]any{"value": i})
		if got := r.must(t, http.StatusOK, "GET", note, nil); got["value"] != float64(i) {
			t.Fatalf("read right after write %d: %v", i, got)
		}
		found := r.must(t, http.StatusOK, "GET", "/v1/agents/birder/passages/search?q="+url.QueryEscape(fmt.Sprintf("heron number %d", i)), nil)
		results, _ := found["results"].([]any)
		if len(results) == 0 || !strings.Contains(fmt.Sprint(results), content) {
			t.Fatalf("search right after write %d: %v, want %q among the results", i, found, content)
		}
	}
	standbyReads := func() float64 {
		resp, err := http.Get(r.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var n float64
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, `loci_store_reads_total{server="standby 127.0.0.1:`+fmt.Sprint(standby.Port)+`"}`) {
				fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &n)
			}
		}
		return n
	}
	for end := time.Now().Add(20 * time.Second); standbyReads() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no read went to the standby within 20s (loci_store_reads_total)")
		}
		r.must(t, http.StatusOK, "GET", "/v1/agents/birder/passages/search?q=heron", nil)
	}
}
