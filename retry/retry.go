// Package retry is the storage failure policy of seed 001: a loci.Store
// decorator that retries a transaction once, after a short backoff, when
// the backend marked its error transient (loci.Transient), and then
// reports the error.
package retry

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/loci-memory/loci"
)

// DefaultBackoff is seed 001's "retry once after 2 seconds".
const DefaultBackoff = 2 * time.Second

var _ loci.Store = (*Store)(nil)

// Store wraps a loci.Store with the retry policy. A transaction function
// may therefore run twice: it must not keep state from a failed attempt
// (assign captured results, do not append to them).
type Store struct {
	loci.Store
	backoff time.Duration
	logger  *slog.Logger
	sleep   func(ctx context.Context, d time.Duration) error
}

// Option configures a Store.
type Option func(*Store)

// WithLogger sets where retried failures are logged.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// WithSleep replaces how the backoff is waited (tests).
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(s *Store) { s.sleep = f }
}

// New wraps store: a transient failure is retried once after backoff.
func New(store loci.Store, backoff time.Duration, opts ...Option) *Store {
	s := &Store{Store: store, backoff: backoff, logger: slog.Default(), sleep: sleepCtx}
	for _, o := range opts {
		o(s)
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Update runs fn in a read-write transaction, retried once if it fails
// transiently.
func (s *Store) Update(ctx context.Context, fn func(loci.Tx) error) error {
	return s.do(ctx, "update", func() error { return s.Store.Update(ctx, fn) })
}

// View runs fn in a read-only transaction, retried once if it fails
// transiently.
func (s *Store) View(ctx context.Context, fn func(loci.Tx) error) error {
	return s.do(ctx, "view", func() error { return s.Store.View(ctx, fn) })
}

// Snapshot runs fn in a one-snapshot read-only transaction, retried once
// if it fails transiently.
func (s *Store) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	return s.do(ctx, "snapshot", func() error { return s.Store.Snapshot(ctx, fn) })
}

func (s *Store) do(ctx context.Context, op string, attempt func() error) error {
	err := attempt()
	if err == nil || !loci.IsTransient(err) {
		return err
	}
	s.logger.Warn("transient storage error; retrying once", "op", op, "backoff", s.backoff, "err", err)
	if serr := s.sleep(ctx, s.backoff); serr != nil {
		return fmt.Errorf("storage %s: %w (retry abandoned: %v)", op, err, serr)
	}
	if err = attempt(); err != nil {
		if loci.IsTransient(err) {
			s.logger.Error("storage failed after a retry", "op", op, "err", err)
		}
		return err
	}
	return nil
}
