package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// byteSize is a flag holding a size in bytes, written as 256MB, 1GiB,
// 512k or a plain number of bytes.
type byteSize int64

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// parseSize reads a size: a number with an optional unit, K/M/G (powers of
// 1024, with or without a trailing B or iB, any case).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GIB", 1 << 30}, {"GB", 1 << 30}, {"G", 1 << 30}, {"MIB", 1 << 20}, {"MB", 1 << 20}, {"M", 1 << 20},
		{"KIB", 1 << 10}, {"KB", 1 << 10}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || n*float64(mult) > 1<<50 {
		return 0, fmt.Errorf("%q is not a size (e.g. 256MB, 1GiB)", s)
	}
	return int64(n * float64(mult)), nil
}

func formatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return strconv.FormatInt(n, 10)
}

// memoryHeadroom is what a process may use beside its search indexes:
// everything else it holds, and the garbage between two collections.
const memoryHeadroom = 96 << 20

// tuneRuntime tunes the garbage collector for a long-lived process whose
// search indexes may take budget bytes: unless GOMEMLIMIT is set, the
// budget plus headroom is the Go runtime's soft memory limit, and unless
// GOGC is set, the heap may grow by half of what is live (not by all of it)
// before a collection.
func tuneRuntime(budget int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(budget + memoryHeadroom)
	}
	if os.Getenv("GOGC") == "" {
		// Most of a server's heap is its search indexes, which live long:
		// collecting at half their size again (not at twice) keeps the
		// process near what it holds, for a little more GC work.
		debug.SetGCPercent(serverGCPercent)
	}
}

// serverGCPercent is the GOGC that serve and mcp run with unless GOGC is set.
const serverGCPercent = 25

// defaultMemProfileRate is the Go runtime's default runtime.MemProfileRate:
// one sample per 512 KiB allocated.
const defaultMemProfileRate = 512 << 10

// servePprof serves net/http/pprof on addr until the process ends, for
// profiling a running server (loci serve --pprof 127.0.0.1:6060).
func servePprof(addr string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pprof: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go http.Serve(ln, mux)
	return ln.Addr(), nil
}
