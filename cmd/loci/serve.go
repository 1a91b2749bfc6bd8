package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/memory"
	"github.com/loci-memory/loci/metrics"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/web"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8420", "address to listen on")
	dsn := dbFlag(fs)
	dbTimeout := dbTimeoutFlag(fs)
	maintainEach := fs.Duration("maintain-every", 0, "run every maintenance task at this interval, e.g. 1h (default off)")
	auth := fs.Bool("auth", false, "require an API key even while none exists (it is required anyway once one exists)")
	rateLimit := fs.Float64("rate-limit", 0, "requests per second allowed per key (per client IP without auth); 0: no limit")
	rateBurst := fs.Int("rate-burst", 50, "burst allowed above --rate-limit")
	auditOn := fs.Bool("audit", true, "write every memory access to the audit log")
	auditRetention := fs.Duration("audit-retention", 0, "delete audit entries older than this (e.g. 720h); 0: keep them")
	retryBackoff := fs.Duration("retry-backoff", retry.DefaultBackoff, "wait before retrying a transient storage error once")
	maxImport := fs.Int64("max-import-bytes", httpapi.DefaultMaxImportBytes, "largest POST /v1/import body")
	readHeader := fs.Duration("read-header-timeout", 10*time.Second, "time to read a request's headers")
	read := fs.Duration("read-timeout", 30*time.Second, "time to read a whole request")
	write := fs.Duration("write-timeout", 60*time.Second, "time to write a response (export is exempt)")
	idle := fs.Duration("idle-timeout", 120*time.Second, "how long an idle keep-alive connection is kept")
	indexMemory := indexMemoryFlag(fs)
	pprofAddr := fs.String("pprof", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060); off by default")
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	} else if *maintainEach < 0 {
		return usagef("--maintain-every must not be negative")
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))

	raw, path, err := openRawStore(ctx, *dsn, *dbTimeout)
	if err != nil {
		return err
	}
	defer raw.Close()
	emb, err := newEmbedder()
	if err != nil {
		return err
	}
	ranking, err := rankingOptions()
	if err != nil {
		return err
	}
	m := metrics.New()
	store := m.Store(retry.New(raw, *retryBackoff, retry.WithLogger(logger)))
	svc := memory.New(store, append([]memory.Option{memory.WithLogger(logger), memory.WithEmbedder(emb), memory.WithEmbedQueueDepth(m.SetEmbeddingQueueDepth),
		memory.WithAudit(*auditOn),
		applyIndexMemory(indexMemory)}, ranking...)...)
	if *pprofAddr != "" {
		a, err := servePprof(*pprofAddr)
		if err != nil {
			return err
		}
		logger.Info("pprof", "addr", a.String())
	}
	defer svc.StartEmbedding(ctx)()
	// The scheduled tasks end when serve returns, and the store closes
	// only after they have (defers run last first).
	var background sync.WaitGroup
	defer background.Wait()
	bgCtx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()

	if !*auth {
		has, err := svc.HasKeys(ctx)
		if err != nil {
			return err
		}
		if !has && !isLoopback(*addr) {
			return loci.Errorf(loci.EINVALID, "refusing to listen on %s with authentication off: anyone who can reach it "+
				"could read and change every memory. Create a key first (loci keys create --role admin), pass --auth, "+
				"or listen on 127.0.0.1", *addr)
		}
	}
	// Beyond loopback, authentication stays on even if every key is
	// revoked later (on loopback, revoking the last key turns it off).
	opts := []httpapi.Option{
		httpapi.WithAuth(*auth || !isLoopback(*addr)), httpapi.WithAudit(*auditOn), httpapi.WithRateLimit(*rateLimit, *rateBurst),
		httpapi.WithObserver(m), httpapi.WithMetrics(m.Handler()), httpapi.WithMaxImportBytes(*maxImport),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	srv := &http.Server{
		Handler:           newHandler(svc, logger, *auditOn, opts...),
		ReadHeaderTimeout: *readHeader,
		ReadTimeout:       *read,
		WriteTimeout:      *write,
		IdleTimeout:       *idle,
		MaxHeaderBytes:    64 << 10,
	}
	if *auditRetention > 0 {
		background.Go(func() { pruneAudit(bgCtx, svc, *auditRetention, logger) })
	}
	// The address line is printed on stdout so scripts and tests can find
	// the port when --addr ends in :0.
	fmt.Fprintf(e.stdout, "loci listening on http://%s\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", path)

	if *maintainEach > 0 {
		background.Go(func() { maintainEvery(bgCtx, svc, *maintainEach, logger) })
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	// What waits to be written to the audit log is written before the
	// store closes.
	if ferr := svc.FlushAudit(shutdownCtx); ferr != nil {
		logger.Error("audit log write failed", "err", ferr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// newHandler is what loci serve serves: the REST API, with MCP's
// streamable HTTP at /mcp behind the same guard, so an MCP session
// authenticates with an API key like any request, acts for the key's
// agent and role, and has each tool call audited; and the web inspector
// at /, which calls the REST API from the browser.
func newHandler(svc loci.Service, logger *slog.Logger, audit bool, opts ...httpapi.Option) http.Handler {
	mcpHandler := mcpserver.NewHandler(svc, mcpserver.KeyIdentity, mcpserver.WithLogger(logger), mcpserver.WithAudit(audit), mcpserver.WithVersion(lociVersion()))
	return httpapi.NewServer(svc, logger, append(opts, httpapi.WithMCP(mcpHandler), httpapi.WithInspector(web.Handler()))...)
}

// isLoopback reports whether addr listens only on a loopback interface; an
// empty host (every interface) or any other name is not loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pruneAudit applies the audit retention now and then hourly until ctx
// ends.
func pruneAudit(ctx context.Context, svc *memory.Service, retention time.Duration, logger *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := svc.PruneAudit(ctx, retention); err != nil {
			logger.Error("audit retention", "err", err)
		} else if n > 0 {
			logger.Info("audit retention: pruned old entries", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
