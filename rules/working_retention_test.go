package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// lcT0 is the fake clock's start in the lifecycle tests.
var lcT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const lcDay = 24 * time.Hour

// lcEnv is a service on a fresh store with a fake clock.
type lcEnv struct {
	store loci.Store
	clock *loci.FakeClock
	svc   *rules.Service
	ctx   context.Context
}

func lcOpen(t *testing.T, open func(testing.TB) loci.Store, opts ...rules.Option) *lcEnv {
	t.Helper()
	store := open(t)
	clock := loci.NewFakeClock(lcT0)
	return &lcEnv{store: store, clock: clock, svc: rules.New(store, append([]rules.Option{rules.WithClock(clock)}, opts...)...), ctx: context.Background()}
}

var lcSeq int

// lcInsert inserts records directly through the store, in one transaction.
func (e *lcEnv) lcInsert(t *testing.T, recs ...*loci.Record) {
	t.Helper()
	err := e.store.Update(e.ctx, func(tx loci.Tx) error {
		for _, r := range recs {
			if r.ID == "" {
				lcSeq++
				r.ID = fmt.Sprintf("0190b000-0000-7000-8000-%012d", lcSeq)
			}
			if r.Workspace == "" {
				r.Workspace = loci.DefaultWorkspace
			}
			if r.UpdatedAt.IsZero() {
				r.UpdatedAt = r.CreatedAt
			}
			if r.Version == 0 {
				r.Version = 1
			}
			if err := tx.InsertRecord(e.ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
}

// lcFact inserts a fact of user u with the given relevance and data.
func (e *lcEnv) lcFact(t *testing.T, relevance float64, data string, created time.Time) string {
	t.Helper()
	r := &loci.Record{Kind: loci.KindFact, Scope: loci.Scope{UserID: "u"}, Content: "a fact", Category: loci.CategoryGeneralFact,
		Confidence: relevance, Data: json.RawMessage(data), CreatedAt: created}
	e.lcInsert(t, r)
	return r.ID
}

func (e *lcEnv) lcGet(t *testing.T, id string) *loci.Record {
	t.Helper()
	var rec *loci.Record
	if err := e.store.View(e.ctx, func(tx loci.Tx) error {
		var err error
		rec, err = tx.GetRecord(e.ctx, loci.DefaultWorkspace, id)
		return err
	}); err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return rec
}

func (e *lcEnv) lcCount(t *testing.T, f loci.RecordFilter) int {
	t.Helper()
	f.Workspace = loci.DefaultWorkspace
	var n int
	if err := e.store.View(e.ctx, func(tx loci.Tx) error {
		var err error
		n, err = tx.CountRecords(e.ctx, f)
		return err
	}); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

func (e *lcEnv) lcMaintain(t *testing.T, tasks ...string) *loci.MaintenanceReport {
	t.Helper()
	rep, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: tasks})
	if err != nil {
		t.Fatalf("maintain %v: %v", tasks, err)
	}
	return rep
}

func lcCode(t *testing.T, err error, want string) {
	t.Helper()
	if got := loci.ErrorCode(err); got != want {
		t.Fatalf("error code: got %q (%v), want %q", got, err, want)
	}
}

// lcString is the JSON string whose compact encoding is n bytes long.
func lcString(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
}

func TestWorkingTaskLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		if loci.MaxWorkingTaskBytes != 51200 {
			t.Fatalf("MaxWorkingTaskBytes: got %d, want 50 KiB = 51200", loci.MaxWorkingTaskBytes)
		}
		tests := []struct {
			name  string
			first int // bytes already in the task (0: none)
			size  int
			want  string // error code, "" for success
		}{
			{"ExactlyLimit", 0, loci.MaxWorkingTaskBytes, ""},
			{"LimitPlusOne", 0, loci.MaxWorkingTaskBytes + 1, loci.ETOOLARGE},
			{"SumExactlyLimit", 1000, loci.MaxWorkingTaskBytes - 1000, ""},
			{"SumLimitPlusOne", 1000, loci.MaxWorkingTaskBytes - 999, loci.ETOOLARGE},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				if tc.first > 0 {
					// another agent of the same task: the limit is per task
					if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "t", AgentID: "a2", Key: "first", Value: lcString(tc.first)}); err != nil {
						t.Fatal(err)
					}
				}
				_, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: lcString(tc.size)})
				lcCode(t, err, tc.want)
				_, gerr := e.svc.GetWorking(e.ctx, "t", "k", loci.WorkingFilter{})
				if tc.want == "" && gerr != nil {
					t.Fatalf("get after accepted write: %v", gerr)
				} else if tc.want != "" && loci.ErrorCode(gerr) != loci.ENOTFOUND {
					t.Fatalf("get after refused write: got %v, want not found (nothing changed)", gerr)
				}
			})
		}
		t.Run("ReplaceCountsNewValueOnly", func(t *testing.T) {
			e := lcOpen(t, open)
			in := loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: lcString(loci.MaxWorkingTaskBytes)}
			if _, _, err := e.svc.SetWorking(e.ctx, in); err != nil {
				t.Fatal(err)
			}
			if _, created, err := e.svc.SetWorking(e.ctx, in); err != nil || created {
				t.Fatalf("replace at the limit: created %v, err %v; want updated", created, err)
			}
			in.Key = "other"
			in.Value = json.RawMessage(`1`)
			_, _, err := e.svc.SetWorking(e.ctx, in)
			lcCode(t, err, loci.ETOOLARGE)
			got, err := e.svc.GetWorking(e.ctx, "t", "k", loci.WorkingFilter{})
			if err != nil || len(got.Value) != loci.MaxWorkingTaskBytes {
				t.Fatalf("old value after refused write: %v, %d bytes", err, len(got.Value))
			}
		})
		t.Run("ExpiredValuesDoNotCount", func(t *testing.T) {
			e := lcOpen(t, open)
			in := loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: lcString(loci.MaxWorkingTaskBytes)}
			if _, _, err := e.svc.SetWorking(e.ctx, in); err != nil {
				t.Fatal(err)
			}
			e.clock.Add(loci.DefaultWorkingTTL)
			in.Key = "k2"
			if _, _, err := e.svc.SetWorking(e.ctx, in); err != nil {
				t.Fatalf("write after the old value expired: %v", err)
			}
		})
	})
}

func TestWorkingExpiry(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		tests := []struct {
			name    string
			rewrite time.Duration // rewrite after this long (0: never)
			at      time.Duration
			visible bool
		}{
			{"Fresh", 0, 0, true},
			{"JustBefore24h", 0, 24*time.Hour - time.Microsecond, true},
			{"At24h", 0, 24 * time.Hour, false},
			{"RewriteExtends", 12 * time.Hour, 24 * time.Hour, true},
			{"RewriteThen24h", 12 * time.Hour, 36 * time.Hour, false},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				in := loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: json.RawMessage(`{"plan":[1,2]}`)}
				if _, _, err := e.svc.SetWorking(e.ctx, in); err != nil {
					t.Fatal(err)
				}
				if tc.rewrite > 0 {
					e.clock.Set(lcT0.Add(tc.rewrite))
					if _, _, err := e.svc.SetWorking(e.ctx, in); err != nil {
						t.Fatal(err)
					}
				}
				e.clock.Set(lcT0.Add(tc.at))
				_, err := e.svc.GetWorking(e.ctx, "t", "k", loci.WorkingFilter{})
				if got := err == nil; got != tc.visible {
					t.Fatalf("visible: got %v (%v), want %v", got, err, tc.visible)
				}
				all, err := e.svc.ListWorking(e.ctx, "t", loci.WorkingFilter{})
				if err != nil || (len(all) == 1) != tc.visible {
					t.Fatalf("list: got %d entries (%v), want visible %v", len(all), err, tc.visible)
				}
				rep := e.lcMaintain(t, loci.MaintainExpire)
				wantDeleted := 1
				if tc.visible {
					wantDeleted = 0
				}
				if got := rep.Tasks[loci.MaintainExpire].Deleted; got != wantDeleted {
					t.Fatalf("expire deleted: got %d, want %d", got, wantDeleted)
				}
				if n := e.lcCount(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindWorking}}); n != 1-wantDeleted {
					t.Fatalf("working rows after expire: got %d, want %d", n, 1-wantDeleted)
				}
			})
		}
		t.Run("ConfigurableTTL", func(t *testing.T) {
			e := lcOpen(t, open, rules.WithWorkingTTL(time.Hour))
			got, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: json.RawMessage(`1`)})
			if err != nil || !got.ExpiresAt.Equal(lcT0.Add(time.Hour)) {
				t.Fatalf("expires_at: got %v (%v), want %v", got.ExpiresAt, err, lcT0.Add(time.Hour))
			}
		})
	})
}

func TestWorkingScopeAndErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		set := func(agent, user, key, value string) {
			t.Helper()
			if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "t", AgentID: agent, UserID: user, Key: key, Value: json.RawMessage(value)}); err != nil {
				t.Fatal(err)
			}
		}
		set("a", "", "k", `"from a"`)
		e.clock.Add(time.Second)
		set("b", "u", "k", `"from b"`)
		for _, tc := range []struct {
			name string
			f    loci.WorkingFilter
			want string
		}{
			{"MostRecent", loci.WorkingFilter{}, `"from b"`},
			{"ByAgent", loci.WorkingFilter{AgentID: "a"}, `"from a"`},
			{"ByUser", loci.WorkingFilter{UserID: "u"}, `"from b"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.svc.GetWorking(e.ctx, "t", "k", tc.f)
				if err != nil || string(got.Value) != tc.want {
					t.Fatalf("got %s (%v), want %s", got.Value, err, tc.want)
				}
			})
		}
		for _, tc := range []struct {
			name string
			in   loci.WorkingInput
		}{
			{"ErrEmptyTask", loci.WorkingInput{AgentID: "a", Key: "k", Value: json.RawMessage(`1`)}},
			{"ErrEmptyAgent", loci.WorkingInput{TaskID: "t", Key: "k", Value: json.RawMessage(`1`)}},
			{"ErrEmptyKey", loci.WorkingInput{TaskID: "t", AgentID: "a", Key: " ", Value: json.RawMessage(`1`)}},
			{"ErrNoValue", loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k"}},
			{"ErrNullValue", loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: json.RawMessage(`null`)}},
			{"ErrKeyTooLong", loci.WorkingInput{TaskID: "t", AgentID: "a", Key: strings.Repeat("k", 101), Value: json.RawMessage(`1`)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, _, err := e.svc.SetWorking(e.ctx, tc.in)
				lcCode(t, err, loci.EINVALID)
			})
		}
		n, err := e.svc.ClearWorking(e.ctx, "t", loci.WorkingFilter{AgentID: "a"})
		if err != nil || n != 1 {
			t.Fatalf("clear agent a: got %d (%v), want 1", n, err)
		}
		if all, _ := e.svc.ListWorking(e.ctx, "t", loci.WorkingFilter{}); len(all) != 1 || all[0].AgentID != "b" {
			t.Fatalf("after clearing a: got %+v, want b's entry only", all)
		}
	})
}

// TestLifecycleExpiryKept: the expiry a kind's lifecycle gives (working
// memory's 24 hours, an episode's 30 days) is not removed through the
// memories API (PATCH expires_at null): 400, and the record still expires
// (an export of it imports again, which refuses such records without one).
func TestLifecycleExpiryKept(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k", Value: json.RawMessage(`"v"`)}); err != nil {
			t.Fatal(err)
		}
		ep, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", "a", "act", "did it", loci.OutcomeSuccess, 0.9))
		if err != nil {
			t.Fatal(err)
		}
		mems, _, err := e.svc.ListMemories(e.ctx, loci.MemoryQuery{Kinds: []loci.Kind{loci.KindWorking}})
		if err != nil || len(mems) != 1 {
			t.Fatalf("working memories: %d, %v", len(mems), err)
		}
		for _, id := range []string{mems[0].ID, ep.ID} {
			if _, err := e.svc.UpdateMemory(e.ctx, id, loci.MemoryPatch{NoExpiry: true}); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("PATCH %s expires_at null: %v, want invalid", id, err)
			}
			m, err := e.svc.GetMemory(e.ctx, id)
			if err != nil || m.ExpiresAt.IsZero() {
				t.Errorf("after the refused patch: %+v, %v; want its expiry kept", m, err)
			}
		}
	})
}
