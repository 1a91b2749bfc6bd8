package main

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// scaleReport is the --tenants run's report.
type scaleReport struct {
	Backend  string  `json:"backend"`
	Memories int     `json:"memories"`
	Tenants  int     `json:"tenants"`
	LoadPerS float64 `json:"load_per_s"`
	// Cold searches are each the first of a scope; warm ones repeat
	// scopes searched before.
	Cold map[string]float64 `json:"search_cold"`
	Warm map[string]float64 `json:"search_warm"`
	// PeakRSSMB is the searching process's peak resident set while it
	// searched (the server's, with --http; the largest replica's, with
	// --replicas), and ReplicaPeakRSSMB each replica's.
	PeakRSSMB        float64   `json:"peak_rss_mb"`
	ReplicaPeakRSSMB []float64 `json:"replica_peak_rss_mb,omitempty"`
	IndexMemoryMB    float64   `json:"index_memory_mb"`
	IndexEntries     int       `json:"index_entries,omitempty"`
	IndexEvictions   int64     `json:"index_evictions,omitempty"`
	// With --dims: the vectors' length and the recall@10 of the index's
	// vector search against exact float32 search, over the warm scopes.
	Dims         int     `json:"dims,omitempty"`
	VectorRecall float64 `json:"vector_recall_at_10,omitempty"`
}

// tenantScope returns the agent and the user of record i among tenants:
// agent i mod tenants, and a user that groups other records.
func tenantScope(i, tenants int) loci.Scope {
	return loci.Scope{
		AgentID: fmt.Sprintf("agent-%05d", i%tenants),
		UserID:  fmt.Sprintf("user-%05d", (i/tenants+i*7)%tenants),
	}
}

// runScaleBench loads o.memories passages spread over o.tenants agents and
// users, then times searches scoped to random agents and users: cold (the
// scope's first search) and warm (scopes searched before). With --http the
// searches go to a `loci serve` on the loaded database, whose memory is
// what is reported.
func runScaleBench(ctx context.Context, e *env, o benchOptions) error {
	emb := o.emb
	store, dsn, closeStore, cleanup, err := o.openStore(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { closeStore() }()
	rep := &scaleReport{Backend: "sqlite", Memories: o.memories, Tenants: o.tenants, IndexMemoryMB: round2(float64(o.indexMemory) / (1 << 20))}
	if o.dsn != "" {
		rep.Backend = "postgres"
	}

	if err := o.load(ctx, store, emb, rep); err != nil {
		return err
	}
	return o.searchScale(ctx, e, store, emb, dsn, closeStore, rep)
}

// load fills the store with o.memories passages over o.tenants agents and
// users (unless --skip-load), reporting the rate in rep.
func (o benchOptions) load(ctx context.Context, store loci.Store, emb loci.Embedder, rep *scaleReport) error {
	if o.skipLoad {
		o.progress("searching the database in %s as it is", o.dir)
		return nil
	}
	// Texts and embeddings are made by a worker per core, inserted in
	// batches of o.batch per transaction.
	type batch struct{ recs []*loci.Record }
	batches := make(chan batch, runtime.NumCPU())
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		defer close(next)
		for start := 0; start < o.memories; start += o.batch {
			select {
			case next <- start:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := range runtime.NumCPU() {
		wg.Go(func() {
			gen := textgen.New(int64(w + 1))
			for start := range next {
				n := min(o.batch, o.memories-start)
				recs := make([]*loci.Record, n)
				texts := make([]string, n)
				for i := range recs {
					content := gen.Passage()
					texts[i] = content
					now := time.Now().UTC().Truncate(time.Microsecond)
					recs[i] = &loci.Record{
						ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
						Scope: tenantScope(start+i, o.tenants), Content: content, SearchText: analysis.SearchText(content),
						CreatedAt: now, UpdatedAt: now, Version: 1,
					}
				}
				if emb != nil {
					if vecs, err := emb.Embed(ctx, texts); err == nil && len(vecs) == n {
						for i, r := range recs {
							r.Embedding, r.EmbeddingModel = vecs[i], emb.Model()
						}
					}
				}
				batches <- batch{recs}
			}
		})
	}
	go func() { wg.Wait(); close(batches) }()
	t0 := time.Now()
	loaded := 0
	for b := range batches {
		if err := store.Update(ctx, func(tx loci.Tx) error {
			for _, r := range b.recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		loaded += len(b.recs)
		if loaded%(50*o.batch) < o.batch {
			o.progress("loaded %d of %d memories (%.0f/s)", loaded, o.memories, float64(loaded)/time.Since(t0).Seconds())
		}
	}
	rep.LoadPerS = round2(float64(loaded) / time.Since(t0).Seconds())
	o.progress("loaded %d memories over %d tenants in %v (%.0f/s)", loaded, o.tenants, time.Since(t0).Round(time.Millisecond), rep.LoadPerS)
	return nil
}

// searchScale times scoped searches of the loaded store, cold (each
// scope's first) then warm (scopes searched before, new queries), in
// this process or through servers (--http), and reports them with the
// peak memory of whoever searched.
func (o benchOptions) searchScale(ctx context.Context, e *env, store loci.Store, emb loci.Embedder, dsn string, closeStore func(), rep *scaleReport) error {
	rng := rand.New(rand.NewSource(42))
	gen := textgen.New(99)
	scope := func(i int) loci.SearchQuery {
		q := loci.SearchQuery{Query: gen.Query(), Limit: 10}
		if i%2 == 0 {
			q.AgentID = fmt.Sprintf("agent-%05d", rng.Intn(o.tenants))
		} else {
			q.UserID = fmt.Sprintf("user-%05d", rng.Intn(o.tenants))
		}
		return q
	}
	var t *scaleTarget
	var err error
	if o.http {
		// The server gets the database to itself.
		closeStore()
		t, err = o.httpTarget(ctx, dsn, rep)
	} else {
		t = o.inProcessTarget(store, rep)
	}
	if err != nil {
		return err
	}
	defer t.stop()
	var cold, warm []float64
	var warmScopes []loci.SearchQuery
	err = o.profile(func() (err error) {
		cold, warm, warmScopes, err = o.timeScale(ctx, t.search, scope, gen)
		return err
	})
	if err != nil {
		return err
	}
	rep.Cold, rep.Warm = latencyReport(cold), latencyReport(warm)
	rep.PeakRSSMB = t.rss()
	t.indexStats()
	if o.dims > 0 {
		// After the peak is read: this holds indexes of its own.
		if err := o.scaleRecall(ctx, store, emb, warmScopes, gen, rep); err != nil {
			return err
		}
	}
	o.progress("cold: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms; warm: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms; peak RSS %.0f MB",
		rep.Cold["p50_ms"], rep.Cold["p95_ms"], rep.Cold["p99_ms"], rep.Warm["p50_ms"], rep.Warm["p95_ms"], rep.Warm["p99_ms"], rep.PeakRSSMB)
	closeStore()
	if o.asJSON {
		return printJSON(e.stdout, rep)
	}
	printScaleReport(e, o, rep)
	return nil
}

// scaleTarget is what the scale run searches: a search, the peak memory
// of whoever searched, what the indexes hold (into the report, in this
// process) and how to stop it.
type scaleTarget struct {
	search     func(context.Context, loci.SearchQuery) error
	rss        func() float64
	indexStats func()
	stop       func()
}

// httpTarget starts o.replicas servers on the bench's database and
// searches them in turn.
func (o benchOptions) httpTarget(ctx context.Context, dsn string, rep *scaleReport) (*scaleTarget, error) {
	bin := o.serveBin
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	db := dsn
	if db == "" {
		db = filepath.Join(o.dir, "bench.db")
	}
	var srvs []*benchServer
	var clients []*client
	t := &scaleTarget{indexStats: func() {}, stop: func() {
		for _, srv := range srvs {
			srv.stop()
		}
	}}
	for range o.replicas {
		srv, err := startBenchServer(ctx, bin, append([]string{"--db", db, "--index-memory", formatSize(o.indexMemory)}, o.serveArgs...)...)
		if err != nil {
			t.stop()
			return nil, err
		}
		o.progress("server %s at %s", bin, srv.url)
		srvs, clients = append(srvs, srv), append(clients, newClient(srv.url))
	}
	turn := 0
	t.search = func(ctx context.Context, q loci.SearchQuery) error {
		c := clients[turn%len(clients)]
		turn++
		return c.post(ctx, "/v1/search", q, nil)
	}
	t.rss = func() float64 {
		var top float64
		for _, srv := range srvs {
			_, peak := srv.rssMB()
			if err := o.inspectServer(srv); err != nil {
				o.progress("server heap: %v", err)
			}
			top = max(top, peak)
			if len(srvs) > 1 {
				rep.ReplicaPeakRSSMB = append(rep.ReplicaPeakRSSMB, peak)
			}
		}
		return top
	}
	return t, nil
}

// inProcessTarget searches store with a service of this process, whose
// peak memory is measured from here on (loading is not what is measured),
// with the runtime tuned as serve tunes it.
func (o benchOptions) inProcessTarget(store loci.Store, rep *scaleReport) *scaleTarget {
	svc := rules.New(store, o.serviceOptions()...)
	tuneRuntime(o.indexMemory)
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return &scaleTarget{
		search: func(ctx context.Context, q loci.SearchQuery) error { _, err := svc.Search(ctx, q); return err },
		rss:    func() float64 { _, peak := procRSS(os.Getpid()); return peak },
		indexStats: func() {
			st := svc.IndexStats()
			rep.IndexEntries, rep.IndexEvictions = st.Entries, st.Evictions
		},
		stop: func() {},
	}
}

// timeScale times o.queries cold searches of new scopes, then o.queries
// warm ones of the first 100 of them again, with new queries; it returns
// the latencies in ms, sorted, and the warm scopes.
func (o benchOptions) timeScale(ctx context.Context, search func(context.Context, loci.SearchQuery) error, scope func(int) loci.SearchQuery, gen *textgen.Gen) (cold, warm []float64, warmScopes []loci.SearchQuery, err error) {
	for i := range o.queries {
		q := scope(i)
		t0 := time.Now()
		if err := search(ctx, q); err != nil {
			return nil, nil, nil, err
		}
		cold = append(cold, float64(time.Since(t0).Microseconds())/1000)
		if len(warmScopes) < 100 {
			warmScopes = append(warmScopes, q)
		}
		if i%100 == 99 {
			o.progress("cold searches: %d of %d", i+1, o.queries)
		}
	}
	for i := range o.queries {
		q := warmScopes[i%len(warmScopes)]
		q.Query = gen.Query()
		t0 := time.Now()
		if err := search(ctx, q); err != nil {
			return nil, nil, nil, err
		}
		warm = append(warm, float64(time.Since(t0).Microseconds())/1000)
	}
	sortFloats(cold)
	sortFloats(warm)
	return cold, warm, warmScopes, nil
}

// scaleRecall measures the recall@10 of the index's vector search
// against exact float32 search over the warm scopes.
func (o benchOptions) scaleRecall(ctx context.Context, store loci.Store, emb loci.Embedder, warmScopes []loci.SearchQuery, gen *textgen.Gen, rep *scaleReport) error {
	var scopes []loci.RecordFilter
	var texts []string
	for _, q := range warmScopes {
		scopes = append(scopes, loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: nilIfEmpty(q.AgentID), UserID: nilIfEmpty(q.UserID)})
		texts = append(texts, gen.Query())
	}
	recall, n, err := vectorRecall(ctx, store, emb, o.indexMemory, scopes, texts)
	if err != nil {
		return err
	}
	rep.Dims, rep.VectorRecall = o.dims, round3(recall)
	o.progress("%d dims: vector recall@10 against exact float32 %.4f over %d queries", o.dims, recall, n)
	return nil
}

// printScaleReport prints rep as a table.
func printScaleReport(e *env, o benchOptions, rep *scaleReport) {
	fmt.Fprintf(e.stdout, "%s: %d memories over %d agents and users\n", rep.Backend, rep.Memories, rep.Tenants)
	fmt.Fprintf(e.stdout, "load_per_s            %10.0f\n", rep.LoadPerS)
	for _, l := range []struct {
		name string
		m    map[string]float64
	}{{"cold", rep.Cold}, {"warm", rep.Warm}} {
		fmt.Fprintf(e.stdout, "search %-4s           p50 %6.2f ms  p95 %6.2f ms  p99 %6.2f ms\n", l.name, l.m["p50_ms"], l.m["p95_ms"], l.m["p99_ms"])
	}
	fmt.Fprintf(e.stdout, "peak_rss_mb           %10.1f (index memory %s)\n", rep.PeakRSSMB, formatSize(o.indexMemory))
	if rep.Dims > 0 {
		fmt.Fprintf(e.stdout, "vector_recall@10      %10.3f (%d dims, against exact float32)\n", rep.VectorRecall, rep.Dims)
	}
	for i, mb := range rep.ReplicaPeakRSSMB {
		fmt.Fprintf(e.stdout, "replica %d peak_rss_mb %10.1f\n", i+1, mb)
	}
}

// openStore opens the bench's store: SQLite in o.dir, or PostgreSQL in a
// schema of its own. dsn is the PostgreSQL URL a server would use to reach
// that schema ("" for SQLite); closeConns closes the bench's connections
// (more than once is fine), cleanup drops the schema.
func (o benchOptions) openStore(ctx context.Context) (store loci.Store, dsn string, closeConns, cleanup func(), err error) {
	if o.dsn != "" {
		pg, schema, err := openBenchPostgres(ctx, o.dsn)
		if err != nil {
			return nil, "", nil, nil, err
		}
		o.progress("PostgreSQL %s, in schema %s (dropped after)", redactDSN(o.dsn), schema)
		dsn, err := withSearchPath(o.dsn, schema+",public")
		if err != nil {
			pg.Close()
			return nil, "", nil, nil, err
		}
		var once sync.Once
		closeConns = func() { once.Do(func() { pg.DB.Close() }) }
		return pg, dsn, closeConns, func() { closeConns(); pg.drop() }, nil
	}
	lite, err := sqlite.Open(ctx, filepath.Join(o.dir, "bench.db"))
	if err != nil {
		return nil, "", nil, nil, err
	}
	var once sync.Once
	closeConns = func() { once.Do(func() { lite.Close() }) }
	return lite, "", closeConns, closeConns, nil
}

// withSearchPath returns a postgres:// URL with its search_path set.
func withSearchPath(dsn, path string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", loci.Errorf(loci.EINVALID, "invalid PostgreSQL URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", path)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func sortFloats(xs []float64) { sort.Float64s(xs) }

// nilIfEmpty returns a pointer to s, or nil when it is empty.
func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
