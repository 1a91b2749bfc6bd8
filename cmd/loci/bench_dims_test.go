package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
)

// TestSynthEmbedder: the bench's vectors are unit length, the same for the
// same text, and clustered: a text's vector is nearer to those of its
// cluster than to the others'.
func TestSynthEmbedder(t *testing.T) {
	ctx := context.Background()
	emb := newSynthEmbedder(64)
	texts := make([]string, 400)
	for i := range texts {
		texts[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	a, _ := emb.Embed(ctx, texts)
	b, _ := emb.Embed(ctx, texts[:1])
	if len(a) != len(texts) || len(a[0]) != 64 || !equalVec(a[0], b[0]) {
		t.Fatalf("vectors: %d of %d dims, repeatable %v", len(a), len(a[0]), equalVec(a[0], b[0]))
	}
	if emb.Model() != "bench-synthetic-v1-64" || emb.Dimensions() != 64 {
		t.Errorf("model %s, %d dims", emb.Model(), emb.Dimensions())
	}
	dot := func(x, y []float32) float64 {
		var s float64
		for i := range x {
			s += float64(x[i]) * float64(y[i])
		}
		return s
	}
	// The cluster of a vector is its nearest centre.
	cluster := func(v []float32) int {
		best, bi := math.Inf(-1), -1
		for i, c := range emb.centers {
			if d := dot(v, c); d > best {
				best, bi = d, i
			}
		}
		return bi
	}
	var same, other []float64
	for i, v := range a {
		if n := dot(v, v); math.Abs(n-1) > 1e-5 {
			t.Fatalf("vector %d has length² %v", i, n)
		}
		for _, w := range a[i+1:] {
			if cluster(v) == cluster(w) {
				same = append(same, dot(v, w))
			} else {
				other = append(other, dot(v, w))
			}
		}
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	if len(same) == 0 || mean(same) < 0.5 || mean(other) > 0.1 {
		t.Errorf("mean similarity %.2f in a cluster (%d pairs), %.2f across", mean(same), len(same), mean(other))
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBenchDims: --dims embeds with the synthetic embedder and reports the
// recall@10 of the index's vector search against exact search, in one
// scope and over tenants, on SQLite and PostgreSQL.
func TestBenchDims(t *testing.T) {
	runs := map[string][]string{
		"SQLite":         {"bench", "--dims", "48", "--n", "300", "--queries", "5", "--single", "5", "--batch", "50", "--json", "--dir", t.TempDir()},
		"SQLiteTenants":  {"bench", "--dims", "32", "--tenants", "5", "--memories", "300", "--batch", "50", "--queries", "6", "--json"},
		"Postgres":       {"bench", "--dims", "48", "--n", "200", "--queries", "5", "--single", "5", "--batch", "50", "--json", "--db", os.Getenv(testdb.PostgresEnv)},
		"PostgresTenant": {"bench", "--dims", "32", "--tenants", "5", "--memories", "300", "--batch", "50", "--queries", "6", "--json", "--db", os.Getenv(testdb.PostgresEnv)},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			if args[len(args)-2] == "--db" && args[len(args)-1] == "" {
				t.Skipf("%s is not set", testdb.PostgresEnv)
			}
			var out, errb bytes.Buffer
			if code := run(context.Background(), args, nil, &out, &errb); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var rep struct {
				Dims         int     `json:"dims"`
				VectorRecall float64 `json:"vector_recall_at_10"`
				PeakRSSMB    float64 `json:"peak_rss_mb"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out.String())
			}
			if rep.Dims != 32 && rep.Dims != 48 || rep.VectorRecall < 0.9 || rep.VectorRecall > 1 || rep.PeakRSSMB <= 0 {
				t.Errorf("report %s", out.String())
			}
		})
	}
}

// TestBenchScaleProfile: --cpuprofile profiles the scale run's timed
// searches too (it wrote nothing with --tenants).
func TestBenchScaleProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	var out, errb bytes.Buffer
	args := []string{"bench", "--tenants", "3", "--memories", "60", "--batch", "20", "--queries", "4", "--json", "--cpuprofile", prof}
	if code := run(context.Background(), args, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Fatalf("no CPU profile written: %v", err)
	}
}
