package rules

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loci-memory/loci"
)

// The embedding queue. A write never waits on the embedder and never fails
// because of it: records are stored without an embedding (the rules store
// Embedding nil whenever content changes), which makes them pending; a
// background worker embeds pending records in batches and retries with
// backoff while the embedder is down. Pending records are found lexically
// at once, and by vector as soon as their embedding is stored. The queue
// is the records table itself, so it survives restarts and is shared by
// every process on the database.

// QueueParams tunes the embedding worker.
type QueueParams struct {
	Batch      int           // records per embedder call (default 64)
	Poll       time.Duration // how often to look for pending records when idle (default 1s)
	MinBackoff time.Duration // first wait after a failure (default 1s)
	MaxBackoff time.Duration // longest wait between retries (default 1m)
}

type embedQueue struct {
	p     QueueParams
	kick  chan struct{}
	depth func(pending int) // told the queue's depth after each look; nil: nobody asks
}

func newEmbedQueue(p QueueParams) *embedQueue {
	if p.Batch <= 0 {
		p.Batch = 64
	}
	if p.Poll <= 0 {
		p.Poll = time.Second
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = time.Second
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = max(time.Minute, p.MinBackoff)
	}
	return &embedQueue{p: p, kick: make(chan struct{}, 1)}
}

// WithEmbedder sets the embedder that makes records' and queries'
// vectors. Without one, search is lexical only.
func WithEmbedder(e loci.Embedder) Option { return func(s *Service) { s.embedder = e } }

// WithEmbedQueue tunes the embedding worker.
func WithEmbedQueue(p QueueParams) Option {
	return func(s *Service) {
		q := newEmbedQueue(p)
		if s.queue != nil {
			q.depth = s.queue.depth
		}
		s.queue = q
	}
}

// WithEmbedQueueDepth has the embedding worker report the queue's depth
// (records of every workspace whose embedding is not the current model's)
// to fn after each look at it, e.g. to a metrics gauge.
func WithEmbedQueueDepth(fn func(pending int)) Option {
	return func(s *Service) { s.embedQueue().depth = fn }
}

// Embedder returns the service's embedder (nil when none).
func (s *Service) Embedder() loci.Embedder { return s.embedder }

func (s *Service) embedQueue() *embedQueue {
	if s.queue == nil {
		s.queue = newEmbedQueue(QueueParams{})
	}
	return s.queue
}

// kickEmbedding wakes the worker after a write, without waiting.
func (s *Service) kickEmbedding() {
	if s.embedder == nil {
		return
	}
	select {
	case s.embedQueue().kick <- struct{}{}:
	default:
	}
}

// StartEmbedding starts the background worker that embeds pending
// records, until ctx ends, stop is called or the service closes; stop
// waits for it to finish. Without an embedder it does nothing.
func (s *Service) StartEmbedding(ctx context.Context) (stop func()) {
	if s.embedder == nil {
		return func() {}
	}
	q := s.embedQueue()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		backoff := q.p.MinBackoff
		for {
			n, _, err := s.embedBatch(ctx, q.p.Batch)
			if q.depth != nil && ctx.Err() == nil {
				s.reportQueueDepth(ctx, q.depth)
			}
			var wait time.Duration
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				s.logger.Warn("embedding queue: will retry", "err", err, "in", backoff)
				wait, backoff = backoff, min(2*backoff, q.p.MaxBackoff)
			case n > 0:
				backoff = q.p.MinBackoff
				continue // more may be pending
			default:
				wait = q.p.Poll
			}
			t := time.NewTimer(wait)
			kick := q.kick
			if err != nil {
				kick = nil // a write does not cut a backoff short
			}
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-kick:
				t.Stop()
			case <-t.C:
			}
		}
	}()
	stop = func() { cancel(); wg.Wait() }
	s.mu.Lock()
	s.workers = append(s.workers, stop)
	s.mu.Unlock()
	return stop
}

// reportQueueDepth counts the pending records of every workspace and
// tells fn; a failed count is logged and skipped.
func (s *Service) reportQueueDepth(ctx context.Context, fn func(int)) {
	var n int
	err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		n, err = tx.CountPendingEmbeddings(ctx, loci.RecordFilter{}, s.embedder.Model())
		return err
	})
	if err != nil {
		s.logger.Warn("embedding queue: count pending", "err", err)
		return
	}
	fn(n)
}

// embedBatch embeds up to limit pending records and stores their
// embeddings; it returns how many it looked at (0: none pending) and the
// ids of the records whose embedding it stored.
func (s *Service) embedBatch(ctx context.Context, limit int) (int, []string, error) {
	model := s.embedder.Model()
	var recs []*loci.Record
	if err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		recs, err = tx.PendingEmbeddings(ctx, model, limit)
		return err
	}); err != nil {
		return 0, nil, fmt.Errorf("find pending embeddings: %w", err)
	}
	if len(recs) == 0 {
		return 0, nil, nil
	}
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = embedText(r)
	}
	vecs, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return 0, nil, fmt.Errorf("embed: %w", err)
	}
	s.queryEmbedDown.Store(0) // it answers: searches embed their queries again
	if len(vecs) != len(recs) {
		return 0, nil, fmt.Errorf("embed: got %d vectors for %d texts", len(vecs), len(recs))
	}
	var set []string
	err = s.store.Update(ctx, func(tx loci.Tx) error {
		set = set[:0] // the retry policy may run this twice
		for i, r := range recs {
			// A record changed since it was read stays pending, to be
			// embedded again from its new content.
			ok, err := tx.SetEmbedding(ctx, r.Workspace, r.ID, r.Version, model, vecs[i])
			if err != nil {
				return err
			} else if ok {
				set = append(set, r.ID)
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("store embeddings: %w", err)
	}
	return len(recs), set, nil
}

// embedText is the text a record's embedding is made from: its content,
// after its key when it has one.
func embedText(r *loci.Record) string {
	if r.Key != "" {
		return r.Key + ": " + r.Content
	}
	return r.Content
}

// Reindex embeds, now, every record whose embedding was not made by the
// current embedder's model (after a model change, or to drain the queue),
// calling progress after each batch with the records done and the total
// pending in ctx's workspace when it began. It returns how many it
// embedded. EINVALID without an embedder.
//
// It is operation "embedding.reindex" (no route: the CLI's reindex and
// Go programs call it), denied to keys bound to an agent, audited once
// when it ends with the ids of the records whose embedding it stored
// (kept when it fails midway: the batches before are stored).
func (s *Service) Reindex(ctx context.Context, progress func(done, total int)) (done int, err error) {
	a, err := s.begin(ctx, loci.OpEmbeddingReindex, loci.Scope{})
	defer a.endPartial(&err)
	if err != nil {
		return 0, err
	}
	if s.embedder == nil {
		return 0, loci.Errorf(loci.EINVALID, "no embedder configured")
	}
	var total int
	if err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		total, err = tx.CountPendingEmbeddings(ctx, loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx)}, s.embedder.Model())
		return err
	}); err != nil {
		return 0, err
	}
	if progress != nil {
		progress(0, total)
	}
	for {
		n, set, err := s.embedBatch(ctx, s.embedQueue().p.Batch)
		a.touch(set...)
		if err != nil {
			return done, err
		} else if n == 0 {
			return done, nil
		}
		done += n
		if progress != nil {
			progress(done, max(total, done))
		}
	}
}
