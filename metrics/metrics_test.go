package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/metrics"
)

func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

func TestMetrics(t *testing.T) {
	m := metrics.New()
	m.ObserveRequest("GET", "/v1/agents/{agent_id}/notes", 200, 3*time.Millisecond)
	m.ObserveRequest("GET", "/v1/agents/{agent_id}/notes", 200, 5*time.Millisecond)
	m.SetEmbeddingQueueDepth(7)
	m.WatchIndex(func() metrics.IndexStats {
		return metrics.IndexStats{Entries: 3, Bytes: 4096, Budget: 1 << 20, Hits: 11, Loads: 3, Resets: 1, Applied: 5}
	})
	s := m.Store(testdb.OpenSQLite(t))
	if err := s.View(context.Background(), func(loci.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Snapshot(context.Background(), func(loci.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s.Update(context.Background(), func(loci.Tx) error { return errors.New("boom") })
	out := scrape(t, m)
	for _, want := range []string{
		`loci_http_requests_total{method="GET",route="/v1/agents/{agent_id}/notes",status="200"} 2`,
		`loci_http_request_duration_seconds_count{method="GET",route="/v1/agents/{agent_id}/notes",status="200"} 2`,
		`loci_embedding_queue_depth 7`,
		`loci_index_hits_total 11`,
		`loci_index_loads_total 3`,
		`loci_index_resets_total 1`,
		`loci_index_changes_applied_total 5`,
		`loci_index_evictions_total 0`,
		`loci_index_entries 3`,
		`loci_index_bytes 4096`,
		`loci_index_budget_bytes 1.048576e+06`,
		`loci_store_transaction_duration_seconds_count{op="view",result="ok"} 1`,
		`loci_store_transaction_duration_seconds_count{op="snapshot",result="ok"} 1`,
		`loci_store_transaction_duration_seconds_count{op="update",result="error"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
