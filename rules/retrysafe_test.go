package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
)

var errInjected = errors.New("injected failure")

// replayStore makes the retry policy run every transaction function
// twice: every other transaction runs its function, is rolled back and
// reports a transient failure; the retry that follows passes through.
// between, when set, runs once between the two attempts (a concurrent
// writer). Only the transactions of a context marked replayed are
// replayed: the audit queue's batches, written in the background under
// another context, pass through uncounted (they would break the
// alternation).
type replayStore struct {
	loci.Store
	calls   int
	between func()
}

func (s *replayStore) run(fn func(loci.Tx) error, do func(func(loci.Tx) error) error) error {
	s.calls++
	if s.calls%2 == 0 {
		return do(fn)
	}
	err := do(func(tx loci.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected // roll the attempt back
	})
	if !errors.Is(err, errInjected) {
		s.calls++ // no failure injected: no retry follows
		return err
	}
	if b := s.between; b != nil {
		s.between = nil
		b()
	}
	return loci.Transient(errInjected)
}

// replayKey marks a context whose transactions replayStore replays.
type replayKey struct{}

func replayed(ctx context.Context) context.Context { return context.WithValue(ctx, replayKey{}, true) }

func (s *replayStore) Update(ctx context.Context, fn func(loci.Tx) error) error {
	if ctx.Value(replayKey{}) == nil {
		return s.Store.Update(ctx, fn)
	}
	return s.run(fn, func(f func(loci.Tx) error) error { return s.Store.Update(ctx, f) })
}

func (s *replayStore) View(ctx context.Context, fn func(loci.Tx) error) error {
	if ctx.Value(replayKey{}) == nil {
		return s.Store.View(ctx, fn)
	}
	return s.run(fn, func(f func(loci.Tx) error) error { return s.Store.View(ctx, f) })
}

func (s *replayStore) Snapshot(ctx context.Context, fn func(loci.Tx) error) error {
	if ctx.Value(replayKey{}) == nil {
		return s.Store.Snapshot(ctx, fn)
	}
	return s.run(fn, func(f func(loci.Tx) error) error { return s.Store.Snapshot(ctx, f) })
}

// TestRetrySafe runs the service's operations with every transaction
// function run twice (the retry policy after a transient failure) and
// checks the results match a single run: nothing appended twice, no
// counter counted twice, no "created" flag kept from the failed attempt.
func TestRetrySafe(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := replayed(context.Background())
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		raw := open(t)
		plain := rules.New(raw)
		rs := &replayStore{Store: raw}
		svc := rules.New(retry.New(rs, 0, retry.WithLogger(quiet),
			retry.WithSleep(func(context.Context, time.Duration) error { return nil })))
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		// Seed through the plain service: two of everything.
		_, _, err := plain.CreateAgent(ctx, loci.AgentCreate{ID: "a1"})
		must(err)
		shared, err := plain.CreateBlock(ctx, "a1", loci.BlockSpec{Label: "team", Content: "shared"}, true)
		must(err)
		must(plain.AttachBlock(ctx, shared.ID, "a2"))
		for i, text := range []string{"golang tips one", "golang tips two"} {
			_, err = plain.AddPassage(ctx, "a1", text, nil)
			must(err)
			for _, user := range []string{"u1", "u2"} {
				_, err = plain.RecordEpisode(ctx, loci.EpisodeInput{UserID: user, AgentID: "a1", ActionType: "analysis", ActionDescription: text, Outcome: loci.OutcomeSuccess})
				must(err)
				_, err = plain.StoreFact(ctx, loci.FactInput{UserID: user, Category: loci.FactCategories[0], Fact: text, Keywords: []string{"golang"}})
				must(err)
				_, _, err = plain.PutSession(ctx, user+"-s"+string(rune('0'+i)), loci.SessionPut{UserID: user, Summary: text, IsPersistent: true})
				must(err)
			}
			_, _, err = plain.ObservePreference(ctx, loci.PreferenceInput{UserID: "u1", Type: "tone" + string(rune('0'+i)), Value: json.RawMessage(`"dry"`), Source: loci.SourceExplicit})
			must(err)
			_, _, err = plain.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: "a1", Key: "k" + string(rune('0'+i)), Value: json.RawMessage(`1`)})
			must(err)
		}

		// Reads: each answer must equal the plain service's.
		same := func(name string, got, want int, err error) {
			t.Helper()
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if got != want {
				t.Errorf("%s: %d results, want %d (a retried attempt's results kept)", name, got, want)
			}
		}
		{
			got, n, err := svc.ListAgents(ctx, 0, 0)
			want, _, _ := plain.ListAgents(ctx, 0, 0)
			same("ListAgents", len(got), len(want), err)
			same("ListAgents count", n, len(want), err)
		}
		{
			got, err := svc.ListBlockConsumers(ctx, shared.ID)
			same("ListBlockConsumers", len(got), 1, err)
		}
		{
			got, _, err := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a1"})
			same("RecentEpisodes", len(got), 2, err)
		}
		{
			got, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "u1", Query: "golang"})
			must(err)
			same("SearchFacts", len(got.Results), 2, err)
			got2, _, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u1", Keyword: "golang"})
			same("FactsByKeyword", len(got2), 2, err)
		}
		{
			got, _, err := svc.ListPassages(ctx, "a1", loci.PassageFilter{})
			same("ListPassages", len(got), 2, err)
			found, err := svc.SearchPassages(ctx, "a1", "golang", loci.PassageFilter{})
			must(err)
			want, err := plain.SearchPassages(ctx, "a1", "golang", loci.PassageFilter{})
			must(err)
			same("SearchPassages", len(found.Results), len(want.Results), err)
		}
		{
			got, _, err := svc.ListUserSessions(ctx, "u1", 0, 0)
			same("ListUserSessions", len(got), 2, err)
		}
		{
			got, err := svc.UserContext(ctx, "u1")
			want, _ := plain.UserContext(ctx, "u1")
			if err != nil {
				t.Errorf("UserContext: %v", err)
			} else {
				same("UserContext preferences", len(got.Preferences), len(want.Preferences), nil)
				same("UserContext sessions", len(got.Sessions), len(want.Sessions), nil)
			}
		}
		{
			got, err := svc.UserMemories(ctx, "u1", loci.UserMemoryQuery{})
			want, _ := plain.UserMemories(ctx, "u1", loci.UserMemoryQuery{})
			same("UserMemories", len(got), len(want), err)
			dry, err := svc.ForgetUserMemories(ctx, "u1", loci.ForgetRequest{Query: "golang", DryRun: true})
			wantDry, _ := plain.ForgetUserMemories(ctx, "u1", loci.ForgetRequest{Query: "golang", DryRun: true})
			same("ForgetUserMemories", len(dry), len(wantDry), err)
		}
		{
			got, err := svc.ListWorking(ctx, "t1", loci.WorkingFilter{})
			same("ListWorking", len(got), 2, err)
		}
		{
			_, blocks, err := svc.CreateAgent(ctx, loci.AgentCreate{ID: "a3", Blocks: []loci.BlockSpec{{Label: "x"}, {Label: "y"}}})
			same("CreateAgent blocks", len(blocks), 2, err)
		}
		{
			want, _ := plain.UserMemories(ctx, "u2", loci.UserMemoryQuery{})
			n, err := svc.DeleteUser(ctx, "u2")
			same("DeleteUser", n, len(want), err)
		}

		// Create-or-update: another writer creates the record between the
		// attempts, so the retry updates it: "created" must be false.
		createdTests := []struct {
			name    string
			between func() error
			call    func() (bool, error)
		}{
			{"SetWorking", func() error {
				_, _, err := plain.SetWorking(ctx, loci.WorkingInput{TaskID: "t2", AgentID: "a1", Key: "k", Value: json.RawMessage(`1`)})
				return err
			}, func() (bool, error) {
				_, c, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t2", AgentID: "a1", Key: "k", Value: json.RawMessage(`2`)})
				return c, err
			}},
			{"SetBlock", func() error {
				_, _, err := plain.SetBlock(ctx, "a1", "notes", loci.BlockWrite{Content: "first"})
				return err
			}, func() (bool, error) {
				_, c, err := svc.SetBlock(ctx, "a1", "notes", loci.BlockWrite{Content: "second"})
				return c, err
			}},
			{"ObservePreference", func() error {
				_, _, err := plain.ObservePreference(ctx, loci.PreferenceInput{UserID: "u1", Type: "lang", Value: json.RawMessage(`"go"`), Source: loci.SourceExplicit})
				return err
			}, func() (bool, error) {
				_, c, err := svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u1", Type: "lang", Value: json.RawMessage(`"go"`), Source: loci.SourceExplicit})
				return c, err
			}},
			{"PutSession", func() error {
				_, _, err := plain.PutSession(ctx, "s-new", loci.SessionPut{UserID: "u1", Summary: "first"})
				return err
			}, func() (bool, error) {
				_, c, err := svc.PutSession(ctx, "s-new", loci.SessionPut{UserID: "u1", Summary: "second"})
				return c, err
			}},
		}
		for _, tt := range createdTests {
			t.Run(tt.name, func(t *testing.T) {
				var betweenErr error
				rs.between = func() { betweenErr = tt.between() }
				created, err := tt.call()
				if betweenErr != nil {
					t.Fatalf("concurrent write: %v", betweenErr)
				}
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if created {
					t.Errorf("created = true after the retry updated the record another writer created")
				}
			})
		}

		// A stream cannot be replayed: a retried export fails instead of
		// writing twice. An import reads its input before any transaction,
		// so its retried batches store each record once.
		t.Run("ErrExportReplayed", func(t *testing.T) {
			var buf bytes.Buffer
			if _, err := svc.Export(ctx, loci.ExportFilter{}, &buf); err == nil {
				t.Errorf("export replayed without an error")
			}
		})
		t.Run("ImportRetried", func(t *testing.T) {
			var buf bytes.Buffer
			n, err := plain.Export(ctx, loci.ExportFilter{UserID: "u1"}, &buf)
			if err != nil {
				t.Fatal(err)
			}
			empty := open(t)
			into := rules.New(retry.New(&replayStore{Store: empty}, 0, retry.WithLogger(quiet),
				retry.WithSleep(func(context.Context, time.Duration) error { return nil })))
			res, err := into.Import(ctx, strings.NewReader(buf.String()))
			if err != nil {
				t.Fatalf("retried import: %v", err)
			}
			if res.Records != n {
				t.Errorf("retried import stored %d records, want %d", res.Records, n)
			}
			var again bytes.Buffer
			if _, err := rules.New(empty).Export(ctx, loci.ExportFilter{UserID: "u1"}, &again); err != nil {
				t.Fatal(err)
			}
			if again.String() != buf.String() {
				t.Errorf("retried import differs:\n%s\n%s", buf.String(), again.String())
			}
		})
	})
}
