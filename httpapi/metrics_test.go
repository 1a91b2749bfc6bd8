package httpapi

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci/internal/testdb"
)

type fakeObserver struct {
	mu   sync.Mutex
	seen []string
}

func (o *fakeObserver) ObserveRequest(method, route string, status int, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, method+" "+route+" "+http.StatusText(status))
}

func TestObserverAndMetricsRoute(t *testing.T) {
	obs := &fakeObserver{}
	metricsBody := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("loci_up 1\n")) })
	e := newSecEnv(t, testdb.OpenSQLite, WithObserver(obs), WithMetrics(metricsBody))
	e.call(t, "GET", "/v1/agents/a1/notes/missing", "", nil)
	_, _, rec := e.call(t, "GET", "/metrics", "", nil)
	if rec.Code != 200 || rec.Body.String() != "loci_up 1\n" {
		t.Errorf("/metrics: %d %q", rec.Code, rec.Body.String())
	}
	want := []string{"GET /v1/agents/{agent_id}/notes/{key} Not Found", "GET /metrics OK"}
	if len(obs.seen) != 2 || obs.seen[0] != want[0] || obs.seen[1] != want[1] {
		t.Errorf("observed %v, want %v", obs.seen, want)
	}
	// Without a metrics handler the route answers 404.
	plain := newSecEnv(t, testdb.OpenSQLite)
	if s, _, _ := plain.call(t, "GET", "/metrics", "", nil); s != http.StatusNotFound {
		t.Errorf("/metrics without metrics: %d, want 404", s)
	}
}
