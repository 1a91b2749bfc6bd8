// Package metrics exports loci's Prometheus metrics: HTTP requests and
// their latencies per route and status, storage transaction latencies (a
// loci.Store decorator) and the embedding queue depth. It is the one
// package that imports the Prometheus client.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds loci's collectors on their own registry.
type Metrics struct {
	registry       *prometheus.Registry
	requests       *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec
	storeSeconds   *prometheus.HistogramVec
	embedQueue     prometheus.Gauge
}

// New returns a fresh set of metrics, with the Go runtime and process
// collectors.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loci_http_requests_total",
			Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loci_http_request_duration_seconds",
			Help:    "HTTP request latency by method, route pattern and status.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route", "status"}),
		storeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loci_store_transaction_duration_seconds",
			Help:    "Storage transaction latency by operation (update, view, snapshot, ping) and result (ok, error).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"op", "result"}),
		embedQueue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "loci_embedding_queue_depth",
			Help: "Records whose embedding is queued and not yet computed.",
		}),
	}
	m.registry.MustRegister(m.requests, m.requestSeconds, m.storeSeconds, m.embedQueue,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// ObserveRequest counts one HTTP request to route (its pattern, never the
// raw path, so label values stay few) and records its latency.
func (m *Metrics) ObserveRequest(method, route string, status int, d time.Duration) {
	st := strconv.Itoa(status)
	m.requests.WithLabelValues(method, route, st).Inc()
	m.requestSeconds.WithLabelValues(method, route, st).Observe(d.Seconds())
}

// SetEmbeddingQueueDepth sets the embedding queue depth gauge; the
// embedding worker calls it when its queue changes.
func (m *Metrics) SetEmbeddingQueueDepth(n int) { m.embedQueue.Set(float64(n)) }

// Store wraps s so every transaction's latency is recorded.
func (m *Metrics) Store(s loci.Store) loci.Store { return &store{Store: s, m: m} }

type store struct {
	loci.Store
	m *Metrics
}

func (s *store) observe(op string, start time.Time, err error) error {
	result := "ok"
	if err != nil {
		result = "error"
	}
	s.m.storeSeconds.WithLabelValues(op, result).Observe(time.Since(start).Seconds())
	return err
}

func (s *store) Update(ctx context.Context, fn func(loci.Tx) error) error {
	start := time.Now()
	return s.observe("update", start, s.Store.Update(ctx, fn))
}

func (s *store) View(ctx context.Context, fn func(loci.Tx) error) error {
	start := time.Now()
	return s.observe("view", start, s.Store.View(ctx, fn))
}

func (s *store) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	start := time.Now()
	return s.observe("snapshot", start, s.Store.Snapshot(ctx, fn))
}

func (s *store) Ping(ctx context.Context) error {
	start := time.Now()
	return s.observe("ping", start, s.Store.Ping(ctx))
}
