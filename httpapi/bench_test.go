package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// The HTTP benchmarks measure a whole round trip through the REST server
// on a SQLite file:
//
//	go test -run '^$' -bench . -benchmem ./httpapi/

func benchServer(b *testing.B) (*httptest.Server, *http.Client) {
	srv := httptest.NewServer(httpapi.NewServer(rules.New(testdb.OpenSQLite(b)), slog.New(slog.NewTextHandler(io.Discard, nil))))
	b.Cleanup(srv.Close)
	return srv, srv.Client()
}

func benchDo(b *testing.B, c *http.Client, method, url, body string, want int) {
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: status %d, want %d", method, url, resp.StatusCode, want)
	}
}

// BenchmarkHTTPRemember measures PUT of a new note, one client.
func BenchmarkHTTPRemember(b *testing.B) {
	srv, c := benchServer(b)
	i := 0
	for b.Loop() {
		benchDo(b, c, "PUT", fmt.Sprintf("%s/v1/agents/writer/notes/key-%09d", srv.URL, i), `{"value": "Thursday 9am EST"}`, 201)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkHTTPRecall measures GET of an existing note, one client.
func BenchmarkHTTPRecall(b *testing.B) {
	srv, c := benchServer(b)
	benchDo(b, c, "PUT", srv.URL+"/v1/agents/writer/notes/key", `{"value": "Thursday 9am EST"}`, 201)
	for b.Loop() {
		benchDo(b, c, "GET", srv.URL+"/v1/agents/writer/notes/key", "", 200)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/recall")
}
