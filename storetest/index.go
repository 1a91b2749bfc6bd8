package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
)

// Pair opens two handles on one fresh database: two processes, or two
// replicas, sharing storage.
type Pair func(t *testing.T) (loci.Store, loci.Store)

// RunIndex runs the search index's conformance cases on a backend: the
// change feed keeps the indexes of every handle exact, a write invalidates
// only the scopes it touched, a search in a transaction that wrote sees
// its writes, and a small memory budget changes no answer.
func RunIndex(t *testing.T, pair Pair) {
	t.Run("SeesOtherHandle", func(t *testing.T) { testSeesOtherHandle(t, pair) })
	t.Run("OnlyTouchedScopes", func(t *testing.T) { testOnlyTouchedScopes(t, pair) })
	t.Run("DirtyTx", func(t *testing.T) { testDirtyTx(t, pair) })
	t.Run("Budget", func(t *testing.T) { testBudget(t, pair) })
}

// find runs one lexical and vector search of f's scope on c and returns
// the ids each signal found.
func find(t testing.TB, s loci.Store, c *index.Cache, f loci.RecordFilter, term string, q []float32) (lex, vec []string) {
	t.Helper()
	ctx := context.Background()
	err := s.View(ctx, func(tx loci.Tx) error {
		res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{term}, Vector: q, N: 10})
		if err != nil {
			return err
		}
		lex, vec = hitIDs(res.Lexical), hitIDs(res.Vector)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lex, vec
}

func agentScope(agent string) loci.RecordFilter {
	return loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr(agent)}
}

func embedded(agent, text string, vec []float32) *loci.Record {
	r := NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", text)
	r.SearchText, r.Embedding, r.EmbeddingModel = text, vec, "m"
	return r
}

func testSeesOtherHandle(t *testing.T, pair Pair) {
	ctx := context.Background()
	one, two := pair(t)
	c1, c2 := index.New(index.WithModel("m")), index.New(index.WithModel("m"))
	a := embedded("a", "first", []float32{1, 0})
	MustInsert(t, one, a)
	if lex, vec := find(t, two, c2, agentScope("a"), "first", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("two does not see one's insert: %v %v", lex, vec)
	}
	b := embedded("a", "second", []float32{0, 1})
	MustInsert(t, two, b)
	if lex, _ := find(t, one, c1, agentScope("a"), "second", []float32{0, 1}); len(lex) != 1 {
		t.Fatalf("one does not see two's insert: %v", lex)
	}
	// An update and an embedding by one, seen by two's held index.
	u := *b
	u.Content, u.SearchText, u.Version = "renamed", "renamed", 2
	if err := one.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &u, 1) }); err != nil {
		t.Fatal(err)
	}
	if lex, _ := find(t, two, c2, agentScope("a"), "renamed", nil); len(lex) != 1 {
		t.Fatalf("two does not see one's update: %v", lex)
	}
	if !mustSetEmbedding(t, one, &u, "m", []float32{0.6, 0.8}) {
		t.Fatal("set embedding")
	}
	if _, vec := find(t, two, c2, agentScope("a"), "renamed", []float32{0.6, 0.8}); len(vec) == 0 || vec[0] != b.ID {
		t.Fatalf("two does not see one's embedding: %v", vec)
	}
	// A delete and a move to another scope by two, seen by one.
	if err := two.Update(ctx, func(tx loci.Tx) error {
		_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{a.ID}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if lex, vec := find(t, one, c1, agentScope("a"), "first", []float32{1, 0}); len(lex) != 0 || slices.Contains(vec, a.ID) {
		t.Fatalf("one still sees two's delete: lexical %v, vector %v", lex, vec)
	}
	moved := MustFind(t, two, loci.RecordFilter{Workspace: loci.DefaultWorkspace, IDs: []string{b.ID}})[0]
	m := *moved
	m.AgentID, m.Version = "z", moved.Version+1
	if err := two.Update(ctx, func(tx loci.Tx) error { return tx.UpdateRecord(ctx, &m, moved.Version) }); err != nil {
		t.Fatal(err)
	}
	if lex, _ := find(t, one, c1, agentScope("a"), "renamed", nil); len(lex) != 0 {
		t.Fatalf("one still finds the moved record in its old scope: %v", lex)
	}
	if lex, _ := find(t, one, c1, agentScope("z"), "renamed", nil); len(lex) != 1 {
		t.Fatalf("one does not find the moved record in its new scope: %v", lex)
	}
}

func testOnlyTouchedScopes(t *testing.T, pair Pair) {
	one, two := pair(t)
	c := index.New(index.WithModel("m"))
	for _, agent := range []string{"a", "b", "c"} {
		MustInsert(t, one, embedded(agent, "apple "+agent, []float32{1, 0}))
	}
	userScope := loci.RecordFilter{Workspace: loci.DefaultWorkspace, UserID: loci.Ptr("u")}
	for _, f := range []loci.RecordFilter{agentScope("a"), agentScope("b"), agentScope("c"), userScope} {
		find(t, one, c, f, "apple", nil)
	}
	loads := c.Stats().Loads
	if loads != 4 {
		t.Fatalf("loads = %d, want 4", loads)
	}
	// Another handle writes into agent a's scope only.
	fresh := embedded("a", "apple pie", []float32{0, 1})
	MustInsert(t, two, fresh)
	if lex, _ := find(t, one, c, agentScope("a"), "apple", nil); !slices.Contains(lex, fresh.ID) {
		t.Fatalf("agent a's search misses the other handle's write: %v", lex)
	}
	for _, f := range []loci.RecordFilter{agentScope("b"), agentScope("c"), userScope} {
		if lex, _ := find(t, one, c, f, "apple", nil); slices.Contains(lex, fresh.ID) {
			t.Fatalf("another scope finds agent a's record: %v", lex)
		}
	}
	st := c.Stats()
	if st.Loads != loads || st.Resets != 0 || st.Dropped != 0 {
		t.Fatalf("after a write to one scope: %+v; want no index reloaded", st)
	}
	if st.Applied == 0 {
		t.Fatalf("the change was not applied: %+v", st)
	}
}

func testDirtyTx(t *testing.T, pair Pair) {
	ctx := context.Background()
	s, _ := pair(t)
	c := index.New(index.WithModel("m"))
	r := embedded("a", "apple", []float32{1, 0})
	MustInsert(t, s, r)
	find(t, s, c, agentScope("a"), "apple", nil) // held
	errRollback := errors.New("roll back")
	err := s.Update(ctx, func(tx loci.Tx) error {
		moved := *r
		moved.AgentID, moved.Version = "b", r.Version+1
		if err := tx.UpdateRecord(ctx, &moved, r.Version); err != nil {
			return err
		}
		for _, tc := range []struct {
			agent string
			want  int
		}{{"b", 1}, {"a", 0}} {
			res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{agentScope(tc.agent)},
				Terms: []string{"apple"}, Vector: []float32{1, 0}, N: 10})
			if err != nil {
				return err
			}
			if len(res.Lexical) != tc.want || len(res.Vector) != tc.want {
				t.Errorf("in the tx, agent %s: lexical %v, vector %v; want %d each", tc.agent, hitIDs(res.Lexical), hitIDs(res.Vector), tc.want)
			}
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("update: %v", err)
	}
	if lex, vec := find(t, s, c, agentScope("a"), "apple", []float32{1, 0}); len(lex) != 1 || len(vec) != 1 {
		t.Fatalf("after the rollback agent a's search found lexical %v, vector %v; want the record in both", lex, vec)
	}
	if lex, _ := find(t, s, c, agentScope("b"), "apple", nil); len(lex) != 0 {
		t.Fatalf("after the rollback agent b's search found %v", lex)
	}
	if st := c.Stats(); st.Private == 0 {
		t.Fatalf("the search in the tx did not use a private index: %+v", st)
	}
}

// testBudget searches many scopes with caches of three budgets: unbounded,
// about one scope's worth (evicting as it goes), and none (every scope
// streamed), while another handle writes; every answer must be the same.
func testBudget(t *testing.T, pair Pair) {
	ctx := context.Background()
	one, two := pair(t)
	c := newBudgetCorpus()
	var recs []*loci.Record
	for i := range 240 {
		recs = append(recs, c.record(i, fmt.Sprintf("a%d", i%6), fmt.Sprintf("u%d", i%4)))
	}
	MustInsert(t, one, recs...)
	conversational := func(r *loci.Record) bool { return r.Kind == loci.KindSession && r.Category == "message" }
	question := func(r *loci.Record) bool { return strings.Contains(r.Content, "fig") }
	mk := func(budget int64) *index.Cache {
		return index.New(index.WithModel("m"), index.WithBudget(budget), index.WithConversational(conversational), index.WithQuestion(question))
	}
	unbounded, small, none := mk(1<<30), mk(150_000), mk(1)
	filters := budgetFilters()
	// Periods of the records' creation times, for Query.During: the
	// second and third hours, and the first three records written
	// between rounds.
	during := func(t time.Time) bool {
		m := t.Sub(c.base)
		return m >= time.Hour && m < 3*time.Hour || m >= 1000*time.Minute && m < 1003*time.Minute
	}
	var withDuring, questions, answers int
	for round := range 6 {
		for _, fs := range filters {
			q := index.Query{Filters: fs, Terms: []string{c.word(), c.word()},
				Vector: c.vec(), N: 5, Lenders: 3, Window: 30 * time.Minute}
			if round%2 == 1 {
				q.During = during
			}
			var want string
			for i, cache := range []*index.Cache{unbounded, small, none} {
				var got string
				if err := one.View(ctx, func(tx loci.Tx) error {
					res, err := cache.Search(ctx, tx, q)
					if err == nil {
						got = describeResult(res)
					}
					return err
				}); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					want = got
					if strings.Contains(got, "during [0") {
						withDuring++
					}
					questions += strings.Count(got, "(true)>")
					answers += strings.Count(got, ">")
				} else if got != want {
					t.Fatalf("round %d, filters %+v, budget #%d:\n got %s\nwant %s", round, fs, i, got, want)
				}
			}
		}
		// The other handle writes, deletes and moves between rounds.
		ws := loci.DefaultWorkspace
		MustInsert(t, two, c.record(1000+round, fmt.Sprintf("a%d", round%6), fmt.Sprintf("u%d", round%4)))
		if err := two.Update(ctx, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: []string{recs[round*7].ID}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if withDuring == 0 || answers == 0 || questions == 0 {
		t.Errorf("searches found records during the periods %d times, context %d times, a question lending context %d times; want each", withDuring, answers, questions)
	}
	if st := small.Stats(); st.Evictions == 0 {
		t.Errorf("the small budget evicted nothing: %+v", st)
	}
	if st := none.Stats(); st.Streams == 0 || st.Entries != 0 {
		t.Errorf("the empty budget held indexes or streamed nothing: %+v", st)
	}
}

// budgetCorpus makes the records and queries testBudget searches, from
// one seeded source: a few words of a small vocabulary, 3-dimensional
// vectors, every third record a session message, every fourth without an
// embedding, one a minute from base.
type budgetCorpus struct {
	rng   *rand.Rand
	words []string
	base  time.Time
}

func newBudgetCorpus() *budgetCorpus {
	return &budgetCorpus{rng: rand.New(rand.NewSource(7)),
		words: []string{"apple", "pear", "plum", "fig", "kiwi", "lime", "date", "grape", "melon", "berry"},
		base:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *budgetCorpus) word() string { return c.words[c.rng.Intn(len(c.words))] }

func (c *budgetCorpus) text() string {
	n := 2 + c.rng.Intn(6)
	var b []byte
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, c.word()...)
	}
	return string(b)
}

func (c *budgetCorpus) vec() []float32 {
	return unit(float32(c.rng.Float64()+0.01), float32(c.rng.Float64()), float32(c.rng.Float64()))
}

func (c *budgetCorpus) record(i int, agent, user string) *loci.Record {
	kind, cat := loci.KindPassage, ""
	if i%3 == 0 {
		kind, cat = loci.KindSession, "message" // conversations, for context
	}
	r := NewRecord(kind, loci.Scope{AgentID: agent, UserID: user, SessionID: "s-" + user}, "", c.text())
	r.SearchText, r.Category = r.Content, cat
	r.CreatedAt = c.base.Add(time.Duration(i) * time.Minute)
	r.UpdatedAt = r.CreatedAt
	if i%4 != 0 {
		r.Embedding, r.EmbeddingModel = c.vec(), "m"
	}
	return r
}

// budgetFilters are the scopes testBudget searches: each agent, each
// user (all kinds, sessions only, and two disjoint scopes ranked as one
// set) and the whole workspace.
func budgetFilters() [][]loci.RecordFilter {
	var filters [][]loci.RecordFilter
	for i := range 6 {
		filters = append(filters, []loci.RecordFilter{agentScope(fmt.Sprintf("a%d", i))})
	}
	for i := range 4 {
		u := fmt.Sprintf("u%d", i)
		filters = append(filters,
			[]loci.RecordFilter{{Workspace: loci.DefaultWorkspace, UserID: &u}},
			[]loci.RecordFilter{{Workspace: loci.DefaultWorkspace, UserID: &u, Kinds: []loci.Kind{loci.KindSession}}},
			// two disjoint scopes ranked as one set
			[]loci.RecordFilter{
				{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a1"), UserID: &u},
				{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a2"), UserID: &u, Tags: nil},
			})
	}
	filters = append(filters, []loci.RecordFilter{{Workspace: loci.DefaultWorkspace}})
	return filters
}

// describeResult renders what a search found, for comparing two caches'
// answers.
func describeResult(res *index.Result) string {
	out := fmt.Sprintf("lex %v vec %v during %v pending %d ctx", hitScores(res.Lexical), hitScores(res.Vector), hitScores(res.During), res.Pending)
	for _, h := range res.Lexical {
		for _, d := range res.Context[h.Doc.Meta.ID] {
			out += fmt.Sprintf(" %s(%t)>%s(%t)", h.Doc.Meta.ID, h.Doc.Question, d.Meta.ID, d.Question)
		}
	}
	return out
}

func hitScores(hs []index.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%s:%.12g", h.Doc.Meta.ID, h.Score)
	}
	return out
}
