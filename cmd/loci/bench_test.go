package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
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
	if len(rep) != 4 {
		t.Errorf("keys = %d, want 4: %s", len(rep), out.String())
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
		if len(s) != 3 || s["p50_ms"] <= 0 || s["p50_ms"] > s["p95_ms"] || s["p95_ms"] > s["p99_ms"] {
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
		{"OtherAgent", []string{"search", "colours", "--agent", "b", "--db", dbPath}, exitOK, ""},
		{"Reindex", []string{"reindex", "--db", dbPath}, exitOK, "Re-embedded 1 records"},
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
