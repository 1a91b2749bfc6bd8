package rules_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// storeKeyed stores a fact of user u under key (at validAt, zero: now).
func (e *lcEnv) storeKeyed(t *testing.T, user, key, text string, validAt time.Time) *loci.Fact {
	t.Helper()
	f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: user, Category: loci.CategoryGeneralFact, Fact: text, Key: key, ValidAt: validAt})
	if err != nil {
		t.Fatalf("store %q: %v", text, err)
	}
	return f
}

func (e *lcEnv) fact(t *testing.T, id string) *loci.Fact {
	t.Helper()
	f, err := e.svc.GetFact(e.ctx, id)
	if err != nil {
		t.Fatalf("get fact %s: %v", id, err)
	}
	return f
}

func factIDs(facts []*loci.Fact) []string {
	out := []string{}
	for _, f := range facts {
		out = append(out, f.ID)
	}
	return out
}

func (e *lcEnv) search(t *testing.T, q loci.FactQuery) []loci.ScoredFact {
	t.Helper()
	res, err := e.svc.SearchFacts(e.ctx, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res.Results
}

func scoredIDs(rs []loci.ScoredFact) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func (e *lcEnv) list(t *testing.T, q loci.FactQuery) []string {
	t.Helper()
	facts, n, err := e.svc.FactsByKeyword(e.ctx, q)
	if err != nil {
		t.Fatalf("list %+v: %v", q, err)
	}
	if n != len(facts) {
		t.Fatalf("list %+v: count %d, %d facts", q, n, len(facts))
	}
	return factIDs(facts)
}

func TestFactSupersession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		paris := e.storeKeyed(t, "u", "home_city", "lives in Paris", time.Time{})
		if paris.Status != loci.FactCurrent || !paris.ValidAt.Equal(lcT0) || paris.Key != "home_city" || !paris.InvalidAt.IsZero() {
			t.Fatalf("first version: %+v", paris)
		}
		e.clock.Add(time.Hour)
		berlin := e.storeKeyed(t, "u", "home_city", "moved from Paris: lives in Berlin", time.Time{})
		if berlin.Supersedes != paris.ID || berlin.Status != loci.FactCurrent || !berlin.InvalidAt.IsZero() {
			t.Fatalf("second version: %+v", berlin)
		}
		old := e.fact(t, paris.ID)
		if old.Status != loci.FactSuperseded || old.SupersededBy != berlin.ID || !old.InvalidAt.Equal(berlin.ValidAt) {
			t.Fatalf("superseded version: %+v, want superseded by %s at %v", old, berlin.ID, berlin.ValidAt)
		}
		mid := lcT0.Add(30 * time.Minute)
		for _, tc := range []struct {
			name string
			q    loci.FactQuery
			want []string
		}{
			{"SearchNow", loci.FactQuery{UserID: "u", Query: "lives Paris"}, []string{berlin.ID}},
			{"SearchAsOf", loci.FactQuery{UserID: "u", Query: "lives Paris", AsOf: mid}, []string{paris.ID}},
			{"SearchBeforeAny", loci.FactQuery{UserID: "u", Query: "lives Paris", AsOf: lcT0.Add(-time.Second)}, []string{}},
			// "lives in Paris" matches better, but the current version
			// ranks first.
			{"SearchHistoryCurrentFirst", loci.FactQuery{UserID: "u", Query: "lives Paris", IncludeHistory: true}, []string{berlin.ID, paris.ID}},
			{"SearchHistoryAsOfPast", loci.FactQuery{UserID: "u", Query: "lives Paris", IncludeHistory: true, AsOf: mid}, []string{paris.ID, berlin.ID}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rs := e.search(t, tc.q)
				if got := scoredIDs(rs); !slices.Equal(got, tc.want) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				for i := 1; i < len(rs); i++ {
					if rs[i].Score > rs[i-1].Score {
						t.Fatalf("scores not best first: %v then %v", rs[i-1].Score, rs[i].Score)
					}
				}
				// A version is superseded as of the time asked (now when
				// AsOf is zero); before its successor began, it is current.
				if tc.q.IncludeHistory {
					want := map[string]string{paris.ID: loci.FactSuperseded, berlin.ID: loci.FactCurrent}
					if !tc.q.AsOf.IsZero() {
						want = map[string]string{paris.ID: loci.FactCurrent, berlin.ID: loci.FactFuture}
					}
					for _, r := range rs {
						if r.Status != want[r.ID] {
							t.Errorf("%s: status %s, want %s", r.Fact.Fact, r.Status, want[r.ID])
						}
					}
				}
			})
		}
		t.Run("List", func(t *testing.T) {
			if got := e.list(t, loci.FactQuery{UserID: "u"}); !slices.Equal(got, []string{berlin.ID}) {
				t.Errorf("now: %v", got)
			}
			if got := e.list(t, loci.FactQuery{UserID: "u", AsOf: mid}); !slices.Equal(got, []string{paris.ID}) {
				t.Errorf("as of: %v", got)
			}
			if got := e.list(t, loci.FactQuery{UserID: "u", IncludeHistory: true}); len(got) != 2 {
				t.Errorf("history: %v", got)
			}
		})
		t.Run("History", func(t *testing.T) {
			for _, id := range []string{paris.ID, berlin.ID} {
				h, err := e.svc.FactHistory(e.ctx, id)
				if err != nil || !slices.Equal(factIDs(h), []string{berlin.ID, paris.ID}) {
					t.Fatalf("history of %s: %v (%v)", id, factIDs(h), err)
				}
			}
			lone, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "likes tea"})
			if err != nil {
				t.Fatal(err)
			}
			if h, err := e.svc.FactHistory(e.ctx, lone.ID); err != nil || !slices.Equal(factIDs(h), []string{lone.ID}) {
				t.Fatalf("history of an unkeyed fact: %v (%v)", factIDs(h), err)
			}
		})
		t.Run("SlotIsPerUserWhicheverAgent", func(t *testing.T) {
			e.clock.Add(time.Hour)
			rome, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", AgentID: "assistant", Category: loci.CategoryGeneralFact,
				Fact: "lives in Rome", Key: "home_city"})
			if err != nil || rome.Supersedes != berlin.ID {
				t.Fatalf("another agent's version: %+v (%v), want it to supersede %s", rome, err, berlin.ID)
			}
			global := e.storeKeyed(t, "", "home_city", "the company is in Lyon", time.Time{})
			other := e.storeKeyed(t, "v", "home_city", "lives in Oslo", time.Time{})
			if global.Supersedes != "" || other.Supersedes != "" {
				t.Fatalf("a global or another user's fact superseded: %+v %+v", global, other)
			}
			if got := e.list(t, loci.FactQuery{UserID: "u", Keyword: "", IncludeGlobal: true}); len(got) != 3 {
				t.Fatalf("u's current facts with global ones: %v, want rome, tea and the global one", got)
			}
		})
		t.Run("ErrKey", func(t *testing.T) {
			for _, key := range []string{" ", string(make([]byte, loci.MaxFactKeyBytes+1)), "a\x00b"} {
				_, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "x", Key: key})
				lcCode(t, err, loci.EINVALID)
			}
		})
		t.Run("ErrCreatorCannotSupersede", func(t *testing.T) {
			creator := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "k", Role: loci.RoleCreator, Workspace: loci.DefaultWorkspace})
			if _, err := e.svc.StoreFact(creator, loci.FactInput{UserID: "w", Category: loci.CategoryGeneralFact, Fact: "first", Key: "k"}); err != nil {
				t.Fatalf("a creator adds a new key: %v", err)
			}
			_, err := e.svc.StoreFact(creator, loci.FactInput{UserID: "w", Category: loci.CategoryGeneralFact, Fact: "second", Key: "k"})
			lcCode(t, err, loci.EFORBIDDEN)
			if got := e.list(t, loci.FactQuery{UserID: "w", IncludeHistory: true}); len(got) != 1 {
				t.Fatalf("w's facts after a refused supersession: %v, want the first only", got)
			}
		})
	})
}

func TestFactValidAt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		a := e.storeKeyed(t, "u", "role", "junior engineer", time.Time{})
		e.clock.Add(10 * time.Hour)
		c := e.storeKeyed(t, "u", "role", "staff engineer", time.Time{})
		t.Run("Backdated", func(t *testing.T) {
			// Between a and c: a ends where b begins, b where c begins.
			b := e.storeKeyed(t, "u", "role", "senior engineer", lcT0.Add(5*time.Hour))
			if b.Status != loci.FactSuperseded || b.Supersedes != a.ID || b.SupersededBy != c.ID || !b.InvalidAt.Equal(c.ValidAt) {
				t.Fatalf("backdated version: %+v", b)
			}
			if got := e.fact(t, a.ID); !got.InvalidAt.Equal(b.ValidAt) || got.SupersededBy != b.ID {
				t.Fatalf("a: %+v, want superseded by b at its valid_at", got)
			}
			if got := e.fact(t, c.ID); got.Supersedes != b.ID || got.Status != loci.FactCurrent {
				t.Fatalf("c: %+v, want current, superseding b", got)
			}
			if got := e.list(t, loci.FactQuery{UserID: "u", AsOf: lcT0.Add(6 * time.Hour)}); !slices.Equal(got, []string{b.ID}) {
				t.Fatalf("as of hour 6: %v, want b", got)
			}
			h, _ := e.svc.FactHistory(e.ctx, a.ID)
			if !slices.Equal(factIDs(h), []string{c.ID, b.ID, a.ID}) {
				t.Fatalf("history: %v, want c, b, a", factIDs(h))
			}
		})
		t.Run("Future", func(t *testing.T) {
			now := e.clock.Now()
			d := e.storeKeyed(t, "u", "role", "principal engineer", now.Add(24*time.Hour))
			if d.Status != loci.FactFuture || d.Supersedes != c.ID {
				t.Fatalf("future version: %+v", d)
			}
			if got := e.fact(t, c.ID); got.Status != loci.FactCurrent || !got.InvalidAt.Equal(d.ValidAt) || got.SupersededBy != d.ID {
				t.Fatalf("c before d starts: %+v, want current until %v", got, d.ValidAt)
			}
			if got := scoredIDs(e.search(t, loci.FactQuery{UserID: "u", Query: "engineer"})); !slices.Equal(got, []string{c.ID}) {
				t.Fatalf("search before d starts: %v, want c", got)
			}
			e.clock.Add(24 * time.Hour)
			if got := scoredIDs(e.search(t, loci.FactQuery{UserID: "u", Query: "engineer"})); !slices.Equal(got, []string{d.ID}) {
				t.Fatalf("search once d started: %v, want d", got)
			}
			if got := e.fact(t, c.ID); got.Status != loci.FactSuperseded {
				t.Fatalf("c once d started: %s, want superseded", got.Status)
			}
		})
		t.Run("SameValidAt", func(t *testing.T) {
			at := e.clock.Now().Add(time.Hour)
			x := e.storeKeyed(t, "v", "plan", "plan x", at)
			y := e.storeKeyed(t, "v", "plan", "plan y", at)
			if got := e.fact(t, x.ID); got.SupersededBy != y.ID || !got.InvalidAt.Equal(at) {
				t.Fatalf("x: %+v, want superseded by y at once", got)
			}
			if got := e.list(t, loci.FactQuery{UserID: "v", AsOf: at}); !slices.Equal(got, []string{y.ID}) {
				t.Fatalf("as of their valid_at: %v, want y", got)
			}
		})
	})
}

func TestFactDisputesAndReview(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		f := e.storeKeyed(t, "u", "employer", "works at Initech", time.Time{})
		queue := func() []*loci.ReviewItem {
			t.Helper()
			items, n, err := e.svc.ReviewQueue(e.ctx, loci.ReviewQuery{UserID: "u"})
			if err != nil || n != len(items) {
				t.Fatalf("review queue: %d of %d (%v)", len(items), n, err)
			}
			return items
		}
		if got := queue(); len(got) != 0 {
			t.Fatalf("queue before any dispute: %+v", got)
		}
		e.clock.Add(time.Minute)
		got, err := e.svc.ContradictFact(e.ctx, f.ID)
		if err != nil || got.Status != loci.FactDisputed || got.RelevanceScore != 0.8 || got.ContradictionCount != 1 {
			t.Fatalf("contradicted: %+v (%v)", got, err)
		}
		if _, _, err := e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: "u", Type: "tone", Value: []byte(`"formal"`), Source: loci.SourceExplicit}); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Minute)
		if _, err := e.svc.ContradictPreference(e.ctx, "u", "tone", "", loci.SourceExplicit); err != nil {
			t.Fatal(err)
		}
		items := queue()
		if len(items) != 2 || items[0].Kind != loci.KindPreference || items[0].Reason != loci.ReviewFlaggedForRemoval || items[0].Preference.Type != "tone" ||
			items[1].Kind != loci.KindFact || items[1].Reason != loci.ReviewDisputed || items[1].Fact.ID != f.ID {
			t.Fatalf("queue: %+v, want the preference then the fact", items)
		}
		if got := e.list(t, loci.FactQuery{UserID: "u", Status: loci.FactDisputed}); !slices.Equal(got, []string{f.ID}) {
			t.Fatalf("disputed facts: %v", got)
		}
		if items, _, _ := e.svc.ReviewQueue(e.ctx, loci.ReviewQuery{UserID: "v"}); len(items) != 0 {
			t.Fatalf("another user's queue: %+v", items)
		}
		t.Run("ResolveKeep", func(t *testing.T) {
			got, err := e.svc.ResolveFact(e.ctx, f.ID, true)
			if err != nil || got.Status != loci.FactCurrent || !got.InvalidAt.IsZero() || got.RelevanceScore != 0.8 {
				t.Fatalf("kept: %+v (%v)", got, err)
			}
			_, err = e.svc.ResolveFact(e.ctx, f.ID, true)
			lcCode(t, err, loci.ECONFLICT)
			if got := e.list(t, loci.FactQuery{UserID: "u", Status: loci.FactDisputed}); len(got) != 0 {
				t.Fatalf("disputed facts after keep: %v", got)
			}
		})
		t.Run("ResolveDrop", func(t *testing.T) {
			if _, err := e.svc.ContradictFact(e.ctx, f.ID); err != nil {
				t.Fatal(err)
			}
			got, err := e.svc.ResolveFact(e.ctx, f.ID, false)
			if err != nil || got.Status != loci.FactInvalidated || !got.InvalidAt.Equal(e.clock.Now()) {
				t.Fatalf("dropped: %+v (%v)", got, err)
			}
			if got := e.list(t, loci.FactQuery{UserID: "u"}); len(got) != 0 {
				t.Fatalf("current facts after drop: %v", got)
			}
			_, err = e.svc.ContradictFact(e.ctx, f.ID)
			lcCode(t, err, loci.ECONFLICT)
			_, err = e.svc.ValidateFact(e.ctx, f.ID)
			lcCode(t, err, loci.ECONFLICT)
		})
		t.Run("SupersedingEndsTheDispute", func(t *testing.T) {
			g := e.storeKeyed(t, "u", "employer", "works at Initrode", time.Time{})
			if _, err := e.svc.ContradictFact(e.ctx, g.ID); err != nil {
				t.Fatal(err)
			}
			e.clock.Add(time.Minute)
			e.storeKeyed(t, "u", "employer", "works at Globex", time.Time{})
			for _, it := range queue() {
				if it.Kind == loci.KindFact {
					t.Fatalf("a superseded fact still waits for review: %+v", it.Fact)
				}
			}
		})
		t.Run("ResolvePreference", func(t *testing.T) {
			p, err := e.svc.ResolvePreference(e.ctx, "u", "tone", "", true)
			if err != nil || p.FlaggedForRemoval || p.Confidence != 0 {
				t.Fatalf("kept preference: %+v (%v)", p, err)
			}
			_, err = e.svc.ResolvePreference(e.ctx, "u", "tone", "", true)
			lcCode(t, err, loci.ECONFLICT)
			if len(queue()) != 0 {
				t.Fatalf("queue after resolving: %+v", queue())
			}
			if _, err := e.svc.ContradictPreference(e.ctx, "u", "tone", "", loci.SourceExplicit); err != nil {
				t.Fatal(err)
			}
			if p, err = e.svc.ResolvePreference(e.ctx, "u", "tone", "", false); err != nil || p.Type != "tone" {
				t.Fatalf("forgotten preference: %+v (%v)", p, err)
			}
			prefs, _ := e.svc.ListPreferences(e.ctx, "u", "")
			if len(prefs) != 0 {
				t.Fatalf("preferences after forgetting: %+v", prefs)
			}
			_, err = e.svc.ResolvePreference(e.ctx, "u", "tone", "", false)
			lcCode(t, err, loci.ENOTFOUND)
		})
		t.Run("Errors", func(t *testing.T) {
			_, _, err := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u", Status: "pending"})
			lcCode(t, err, loci.EINVALID)
			_, _, err = e.svc.ReviewQueue(e.ctx, loci.ReviewQuery{UserID: " "})
			lcCode(t, err, loci.EINVALID)
			_, _, err = e.svc.ReviewQueue(e.ctx, loci.ReviewQuery{UserID: "u", Limit: 5000})
			lcCode(t, err, loci.EINVALID)
		})
	})
}

func TestFactInvalidateAndDelete(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		t.Run("Invalidate", func(t *testing.T) {
			f := e.storeKeyed(t, "u", "car", "drives a Volvo", time.Time{})
			_, err := e.svc.InvalidateFact(e.ctx, f.ID, lcT0.Add(-time.Second))
			lcCode(t, err, loci.EINVALID)
			later := lcT0.Add(48 * time.Hour)
			got, err := e.svc.InvalidateFact(e.ctx, f.ID, later)
			if err != nil || got.Status != loci.FactCurrent || !got.InvalidAt.Equal(later) {
				t.Fatalf("invalidated in two days: %+v (%v), want current until then", got, err)
			}
			e.clock.Add(time.Hour)
			got, err = e.svc.InvalidateFact(e.ctx, f.ID, time.Time{})
			if err != nil || got.Status != loci.FactInvalidated || !got.InvalidAt.Equal(e.clock.Now()) || got.SupersededBy != "" {
				t.Fatalf("invalidated now: %+v (%v)", got, err)
			}
			_, err = e.svc.InvalidateFact(e.ctx, f.ID, time.Time{})
			lcCode(t, err, loci.ECONFLICT)
			if got := e.list(t, loci.FactQuery{UserID: "u"}); len(got) != 0 {
				t.Fatalf("current facts: %v", got)
			}
			// The slot is free: a new version is simply current.
			next := e.storeKeyed(t, "u", "car", "drives a Saab", time.Time{})
			if next.Supersedes != "" || next.Status != loci.FactCurrent {
				t.Fatalf("after invalidation: %+v", next)
			}
		})
		t.Run("DeleteUnlinks", func(t *testing.T) {
			a := e.storeKeyed(t, "v", "city", "Paris", time.Time{})
			e.clock.Add(time.Hour)
			b := e.storeKeyed(t, "v", "city", "Berlin", time.Time{})
			e.clock.Add(time.Hour)
			c := e.storeKeyed(t, "v", "city", "Rome", time.Time{})
			if err := e.svc.DeleteFact(e.ctx, b.ID); err != nil {
				t.Fatal(err)
			}
			if got := e.fact(t, a.ID); got.SupersededBy != "" || got.Status != loci.FactInvalidated || !got.InvalidAt.Equal(b.ValidAt) {
				t.Fatalf("a after deleting b: %+v, want ended, naming nobody", got)
			}
			if got := e.fact(t, c.ID); got.Supersedes != "" || got.Status != loci.FactCurrent {
				t.Fatalf("c after deleting b: %+v", got)
			}
			h, _ := e.svc.FactHistory(e.ctx, a.ID)
			if !slices.Equal(factIDs(h), []string{c.ID, a.ID}) {
				t.Fatalf("history: %v", factIDs(h))
			}
			err := e.svc.DeleteFact(e.ctx, b.ID)
			lcCode(t, err, loci.ENOTFOUND)
			// A global fact too.
			g, err := e.svc.StoreFact(e.ctx, loci.FactInput{Category: loci.CategoryGeneralFact, Fact: "water boils at 100 C"})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.DeleteFact(e.ctx, g.ID); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			ep, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", "a", "post", "posted", loci.OutcomeSuccess, 0.5))
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"missing", ep.ID} {
				_, err := e.svc.GetFact(e.ctx, id)
				lcCode(t, err, loci.ENOTFOUND)
				_, err = e.svc.FactHistory(e.ctx, id)
				lcCode(t, err, loci.ENOTFOUND)
				_, err = e.svc.InvalidateFact(e.ctx, id, time.Time{})
				lcCode(t, err, loci.ENOTFOUND)
				_, err = e.svc.ResolveFact(e.ctx, id, true)
				lcCode(t, err, loci.ENOTFOUND)
				lcCode(t, e.svc.DeleteFact(e.ctx, id), loci.ENOTFOUND)
			}
			_, err = e.svc.GetFact(e.ctx, " ")
			lcCode(t, err, loci.EINVALID)
		})
	})
}

// TestFactRulesActOnCurrentFacts: decay and prune leave history alone, and
// prune never deletes a superseded fact's successor.
func TestFactRulesActOnCurrentFacts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		old := e.storeKeyed(t, "u", "k", "old version", time.Time{})
		for range 5 {
			if _, err := e.svc.ContradictFact(e.ctx, old.ID); err != nil {
				t.Fatal(err)
			}
		}
		e.clock.Add(time.Hour)
		cur := e.storeKeyed(t, "u", "k", "current version", time.Time{})
		for range 5 {
			if _, err := e.svc.ContradictFact(e.ctx, cur.ID); err != nil {
				t.Fatal(err)
			}
		}
		lone, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "unlinked"})
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			if _, err := e.svc.ContradictFact(e.ctx, lone.ID); err != nil {
				t.Fatal(err)
			}
		}
		rep := e.lcMaintain(t, loci.MaintainPrune).Tasks[loci.MaintainPrune]
		if rep.Deleted != 1 || !slices.Equal(rep.IDs, []string{lone.ID}) {
			t.Fatalf("prune: %+v, want only the unlinked fact", rep)
		}
		if e.fact(t, cur.ID).Status != loci.FactDisputed || e.fact(t, old.ID).Status != loci.FactSuperseded {
			t.Fatal("prune changed the key's versions")
		}

		e2 := lcOpen(t, open)
		a := e2.storeKeyed(t, "u", "k", "first", time.Time{})
		e2.clock.Add(time.Hour)
		b := e2.storeKeyed(t, "u", "k", "second", time.Time{})
		e2.clock.Add(31 * lcDay)
		rep = e2.lcMaintain(t, loci.MaintainDecay).Tasks[loci.MaintainDecay]
		if !slices.Equal(rep.IDs, []string{b.ID}) {
			t.Fatalf("decay: %+v, want only the current version %s", rep, b.ID)
		}
		if got := e2.fact(t, a.ID).RelevanceScore; got != 1.0 {
			t.Fatalf("history decayed to %v", got)
		}
	})
}

// TestFactForgetAndDeleteUserTakeHistory: forgetting a version of a keyed fact
// forgets that version, not the current one; deleting the user deletes every
// version.
func TestFactForgetAndDeleteUserTakeHistory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		paris := e.storeKeyed(t, "u", "home_city", "lives in Paris", time.Time{})
		e.clock.Add(time.Hour)
		berlin := e.storeKeyed(t, "u", "home_city", "lives in Berlin", time.Time{})
		keep := e.storeKeyed(t, "u", "car", "drives a Volvo", time.Time{})
		mems, err := e.svc.UserMemories(e.ctx, "u", loci.UserMemoryQuery{})
		if err != nil || len(mems) != 2 {
			t.Fatalf("memories now: %d (%v), want 2", len(mems), err)
		}
		if mems, _ := e.svc.UserMemories(e.ctx, "u", loci.UserMemoryQuery{IncludeHistory: true}); len(mems) != 3 {
			t.Fatalf("memories with history: %d, want 3", len(mems))
		}
		if mems, _ := e.svc.UserMemories(e.ctx, "u", loci.UserMemoryQuery{AsOf: lcT0}); len(mems) != 1 || mems[0].ID != paris.ID || mems[0].ValidAt.IsZero() {
			t.Fatalf("memories as of the start: %+v, want paris", mems)
		}
		// "Paris" is only in the superseded version; forgetting it takes
		// that version only.
		gone, err := e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: "Paris"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range gone {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		if want := []string{paris.ID}; !slices.Equal(ids, want) {
			t.Fatalf("forgot %v, want %v", ids, want)
		}
		if f, err := e.svc.GetFact(e.ctx, berlin.ID); err != nil || f.Status != loci.FactCurrent || f.Supersedes != "" {
			t.Fatalf("berlin after forgetting paris: %+v (%v), want current, naming nothing", f, err)
		}
		if n := e.lcCount(t, loci.RecordFilter{UserID: loci.Ptr("u")}); n != 2 {
			t.Fatalf("records left: %d, want berlin and the car", n)
		}
		if _, err := e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{IDs: []string{berlin.ID}}); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Hour)
		e.storeKeyed(t, "u", "car", "drives a Saab", time.Time{})
		n, err := e.svc.DeleteUser(e.ctx, "u")
		if err != nil || n != 2 {
			t.Fatalf("delete user: %d (%v), want both versions of car", n, err)
		}
		if _, err := e.svc.GetFact(e.ctx, keep.ID); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Fatalf("a version survived the user: %v", err)
		}
	})
}

// TestFactKeyConcurrentWriters: many writers storing one key at once leave
// exactly one current fact and a consistent history (on PostgreSQL in
// parallel transactions, serialized by the slot's lock).
func TestFactKeyConcurrentWriters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t)) // the real clock: writers race for times too
		ctx := context.Background()
		const writers = 16
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u", AgentID: fmt.Sprintf("agent-%d", i%3),
					Category: loci.CategoryGeneralFact, Fact: fmt.Sprintf("lives in city %d", i), Key: "home_city"})
				if err != nil {
					errs <- fmt.Errorf("writer %d: %w", i, err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		current, n, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u"})
		if err != nil || n != 1 {
			t.Fatalf("current facts: %d (%v), want exactly 1", n, err)
		}
		all, err := svc.FactHistory(ctx, current[0].ID)
		if err != nil || len(all) != writers {
			t.Fatalf("history: %d versions (%v), want %d", len(all), err, writers)
		}
		byID := map[string]*loci.Fact{}
		opened := 0
		for _, f := range all {
			byID[f.ID] = f
			if f.InvalidAt.IsZero() {
				opened++
			}
		}
		if opened != 1 || !all[0].InvalidAt.IsZero() || all[0].ID != current[0].ID {
			t.Fatalf("%d open versions; newest %+v; want exactly the current one open", opened, all[0])
		}
		for _, f := range all[1:] {
			next := byID[f.SupersededBy]
			if next == nil || !f.InvalidAt.Equal(next.ValidAt) || next.Supersedes != f.ID {
				t.Fatalf("version %+v is not linked to its successor %+v", f, next)
			}
		}
	})
}

// TestFactStatusAsOf: a listing or search as of a time marks each fact's
// status as of that time: the version true then is current, a later one
// future, an earlier one superseded; without as_of, as of now.
func TestFactStatusAsOf(t *testing.T) {
	year := func(y int) time.Time { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC) }
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		for _, v := range []struct {
			text string
			y    int
		}{{"lives in Paris", 2018}, {"lives in Lyon", 2020}, {"lives in Berlin", 2023}} {
			if _, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Key: "home", Fact: v.text, ValidAt: year(v.y)}); err != nil {
				t.Fatal(err)
			}
		}
		statuses := func(facts []*loci.Fact) map[string]string {
			out := map[string]string{}
			for _, f := range facts {
				out[f.Fact] = f.Status
			}
			return out
		}
		for _, tc := range []struct {
			name   string
			q      loci.FactQuery
			want   map[string]string
			search bool
		}{
			{name: "ListHistoryAsOf", q: loci.FactQuery{UserID: "u", AsOf: year(2021), IncludeHistory: true},
				want: map[string]string{"lives in Paris": loci.FactSuperseded, "lives in Lyon": loci.FactCurrent, "lives in Berlin": loci.FactFuture}},
			{name: "ListAsOf", q: loci.FactQuery{UserID: "u", AsOf: year(2021)},
				want: map[string]string{"lives in Lyon": loci.FactCurrent}},
			{name: "ListHistoryNow", q: loci.FactQuery{UserID: "u", IncludeHistory: true},
				want: map[string]string{"lives in Paris": loci.FactSuperseded, "lives in Lyon": loci.FactSuperseded, "lives in Berlin": loci.FactCurrent}},
			{name: "SearchHistoryAsOf", search: true, q: loci.FactQuery{UserID: "u", Query: "lives", AsOf: year(2019), IncludeHistory: true},
				want: map[string]string{"lives in Paris": loci.FactCurrent, "lives in Lyon": loci.FactFuture, "lives in Berlin": loci.FactFuture}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var facts []*loci.Fact
				if tc.search {
					res, err := e.svc.SearchFacts(e.ctx, tc.q)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range res.Results {
						facts = append(facts, r.Fact)
					}
				} else {
					var err error
					if facts, _, err = e.svc.FactsByKeyword(e.ctx, tc.q); err != nil {
						t.Fatal(err)
					}
				}
				if got := statuses(facts); !maps.Equal(got, tc.want) {
					t.Errorf("statuses: got %v, want %v", got, tc.want)
				}
			})
		}
	})
}
