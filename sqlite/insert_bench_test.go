//go:build unix

package sqlite

import (
	"context"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/textgen"
)

// BenchmarkInsertBatched stores passages 1000 to a transaction into a
// database file, as `loci bench` times its batched ingest; the records are
// made before the clock runs. It reports passages per second of wall
// time and of this process's CPU time (steadier on a loaded machine).
//
//	go test ./sqlite -run XXX -bench InsertBatched -benchtime 20x
func BenchmarkInsertBatched(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "loci.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	gen := textgen.New(1)
	const batch = 1000
	n := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		recs := make([]*loci.Record, batch)
		for i := range recs {
			content := gen.Passage()
			now := time.Now().UTC()
			recs[i] = &loci.Record{
				ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
				Scope: loci.Scope{AgentID: "bench-agent"}, Content: content, SearchText: analysis.SearchText(content),
				CreatedAt: now, UpdatedAt: now, Version: 1,
			}
		}
		b.StartTimer()
		c0 := cpuTime()
		err := db.Update(ctx, func(tx loci.Tx) error {
			for _, r := range recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		n += batch
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(n)/cpu.Seconds(), "records/cpu-s")
}

// BenchmarkIngest10k is `loci bench`'s ingest at its default size: into a
// new database, 500 passages one per transaction, then 9,500 in
// transactions of 1,000, made before the clock runs. It reports the
// batched part's passages per second of wall time and of this process's
// CPU time; its transactions run under the profiler label phase=batched
// (go tool pprof -tagfocus phase=batched).
//
//	go test ./sqlite -run XXX -bench Ingest10k -benchtime 10x
func BenchmarkIngest10k(b *testing.B) {
	ctx := context.Background()
	gen := textgen.New(1)
	passage := func() *loci.Record {
		content := gen.Passage()
		now := time.Now().UTC()
		return &loci.Record{
			ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
			Scope: loci.Scope{AgentID: "bench-agent"}, Content: content, SearchText: analysis.SearchText(content),
			CreatedAt: now, UpdatedAt: now, Version: 1,
		}
	}
	insert := func(db *DB, recs []*loci.Record) error {
		return db.Update(ctx, func(tx loci.Tx) error {
			for _, r := range recs {
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
	}
	n := 0
	var wall, cpu time.Duration
	for range b.N {
		db, err := Open(ctx, filepath.Join(b.TempDir(), "loci.db"))
		if err != nil {
			b.Fatal(err)
		}
		for range 500 {
			if err := insert(db, []*loci.Record{passage()}); err != nil {
				b.Fatal(err)
			}
		}
		for stored := 500; stored < 10_000; stored += 1000 {
			recs := make([]*loci.Record, min(1000, 10_000-stored))
			for i := range recs {
				recs[i] = passage()
			}
			t0, c0 := time.Now(), cpuTime()
			pprof.Do(ctx, pprof.Labels("phase", "batched"), func(context.Context) { err = insert(db, recs) })
			wall, cpu = wall+time.Since(t0), cpu+cpuTime()-c0
			if err != nil {
				b.Fatal(err)
			}
			n += len(recs)
		}
		db.Close()
	}
	b.ReportMetric(float64(n)/wall.Seconds(), "records/s")
	b.ReportMetric(float64(n)/cpu.Seconds(), "records/cpu-s")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
