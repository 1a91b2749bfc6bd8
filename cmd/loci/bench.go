package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/rules"
)

// benchReport is the --json output.
type benchReport struct {
	IngestSingle  float64 `json:"ingest_per_s_single"`
	IngestBatched float64 `json:"ingest_per_s_batched"`
	// Search holds, by size, the latencies' p50_ms, p95_ms and p99_ms,
	// and first_ms: the first search's, which loads the scope's index.
	Search    map[string]map[string]float64 `json:"search"`
	PeakRSSMB float64                       `json:"peak_rss_mb"`
	// SearchPeakRSSMB is the peak from the last size's index load on (the
	// server's part; Linux only).
	SearchPeakRSSMB float64 `json:"search_peak_rss_mb,omitempty"`
	// With --dims: the vectors' length and the recall@10 of the index's
	// vector search against exact float32 search, at the largest size.
	Dims         int     `json:"dims,omitempty"`
	VectorRecall float64 `json:"vector_recall_at_10,omitempty"`
}

// benchOptions are loci bench's flags.
type benchOptions struct {
	sizes             []int
	queries           int
	single, batch     int
	asJSON            bool
	dir, dsn          string
	http              bool
	serveBin          string
	serveArgs         []string
	tenants, memories int
	indexMemory       int64
	stderr            io.Writer
	cpuProfile        string
	heapProfile       string
	serverHeap        string
	skipLoad          bool
	replicas          int
	dims              int
	// emb is the embedder of the in-process runs: the environment's
	// (nil: lexical only, the default).
	emb loci.Embedder
}

// profile runs fn under the CPU profiler when --cpuprofile is set, and
// writes a heap profile after it when --heapprofile is.
func (o benchOptions) profile(fn func() error) error {
	if o.heapProfile != "" {
		runtime.MemProfileRate = defaultMemProfileRate // a serve in this process may have turned it off
		defer o.writeHeapProfile()
	}
	if o.cpuProfile == "" {
		return fn()
	}
	f, err := os.Create(o.cpuProfile)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return fn()
}

// writeHeapProfile writes the heap profile of --heapprofile (what is
// live after a collection: -sample_index=inuse_space).
func (o benchOptions) writeHeapProfile() {
	f, err := os.Create(o.heapProfile)
	if err != nil {
		o.progress("heap profile: %v", err)
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		o.progress("heap profile: %v", err)
	}
}

// progress reports what the bench is doing, on stderr.
func (o benchOptions) progress(format string, a ...any) {
	fmt.Fprintf(o.stderr, "bench: "+format+"\n", a...)
}

func runBench(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizes := fs.String("n", "10000,100000", "passage counts to search at, comma-separated, ascending (one agent)")
	queries := fs.Int("queries", 300, "searches timed at each size (and, with --tenants, cold and warm)")
	single := fs.Int("single", 500, "passages stored one per transaction, for the single ingest rate")
	batch := fs.Int("batch", 1000, "passages per transaction, for the batched ingest rate and --tenants loading")
	asJSON := fs.Bool("json", false, "print JSON instead of a table (progress still goes to stderr)")
	dir := fs.String("dir", "", "directory for the benchmark database (default: a temporary one, removed after)")
	dsn := fs.String("db", "", "benchmark PostgreSQL instead: a postgres:// URL; the bench works in a new schema of that database, dropped after")
	httpMode := fs.Bool("http", false, "search through a real `loci serve` over HTTP (started by the bench) and report its memory")
	serveBin := fs.String("serve-bin", "", "with --http: the loci binary to serve with (default: this one), to compare builds")
	serveArgs := fs.String("serve-args", "", "with --http: extra arguments for serve, space-separated")
	tenants := fs.Int("tenants", 0, "the scale run: spread --memories over this many agents and users, then time scoped searches cold and warm")
	memories := fs.Int("memories", 1_000_000, "with --tenants: how many memories to load")
	skipLoad := fs.Bool("skip-load", false, "with --tenants and --dir: search the database a previous run left in --dir, without loading")
	replicas := fs.Int("replicas", 1, "with --tenants and --http: serve the one database with this many servers (replicas) and spread the searches over them in turn; each one's peak RSS is reported")
	dims := fs.Int("dims", 0, "embed with synthetic unit vectors of this many dimensions (seeded, clustered: a real embedder's size without one; in process) and report the recall@10 of the index's vector search against exact float32 search")
	cfg := loadConfig()
	cfg.indexMemoryFlag(fs)
	cfg.hashVectorsFlag(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed searches (this process) to this file")
	heapProfile := fs.String("heapprofile", "", "write a heap profile of this process after the timed searches to this file")
	serverHeap := fs.String("server-heap", "", "with --http and --serve-args '--pprof ADDR': save the server's heap profile to this file at the end")
	if pos, err := cfg.parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Embedder.Kind == "" {
		// The bench measures lexical search unless an embedder is named
		// (--embedder or $LOCI_EMBEDDER): a model server found on this
		// machine would make its figures incomparable.
		cfg.Embedder.Kind = embedderLexical
	}
	emb, err := cfg.Embedder.embedder(ctx)
	if err != nil {
		return err
	}
	o := benchOptions{emb: emb, dims: *dims, queries: *queries, single: *single, batch: *batch, asJSON: *asJSON, dir: *dir, dsn: *dsn,
		http: *httpMode, serveBin: *serveBin, serveArgs: strings.Fields(*serveArgs), tenants: *tenants, memories: *memories,
		indexMemory: cfg.IndexMemory, stderr: e.stderr, cpuProfile: *cpuProfile, heapProfile: *heapProfile, serverHeap: *serverHeap, skipLoad: *skipLoad,
		replicas: *replicas}
	if cfg.given["hash-vectors"] && cfg.Embedder.HashVectors {
		o.serveArgs = append(o.serveArgs, "--hash-vectors")
	}
	if *httpMode && !fsSet(fs, "n") {
		*sizes = "10000"
	}
	if err := o.check(*sizes, cfg); err != nil {
		return err
	}
	if o.dims > 0 {
		o.emb = newSynthEmbedder(o.dims)
	}
	if o.dir == "" {
		d, err := os.MkdirTemp("", "loci-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		o.dir = d
	}
	switch {
	case o.tenants > 0:
		return runScaleBench(ctx, e, o)
	case o.http:
		return runHTTPBench(ctx, e, o)
	}
	return runStoreBench(ctx, e, o)
}

// check parses sizes (--n) into o.sizes and checks the flags together.
func (o *benchOptions) check(sizes string, cfg Config) error {
	for _, p := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 || (len(o.sizes) > 0 && n <= o.sizes[len(o.sizes)-1]) {
			return usagef("--n must be ascending positive numbers, comma-separated")
		}
		o.sizes = append(o.sizes, n)
	}
	switch {
	case o.queries <= 0 || o.single <= 0 || o.batch <= 0 || o.tenants < 0 || o.memories <= 0:
		return usagef("--queries, --single, --batch and --memories must be positive, --tenants not negative")
	case o.dsn != "" && !isPostgresDSN(o.dsn):
		return usagef("--db must be a postgres:// URL (for SQLite, use --dir)")
	case o.skipLoad && (o.tenants == 0 || o.dir == "" || o.dsn != ""):
		return usagef("--skip-load needs --tenants and the --dir of an earlier run (SQLite)")
	case o.replicas < 1 || o.replicas > 1 && (!o.http || o.tenants == 0):
		return usagef("--replicas must be positive, and more than one needs --http and --tenants")
	case o.http && o.dsn != "" && o.tenants == 0:
		return usagef("--http with --db needs --tenants (the single-agent HTTP run is on SQLite)")
	case o.dims < 0 || o.dims > 0 && (o.http || cfg.given["hash-vectors"] || cfg.Embedder.Kind == "openai"):
		return usagef("--dims must be positive, and runs in process with its own embedder: not with --http, --hash-vectors or LOCI_EMBEDDER")
	}
	return nil
}

// serviceOptions are the options of the bench's in-process services: its
// embedder (if any) and index budget, logging nothing.
func (o benchOptions) serviceOptions() []rules.Option {
	opts := []rules.Option{rules.WithIndexBudget(o.indexMemory), rules.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
	if o.emb != nil {
		opts = append(opts, rules.WithEmbedder(o.emb))
	}
	return opts
}

// fsSet reports whether the flag name was given.
func fsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// benchSearch times hybrid searches of three words taken from the
// corpus's distribution, after a warm-up whose first search loads the
// index: the latencies, sorted, and that first search's, in ms.
func benchSearch(ctx context.Context, svc *rules.Service, gen *textgen.Gen, agent string, n int) (lat []float64, first float64, err error) {
	q := func() loci.SearchQuery {
		return loci.SearchQuery{Query: gen.Query(), AgentID: agent, Kinds: []loci.Kind{loci.KindPassage}, Limit: 10}
	}
	for i := range 5 {
		query := q()
		t0 := time.Now()
		if _, err := svc.Search(ctx, query); err != nil {
			return nil, 0, err
		}
		if i == 0 {
			first = float64(time.Since(t0).Microseconds()) / 1000
		}
	}
	out := make([]float64, 0, n)
	for range n {
		query := q()
		t0 := time.Now()
		if _, err := svc.Search(ctx, query); err != nil {
			return nil, 0, err
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(out)
	return out, first, nil
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return round2(sorted[i])
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

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
