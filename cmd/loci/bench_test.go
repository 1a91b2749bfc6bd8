package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestBench(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"bench", "--n", "100,300", "--queries", "5", "--single", "5", "--batch", "50", "--json", "--dir", t.TempDir()}
	if code := run(context.Background(), args, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// Exactly the documented shape, nothing else.
	var rep map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	for _, k := range []string{"ingest_per_s_single", "ingest_per_s_batched", "search", "peak_rss_mb"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
	// The search phase's own peak, where Linux lets it be reset.
	want := 4
	if _, ok := rep["search_peak_rss_mb"]; ok {
		want++
	}
	if len(rep) != want {
		t.Errorf("keys = %d, want %d: %s", len(rep), want, out.String())
	}
	var search map[string]map[string]float64
	if err := json.Unmarshal(rep["search"], &search); err != nil {
		t.Fatal(err)
	}
	if len(search) != 2 {
		t.Fatalf("search sizes = %v, want 100 and 300", search)
	}
	for _, n := range []string{"100", "300"} {
		s := search[n]
		if len(s) != 4 || s["p50_ms"] <= 0 || s["p50_ms"] > s["p95_ms"] || s["p95_ms"] > s["p99_ms"] || s["first_ms"] <= 0 {
			t.Errorf("search[%s] = %v", n, s)
		}
	}
	var single, batched, rss float64
	json.Unmarshal(rep["ingest_per_s_single"], &single)
	json.Unmarshal(rep["ingest_per_s_batched"], &batched)
	json.Unmarshal(rep["peak_rss_mb"], &rss)
	if single <= 0 || batched <= 0 || rss <= 0 {
		t.Errorf("single %v batched %v rss %v", single, batched, rss)
	}
	if raw, ok := rep["search_peak_rss_mb"]; ok {
		var searchRSS float64
		json.Unmarshal(raw, &searchRSS)
		if searchRSS <= 0 || searchRSS > rss {
			t.Errorf("search_peak_rss_mb %v, peak_rss_mb %v", searchRSS, rss)
		}
	}
}

// TestBenchPostgres runs the bench on PostgreSQL: it works in a schema of
// its own, which is gone afterwards.
func TestBenchPostgres(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set", testdb.PostgresEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schemas := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'loci\_bench\_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := schemas()
	var out, errb bytes.Buffer
	args := []string{"bench", "--db", dsn, "--n", "60,120", "--queries", "3", "--single", "3", "--batch", "20", "--json"}
	if code := run(ctx, args, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if len(rep.Search) != 2 || rep.Search["120"]["p50_ms"] <= 0 || rep.IngestSingle <= 0 || rep.IngestBatched <= 0 {
		t.Errorf("report = %+v", rep)
	}
	if after := schemas(); after != before {
		t.Errorf("bench schemas: %d after, %d before: not dropped", after, before)
	}
}

// scaleRun runs a small scale bench and returns its report.
func scaleRun(t *testing.T, args ...string) scaleReport {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"bench", "--tenants", "10", "--memories", "300", "--batch", "50", "--queries", "6", "--json"}, args...)
	if code := run(context.Background(), args, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep scaleReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.Memories != 300 || rep.Tenants != 10 || rep.PeakRSSMB <= 0 || (rep.LoadPerS <= 0) != slices.Contains(args, "--skip-load") {
		t.Errorf("report = %+v", rep)
	}
	for name, l := range map[string]map[string]float64{"cold": rep.Cold, "warm": rep.Warm} {
		if l["p50_ms"] <= 0 || l["p50_ms"] > l["p95_ms"] || l["p95_ms"] > l["p99_ms"] {
			t.Errorf("%s latencies = %v", name, l)
		}
	}
	return rep
}

// TestBenchScale: the scale run loads memories over agents and users, then
// times scoped searches in this process, and again on a second run over
// the database it left (--skip-load).
func TestBenchScale(t *testing.T) {
	dir := t.TempDir()
	rep := scaleRun(t, "--dir", dir)
	if rep.Backend != "sqlite" || rep.IndexEntries == 0 || len(rep.ReplicaPeakRSSMB) != 0 {
		t.Errorf("report = %+v", rep)
	}
	scaleRun(t, "--dir", dir, "--skip-load")
}

// TestBenchScaleReplicas: with --http and --replicas, the searches go to
// that many servers on the one database, and each one's peak RSS is
// reported.
func TestBenchScaleReplicas(t *testing.T) {
	rep := scaleRun(t, "--http", "--replicas", "2", "--serve-bin", lociBinary(t))
	if len(rep.ReplicaPeakRSSMB) != 2 {
		t.Fatalf("replica RSS = %v, want two", rep.ReplicaPeakRSSMB)
	}
	for _, mb := range rep.ReplicaPeakRSSMB {
		if mb <= 0 || mb > rep.PeakRSSMB {
			t.Errorf("replica RSS %v, largest %v", rep.ReplicaPeakRSSMB, rep.PeakRSSMB)
		}
	}
}

func TestBenchErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"ErrBadN", []string{"bench", "--n", "x"}},
		{"ErrDescendingN", []string{"bench", "--n", "100,10"}},
		{"ErrZeroQueries", []string{"bench", "--queries", "0"}},
		{"ErrArgument", []string{"bench", "extra"}},
		{"ErrDBNotPostgres", []string{"bench", "--db", "/tmp/x.db"}},
		{"ErrZeroReplicas", []string{"bench", "--tenants", "10", "--http", "--replicas", "0"}},
		{"ErrReplicasWithoutHTTP", []string{"bench", "--tenants", "10", "--replicas", "2"}},
		{"ErrReplicasWithoutTenants", []string{"bench", "--http", "--replicas", "2"}},
		{"ErrSkipLoadWithoutDir", []string{"bench", "--tenants", "10", "--skip-load"}},
		{"ErrNegativeTenants", []string{"bench", "--tenants", "-1"}},
		{"ErrNegativeDims", []string{"bench", "--dims", "-1"}},
		{"ErrDimsHTTP", []string{"bench", "--dims", "8", "--http"}},
		{"ErrDimsHashVectors", []string{"bench", "--dims", "8", "--hash-vectors"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tt.args, nil, &out, &errb); code != exitUsage {
				t.Fatalf("exit %d, want %d", code, exitUsage)
			}
		})
	}
}

func TestSearchCLI(t *testing.T) {
	dbPath := t.TempDir() + "/loci.db"
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"remember", "color", "favourite colour is teal", "--agent", "a", "--db", dbPath}, nil, &out, &errb); code != exitOK {
		t.Fatalf("remember: %d %s", code, errb.String())
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"OK", []string{"search", "colours", "--agent", "a", "--db", dbPath, "--explain"}, exitOK, "favourite colour is teal"},
		// A date the query names: the date signal and the date boost.
		{"Date", []string{"search", "colours today", "--agent", "a", "--db", dbPath, "--explain"}, exitOK, "date rank 1 score"},
		{"OtherAgent", []string{"search", "colours", "--agent", "b", "--db", dbPath}, exitOK, ""},
		{"ErrReindexNoEmbedder", []string{"reindex", "--db", dbPath}, exitDomain, ""},
		{"Reindex", []string{"reindex", "--db", dbPath, "--hash-vectors"}, exitOK, "Re-embedded 1 records"},
		{"ErrNoQuery", []string{"search", "--db", dbPath}, exitUsage, ""},
		{"ErrEmptyQuery", []string{"search", " ", "--db", dbPath}, exitDomain, ""},
		{"ErrUnknownKind", []string{"search", "x", "--kind", "nope", "--db", dbPath}, exitDomain, ""},
		{"ErrReindexArgs", []string{"reindex", "x", "--db", dbPath}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(ctx, tt.args, nil, &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (%s)", code, tt.code, errb.String())
			}
			if tt.want == "" && tt.code == exitOK && out.Len() != 0 && tt.name == "OtherAgent" {
				t.Fatalf("agent b found agent a's note: %s", out.String())
			}
			if tt.want != "" && !bytes.Contains(out.Bytes(), []byte(tt.want)) {
				t.Fatalf("output %q lacks %q", out.String(), tt.want)
			}
		})
	}
}
