package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/rules"
)

// benchAgent is the one agent of the standard run.
const benchAgent = "bench-agent"

// storeBench is the standard run's state: the store, its service, the
// passage generator and how many passages are stored.
type storeBench struct {
	o      benchOptions
	db     loci.Store
	svc    *rules.Service
	gen    *textgen.Gen
	stored int
	// The batched ingest: passages and time.
	batchedN    int
	batchedTime time.Duration
	// peakBefore is the process's peak before the last reset (searchAt).
	peakBefore float64
}

// runStoreBench is the standard run: ingest rates, then hybrid search of
// one agent's passages at each size, in this process.
func runStoreBench(ctx context.Context, e *env, o benchOptions) error {
	db, _, closeStore, cleanup, err := o.openStore(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	defer closeStore()
	b := &storeBench{o: o, db: db, svc: rules.New(db, o.serviceOptions()...), gen: textgen.New(1)}
	rep := &benchReport{Search: map[string]map[string]float64{}}
	if rep.IngestSingle, err = b.ingestSingle(ctx); err != nil {
		return err
	}
	for _, n := range o.sizes {
		if err := b.fill(ctx, n); err != nil {
			return err
		}
		if err := b.searchAt(ctx, n, rep); err != nil {
			return err
		}
	}
	if b.batchedN > 0 {
		rep.IngestBatched = round2(float64(b.batchedN) / b.batchedTime.Seconds())
	}
	o.progress("ingest, %d per transaction: %.0f passages/s", o.batch, rep.IngestBatched)
	rep.PeakRSSMB = round2(max(b.peakBefore, peakRSSMB()))
	if o.dims > 0 {
		if err := b.recall(ctx, rep); err != nil {
			return err
		}
	}
	if o.asJSON {
		return printJSON(e.stdout, rep)
	}
	printStoreReport(e, o, rep)
	return nil
}

// passage returns a new passage of the bench agent.
func (b *storeBench) passage() *loci.Record {
	content := b.gen.Passage()
	now := time.Now().UTC()
	return &loci.Record{
		ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
		Scope: loci.Scope{AgentID: benchAgent}, Content: content, SearchText: analysis.SearchText(content),
		CreatedAt: now, UpdatedAt: now, Version: 1,
	}
}

// insert stores recs in one transaction.
func (b *storeBench) insert(ctx context.Context, recs []*loci.Record) error {
	return b.db.Update(ctx, func(tx loci.Tx) error {
		for _, r := range recs {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// ingestSingle stores o.single passages one per transaction (what one API
// call does) and returns the rate.
func (b *storeBench) ingestSingle(ctx context.Context) (float64, error) {
	start := time.Now()
	for range b.o.single {
		if err := b.insert(ctx, []*loci.Record{b.passage()}); err != nil {
			return 0, err
		}
	}
	b.stored = b.o.single
	rate := round2(float64(b.o.single) / time.Since(start).Seconds())
	b.o.progress("ingest, one per transaction: %.0f passages/s", rate)
	return rate, nil
}

// fill stores passages, o.batch per transaction, until n are stored, then
// embeds them when the run has an embedder. Embeddings are not awaited by
// the inserts (they are queued), so the time is the write rate.
func (b *storeBench) fill(ctx context.Context, n int) error {
	for b.stored < n {
		k := min(b.o.batch, n-b.stored)
		recs := make([]*loci.Record, k)
		for i := range recs {
			recs[i] = b.passage()
		}
		t0 := time.Now()
		if err := b.insert(ctx, recs); err != nil {
			return err
		}
		b.batchedTime += time.Since(t0)
		b.batchedN += k
		b.stored += k
	}
	if b.o.emb == nil {
		return nil
	}
	t0 := time.Now()
	embedded, err := b.svc.Reindex(ctx, nil)
	if err != nil {
		return err
	}
	b.o.progress("%d passages: embedded %d in %v (%.0f/s, %s)", n, embedded, time.Since(t0).Round(time.Millisecond),
		float64(embedded)/time.Since(t0).Seconds(), b.o.emb.Model())
	return nil
}

// searchAt times searches at n passages. What it measures is the server's
// part: from the index's load on, with the runtime tuned as serve tunes
// it, and its peak memory (VmHWM, reset first, where Linux allows; the
// ingest and the embedding before are the clients' work, in this process
// only because the bench runs in one).
func (b *storeBench) searchAt(ctx context.Context, n int, rep *benchReport) error {
	b.peakBefore = max(b.peakBefore, peakRSSMB())
	tuneRuntime(b.o.indexMemory)
	runtime.GC()
	debug.FreeOSMemory()
	reset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	var lat []float64
	var first float64
	err := b.o.profile(func() (err error) {
		lat, first, err = benchSearch(ctx, b.svc, b.gen, benchAgent, b.o.queries)
		return err
	})
	if err != nil {
		return err
	}
	rep.Search[strconv.Itoa(n)] = map[string]float64{
		"p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99),
		"first_ms": round2(first),
	}
	if reset {
		rep.SearchPeakRSSMB = round2(peakRSSMB())
	}
	st := b.svc.IndexStats()
	b.o.progress("%d passages: first search (the index's load) %.0f ms; hybrid search p50 %.2f ms, p95 %.2f ms, p99 %.2f ms (index: %d held, %.0f MB, %d loads, %d streamed; peak RSS from the load on %.1f MB)", n, first,
		percentile(lat, 50), percentile(lat, 95), percentile(lat, 99), st.Entries, float64(st.Bytes)/(1<<20), st.Loads, st.Streams, rep.SearchPeakRSSMB)
	return nil
}

// recall measures the recall@10 of the index's vector search against
// exact float32 search, over 100 queries of the bench agent.
func (b *storeBench) recall(ctx context.Context, rep *benchReport) error {
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = b.gen.Query()
	}
	a := benchAgent
	recall, n, err := vectorRecall(ctx, b.db, b.o.emb, b.o.indexMemory, []loci.RecordFilter{{Workspace: loci.DefaultWorkspace, AgentID: &a}}, texts)
	if err != nil {
		return err
	}
	rep.Dims, rep.VectorRecall = b.o.dims, round3(recall)
	b.o.progress("%d dims: vector recall@10 against exact float32 %.4f over %d queries", b.o.dims, recall, n)
	return nil
}

// printStoreReport prints rep as a table.
func printStoreReport(e *env, o benchOptions, rep *benchReport) {
	fmt.Fprintf(e.stdout, "ingest_per_s_single   %10.0f\n", rep.IngestSingle)
	fmt.Fprintf(e.stdout, "ingest_per_s_batched  %10.0f\n", rep.IngestBatched)
	for _, n := range o.sizes {
		s := rep.Search[strconv.Itoa(n)]
		fmt.Fprintf(e.stdout, "search @%-8d p50 %6.2f ms  p95 %6.2f ms  p99 %6.2f ms\n", n, s["p50_ms"], s["p95_ms"], s["p99_ms"])
	}
	fmt.Fprintf(e.stdout, "peak_rss_mb           %10.1f\n", rep.PeakRSSMB)
	if rep.SearchPeakRSSMB > 0 {
		fmt.Fprintf(e.stdout, "search_peak_rss_mb    %10.1f (from the index load on, runtime tuned as serve; index memory %s)\n", rep.SearchPeakRSSMB, formatSize(o.indexMemory))
	}
	if rep.Dims > 0 {
		fmt.Fprintf(e.stdout, "vector_recall@10      %10.3f (%d dims, against exact float32)\n", rep.VectorRecall, rep.Dims)
	}
}
