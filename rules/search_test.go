package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/storetest"
)

// flaky is an embedder that fails while down.
type flaky struct {
	loci.Embedder
	down  atomic.Bool
	calls atomic.Int32
}

func (f *flaky) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return nil, errors.New("embedder unavailable")
	}
	return f.Embedder.Embed(ctx, texts)
}

func fastQueue() rules.Option {
	return rules.WithEmbedQueue(rules.QueueParams{Batch: 4, Poll: 2 * time.Millisecond, MinBackoff: 2 * time.Millisecond, MaxBackoff: 10 * time.Millisecond})
}

// eventually polls cond until it holds or 10 s pass (a deadline for a
// background worker, not a timed assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

func mustSearch(t *testing.T, svc *rules.Service, q loci.SearchQuery) *loci.SearchResults {
	t.Helper()
	res, err := svc.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return res
}

func TestEmbeddingQueueSurvivesOutage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		emb := &flaky{Embedder: embed.NewHash(64)}
		emb.down.Store(true)
		var depth atomic.Int64 // the queue depth the worker last reported
		depth.Store(-1)
		svc := rules.New(open(t), rules.WithEmbedder(emb), rules.WithEmbedQueueDepth(func(n int) { depth.Store(int64(n)) }), fastQueue())
		stop := svc.StartEmbedding(ctx)
		defer stop()

		for _, kv := range [][2]string{{"color", "favourite colour is teal"}, {"pet", "has a cat named Miso"}, {"city", "lives in Lisbon"}, {"food", "loves ramen"}, {"job", "works as a nurse"}} {
			v, _ := json.Marshal(kv[1])
			if _, err := svc.Remember(ctx, "a", kv[0], v); err != nil {
				t.Fatalf("write while the embedder is down: %v", err)
			}
		}
		// Found lexically at once, with the embeddings reported pending.
		res := mustSearch(t, svc, loci.SearchQuery{Query: "cat Miso", AgentID: "a", Explain: true})
		if len(res.Results) == 0 || res.Results[0].Key != "pet" {
			t.Fatalf("fresh write not found lexically: %+v", res.Results)
		}
		if res.PendingEmbeddings != 5 {
			t.Errorf("pending_embeddings = %d, want 5", res.PendingEmbeddings)
		}
		if _, ok := res.Results[0].Explain.Signals["vector"]; ok {
			t.Errorf("vector signal before any embedding exists")
		}
		eventually(t, "the worker has retried", func() bool { return emb.calls.Load() >= 2 })
		eventually(t, "the worker reports the 5 pending", func() bool { return depth.Load() == 5 })

		emb.down.Store(false)
		eventually(t, "embeddings arrive", func() bool {
			return mustSearch(t, svc, loci.SearchQuery{Query: "cat", AgentID: "a"}).PendingEmbeddings == 0
		})
		eventually(t, "the worker reports an empty queue", func() bool { return depth.Load() == 0 })
		res = mustSearch(t, svc, loci.SearchQuery{Query: "cats named miso", AgentID: "a", Explain: true})
		if len(res.Results) == 0 || res.Results[0].Key != "pet" {
			t.Fatalf("after recovery: %+v", res.Results)
		}
		if sig, ok := res.Results[0].Explain.Signals["vector"]; !ok || sig.Rank != 1 {
			t.Errorf("vector signal = %+v, %v; want rank 1", sig, ok)
		}

		// An update re-queues the note and it is embedded again.
		v, _ := json.Marshal("has a dog named Rex")
		if _, err := svc.Remember(ctx, "a", "pet", v); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the update is embedded", func() bool {
			return mustSearch(t, svc, loci.SearchQuery{Query: "dog", AgentID: "a"}).PendingEmbeddings == 0
		})
	})
}

func TestReindex(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		old := rules.New(store, rules.WithEmbedder(embed.NewHash(32)))
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			v, _ := json.Marshal("value " + k)
			if _, err := old.Remember(ctx, "agent", k, v); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := old.Reindex(ctx, nil); err != nil || n != 5 {
			t.Fatalf("first reindex = %d, %v; want 5", n, err)
		}
		// A model change makes every record pending again.
		svc := rules.New(store, rules.WithEmbedder(embed.NewHash(48)), rules.WithEmbedQueue(rules.QueueParams{Batch: 2}))
		if got := mustSearch(t, svc, loci.SearchQuery{Query: "value", AgentID: "agent"}).PendingEmbeddings; got != 5 {
			t.Fatalf("pending after model change = %d, want 5", got)
		}
		var calls [][2]int
		n, err := svc.Reindex(ctx, func(done, total int) { calls = append(calls, [2]int{done, total}) })
		if err != nil || n != 5 {
			t.Fatalf("reindex = %d, %v; want 5", n, err)
		}
		if want := [][2]int{{0, 5}, {2, 5}, {4, 5}, {5, 5}}; !slices.Equal(calls, want) {
			t.Errorf("progress = %v, want %v", calls, want)
		}
		if got := mustSearch(t, svc, loci.SearchQuery{Query: "value", AgentID: "agent"}).PendingEmbeddings; got != 0 {
			t.Errorf("pending after reindex = %d", got)
		}
		if _, err := rules.New(store).Reindex(ctx, nil); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("reindex without embedder: %v, want invalid", err)
		}
	})
}

func TestSearchScopes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		svc := rules.New(store, rules.WithEmbedder(embed.NewHash(64)))
		type rec struct {
			kind  loci.Kind
			scope loci.Scope
			tags  []string
		}
		recs := []rec{
			{loci.KindPassage, loci.Scope{AgentID: "a"}, []string{"x"}},
			{loci.KindPassage, loci.Scope{AgentID: "b"}, nil},
			{loci.KindFact, loci.Scope{UserID: "u"}, nil},
			{loci.KindFact, loci.Scope{UserID: "v"}, nil},
			{loci.KindFact, loci.Scope{}, nil},
			{loci.KindEpisode, loci.Scope{AgentID: "a", UserID: "u"}, nil},
			{loci.KindSession, loci.Scope{UserID: "u", SessionID: "s1"}, nil},
			{loci.KindSession, loci.Scope{UserID: "u", SessionID: "s2"}, nil},
		}
		var all []*loci.Record
		for _, r := range recs {
			// The same words everywhere, so only filters tell them apart.
			x := storetest.NewRecord(r.kind, r.scope, "", "the secret launch code is tangerine")
			x.Tags = r.tags
			x.SearchText = "secret launch code tangerin"
			all = append(all, x)
		}
		storetest.MustInsert(t, store, all...)
		if _, err := svc.Reindex(ctx, nil); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			q    loci.SearchQuery
			want []int // indexes into recs
		}{
			{"Agent", loci.SearchQuery{AgentID: "a"}, []int{0, 5}},
			{"OtherAgent", loci.SearchQuery{AgentID: "b"}, []int{1}},
			{"User", loci.SearchQuery{UserID: "u"}, []int{2, 5, 6, 7}},
			{"UserKinds", loci.SearchQuery{UserID: "u", Kinds: []loci.Kind{loci.KindFact}}, []int{2}},
			{"Session", loci.SearchQuery{UserID: "u", SessionID: "s2"}, []int{7}},
			{"AgentAndUser", loci.SearchQuery{AgentID: "a", UserID: "u"}, []int{5}},
			{"Tags", loci.SearchQuery{AgentID: "a", Tags: []string{"x"}}, []int{0}},
			{"NoSuchAgent", loci.SearchQuery{AgentID: "zzz"}, nil},
			{"Workspace", loci.SearchQuery{}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.q.Query, tt.q.Limit = "secret tangerine code", 100
				var want []string
				for _, i := range tt.want {
					want = append(want, all[i].ID)
				}
				var got []string
				for _, r := range mustSearch(t, svc, tt.q).Results {
					got = append(got, r.ID)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
		t.Run("LimitAppliesAfterFilter", func(t *testing.T) {
			res := mustSearch(t, svc, loci.SearchQuery{Query: "secret", AgentID: "b", Limit: 1})
			if len(res.Results) != 1 || res.Results[0].ID != all[1].ID {
				t.Fatalf("got %+v", res.Results)
			}
		})
	})
}

func TestSearchInvalid(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	long := make([]byte, loci.MaxQueryBytes+1)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		name string
		q    loci.SearchQuery
		code string
	}{
		{"ErrEmptyQuery", loci.SearchQuery{Query: "  "}, loci.EINVALID},
		{"ErrUnknownKind", loci.SearchQuery{Query: "x", Kinds: []loci.Kind{"nope"}}, loci.EINVALID},
		{"ErrNegativeLimit", loci.SearchQuery{Query: "x", Limit: -1}, loci.EINVALID},
		{"ErrLimitTooLarge", loci.SearchQuery{Query: "x", Limit: loci.MaxSearchLimit + 1}, loci.EINVALID},
		{"ErrQueryTooLarge", loci.SearchQuery{Query: string(long)}, loci.ETOOLARGE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := svc.Search(context.Background(), tt.q); loci.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want %s", err, tt.code)
			}
		})
	}
	t.Run("HostileQueryIsText", func(t *testing.T) {
		for _, q := range []string{`"`, `NEAR(a b)`, `*`, `a OR (`, "\x00", "\xff", `🍕`} {
			if _, err := svc.Search(context.Background(), loci.SearchQuery{Query: q}); err != nil {
				t.Errorf("Search(%q): %v", q, err)
			}
		}
	})
}

func TestSearchConversationContext(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		t0 := time.Date(2024, 5, 8, 13, 56, 0, 0, time.UTC)
		a := loci.Scope{AgentID: "a"}
		type turn struct {
			scope   loci.Scope
			at      time.Time
			content string
			tags    []string
		}
		// Turns 1-4 were written at one time (a batch); their ids keep
		// their order, as time-ordered ids do.
		turns := []turn{
			{a, t0.Add(-2 * time.Hour), "the old morning chat about breakfast", nil},
			{a, t0, "hi, how are you doing today", nil},
			{a, t0, "what did you paint last weekend", []string{"x"}},
			{a, t0, "a sunrise over the lake, in watercolour", nil},
			{a, t0, "lovely colours, truly", nil},
			{a, t0.Add(10 * time.Second), "see you tomorrow then", nil},
			{loci.Scope{AgentID: "b"}, t0, "another agent's lake and sunrise chat", nil},
		}
		// Each turn is a conversation message (kind session, category
		// message); the same texts are also stored as agent p's passages,
		// which lend their neighbours nothing: a passage written a minute
		// after another is not its context.
		var recs, passages []*loci.Record
		for i, tu := range turns {
			sc := tu.scope
			sc.SessionID = "s1"
			r := storetest.NewRecord(loci.KindSession, sc, "", tu.content)
			r.ID = fmt.Sprintf("0190a000-0000-7000-8000-9%011d", i)
			r.Category = "message"
			r.CreatedAt, r.UpdatedAt, r.Tags = tu.at, tu.at, tu.tags
			r.SearchText = analysis.SearchText(tu.content)
			recs = append(recs, r)
			p := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "p"}, "", tu.content)
			p.ID = fmt.Sprintf("0190a000-0000-7000-8000-8%011d", i)
			p.CreatedAt, p.UpdatedAt, p.SearchText = tu.at, tu.at, r.SearchText
			passages = append(passages, p)
		}
		storetest.MustInsert(t, store, append(recs, passages...)...)
		off := rules.DefaultRanking()
		off.ContextWeight, off.AnswerWeight = 0, 0
		tests := []struct {
			name string
			opts []rules.Option
			q    loci.SearchQuery
			want []int // indexes into turns, best first
		}{
			{"AnswerFound", nil, loci.SearchQuery{Query: "paint weekend", AgentID: "a"}, []int{2, 1, 3}},
			{"Off", []rules.Option{rules.WithRanking(off)}, loci.SearchQuery{Query: "paint weekend", AgentID: "a"}, []int{2}},
			{"NextTime", nil, loci.SearchQuery{Query: "lovely colours", AgentID: "a"}, []int{4, 3, 5}},
			{"OutsideWindow", nil, loci.SearchQuery{Query: "how doing today", AgentID: "a"}, []int{1, 2}},
			{"PreviousTime", nil, loci.SearchQuery{Query: "tomorrow", AgentID: "a"}, []int{5, 4}},
			{"OtherScope", nil, loci.SearchQuery{Query: "another agent", AgentID: "b"}, []int{6}},
			{"FilterBeforeContext", nil, loci.SearchQuery{Query: "paint weekend", AgentID: "a", Tags: []string{"x"}}, []int{2}},
			{"PassagesLendNothing", nil, loci.SearchQuery{Query: "paint weekend", AgentID: "p"}, []int{-2}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				svc := rules.New(store, tt.opts...)
				res := mustSearch(t, svc, tt.q)
				var got, want []string
				for _, r := range res.Results {
					got = append(got, r.ID)
				}
				for _, i := range tt.want {
					if i < 0 {
						want = append(want, passages[-i].ID)
					} else {
						want = append(want, recs[i].ID)
					}
				}
				// Both neighbours score alike: compare the first, then the set.
				if len(got) == 0 || got[0] != want[0] {
					t.Fatalf("got %v, want %v", got, want)
				}
				slices.Sort(got[1:])
				slices.Sort(want[1:])
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	})
}

// TestSearchConfidenceOnlyWhenGiven: an episode recorded without a
// confidence_score is neither helped nor penalised by confidence, so it
// outranks an identical episode recorded with a low one, and its
// explanation carries no confidence.
func TestSearchConfidenceOnlyWhenGiven(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		low := 0.2
		in := loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "report", ActionDescription: "wrote the weekly report", Outcome: "success"}
		without, err := svc.RecordEpisode(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		in.ConfidenceScore = &low
		with, err := svc.RecordEpisode(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := svc.SearchEpisodes(ctx, loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "weekly report", Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 2 || res.Results[0].ID != without.ID || res.Results[1].ID != with.ID {
			t.Fatalf("got %+v, want the episode without a confidence first, then the one at 0.2", res.Results)
		}
		if e := res.Results[0].Explain; e == nil || e.Confidence != nil {
			t.Fatalf("explanation of the episode without a confidence: %+v", e)
		}
		if e := res.Results[1].Explain; e == nil || e.Confidence == nil || *e.Confidence != low {
			t.Fatalf("explanation of the episode at 0.2: %+v", e)
		}
	})
}

// TestWithoutEmbedder: a service without an embedder (loci's default)
// searches lexically, ignores the vectors another model stored and
// reports nothing pending, from an index held or streamed.
func TestWithoutEmbedder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		hashed := rules.New(store, rules.WithEmbedder(embed.NewHash(32)))
		for _, k := range []string{"a", "b", "c"} {
			v, _ := json.Marshal("value " + k)
			if _, err := hashed.Remember(ctx, "agent", k, v); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := hashed.Reindex(ctx, nil); err != nil || n != 3 {
			t.Fatalf("reindex = %d, %v; want 3", n, err)
		}
		v, _ := json.Marshal("value d")
		if _, err := hashed.Remember(ctx, "agent", "d", v); err != nil { // pending for the hash model
			t.Fatal(err)
		}
		for name, budget := range map[string]int64{"Held": 0, "Streamed": 1} {
			t.Run(name, func(t *testing.T) {
				svc := rules.New(store, rules.WithIndexBudget(budget))
				res := mustSearch(t, svc, loci.SearchQuery{Query: "value c", AgentID: "agent", Explain: true})
				if len(res.Results) != 4 || res.Results[0].Key != "c" {
					t.Fatalf("results = %+v, want the 4 values, c first", res.Results)
				}
				if res.PendingEmbeddings != 0 {
					t.Errorf("pending_embeddings = %d without an embedder, want 0", res.PendingEmbeddings)
				}
				for _, r := range res.Results {
					if _, ok := r.Explain.Signals["vector"]; ok {
						t.Errorf("%s has a vector signal without an embedder", r.Key)
					}
				}
				if got := svc.IndexStats(); name == "Streamed" && got.Streams == 0 {
					t.Errorf("index stats %+v: the scope was not streamed", got)
				}
			})
		}
	})
}
