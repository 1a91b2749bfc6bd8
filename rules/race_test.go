package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// The writers of these tests race for real: many goroutines at once, on
// two stores opened on one database (two processes, or two replicas on
// one PostgreSQL), released together. A test repeats its race a few
// rounds, so that a read-then-write that is not serialized shows.

const (
	racers = 20
	rounds = 3
)

// race runs fn(i) for i in [0, racers) at once, and returns the first
// error any returned.
func race(fn func(i int) error) error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// atOnce runs fns at once, released together, and returns when all
// have returned.
func atOnce(fns ...func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, fn := range fns {
		wg.Go(func() {
			<-start
			fn()
		})
	}
	close(start)
	wg.Wait()
}

// twoServices returns two services on two stores of one database.
func twoServices(t *testing.T, open func(t *testing.T) (loci.Store, loci.Store)) [2]*rules.Service {
	a, b := open(t)
	return [2]*rules.Service{rules.New(a), rules.New(b)}
}

// spelling returns the i-th spelling of content: the same words, case and
// spacing varied.
func spelling(content string, i int) string {
	switch i % 4 {
	case 1:
		return strings.ToUpper(content)
	case 2:
		return "  " + strings.ReplaceAll(content, " ", "   ") + " "
	case 3:
		return strings.ToLower(content) + "\n"
	}
	return content
}

// countRecords counts the live records of kind k that f selects in the
// default workspace.
func countRecords(t *testing.T, svc *rules.Service, f loci.RecordFilter) int {
	t.Helper()
	var n int
	err := svc.Store().View(context.Background(), func(tx loci.Tx) (err error) {
		f.Workspace = loci.DefaultWorkspace
		n, err = tx.CountRecords(context.Background(), f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestConcurrentRepeatsAddOnce: the same content added at once, many
// times, case and spacing varied, through every way in that answers a
// repeat, is stored once: one ADD, every other a NOOP naming its id.
func TestConcurrentRepeatsAddOnce(t *testing.T) {
	ctx := context.Background()
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			type route struct {
				name string
				// add adds content for user (or agent) who, and returns the
				// record's id and the event ("" where the route answers none).
				add  func(svc *rules.Service, who, content string) (id, event string, err error)
				kind loci.Kind
				// agent: the route is an agent's (passages), not a user's.
				agent bool
			}
			memories := func(svc *rules.Service, who, content string) (string, string, error) {
				ev, err := svc.AddMemory(ctx, loci.MemoryInput{Content: content, UserID: who})
				if err != nil {
					return "", "", err
				}
				return ev.ID, ev.Event, nil
			}
			facts := func(svc *rules.Service, who, content string) (string, string, error) {
				f, err := svc.StoreFact(ctx, loci.FactInput{UserID: who, Category: loci.CategoryGeneralFact, Fact: content})
				if err != nil {
					return "", "", err
				}
				return f.ID, "", nil
			}
			routes := []route{
				{name: "memories", add: memories, kind: loci.KindFact},
				{name: "facts", add: facts, kind: loci.KindFact},
				{name: "memoriesAndFacts", kind: loci.KindFact, add: func(svc *rules.Service, who, content string) (string, string, error) {
					if len(content)%2 == 0 {
						return facts(svc, who, content)
					}
					return memories(svc, who, content)
				}},
				{name: "memoriesPassage", kind: loci.KindPassage, agent: true, add: func(svc *rules.Service, who, content string) (string, string, error) {
					ev, err := svc.AddMemory(ctx, loci.MemoryInput{Content: content, AgentID: who, Kind: loci.KindPassage})
					if err != nil {
						return "", "", err
					}
					return ev.ID, ev.Event, nil
				}},
				{name: "passages", kind: loci.KindPassage, agent: true, add: func(svc *rules.Service, who, content string) (string, string, error) {
					p, err := svc.AddPassage(ctx, who, content, nil)
					if err != nil {
						return "", "", err
					}
					return p.ID, "", nil
				}},
			}
			for _, d := range routes {
				t.Run(d.name, func(t *testing.T) {
					for r := range rounds {
						who := fmt.Sprintf("%s-%d", d.name, r)
						content := fmt.Sprintf("Round %d: likes green tea in the morning", r)
						ids := make([]string, racers)
						events := make([]string, racers)
						err := race(func(i int) (err error) {
							ids[i], events[i], err = d.add(svcs[i%2], who, spelling(content, i))
							return err
						})
						if err != nil {
							t.Fatal(err)
						}
						adds, others := 0, 0
						for i := range racers {
							if ids[i] != ids[0] {
								others++
							}
							switch events[i] {
							case loci.EventAdd:
								adds++
							case "", loci.EventNoop:
							default:
								t.Errorf("round %d: add %d answered %s", r, i, events[i])
							}
						}
						if others > 0 {
							t.Errorf("round %d: %d adds answered another id than add 0: one memory, every repeat names it", r, others)
						}
						if adds > 1 {
							t.Errorf("round %d: %d ADDs of one content, want 1 and the rest NOOP", r, adds)
						}
						f := loci.RecordFilter{Kinds: []loci.Kind{d.kind}, UserID: &who}
						if d.agent {
							f.UserID, f.AgentID = nil, &who
						}
						if n := countRecords(t, svcs[0], f); n != 1 {
							t.Errorf("round %d: %d records stored, want 1", r, n)
						}
					}
				})
			}
		})
	}
}

// TestConcurrentPatchesInOrder: edits of one memory at once are numbered
// and timed in the order they commit: its history, newest first, counts
// down one version at a time, and no version is older than the one
// before it.
func TestConcurrentPatchesInOrder(t *testing.T) {
	ctx := context.Background()
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			for r := range rounds {
				t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) {
					checkHistory := func(t *testing.T, hist []loci.MemoryVersion) {
						t.Helper()
						if len(hist) != racers+1 {
							t.Fatalf("history holds %d versions, want %d", len(hist), racers+1)
						}
						var got []int
						for _, v := range hist {
							got = append(got, v.Version)
						}
						for i, v := range hist {
							if v.Version != racers+1-i {
								t.Fatalf("history's versions, newest first: %v; want %d down to 1", got, racers+1)
							}
							if i > 0 && v.UpdatedAt.After(hist[i-1].UpdatedAt) {
								t.Fatalf("version %d at %s is later than version %d at %s", v.Version, v.UpdatedAt, hist[i-1].Version, hist[i-1].UpdatedAt)
							}
						}
					}
					t.Run("fact", func(t *testing.T) {
						ev, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "first", UserID: fmt.Sprintf("patch-%d", r)})
						if err != nil {
							t.Fatal(err)
						}
						err = race(func(i int) error {
							_, err := svcs[i%2].UpdateMemory(ctx, ev.ID, loci.MemoryPatch{Content: loci.Ptr(fmt.Sprintf("edit %d", i))})
							return err
						})
						if err != nil {
							t.Fatal(err)
						}
						hist, err := svcs[0].MemoryHistory(ctx, ev.ID)
						if err != nil {
							t.Fatal(err)
						}
						checkHistory(t, hist)
					})
					t.Run("note", func(t *testing.T) {
						// A note's edits come through two routes at once:
						// the memories API and remember.
						agent := fmt.Sprintf("patch-%d", r)
						ev, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "first", AgentID: agent, Kind: loci.KindNote, Key: "k"})
						if err != nil {
							t.Fatal(err)
						}
						err = race(func(i int) error {
							value := fmt.Sprintf("edit %d", i)
							if i%3 == 0 {
								_, err := svcs[i%2].Remember(ctx, agent, "k", jsonString(value))
								return err
							}
							_, err := svcs[i%2].UpdateMemory(ctx, ev.ID, loci.MemoryPatch{Content: &value})
							return err
						})
						if err != nil {
							t.Fatal(err)
						}
						hist, err := svcs[0].MemoryHistory(ctx, ev.ID)
						if err != nil {
							t.Fatal(err)
						}
						checkHistory(t, hist)
						notes, err := svcs[1].History(ctx, agent, "k")
						if err != nil {
							t.Fatal(err)
						}
						for i := 1; i < len(notes); i++ {
							if notes[i].Version != notes[i-1].Version-1 || notes[i].UpdatedAt.After(notes[i-1].UpdatedAt) {
								t.Fatalf("note history: version %d at %s after version %d at %s", notes[i].Version, notes[i].UpdatedAt, notes[i-1].Version, notes[i-1].UpdatedAt)
							}
						}
					})
					t.Run("keyedFact", func(t *testing.T) {
						// Each new content of a slot supersedes the one
						// current when it commits: a chain, one current.
						user := fmt.Sprintf("slot-%d", r)
						first, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "lives in city 0", UserID: user, Key: "home"})
						if err != nil {
							t.Fatal(err)
						}
						prev := make([]string, racers)
						err = race(func(i int) error {
							ev, err := svcs[i%2].AddMemory(ctx, loci.MemoryInput{Content: fmt.Sprintf("lives in city %d", i+1), UserID: user, Key: "home"})
							if err == nil {
								prev[i] = ev.Previous
							}
							return err
						})
						if err != nil {
							t.Fatal(err)
						}
						superseded := map[string]int{}
						for _, p := range prev {
							superseded[p]++
						}
						if superseded[first.ID] != 1 {
							t.Errorf("the first fact was superseded %d times, want 1", superseded[first.ID])
						}
						for id, n := range superseded {
							if n != 1 {
								t.Errorf("fact %s superseded by %d writes, want 1: each write supersedes the fact current when it commits", id, n)
							}
						}
						if n := countRecords(t, svcs[0], loci.RecordFilter{Kinds: []loci.Kind{loci.KindFact}, UserID: &user, AsOf: t0.AddDate(100, 0, 0)}); n != 1 {
							t.Errorf("%d facts current in the slot, want 1", n)
						}
					})
				})
			}
		})
	}
}

// TestForgetRacingAnEdit: a forget by query and an edit of a record it
// matches, at once from two replicas, end as if one came first: the edit
// first, and the record stays with its new content (it no longer matches);
// the forget first, and the edit finds nothing. An acknowledged edit is
// never deleted by a forget of what the record said before it. The
// forget reads the user's 1,000 other facts too, so that the edit lands
// while it reads.
func TestForgetRacingAnEdit(t *testing.T) {
	ctx := context.Background()
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			for r := range 8 {
				user := fmt.Sprintf("fu%d", r)
				f, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "lives in Berlin", UserID: user})
				if err != nil {
					t.Fatal(err)
				}
				var b loci.MemoryBatch
				for i := range 1000 {
					b.Add = append(b.Add, loci.MemoryInput{Content: fmt.Sprintf("filler fact number %d", i), UserID: user})
				}
				if _, err := svcs[0].BatchMemories(ctx, b); err != nil {
					t.Fatal(err)
				}
				var editErr, forgetErr error
				atOnce(func() {
					time.Sleep(time.Duration(r%4) * time.Millisecond) // into the forget's read, at several points
					_, editErr = svcs[1].UpdateMemory(ctx, f.ID, loci.MemoryPatch{Content: loci.Ptr("lives in Paris")})
				}, func() {
					_, forgetErr = svcs[0].ForgetUserMemories(ctx, user, loci.ForgetRequest{Query: "Berlin"})
				})
				if forgetErr != nil {
					t.Fatalf("round %d: forget: %v", r, forgetErr)
				}
				got, err := svcs[0].GetMemory(ctx, f.ID)
				switch {
				case editErr == nil && err != nil:
					t.Errorf("round %d: the edit to %q was acknowledged, then the record was forgotten for what it said before: %v", r, "lives in Paris", err)
				case editErr == nil && got.Content != "lives in Paris":
					t.Errorf("round %d: the record says %q after an acknowledged edit", r, got.Content)
				case editErr != nil && loci.ErrorCode(editErr) != loci.ENOTFOUND:
					t.Errorf("round %d: the edit: %v, want it done or not found", r, editErr)
				}
			}
		})
	}
}

// TestEditRacingASupersession: an edit of a keyed fact's current version
// and a keyed add of the same slot, at once from two replicas, end as if
// one came first: never both superseding the same version (the edit of a
// version the add superseded is a conflict, as it is after it).
func TestEditRacingASupersession(t *testing.T) {
	ctx := context.Background()
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			for r := range 20 {
				user := fmt.Sprintf("es%d", r)
				f0, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "lives in city 0", UserID: user, Key: "home"})
				if err != nil {
					t.Fatal(err)
				}
				var add, edit *loci.MemoryEvent
				var addErr, editErr error
				atOnce(func() {
					add, addErr = svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "lives in city A", UserID: user, Key: "home"})
				}, func() {
					edit, editErr = svcs[1].UpdateMemory(ctx, f0.ID, loci.MemoryPatch{Content: loci.Ptr("lives in city B")})
				})
				if addErr != nil {
					t.Fatalf("round %d: add: %v", r, addErr)
				}
				if editErr != nil {
					if loci.ErrorCode(editErr) != loci.ECONFLICT {
						t.Errorf("round %d: edit: %v, want done or a conflict", r, editErr)
					}
					continue
				}
				if add.Previous == f0.ID && edit.Previous == f0.ID {
					t.Errorf("round %d: the add (%s) and the edit (%s) both superseded %s", r, add.ID, edit.ID, f0.ID)
				}
			}
		})
	}
}

// TestKeyedWritesRacingEditsByID: a write that reaches a record by its key
// (remember, a keyed add, a repeat that brings metadata or tags) and an
// edit of the same record by id, neither conditional, at once from two
// replicas, both succeed: they take the record's slot's lock and its own
// in one order, so neither waits for the other in a cycle (a deadlock on
// PostgreSQL) or loses the race to a version conflict.
func TestKeyedWritesRacingEditsByID(t *testing.T) {
	ctx := context.Background()
	note := func(agent string) loci.MemoryInput {
		return loci.MemoryInput{Content: "v0", AgentID: agent, Kind: loci.KindNote, Key: "k"}
	}
	fact := func(user string) loci.MemoryInput {
		return loci.MemoryInput{Content: "lives in city 0", UserID: user, Key: "home"}
	}
	cases := []struct {
		name  string
		first func(r int) loci.MemoryInput
		byKey func(svc *rules.Service, r int) error
		byID  loci.MemoryPatch
	}{
		{"RememberAndMetadata", func(r int) loci.MemoryInput { return note(fmt.Sprint("rm", r)) },
			func(svc *rules.Service, r int) error {
				_, err := svc.Remember(ctx, fmt.Sprint("rm", r), "k", jsonString("v1"))
				return err
			}, loci.MemoryPatch{Metadata: json.RawMessage(`{"n":1}`)}},
		{"NoteRepeatAndContent", func(r int) loci.MemoryInput { return note(fmt.Sprint("nr", r)) },
			func(svc *rules.Service, r int) error {
				in := note(fmt.Sprint("nr", r))
				in.Metadata = json.RawMessage(`{"a":1}`)
				_, err := svc.AddMemory(ctx, in)
				return err
			}, loci.MemoryPatch{Content: loci.Ptr("v1")}},
		{"KeyedAddAndTags", func(r int) loci.MemoryInput { return fact(fmt.Sprint("ka", r)) },
			func(svc *rules.Service, r int) error {
				in := fact(fmt.Sprint("ka", r))
				in.Content = "lives in city 1"
				_, err := svc.AddMemory(ctx, in)
				return err
			}, loci.MemoryPatch{Tags: &[]string{"t"}}},
		{"KeyedRepeatAndContent", func(r int) loci.MemoryInput { return fact(fmt.Sprint("kr", r)) },
			func(svc *rules.Service, r int) error {
				in := fact(fmt.Sprint("kr", r))
				in.Tags = []string{"t"}
				_, err := svc.AddMemory(ctx, in)
				return err
			}, loci.MemoryPatch{Content: loci.Ptr("lives in city 9")}},
	}
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					for r := range 10 {
						first, err := svcs[0].AddMemory(ctx, tc.first(r))
						if err != nil {
							t.Fatal(err)
						}
						var keyErr, idErr error
						atOnce(func() { keyErr = tc.byKey(svcs[0], r) }, func() { _, idErr = svcs[1].UpdateMemory(ctx, first.ID, tc.byID) })
						if keyErr != nil || idErr != nil {
							t.Errorf("round %d: by key: %v; by id: %v; want both done", r, keyErr, idErr)
						}
					}
				})
			}
		})
	}
}

// TestBatchesRacingInOtherOrders: two batches that update the same
// records in opposite orders, at once from two replicas, both succeed
// (they lock what they touch in one order before any operation runs: a
// deadlock on PostgreSQL otherwise), and the records end as one of them
// left them, each batch whole.
func TestBatchesRacingInOtherOrders(t *testing.T) {
	ctx := context.Background()
	for _, pair := range testdb.Pairs() {
		t.Run(pair.Name, func(t *testing.T) {
			svcs := twoServices(t, pair.Open)
			for r := range 10 {
				user := fmt.Sprintf("bo%d", r)
				x, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "x0", UserID: user})
				if err != nil {
					t.Fatal(err)
				}
				y, err := svcs[0].AddMemory(ctx, loci.MemoryInput{Content: "y0", UserID: user, Key: "y"})
				if err != nil {
					t.Fatal(err)
				}
				patch := func(id, content string) loci.MemoryUpdate {
					return loci.MemoryUpdate{ID: id, MemoryPatch: loci.MemoryPatch{Metadata: json.RawMessage(`{"by":"` + content + `"}`)}}
				}
				var errA, errB error
				atOnce(func() {
					_, errA = svcs[0].BatchMemories(ctx, loci.MemoryBatch{Update: []loci.MemoryUpdate{patch(x.ID, "a"), patch(y.ID, "a")}})
				}, func() {
					_, errB = svcs[1].BatchMemories(ctx, loci.MemoryBatch{Update: []loci.MemoryUpdate{patch(y.ID, "b"), patch(x.ID, "b")}})
				})
				if errA != nil || errB != nil {
					t.Errorf("round %d: batches: %v; %v; want both done", r, errA, errB)
					continue
				}
				gx, err := svcs[0].GetMemory(ctx, x.ID)
				if err != nil {
					t.Fatal(err)
				}
				gy, err := svcs[0].GetMemory(ctx, y.ID)
				if err != nil {
					t.Fatal(err)
				}
				if string(gx.Metadata) != string(gy.Metadata) {
					t.Errorf("round %d: x %s, y %s: want both from the batch that ran last", r, gx.Metadata, gy.Metadata)
				}
			}
		})
	}
}
