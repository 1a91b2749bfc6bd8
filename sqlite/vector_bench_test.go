package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	_ "modernc.org/sqlite/vec" // sqlite-vec, for the comparison only
)

// The vector search comparison: the in-process column scan of the search
// index (package index) on a store, against sqlite-vec's vec0 (built into modernc.org/sqlite
// as modernc.org/sqlite/vec) doing the same exact k-nearest search.
//
//	LOCI_BENCH_VECTORS=100000 go test ./sqlite -run XXX -bench VectorSearch -benchtime 200x
//
// "hashlike" queries have 32 non-zero dimensions of 256, as the hash
// embedder's short queries do; "dense" ones have all 256.

func benchVectors(n, dims int) ([][]float32, *rand.Rand) {
	rng := rand.New(rand.NewSource(1))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = randUnit(rng, dims, dims)
	}
	return vecs, rng
}

func randUnit(rng *rand.Rand, dims, nonzero int) []float32 {
	v := make([]float32, dims)
	var ss float64
	for _, d := range rng.Perm(dims)[:nonzero] {
		x := rng.NormFloat64()
		v[d] = float32(x)
		ss += x * x
	}
	for d := range v {
		v[d] = float32(float64(v[d]) / math.Sqrt(ss))
	}
	return v
}

func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("LOCI_BENCH_VECTORS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

func BenchmarkVectorSearch(b *testing.B) {
	const dims, k = 256, 10
	n := benchN()
	vecs, rng := benchVectors(n, dims)
	queries := map[string][][]float32{}
	for _, nz := range []struct {
		name string
		n    int
	}{{"hashlike", 32}, {"dense", dims}} {
		for range 64 {
			queries[nz.name] = append(queries[nz.name], randUnit(rng, dims, nz.n))
		}
	}

	search := vectorIndex(b, vecs, "r%07d")
	f := loci.RecordFilter{Workspace: "w", AgentID: loci.Ptr("a")}
	for _, name := range []string{"hashlike", "dense"} {
		b.Run(fmt.Sprintf("memory/%s/n=%d", name, n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if got := search(f, queries[name][i%64], k); len(got) != k {
					b.Fatalf("got %d", len(got))
				}
			}
		})
	}

	db, err := sql.Open("sqlite", "file:vecbench?mode=memory")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(fmt.Sprintf(`CREATE VIRTUAL TABLE v USING vec0(embedding float[%d] distance_metric=cosine)`, dims)); err != nil {
		b.Fatalf("vec0: %v", err)
	}
	tx, _ := db.BeginTx(context.Background(), nil)
	for i, v := range vecs {
		if _, err := tx.Exec(`INSERT INTO v (rowid, embedding) VALUES (?, ?)`, i+1, encodeVector(v)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"hashlike", "dense"} {
		b.Run(fmt.Sprintf("vec0/%s/n=%d", name, n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				rows, err := db.Query(`SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = ?`, encodeVector(queries[name][i%64]), k)
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				for rows.Next() {
					got++
				}
				rows.Close()
				if got != k {
					b.Fatalf("got %d", got)
				}
			}
		})
	}
}

// TestVectorScanMatchesVec0 checks that the column scan and sqlite-vec
// agree on the nearest neighbours.
func TestVectorScanMatchesVec0(t *testing.T) {
	const dims, n, k = 16, 500, 5
	vecs, rng := benchVectors(n, dims)
	search := vectorIndex(t, vecs, "r%07d")
	db, err := sql.Open("sqlite", "file:vectest?mode=memory")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(fmt.Sprintf(`CREATE VIRTUAL TABLE v USING vec0(embedding float[%d] distance_metric=cosine)`, dims)); err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if _, err := db.Exec(`INSERT INTO v (rowid, embedding) VALUES (?, ?)`, i+1, encodeVector(v)); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		q := randUnit(rng, dims, dims)
		got := search(loci.RecordFilter{Workspace: "w"}, q, k)
		rows, err := db.Query(`SELECT rowid FROM v WHERE embedding MATCH ? AND k = ?`, encodeVector(q), k)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rows.Next() {
			var id int
			rows.Scan(&id)
			if want := fmt.Sprintf("r%07d", id-1); got[i] != want {
				t.Fatalf("neighbour %d: scan %s, vec0 %s", i, got[i], want)
			}
			i++
		}
		rows.Close()
	}
}

// vectorIndex stores vecs as agent a's passages of workspace w (ids from
// idFormat and their position) in a transient store, and returns a search
// of their index by model "m".
func vectorIndex(tb testing.TB, vecs [][]float32, idFormat string) func(f loci.RecordFilter, q []float32, k int) []string {
	ctx := context.Background()
	db, err := Open(ctx, Memory)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	err = db.Update(ctx, func(tx loci.Tx) error {
		for i, v := range vecs {
			r := &loci.Record{ID: fmt.Sprintf(idFormat, i), Workspace: "w", Kind: loci.KindPassage,
				Scope: loci.Scope{AgentID: "a"}, Embedding: v, EmbeddingModel: "m", Version: 1}
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	c := index.New(index.WithModel("m"), index.WithBudget(1<<30))
	return func(f loci.RecordFilter, q []float32, k int) []string {
		var ids []string
		err := db.View(ctx, func(tx loci.Tx) error {
			res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Vector: q, N: k})
			for _, h := range res.Vector {
				ids = append(ids, h.Doc.Meta.ID)
			}
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		return ids
	}
}
