package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/memory"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/sqlite"
)

// benchReport is the --json output.
type benchReport struct {
	IngestSingle  float64                       `json:"ingest_per_s_single"`
	IngestBatched float64                       `json:"ingest_per_s_batched"`
	Search        map[string]map[string]float64 `json:"search"`
	PeakRSSMB     float64                       `json:"peak_rss_mb"`
}

func runBench(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizes := fs.String("n", "10000,100000", "passage counts to search at, comma-separated, ascending")
	queries := fs.Int("queries", 300, "searches timed at each size")
	single := fs.Int("single", 500, "passages stored one per transaction, for the single ingest rate")
	batch := fs.Int("batch", 1000, "passages per transaction, for the batched ingest rate")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	dir := fs.String("dir", "", "directory for the benchmark database (default: a temporary one, removed after)")
	dsn := fs.String("db", "", "benchmark PostgreSQL instead: a postgres:// URL; the bench works in a new schema of that database, dropped after")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	var ns []int
	for _, p := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || (len(ns) > 0 && n <= ns[len(ns)-1]) {
			return usagef("--n must be ascending positive numbers, comma-separated")
		}
		ns = append(ns, n)
	}
	if *queries <= 0 || *single <= 0 || *batch <= 0 {
		return usagef("--queries, --single and --batch must be positive")
	}
	if *dsn != "" && !isPostgresDSN(*dsn) {
		return usagef("--db must be a postgres:// URL (for SQLite, use --dir)")
	}
	emb, err := newEmbedder()
	if err != nil {
		return err
	}
	var db loci.Store
	if *dsn != "" {
		pg, schema, err := openBenchPostgres(ctx, *dsn)
		if err != nil {
			return err
		}
		defer pg.Close()
		db = pg
		if !*asJSON {
			fmt.Fprintf(e.stderr, "PostgreSQL %s, in schema %s (dropped after)\n", redactDSN(*dsn), schema)
		}
	} else {
		if *dir == "" {
			d, err := os.MkdirTemp("", "loci-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(d)
			*dir = d
		}
		lite, err := sqlite.Open(ctx, filepath.Join(*dir, "bench.db"))
		if err != nil {
			return err
		}
		defer lite.Close()
		db = lite
	}
	svc := memory.New(db, memory.WithEmbedder(emb), memory.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	logf := func(format string, a ...any) {
		if !*asJSON {
			fmt.Fprintf(e.stderr, format+"\n", a...)
		}
	}

	gen := newTextGen(1)
	const agent = "bench-agent"
	newPassage := func() *loci.Record {
		content := gen.passage()
		now := time.Now().UTC()
		return &loci.Record{
			ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
			Scope: loci.Scope{AgentID: agent}, Content: content, SearchText: analysis.SearchText(content),
			CreatedAt: now, UpdatedAt: now, Version: 1,
		}
	}
	insert := func(recs []*loci.Record) error {
		return db.Update(ctx, func(tx loci.Tx) error {
			for _, r := range recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
	}

	rep := &benchReport{Search: map[string]map[string]float64{}}
	// Single: one passage per transaction (what one API call does).
	start := time.Now()
	for range *single {
		if err := insert([]*loci.Record{newPassage()}); err != nil {
			return err
		}
	}
	rep.IngestSingle = round2(float64(*single) / time.Since(start).Seconds())
	logf("ingest, one per transaction: %.0f passages/s", rep.IngestSingle)

	stored := *single
	var batchedN int
	var batchedTime time.Duration
	for _, n := range ns {
		// Batched: many passages per transaction; embeddings are not
		// awaited (they are queued), so this is the write rate.
		for stored < n {
			k := min(*batch, n-stored)
			recs := make([]*loci.Record, k)
			for i := range recs {
				recs[i] = newPassage()
			}
			t0 := time.Now()
			if err := insert(recs); err != nil {
				return err
			}
			batchedTime += time.Since(t0)
			batchedN += k
			stored += k
		}
		t0 := time.Now()
		embedded, err := svc.Reindex(ctx, nil)
		if err != nil {
			return err
		}
		logf("%d passages: embedded %d in %v (%.0f/s, %s)", n, embedded, time.Since(t0).Round(time.Millisecond),
			float64(embedded)/time.Since(t0).Seconds(), emb.Model())

		lat, err := benchSearch(ctx, svc, gen, agent, *queries)
		if err != nil {
			return err
		}
		rep.Search[strconv.Itoa(n)] = map[string]float64{
			"p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99),
		}
		logf("%d passages: hybrid search p50 %.2f ms, p95 %.2f ms, p99 %.2f ms", n, percentile(lat, 50), percentile(lat, 95), percentile(lat, 99))
	}
	if batchedN > 0 {
		rep.IngestBatched = round2(float64(batchedN) / batchedTime.Seconds())
	}
	logf("ingest, %d per transaction: %.0f passages/s", *batch, rep.IngestBatched)
	rep.PeakRSSMB = round2(peakRSSMB())
	if *asJSON {
		return printJSON(e.stdout, rep)
	}
	fmt.Fprintf(e.stdout, "ingest_per_s_single   %10.0f\n", rep.IngestSingle)
	fmt.Fprintf(e.stdout, "ingest_per_s_batched  %10.0f\n", rep.IngestBatched)
	for _, n := range ns {
		s := rep.Search[strconv.Itoa(n)]
		fmt.Fprintf(e.stdout, "search @%-8d p50 %6.2f ms  p95 %6.2f ms  p99 %6.2f ms\n", n, s["p50_ms"], s["p95_ms"], s["p99_ms"])
	}
	fmt.Fprintf(e.stdout, "peak_rss_mb           %10.1f\n", rep.PeakRSSMB)
	return nil
}

// benchSearch times hybrid searches of three words taken from the
// corpus's distribution, after a warm-up that loads the index.
func benchSearch(ctx context.Context, svc *memory.Service, gen *textGen, agent string, n int) ([]float64, error) {
	q := func() loci.SearchQuery {
		return loci.SearchQuery{Query: gen.query(), AgentID: agent, Kinds: []loci.Kind{loci.KindPassage}, Limit: 10}
	}
	for range 5 {
		if _, err := svc.Search(ctx, q()); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, n)
	for range n {
		query := q()
		t0 := time.Now()
		if _, err := svc.Search(ctx, query); err != nil {
			return nil, err
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(out)
	return out, nil
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return round2(sorted[i])
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// peakRSSMB is the process's peak resident set size (Linux: VmHWM), or the
// Go runtime's memory from the OS elsewhere.
func peakRSSMB() float64 {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				if kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB"))); err == nil {
					return float64(kb) / 1024
				}
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.Sys) / (1 << 20)
}

// textGen makes synthetic English-like text from a fixed seed: words drawn
// from a Zipf distribution over a vocabulary of made-up words, as in real
// text a few words are everywhere and most are rare.
type textGen struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

func newTextGen(seed int64) *textGen {
	rng := rand.New(rand.NewSource(seed))
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "bar", "con", "tel", "mor", "ist"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 30000 {
		var b strings.Builder
		for range 2 + rng.Intn(3) {
			b.WriteString(syl[rng.Intn(len(syl))])
		}
		w := b.String()
		if !seen[w] && !analysis.IsStopWord(w) {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &textGen{rng: rng, vocab: vocab, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))}
}

func (g *textGen) word() string { return g.vocab[g.zipf.Uint64()] }

func (g *textGen) passage() string {
	w := make([]string, 12+g.rng.Intn(30))
	for i := range w {
		w[i] = g.word()
	}
	return strings.Join(w, " ")
}

func (g *textGen) query() string {
	return g.word() + " " + g.word() + " " + g.word()
}

func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// benchStore is a store the bench closes when done; for PostgreSQL,
// closing also drops the bench's schema.
type benchStore struct {
	*postgres.DB
	drop func()
}

func (b *benchStore) Close() error {
	err := b.DB.Close()
	b.drop()
	return err
}

// openBenchPostgres creates a schema with a fresh name in dsn's database
// and opens a store in it (then public, where pgvector lives), so that the
// bench never touches the database's own tables. Close drops the schema.
func openBenchPostgres(ctx context.Context, dsn string) (*benchStore, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", loci.Errorf(loci.EINVALID, "invalid PostgreSQL DSN: %v", err)
	}
	schema := "loci_bench_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, "", fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		return nil, "", fmt.Errorf("create schema %s: %w", schema, err)
	}
	drop := func() {
		c, err := pgx.ConnectConfig(context.WithoutCancel(ctx), cfg.ConnConfig.Copy())
		if err != nil {
			return
		}
		defer c.Close(context.WithoutCancel(ctx))
		c.Exec(context.WithoutCancel(ctx), `DROP SCHEMA `+schema+` CASCADE`)
	}
	path := schema + ", public"
	cfg.ConnConfig.RuntimeParams["search_path"] = path
	// Set it once connected too: PGlite serves every connection from one
	// session and ignores startup parameters.
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SET search_path TO `+path)
		return err
	}
	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		drop()
		return nil, "", err
	}
	return &benchStore{DB: db, drop: drop}, schema, nil
}
