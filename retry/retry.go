// Package retry is the storage failure policy (docs/rules.md, "Storage trouble
// is retried once, then reported"): a loci.Store decorator that retries a
// transaction once, after a short backoff, when the backend marked its error
// transient (loci.Transient), and then reports the error.
package retry

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/loci-memory/loci"
)

// DefaultBackoff is how long to wait before the one retry: 2 seconds.
const DefaultBackoff = 2 * time.Second

// DefaultBudget is how long a transaction may take from its first attempt
// to the end of its retry (WithBudget): a database that does not answer
// is reported within it, the retry included.
const DefaultBudget = 5 * time.Second

var _ loci.Store = (*Store)(nil)

// Store wraps a loci.Store with the retry policy. A transaction function
// may therefore run twice: it must not keep state from a failed attempt
// (assign captured results, do not append to them).
type Store struct {
	loci.Store
	backoff time.Duration
	budget  time.Duration
	logger  *slog.Logger
	sleep   func(ctx context.Context, d time.Duration) error
}

// Option configures a Store.
type Option func(*Store)

// WithLogger sets where retried failures are logged.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// WithBudget bounds a transaction's first attempt, backoff and retry
// together: a transient failure is retried only when the backoff leaves
// time in the budget, and the retry must end within it (its context's
// deadline), so the error is reported at most budget after the first
// attempt began. The first attempt itself is bounded by the store's own
// timeouts, not the budget: a long transaction that makes progress is
// not cut. d <= 0 keeps DefaultBudget.
func WithBudget(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.budget = d
		}
	}
}

// WithSleep replaces how the backoff is waited (tests).
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(s *Store) { s.sleep = f }
}

// New wraps store: a transient failure is retried once after backoff.
func New(store loci.Store, backoff time.Duration, opts ...Option) *Store {
	s := &Store{Store: store, backoff: backoff, budget: DefaultBudget, logger: slog.Default(), sleep: sleepCtx}
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
	return s.do(ctx, "update", func(ctx context.Context) error { return s.Store.Update(ctx, fn) })
}

// View runs fn in a read-only transaction, retried once if it fails
// transiently.
func (s *Store) View(ctx context.Context, fn func(loci.Tx) error) error {
	return s.do(ctx, "view", func(ctx context.Context) error { return s.Store.View(ctx, fn) })
}

// Snapshot runs fn in a one-snapshot read-only transaction, retried once
// if it fails transiently.
func (s *Store) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	return s.do(ctx, "snapshot", func(ctx context.Context) error { return s.Store.Snapshot(ctx, fn) })
}

func (s *Store) do(ctx context.Context, op string, attempt func(context.Context) error) error {
	start := time.Now()
	err := attempt(ctx)
	if err == nil || !loci.IsTransient(err) {
		return err
	}
	// The retry fits in the budget or does not happen: a database that
	// took most of the budget to fail is not asked again.
	deadline := start.Add(s.budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if left := time.Until(deadline) - s.backoff; left < s.budget/10 {
		s.logger.Warn("transient storage error; no time left in the budget to retry", "op", op, "budget", s.budget, "err", err)
		return err
	}
	s.logger.Warn("transient storage error; retrying once", "op", op, "backoff", s.backoff, "err", err)
	if serr := s.sleep(ctx, s.backoff); serr != nil {
		return fmt.Errorf("storage %s: %w (retry abandoned: %v)", op, err, serr)
	}
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	rerr := attempt(rctx)
	if rerr == nil {
		return nil
	}
	if rctx.Err() != nil && ctx.Err() == nil {
		// The retry ran out of the budget: the storage still does not
		// answer, as the first attempt said.
		s.logger.Error("storage failed after a retry", "op", op, "err", err, "retry", rerr)
		return err
	}
	if loci.IsTransient(rerr) {
		s.logger.Error("storage failed after a retry", "op", op, "err", rerr)
	}
	return rerr
}
