package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/web"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := loadConfig()
	cfg.serveFlags(fs)
	if pos, err := cfg.parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	sc := cfg.Serve
	// Allocations are sampled for a heap profile only when one is served
	// (--pprof): the runtime samples by default, and keeps the stacks it
	// sampled as long as the process.
	runtime.MemProfileRate = 0
	if sc.Pprof != "" {
		runtime.MemProfileRate = defaultMemProfileRate
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))

	svc, err := openService(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer svc.Close()
	if sc.Pprof != "" {
		a, err := servePprof(sc.Pprof)
		if err != nil {
			return err
		}
		logger.Info("pprof", "addr", a.String())
	}
	defer svc.StartEmbedding(ctx)()
	defer svc.StartEvents(ctx)()
	// The scheduled tasks end when serve returns, and the store closes
	// only after they have (defers run last first).
	var background sync.WaitGroup
	defer background.Wait()
	bgCtx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()

	if err := checkOpenAccess(ctx, svc, sc); err != nil {
		return err
	}
	// Beyond loopback, authentication stays on even if every key is
	// revoked later (on loopback, revoking the last key turns it off).
	opts := []httpapi.Option{
		httpapi.WithAuth(sc.Auth || !isLoopback(sc.Addr)), httpapi.WithAudit(cfg.Audit), httpapi.WithRateLimit(sc.RateLimit, sc.RateBurst),
		httpapi.WithObserver(svc.metrics), httpapi.WithMetrics(svc.metrics.Handler()), httpapi.WithMaxImportBytes(sc.MaxImportBytes),
	}
	ln, err := net.Listen("tcp", sc.Addr)
	if err != nil {
		return listenError(sc.Addr, err)
	}
	handler := newHandler(svc.Service, logger, cfg.Audit, opts...)
	var open atomic.Int64 // connections open, for the drain
	srv := newHTTPServer(sc, handler, &open)
	if retention := (loci.AuditRetention{MaxAge: sc.AuditRetention, MaxEntries: sc.AuditMaxEntries}); retention != (loci.AuditRetention{}) {
		background.Go(func() { pruneAudit(bgCtx, svc.Service, retention, logger) })
	}
	// The address line is printed on stdout so scripts and tests can find
	// the port when --addr ends in :0.
	fmt.Fprintf(e.stdout, "loci listening on http://%s\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", svc.db, "chat_model", chatModelName(svc.ChatModel()))

	if sc.MaintainEvery > 0 {
		background.Go(func() { maintainEvery(bgCtx, svc.Service, sc.MaintainEvery, logger) })
	}
	releaseStartupPages()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return shutdown(svc, sc, logger, srv, ln, handler, &open)
}

// chatModelName names the chat model that reads conversations, or says
// there is none.
func chatModelName(m loci.ChatModel) string {
	if m == nil {
		return "none (each user message becomes one memory)"
	}
	return m.Model()
}

// checkOpenAccess refuses to serve beyond loopback with authentication
// off and no key: anyone who could reach it could read and change every
// memory.
func checkOpenAccess(ctx context.Context, svc *service, sc *ServeConfig) error {
	if sc.Auth {
		return nil
	}
	has, err := svc.HasKeys(ctx)
	if err != nil {
		return err
	}
	if !has && !isLoopback(sc.Addr) {
		return loci.Errorf(loci.EINVALID, "refusing to listen on %s with authentication off: anyone who can reach it "+
			"could read and change every memory. Create a key first (loci keys create --role admin), pass --auth, "+
			"or listen on 127.0.0.1", sc.Addr)
	}
	return nil
}

// newHTTPServer is the server of handler with serve's timeouts, counting
// in open the connections open, for the drain.
func newHTTPServer(sc *ServeConfig, handler http.Handler, open *atomic.Int64) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: sc.ReadHeaderTimeout,
		ReadTimeout:       sc.ReadTimeout,
		WriteTimeout:      sc.WriteTimeout,
		IdleTimeout:       sc.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				open.Add(1)
			case http.StateClosed, http.StateHijacked:
				open.Add(-1)
			}
		},
	}
}

// shutdown drains srv (its open connections counted in open) within the
// shutdown timeout and writes what waits for the audit log.
func shutdown(svc *service, sc *ServeConfig, logger *slog.Logger, srv *http.Server, ln net.Listener, handler *httpapi.Server, open *atomic.Int64) error {
	logger.Info("shutting down: draining", "timeout", sc.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), sc.ShutdownTimeout)
	defer cancel()
	err := drain(shutdownCtx, srv, ln, handler, open)
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

// drainGrace bounds how long a drain waits for the clients of open
// connections to send a request (refused, with "Connection: close") and
// so learn that the server is going, before idle connections are closed.
const drainGrace = time.Second

// drain shuts srv down without cutting a request it accepted: it stops
// accepting connections (a new one is refused), makes the handler answer
// every request from now on 503 with "Connection: close" (requests being
// handled finish as usual), waits until every open connection has closed
// or drainGrace has passed, then closes what is idle and waits, until ctx
// ends, for the requests still being handled. Closing an idle keep-alive
// connection at once would cut a request its client sent at that moment
// (the client cannot tell it was not read, and does not retry a PUT).
func drain(ctx context.Context, srv *http.Server, ln net.Listener, h *httpapi.Server, open *atomic.Int64) error {
	h.Drain()
	ln.Close()
	grace := time.NewTimer(drainGrace)
	defer grace.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
wait:
	for open.Load() > 0 {
		select {
		case <-ctx.Done():
			break wait
		case <-grace.C:
			break wait
		case <-tick.C:
		}
	}
	return srv.Shutdown(ctx)
}

// newHandler is what loci serve serves: the REST API, with MCP's
// streamable HTTP at /mcp behind the same guard, so an MCP session
// authenticates with an API key like any request, acts for the key's
// agent and role, and has each tool call audited; and the web inspector
// at /, which calls the REST API from the browser.
func newHandler(svc loci.Service, logger *slog.Logger, audit bool, opts ...httpapi.Option) *httpapi.Server {
	mcpHandler := mcpserver.NewHandler(svc, mcpserver.KeyIdentity, mcpserver.WithLogger(logger), mcpserver.WithAudit(audit), mcpserver.WithVersion(lociVersion()))
	return httpapi.NewServer(svc, logger, append(opts, httpapi.WithMCP(mcpHandler), httpapi.WithInspector(web.Handler()))...)
}

// listenError says why loci serve cannot listen on addr, and what to do.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return loci.Errorf(loci.EINVALID, "cannot listen on %s: the address is already in use (another loci serve, "+
			"or another program, listens there); stop it, or pick another address with --addr, e.g. --addr 127.0.0.1:0 "+
			"for any free port", addr)
	case errors.Is(err, syscall.EACCES):
		return loci.Errorf(loci.EINVALID, "cannot listen on %s: permission denied (ports below 1024 need privileges); "+
			"pick another address with --addr, e.g. --addr 127.0.0.1:8420", addr)
	}
	return loci.Errorf(loci.EINVALID, "cannot listen on %s: %v; pick another address with --addr", addr, err)
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

// pruneAuditEvery is how often loci serve applies the audit retention.
const pruneAuditEvery = time.Minute

// pruneAudit applies the audit retention now and then every
// pruneAuditEvery until ctx ends.
func pruneAudit(ctx context.Context, svc *rules.Service, retention loci.AuditRetention, logger *slog.Logger) {
	t := time.NewTicker(pruneAuditEvery)
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
