package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/loci-memory/loci"
)

// The queue of adds of messages run in the background ("async": true). An
// add is checked as a synchronous one is (bad input is refused at once,
// nothing queued), then stored as a pending event in the store's
// memory_events table (loci.QueuedEvent) and answered with its id; a worker
// (StartEvents) claims due events, runs each as the caller that queued it
// (its key's role and agent, audited as theirs), and records the outcome
// in the same transaction as the writes, so an event's work commits once.
// A try that fails because the chat model or the storage is unavailable is
// tried again later, up to EventParams.MaxAttempts; any other failure ends
// the event as failed. Pending work survives a restart: a worker that dies
// holding an event leaves it due again when its lease ends.

// EventParams tunes the worker of the queue of adds.
type EventParams struct {
	Batch       int           // due events read per look (default 16)
	Poll        time.Duration // how often to look for due events when idle (default 1s)
	Lease       time.Duration // how long a claim holds an event (default the chat timeout plus 1m)
	MinBackoff  time.Duration // first wait before trying a failed event again (default 5s)
	MaxBackoff  time.Duration // longest wait between tries (default 5m)
	MaxAttempts int           // tries before an event fails (default 8)
	// Keep is how long a finished event stays readable (default 7 days).
	Keep time.Duration
}

type eventQueue struct {
	p    EventParams
	kick chan struct{}
}

func newEventQueue(p EventParams) *eventQueue {
	if p.Batch <= 0 {
		p.Batch = 16
	}
	if p.Poll <= 0 {
		p.Poll = time.Second
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = 5 * time.Second
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = max(5*time.Minute, p.MinBackoff)
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 8
	}
	if p.Keep <= 0 {
		p.Keep = 7 * 24 * time.Hour
	}
	return &eventQueue{p: p, kick: make(chan struct{}, 1)}
}

// WithEventQueue tunes the worker of the queue of adds.
func WithEventQueue(p EventParams) Option {
	return func(s *Service) { s.conv.queue = newEventQueue(p) }
}

func (s *Service) eventQueue() *eventQueue {
	if s.conv.queue == nil {
		s.conv.queue = newEventQueue(EventParams{})
	}
	return s.conv.queue
}

// lease is how long a claim holds an event: longer than its work takes.
func (s *Service) lease() time.Duration {
	if l := s.eventQueue().p.Lease; l > 0 {
		return l
	}
	return max(s.conv.timeout, DefaultChatTimeout) + time.Minute
}

// kickEvents wakes the worker after an event is queued, without waiting.
func (s *Service) kickEvents() {
	select {
	case s.eventQueue().kick <- struct{}{}:
	default:
	}
}

// enqueueMessages queues in, checked, as a pending event, audited as the
// add it is (202: accepted).
func (s *Service) enqueueMessages(ctx context.Context, a *audited, in loci.MessagesInput) (*loci.MessagesResult, error) {
	ws := loci.WorkspaceFrom(ctx)
	if in.SessionID != "" {
		// A session that cannot take the messages is refused now, not
		// when the event runs; messages to a user's session without a
		// user_id are the session user's (the event names the user).
		err := s.store.View(ctx, func(tx loci.Tx) (err error) {
			in.UserID, err = s.sessionUser(ctx, tx, in)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	in.Async = false
	req, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode the event's request: %w", err)
	}
	now := s.now()
	e := &loci.QueuedEvent{ID: newID(), Workspace: ws, Status: loci.EventPending, Request: req, Via: loci.ViaFrom(ctx),
		UserID: in.UserID, AgentID: in.AgentID, RunAt: now, CreatedAt: now, UpdatedAt: now}
	if p := loci.PrincipalFrom(ctx); p != nil {
		e.KeyID, e.Role, e.KeyAgentID = p.KeyID, p.Role, p.AgentID
	}
	if err := a.update(func(tx loci.Tx) error {
		a.e.Status = 202
		return tx.InsertEvent(ctx, e)
	}); err != nil {
		return nil, err
	}
	s.kickEvents()
	return &loci.MessagesResult{EventID: e.ID, Status: loci.EventPending}, nil
}

// sessionUser returns the user whose session in's messages are appended
// to: in's user, or, when in names none, the existing session's (what the
// messages say is about that user, never global knowledge). It refuses a
// session the messages cannot be appended to: one that does not exist
// when in names no user (EINVALID), another user's (ECONFLICT).
func (s *Service) sessionUser(ctx context.Context, tx loci.Tx, in loci.MessagesInput) (string, error) {
	if err := checkSessionID(in.SessionID); err != nil {
		return "", err
	}
	rec, err := s.findSession(ctx, tx, in.SessionID)
	switch {
	case loci.ErrorCode(err) == loci.ENOTFOUND && in.UserID == "":
		return "", loci.Errorf(loci.EINVALID, "session %s does not exist: name user_id to start it", in.SessionID)
	case loci.ErrorCode(err) == loci.ENOTFOUND:
		return in.UserID, nil
	case err != nil:
		return "", err
	case in.UserID != "" && rec.UserID != in.UserID:
		return "", loci.Errorf(loci.ECONFLICT, "session %s belongs to another user", in.SessionID)
	}
	return rec.UserID, nil
}

// GetEvent returns a queued add.
func (s *Service) GetEvent(ctx context.Context, id string) (_ *loci.AsyncEvent, err error) {
	a, err := s.begin(ctx, loci.OpEventGet, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("event_id", id, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	var e *loci.QueuedEvent
	if err := a.view(func(tx loci.Tx) (err error) {
		e, err = tx.GetEvent(ctx, loci.WorkspaceFrom(ctx), id)
		return err
	}); err != nil {
		return nil, err
	}
	// A key bound to an agent reaches its agent's events and those of no
	// agent, as it reaches records.
	if p := loci.PrincipalFrom(ctx); p != nil && p.AgentID != "" && e.AgentID != "" && e.AgentID != p.AgentID {
		return nil, loci.Errorf(loci.ENOTFOUND, "event %s not found", id)
	}
	a.e.Scope = loci.Scope{UserID: e.UserID, AgentID: e.AgentID}
	out := &loci.AsyncEvent{ID: e.ID, Status: e.Status, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Attempts: e.Attempts,
		Error: e.Error, Code: e.Code}
	if len(e.Result) > 0 {
		out.Result = &loci.MessagesResult{}
		if err := json.Unmarshal(e.Result, out.Result); err != nil {
			return nil, fmt.Errorf("decode the result of event %s: %w", id, err)
		}
	}
	return out, nil
}

// StartEvents starts the worker of the queue of adds run in the
// background, until ctx ends, stop is called or the service closes; stop
// waits for the event in hand.
func (s *Service) StartEvents(ctx context.Context) (stop func()) {
	q := s.eventQueue()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var pruned time.Time
		for {
			n, err := s.RunDueEvents(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				s.logger.Warn("event queue: will look again", "err", err, "in", q.p.Poll)
			}
			if n > 0 && err == nil {
				continue // more may be due
			}
			if now := s.now(); now.Sub(pruned) > time.Hour {
				pruned = now
				if err := s.pruneEvents(ctx, now.Add(-q.p.Keep)); err != nil && ctx.Err() == nil {
					s.logger.Warn("event queue: delete finished events", "err", err)
				}
			}
			t := time.NewTimer(q.p.Poll)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-q.kick:
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

// pruneEvents deletes the finished events last updated before before.
func (s *Service) pruneEvents(ctx context.Context, before time.Time) error {
	return s.store.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteEvents(ctx, "", "", before)
		return err
	})
}

// RunDueEvents runs the events due now, a batch of them, each claimed
// first so that no other worker runs it too, and returns how many it ran.
// The worker calls it; a program that runs no worker may call it itself.
func (s *Service) RunDueEvents(ctx context.Context) (int, error) {
	q := s.eventQueue()
	now := s.now()
	var due []*loci.QueuedEvent
	if err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		due, err = tx.DueEvents(ctx, now, q.p.Batch)
		return err
	}); err != nil {
		return 0, fmt.Errorf("find due events: %w", err)
	}
	ran := 0
	for _, e := range due {
		if ctx.Err() != nil {
			return ran, nil
		}
		var claimed bool
		if err := s.store.Update(ctx, func(tx loci.Tx) (err error) {
			c := *e // the retry policy may run this twice
			if claimed, err = tx.ClaimEvent(ctx, &c, s.now(), s.now().Add(s.lease())); claimed {
				*e = c
			}
			return err
		}); err != nil {
			return ran, fmt.Errorf("claim event %s: %w", e.ID, err)
		} else if !claimed {
			continue
		}
		if err := s.runEvent(ctx, e); err != nil {
			return ran, err
		}
		ran++
	}
	return ran, nil
}

// runEvent runs a claimed event as the caller that queued it, and records
// its outcome: with its writes when it succeeds; alone, failed or pending
// again, when it does not.
func (s *Service) runEvent(ctx context.Context, e *loci.QueuedEvent) error {
	var in loci.MessagesInput
	err := json.Unmarshal(e.Request, &in)
	if err == nil {
		rctx := loci.WithVia(loci.WithWorkspace(ctx, e.Workspace), e.Via)
		if e.KeyID != "" || e.Role != "" {
			rctx = loci.WithPrincipal(rctx, &loci.Principal{KeyID: e.KeyID, Role: e.Role, AgentID: e.KeyAgentID, Workspace: e.Workspace})
		}
		err = s.runQueuedAdd(rctx, e, in)
	} else {
		err = fmt.Errorf("decode the request of event %s: %w", e.ID, err)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return nil // stopping: the event is due again when its lease ends
	}
	now := s.now()
	q := s.eventQueue()
	next := *e
	next.UpdatedAt, next.Code, next.Error = now, loci.ErrorCode(err), loci.ErrorMessage(err)
	code := loci.ErrorCode(err)
	if (code == loci.EUNAVAILABLE || code == loci.ESTORAGEFULL) && e.Attempts < q.p.MaxAttempts {
		wait := q.p.MinBackoff << min(e.Attempts-1, 20)
		next.RunAt = now.Add(min(wait, q.p.MaxBackoff))
		s.logger.Warn("event queue: will try again", "event", e.ID, "err", err, "in", next.RunAt.Sub(now))
	} else {
		next.Status = loci.EventFailed
		s.logger.Warn("event queue: failed", "event", e.ID, "err", err)
	}
	if code == loci.EINTERNAL {
		s.logger.Error("event queue: internal error", "event", e.ID, "err", err)
	}
	return s.store.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.FinishEvent(ctx, &next)
		return err
	})
}

// errClaimLost rolls back an event's writes when another worker claimed
// it since (its lease ended before its work did).
var errClaimLost = loci.Errorf(loci.ECONFLICT, "another worker claimed the event")

// runQueuedAdd runs the add of a claimed event, audited as the add it
// is, and records its success in the same transaction as its writes.
func (s *Service) runQueuedAdd(ctx context.Context, e *loci.QueuedEvent, in loci.MessagesInput) (err error) {
	a, err := s.beginKind(ctx, loci.OpMemoryAddMessages, loci.KindFact, loci.Scope{AgentID: in.AgentID, UserID: in.UserID, SessionID: in.SessionID})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if in, err = s.checkMessages(in, s.now()); err != nil {
		return err
	}
	_, err = s.addMessages(ctx, a, in, func(tx loci.Tx, res *loci.MessagesResult) error {
		raw, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("encode the result of event %s: %w", e.ID, err)
		}
		next := *e
		next.Status, next.Result, next.Error, next.Code, next.UpdatedAt = loci.EventSucceeded, raw, "", "", s.now()
		ok, err := tx.FinishEvent(ctx, &next)
		if err == nil && !ok {
			err = errClaimLost
		}
		return err
	})
	return err
}
