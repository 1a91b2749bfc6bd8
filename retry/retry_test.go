package retry_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/storetest"
)

// failingStore fails its first n transactions with err, then passes them
// to the real store.
type failingStore struct {
	loci.Store
	n     int
	err   error
	calls int
}

func (f *failingStore) fail() error {
	f.calls++
	if f.calls <= f.n {
		return f.err
	}
	return nil
}

func (f *failingStore) Update(ctx context.Context, fn func(loci.Tx) error) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Update(ctx, fn)
}

func (f *failingStore) View(ctx context.Context, fn func(loci.Tx) error) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.View(ctx, fn)
}

func (f *failingStore) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Snapshot(ctx, fn)
}

func TestRetry(t *testing.T) {
	busy := loci.Transient(errors.New("database is locked"))
	hard := errors.New("disk I/O error")
	tests := []struct {
		name      string
		failures  int
		err       error
		wantErr   error
		wantCalls int
		wantSleep []time.Duration
	}{
		{"OK", 0, busy, nil, 1, nil},
		{"TransientOnceRetried", 1, busy, nil, 2, []time.Duration{100 * time.Millisecond}},
		{"ErrTransientTwice", 2, busy, busy, 2, []time.Duration{100 * time.Millisecond}},
		{"ErrNotTransientNotRetried", 1, hard, hard, 1, nil},
	}
	for _, tt := range tests {
		testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
			t.Run(tt.name, func(t *testing.T) {
				for _, op := range []string{"Update", "View", "Snapshot"} {
					fs := &failingStore{Store: open(t), n: tt.failures, err: tt.err}
					var slept []time.Duration
					s := retry.New(fs, 100*time.Millisecond, retry.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
						retry.WithSleep(func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }))
					ran := 0
					fn := func(tx loci.Tx) error {
						ran++
						_, err := tx.CountRecords(context.Background(), loci.RecordFilter{Workspace: loci.DefaultWorkspace})
						return err
					}
					var err error
					switch op {
					case "Update":
						err = s.Update(context.Background(), fn)
					case "View":
						err = s.View(context.Background(), fn)
					default:
						err = s.Snapshot(context.Background(), fn)
					}
					if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
						t.Errorf("%s: err = %v, want %v", op, err, tt.wantErr)
					}
					if fs.calls != tt.wantCalls {
						t.Errorf("%s: store called %d times, want %d", op, fs.calls, tt.wantCalls)
					}
					if len(slept) != len(tt.wantSleep) || (len(slept) > 0 && slept[0] != tt.wantSleep[0]) {
						t.Errorf("%s: slept %v, want %v", op, slept, tt.wantSleep)
					}
					if tt.wantErr == nil && ran != 1 {
						t.Errorf("%s: fn ran %d times, want 1", op, ran)
					}
				}
			})
		})
	}
}

func TestRetryWritesOnce(t *testing.T) {
	// A write that fails transiently at first is stored exactly once.
	fs := &failingStore{Store: testdb.OpenSQLite(t), n: 1, err: loci.Transient(errors.New("busy"))}
	s := retry.New(fs, time.Millisecond, retry.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	r := storetest.NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k", "v")
	if err := s.Update(context.Background(), func(tx loci.Tx) error { return tx.InsertRecord(context.Background(), r) }); err != nil {
		t.Fatal(err)
	}
	if got := storetest.MustFind(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace}); len(got) != 1 {
		t.Fatalf("stored %d records, want 1", len(got))
	}
}

func TestRetryCanceled(t *testing.T) {
	fs := &failingStore{Store: testdb.OpenSQLite(t), n: 1, err: loci.Transient(errors.New("busy"))}
	s := retry.New(fs, time.Hour, retry.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.View(ctx, func(tx loci.Tx) error { return nil })
	if err == nil || !loci.IsTransient(err) || fs.calls != 1 {
		t.Fatalf("err = %v after %d calls, want the transient error after 1", err, fs.calls)
	}
}

func TestTransient(t *testing.T) {
	base := errors.New("busy")
	wrapped := loci.Transient(base)
	if !loci.IsTransient(wrapped) || !errors.Is(wrapped, base) || loci.IsTransient(base) || loci.Transient(nil) != nil {
		t.Fatal("Transient/IsTransient disagree")
	}
	if !loci.IsTransient(errors.Join(errors.New("x"), wrapped)) {
		t.Fatal("a wrapped transient error is not transient")
	}
}

// budgetStore fails its first transaction transiently after first, and
// answers its second only when its context ends (a database that does not
// answer).
type budgetStore struct {
	loci.Store
	first time.Duration
	calls int
}

func (b *budgetStore) run(ctx context.Context) error {
	b.calls++
	if b.calls == 1 {
		time.Sleep(b.first)
		return loci.Transient(loci.Errorf(loci.EUNAVAILABLE, "the database does not answer"))
	}
	<-ctx.Done()
	return ctx.Err()
}

func (b *budgetStore) Update(ctx context.Context, fn func(loci.Tx) error) error { return b.run(ctx) }
func (b *budgetStore) View(ctx context.Context, fn func(loci.Tx) error) error   { return b.run(ctx) }

// TestRetryFitsBudget: the first attempt, the backoff and the retry end
// within the budget: a failure that leaves no time for the backoff is not
// retried, and a retry that does not answer is cut at the budget and
// reports the first failure.
func TestRetryFitsBudget(t *testing.T) {
	quietLog := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name      string
		first     time.Duration
		wantCalls int
	}{
		{"SlowFailureNotRetried", 300 * time.Millisecond, 1},
		{"FastFailureRetriedWithinBudget", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := &budgetStore{first: tt.first}
			s := retry.New(bs, 200*time.Millisecond, retry.WithLogger(quietLog), retry.WithBudget(400*time.Millisecond))
			done := make(chan error, 1)
			go func() { done <- s.View(context.Background(), func(loci.Tx) error { return nil }) }()
			select {
			case err := <-done:
				if loci.ErrorCode(err) != loci.EUNAVAILABLE {
					t.Errorf("err = %v, want unavailable", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the retry did not end within its budget")
			}
			if bs.calls != tt.wantCalls {
				t.Errorf("attempts = %d, want %d", bs.calls, tt.wantCalls)
			}
		})
	}
}
