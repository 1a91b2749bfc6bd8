// Package memory holds loci's rules: validation, limits, versions,
// confidence, decay, consolidation. They are written once, here, above the
// backends, and run inside the transactions a loci.Store hands out, so a
// rule tested once holds on every backend.
package rules

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/index"
)

var _ loci.Service = (*Service)(nil)

// Service implements loci.Service on a store.
type Service struct {
	store  loci.Store
	clock  loci.Clock
	logger *slog.Logger
	keep   retention // working, episode limits (retention.go)

	embedder loci.Embedder // nil: lexical search only
	ranking  RankingParams
	queue    *embedQueue
	// queryEmbedDown is when (Unix nanoseconds) searches may embed their
	// query again after it failed (see embedQuery); 0: now.
	queryEmbedDown atomic.Int64

	// conv reads conversations: the chat model and the queue of adds
	// run in the background (conversations.go).
	conv conversations

	// auditOn: every operation writes its audit entry (on by default);
	// auditQ holds those written in batches.
	auditOn bool
	auditQ  *auditQueue

	// index holds the search indexes of the scopes searched (package
	// index), within indexBudget bytes.
	index       *index.Cache
	indexBudget int64

	// workers are the stop functions of the embedding workers
	// StartEmbedding started, which Close stops; closed is set by Close.
	mu      sync.Mutex
	workers []func()
	closed  bool
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock every time-dependent rule reads.
func WithClock(c loci.Clock) Option { return func(s *Service) { s.clock = c } }

// WithAudit turns the audit log on or off (on by default): every
// operation writes an entry, whatever the interface that called it.
func WithAudit(on bool) Option { return func(s *Service) { s.auditOn = on } }

// WithIndexBudget bounds the memory of the in-memory search indexes, in
// bytes (default index.DefaultBudget): the indexes of the scopes searched
// are kept least-recently-used within it, and a scope too large for it is
// searched by a streaming pass over its records.
func WithIndexBudget(bytes int64) Option { return func(s *Service) { s.indexBudget = bytes } }

// WithLogger sets the service's logger.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.logger = l } }

// New returns a service on store.
func New(store loci.Store, opts ...Option) *Service {
	s := &Service{store: store, clock: loci.SystemClock{}, logger: slog.Default(), ranking: DefaultRanking(), indexBudget: index.DefaultBudget, auditOn: true}
	s.auditQ = newAuditQueue(s)
	for _, o := range opts {
		o(s)
	}
	iopts := []index.Option{index.WithBudget(s.indexBudget), index.WithConfidence(confidence01), index.WithConversational(isMessage), index.WithQuestion(asksQuestion), index.WithTermFold(analysis.FoldStem), index.WithSpeaker(speakerOf)}
	if s.embedder != nil {
		iopts = append(iopts, index.WithModel(s.embedder.Model()))
	}
	s.index = index.New(iopts...)
	return s
}

// Close ends the service: it stops the embedding workers StartEmbedding
// started (waiting for the batch in hand), writes the audit entries that
// wait in the queue (reads are audited in batches), then closes the
// store. A program calls it once, after its last operation, instead of
// closing the store itself, so that no audit entry is lost. Calling it
// again does nothing and returns nil.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	workers := s.workers
	s.workers = nil
	s.mu.Unlock()
	for _, stop := range workers {
		stop()
	}
	ferr := s.auditQ.close(context.Background())
	if err := s.store.Close(); err != nil {
		return fmt.Errorf("close the store: %w", err)
	}
	if ferr != nil {
		return fmt.Errorf("write the audit log before closing: %w", ferr)
	}
	return nil
}

// IndexStats reports what the search indexes hold and did.
func (s *Service) IndexStats() index.CacheStats { return s.index.Stats() }

// Store returns the service's store.
func (s *Service) Store() loci.Store { return s.store }

// Ping reports whether the store is reachable.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// now returns the clock's time in UTC at the precision every backend keeps.
func (s *Service) now() time.Time {
	return s.clock.Now().UTC().Truncate(time.Microsecond)
}

// newID returns a time-ordered UUIDv7.
func newID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// malformed logs a stored record that cannot be read as its kind (written
// by hand into the database, or by an older import that did not check it)
// and that a listing therefore leaves out: one bad row must not fail a
// whole listing.
func (s *Service) malformed(r *loci.Record, err error) {
	s.logger.Warn("skipping a malformed record", "id", r.ID, "kind", r.Kind, "err", err)
}
