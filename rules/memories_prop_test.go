package rules_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// modelFact is a fact as the plain model of the rules holds it.
type modelFact struct {
	user, key, content string
	current            bool
}

// TestMemoriesMatchModel drives random sequences of adds, patches, deletes
// and batches through the memories API and through the facts' own routes
// and checks every answer, and the records left, against a plain model of
// the rules: a repeat (case and spacing aside) is NOOP, a key's new content
// supersedes its current fact, a patch changes in place (a keyed fact's new
// content is a new version), a past version's new content is a conflict.
func TestMemoriesMatchModel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for seed := range uint64(3) {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runModel(t, open, seed) })
		}
	})
}

func runModel(t *testing.T, open func(testing.TB) loci.Store, seed uint64) {
	ctx := context.Background()
	svc, clock := newService(t, open)
	rng := rand.New(rand.NewPCG(seed, 7))
	users := []string{"u1", "u2"}
	keys := []string{"", "", "home", "job"}
	contents := []string{"likes tea", "Likes  TEA", "likes coffee", "lives in Paris", "LIVES in paris", "lives in Rome"}
	model := map[string]*modelFact{}
	var ids []string

	expectAdd := func(user, key, content string) (event, id string) {
		for id, f := range model {
			if f.current && f.user == user && f.key == key && (key != "" || loci.NormalizeContent(f.content) == loci.NormalizeContent(content)) {
				if loci.NormalizeContent(f.content) == loci.NormalizeContent(content) {
					return loci.EventNoop, id
				}
				return loci.EventUpdate, id
			}
		}
		return loci.EventAdd, ""
	}
	applyAdd := func(user, key, content string, ev *loci.MemoryEvent, wantEv, prev string) {
		t.Helper()
		if ev.Event != wantEv {
			t.Fatalf("add %q %q %q: event %s, want %s", user, key, content, ev.Event, wantEv)
		}
		switch wantEv {
		case loci.EventNoop:
			// A patch may have made two records say the same: either is
			// the repeat's.
			if f := model[ev.ID]; f == nil || !f.current || f.user != user || f.key != key ||
				loci.NormalizeContent(f.content) != loci.NormalizeContent(content) {
				t.Fatalf("NOOP names %s (%+v), want one like %s", ev.ID, f, prev)
			}
		case loci.EventUpdate:
			model[prev].current = false
			fallthrough
		case loci.EventAdd:
			model[ev.ID] = &modelFact{user: user, key: key, content: content, current: true}
			ids = append(ids, ev.ID)
		}
	}

	for step := range 60 {
		clock.Add(1e9)
		user, key, content := users[rng.IntN(len(users))], keys[rng.IntN(len(keys))], contents[rng.IntN(len(contents))]
		switch op := rng.IntN(6); {
		case op == 0 || op == 1: // add through the memories API
			wantEv, prev := expectAdd(user, key, content)
			ev, err := svc.AddMemory(ctx, loci.MemoryInput{Content: content, UserID: user, Key: key})
			if err != nil {
				t.Fatalf("step %d: add: %v", step, err)
			}
			applyAdd(user, key, content, ev, wantEv, prev)
		case op == 2: // add through the facts' own route
			wantEv, prev := expectAdd(user, key, content)
			f, err := svc.StoreFact(ctx, loci.FactInput{UserID: user, Key: key, Category: loci.CategoryGeneralFact, Fact: content})
			if err != nil {
				t.Fatalf("step %d: store fact: %v", step, err)
			}
			ev := &loci.MemoryEvent{ID: f.ID, Event: loci.EventAdd}
			if model[f.ID] != nil {
				ev.Event = loci.EventNoop
			} else if f.Supersedes != "" {
				ev.Event = loci.EventUpdate
			}
			applyAdd(user, key, content, ev, wantEv, prev)
		case op == 3 && len(ids) > 0: // patch
			id := ids[rng.IntN(len(ids))]
			f := model[id]
			ev, err := svc.UpdateMemory(ctx, id, loci.MemoryPatch{Content: &content})
			switch {
			case f == nil:
				wantCode(t, err, loci.ENOTFOUND)
			case loci.NormalizeContent(f.content) == loci.NormalizeContent(content):
				if err != nil || ev.Event != loci.EventNoop {
					t.Fatalf("step %d: same content patch = %+v, %v; want NOOP", step, ev, err)
				}
			case f.key != "" && !f.current:
				wantCode(t, err, loci.ECONFLICT)
			case f.key != "":
				if err != nil || ev.Event != loci.EventUpdate || ev.ID == id || ev.Previous != id {
					t.Fatalf("step %d: keyed patch = %+v, %v; want a new version", step, ev, err)
				}
				f.current = false
				model[ev.ID] = &modelFact{user: f.user, key: f.key, content: content, current: true}
				ids = append(ids, ev.ID)
			default:
				if err != nil || ev.Event != loci.EventUpdate || ev.ID != id {
					t.Fatalf("step %d: patch = %+v, %v; want in place", step, ev, err)
				}
				f.content = content
			}
		case op == 4 && len(ids) > 0: // delete, through either route
			id := ids[rng.IntN(len(ids))]
			var err error
			if rng.IntN(2) == 0 {
				err = svc.DeleteMemory(ctx, id)
			} else {
				err = svc.DeleteFact(ctx, id)
			}
			if model[id] == nil {
				wantCode(t, err, loci.ENOTFOUND)
			} else if err != nil {
				t.Fatalf("step %d: delete: %v", step, err)
			}
			delete(model, id)
		default: // a batch of adds, as one
			var b loci.MemoryBatch
			type add struct{ user, key, content string }
			var adds []add
			for range 1 + rng.IntN(3) {
				a := add{users[rng.IntN(len(users))], keys[rng.IntN(len(keys))], contents[rng.IntN(len(contents))]}
				adds = append(adds, a)
				b.Add = append(b.Add, loci.MemoryInput{Content: a.content, UserID: a.user, Key: a.key})
			}
			evs, err := svc.BatchMemories(ctx, b)
			if err != nil {
				t.Fatalf("step %d: batch: %v", step, err)
			}
			for i, a := range adds {
				wantEv, prev := expectAdd(a.user, a.key, a.content)
				applyAdd(a.user, a.key, a.content, &evs[i], wantEv, prev)
			}
		}
	}
	// The records left are the model's, current or history alike.
	for _, user := range users {
		got, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: user}, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs, wantIDs []string
		for _, m := range got {
			gotIDs = append(gotIDs, m.ID)
			if f := model[m.ID]; f == nil || f.content != m.Content {
				t.Errorf("stored %s %q, the model holds %+v", m.ID, m.Content, f)
			}
		}
		for id, f := range model {
			if f.user == user {
				wantIDs = append(wantIDs, id)
			}
		}
		slices.Sort(gotIDs)
		slices.Sort(wantIDs)
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("user %s: stored %v, model %v", user, gotIDs, wantIDs)
		}
		// What is current is what the model says is current.
		facts, _, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: user, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var cur, wantCur []string
		for _, f := range facts {
			cur = append(cur, f.ID)
		}
		for id, f := range model {
			if f.user == user && f.current {
				wantCur = append(wantCur, id)
			}
		}
		slices.Sort(cur)
		slices.Sort(wantCur)
		if !slices.Equal(cur, wantCur) {
			t.Errorf("user %s: current %v, model %v", user, cur, wantCur)
		}
	}
}
