// Package metrics exports loci's Prometheus metrics: HTTP requests and
// their latencies per route and status, storage transaction latencies (a
// loci.Store decorator), the embedding queue depth and what the search
// indexes hold and did. It is the one
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

// IndexStats is what the in-memory search indexes hold and did (package
// index's CacheStats), read at each scrape.
type IndexStats struct {
	Entries int   // scope indexes held
	Bytes   int64 // their estimated size
	Budget  int64 // the memory they may use
	// Hits: searches answered by a held index; Loads: indexes loaded;
	// Resets: workspaces whose indexes were all dropped because the
	// change feed could not say what changed; Evictions: indexes dropped
	// for the budget; Streams: scopes over the budget, searched by a
	// streaming pass; Private: searches in a transaction that had
	// written, on an index of their own; Applied: changes applied to held
	// indexes; Dropped: indexes dropped because patching them would cost
	// more than loading them again.
	Hits, Loads, Resets, Evictions, Streams, Private, Applied, Dropped int64
}

// WatchIndex exports the search indexes' counters and sizes, read from
// stats at each scrape: a search that keeps loading its scope (Loads or
// Resets climbing with Hits flat) is visible.
func (m *Metrics) WatchIndex(stats func() IndexStats) {
	m.registry.MustRegister(indexCollector(stats))
}

// WatchReads exports loci_store_reads_total{server}: the read-only
// transactions each database server served, for a PostgreSQL store with
// read replicas (servers[0] is the primary; reads returns the counts in
// the same order).
func (m *Metrics) WatchReads(servers []string, reads func() []int64) {
	for i, name := range servers {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "loci_store_reads_total",
			Help:        "Read-only transactions served, by database server (the primary, or a --db-read standby).",
			ConstLabels: prometheus.Labels{"server": name},
		}, func() float64 {
			if n := reads(); i < len(n) {
				return float64(n[i])
			}
			return 0
		}))
	}
}

var (
	indexCounters = []struct {
		name, help string
		get        func(IndexStats) int64
	}{
		{"loci_index_hits_total", "Searches answered by a held scope index.", func(s IndexStats) int64 { return s.Hits }},
		{"loci_index_loads_total", "Scope indexes loaded from the store.", func(s IndexStats) int64 { return s.Loads }},
		{"loci_index_resets_total", "Workspaces whose indexes were all dropped because the change feed could not say what changed.", func(s IndexStats) int64 { return s.Resets }},
		{"loci_index_evictions_total", "Scope indexes dropped to keep the memory budget.", func(s IndexStats) int64 { return s.Evictions }},
		{"loci_index_streams_total", "Searches of scopes over the memory budget, answered by a streaming pass.", func(s IndexStats) int64 { return s.Streams }},
		{"loci_index_private_total", "Searches in a transaction that had written, on an index of their own.", func(s IndexStats) int64 { return s.Private }},
		{"loci_index_changes_applied_total", "Changes read from the change feed and applied to held indexes.", func(s IndexStats) int64 { return s.Applied }},
		{"loci_index_dropped_total", "Scope indexes dropped because patching them would cost more than loading them again.", func(s IndexStats) int64 { return s.Dropped }},
	}
	indexGauges = []struct {
		name, help string
		get        func(IndexStats) float64
	}{
		{"loci_index_entries", "Scope indexes held in memory.", func(s IndexStats) float64 { return float64(s.Entries) }},
		{"loci_index_bytes", "Estimated memory the held scope indexes use.", func(s IndexStats) float64 { return float64(s.Bytes) }},
		{"loci_index_budget_bytes", "Memory the scope indexes may use.", func(s IndexStats) float64 { return float64(s.Budget) }},
	}
)

// indexCollector reads the index's stats once per scrape.
type indexCollector func() IndexStats

func (c indexCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, x := range indexCounters {
		ch <- prometheus.NewDesc(x.name, x.help, nil, nil)
	}
	for _, x := range indexGauges {
		ch <- prometheus.NewDesc(x.name, x.help, nil, nil)
	}
}

func (c indexCollector) Collect(ch chan<- prometheus.Metric) {
	s := c()
	for _, x := range indexCounters {
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(x.name, x.help, nil, nil), prometheus.CounterValue, float64(x.get(s)))
	}
	for _, x := range indexGauges {
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(x.name, x.help, nil, nil), prometheus.GaugeValue, x.get(s))
	}
}
