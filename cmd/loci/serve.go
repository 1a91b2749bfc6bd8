package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/memory"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8420", "address to listen on")
	dsn := dbFlag(fs)
	if pos, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))

	store, path, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	emb, err := newEmbedder()
	if err != nil {
		return err
	}
	svc := memory.New(store, memory.WithLogger(logger), memory.WithEmbedder(emb))
	defer svc.StartEmbedding(ctx)()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	srv := &http.Server{
		Handler:           httpapi.NewServer(svc, logger),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	// The address line is printed on stdout so scripts and tests can find
	// the port when --addr ends in :0.
	fmt.Fprintf(e.stdout, "loci listening on http://%s\n", ln.Addr())
	logger.Info("serving", "addr", ln.Addr().String(), "db", path)

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
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
