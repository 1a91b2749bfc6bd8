package rules_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/storetest"
)

// message returns a conversation message of agent a's session, written
// at at, with id n (ids order messages written at one time).
func message(n int, session string, at time.Time, content string) *loci.Record {
	r := storetest.NewRecord(loci.KindSession, loci.Scope{AgentID: "a", SessionID: session}, "", content)
	r.ID = fmt.Sprintf("0190a000-0000-7000-8000-7%011d", n)
	r.Category = "message"
	r.CreatedAt, r.UpdatedAt = at, at
	r.SearchText = analysis.SearchText(content)
	return r
}

func resultIDs(res *loci.SearchResults) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.ID)
	}
	return out
}

func find(res *loci.SearchResults, id string) *loci.SearchResult {
	for i := range res.Results {
		if res.Results[i].ID == id {
			return &res.Results[i]
		}
	}
	return nil
}

// TestSearchAnswerAfterQuestion: the turn a query matches asks a question,
// and the turn right after it (its answer, sharing no word with the
// query) is lent more than the turn before it; the explanation says what
// context lent each. With AnswerWeight equal to ContextWeight both
// neighbours are lent alike.
func TestSearchAnswerAfterQuestion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		t0 := time.Date(2024, 5, 8, 13, 56, 0, 0, time.UTC)
		turns := []*loci.Record{
			message(0, "s1", t0, "we finally repotted the ferns"),
			message(1, "s1", t0, "where did you go hiking over the holidays?"),
			message(2, "s1", t0, "the Dolomites, with my brother"),
			message(3, "s1", t0, "sounds lovely"),
		}
		storetest.MustInsert(t, store, turns...)

		svc := rules.New(store)
		res := mustSearch(t, svc, loci.SearchQuery{Query: "hiking holidays", AgentID: "a", Explain: true})
		want := []string{turns[1].ID, turns[2].ID, turns[0].ID}
		if got := resultIDs(res); !slices.Equal(got, want) {
			t.Fatalf("got %v, want the question, its answer, then the turn before: %v", got, want)
		}
		p := rules.DefaultRanking()
		if e := res.Results[1].Explain; e == nil || e.Context != p.AnswerWeight {
			t.Errorf("the answer's explanation %+v: context %v, want %v", e, e.Context, p.AnswerWeight)
		}
		if e := res.Results[2].Explain; e == nil || e.Context != p.ContextWeight {
			t.Errorf("the turn before's explanation %+v: context %v, want %v", e, e.Context, p.ContextWeight)
		}
		if e := res.Results[0].Explain; e == nil || e.Context != 0 || e.Signals["lexical"].Rank != 1 {
			t.Errorf("the question's explanation %+v: want lexical rank 1, nothing lent", e)
		}

		// Neighbours lent alike tie: the fusion is by rank, ties break on
		// id.
		p.AnswerWeight = p.ContextWeight
		res = mustSearch(t, rules.New(store, rules.WithRanking(p)), loci.SearchQuery{Query: "hiking holidays", AgentID: "a", Explain: true})
		want = []string{turns[1].ID, turns[0].ID, turns[2].ID}
		if got := resultIDs(res); !slices.Equal(got, want) || res.Results[1].Explain.Context != res.Results[2].Explain.Context {
			t.Fatalf("with AnswerWeight = ContextWeight: %v; want %v, both neighbours lent alike", got, want)
		}

		// A turn that asks nothing lends its neighbours alike.
		res = mustSearch(t, svc, loci.SearchQuery{Query: "Dolomites brother", AgentID: "a", Explain: true})
		want = []string{turns[2].ID, turns[1].ID, turns[3].ID}
		if got := resultIDs(res); !slices.Equal(got, want) || res.Results[1].Explain.Context != p.ContextWeight || res.Results[2].Explain.Context != p.ContextWeight {
			t.Fatalf("from a statement: %v; want %v, its neighbours lent ContextWeight each", got, want)
		}
	})
}

// TestSearchSessionStrength: one text, twice: as a stray turn in a session
// about something else, and in a session whose other turns talk about the
// query's topic. With session aggregation the second outranks the first;
// without it the two tie and the first (by id) leads.
func TestSearchSessionStrength(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		t0 := time.Date(2024, 5, 8, 13, 56, 0, 0, time.UTC)
		stray := message(0, "other", t0, "photos of the kayak trip")
		topic := message(10, "kayaking", t0.Add(time.Hour), "photos of the kayak trip")
		storetest.MustInsert(t, store,
			message(1, "other", t0.Add(-3*time.Hour), "my tax return is due friday"),
			stray,
			message(2, "other", t0.Add(3*time.Hour), "and the plumber never came"),
			message(11, "kayaking", t0.Add(-3*time.Hour), "we rented a kayak at the lake"),
			topic,
			message(12, "kayaking", t0.Add(3*time.Hour), "next kayak trip the river rapids"),
		)
		p := rules.DefaultRanking()
		p.ContextWeight, p.AnswerWeight = 0, 0 // session strength alone
		q := loci.SearchQuery{Query: "kayak trip photos", AgentID: "a", Explain: true}
		res := mustSearch(t, rules.New(store, rules.WithRanking(p)), q)
		if len(res.Results) < 2 || res.Results[0].ID != topic.ID {
			t.Fatalf("got %v; want the turn of the kayaking session (%s) first", resultIDs(res), topic.ID)
		}
		s, o := find(res, topic.ID), find(res, stray.ID)
		if o == nil || s.Explain.Session <= o.Explain.Session || o.Explain.Session <= 0 {
			t.Errorf("session shares: topic %+v, stray %+v; want the topic's larger, both positive", s.Explain, o)
		}

		p.SessionWeight = 0
		res = mustSearch(t, rules.New(store, rules.WithRanking(p)), q)
		if len(res.Results) < 2 || res.Results[0].ID != stray.ID || find(res, topic.ID).Explain.Session != 0 {
			t.Fatalf("without session aggregation: %v; want the stray turn first (a tie, broken by id), no session share", resultIDs(res))
		}
	})
}

// TestSearchDates: the periods a query names lift the records written in
// them: by the date signal (which also finds a record the lexical
// candidates miss) and by the date boost, both explained. "last week" is
// read on the service's clock.
func TestSearchDates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		now := time.Date(2023, 7, 5, 12, 0, 0, 0, time.UTC)
		clock := rules.WithClock(loci.NewFakeClock(now))
		passage := func(n int, at time.Time, content string) *loci.Record {
			r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", content)
			r.ID = fmt.Sprintf("0190a000-0000-7000-8000-6%011d", n)
			r.CreatedAt, r.UpdatedAt, r.SearchText = at, at, analysis.SearchText(content)
			return r
		}
		// One text three times: without a date, ids break the tie.
		july := passage(1, time.Date(2023, 7, 1, 9, 0, 0, 0, time.UTC), "offsite planning notes")
		april := passage(2, time.Date(2023, 4, 20, 9, 0, 0, 0, time.UTC), "offsite planning notes")
		may := passage(3, time.Date(2023, 5, 10, 9, 0, 0, 0, time.UTC), "offsite planning notes")
		storetest.MustInsert(t, store, april, may, july)
		svc := rules.New(store, clock)

		for _, tc := range []struct {
			query, want string
		}{
			{"offsite planning", july.ID},
			{"offsite planning in May 2023", may.ID},
			{"offsite planning on 20 April, 2023", april.ID},
			{"offsite planning last week", july.ID},
		} {
			res := mustSearch(t, svc, loci.SearchQuery{Query: tc.query, AgentID: "a", Explain: true})
			if len(res.Results) != 3 || res.Results[0].ID != tc.want {
				t.Errorf("%q: got %v, want %s first", tc.query, resultIDs(res), tc.want)
				continue
			}
			e := res.Results[0].Explain
			if tc.query == "offsite planning" {
				if e.Date != 0 || len(e.Signals) != 1 {
					t.Errorf("%q: explanation %+v names a date", tc.query, e)
				}
				continue
			}
			if e.Date != 1 || e.Signals["date"].Rank != 1 {
				t.Errorf("%q: explanation %+v; want date 1 and date signal rank 1", tc.query, e)
			}
			if other := res.Results[1].Explain; other.Date != 0 {
				t.Errorf("%q: %s was not written in the period but has date %v", tc.query, res.Results[1].ID, other.Date)
			}
		}

		// Better lexical matches from June (after May's grace) keep the
		// May record out of the lexical candidates (Candidates 1: 9 for
		// limit 3); the date signal still finds it.
		var june []*loci.Record
		for i := range 10 {
			june = append(june, passage(10+i, time.Date(2023, 6, 10+i, 9, 0, 0, 0, time.UTC), "offsite offsite planning"))
		}
		storetest.MustInsert(t, store, june...)
		p := rules.DefaultRanking()
		p.Candidates = 1
		q := loci.SearchQuery{Query: "offsite planning in May 2023", AgentID: "a", Limit: 3, Explain: true}
		res := mustSearch(t, rules.New(store, clock, rules.WithRanking(p)), q)
		if r := find(res, may.ID); r == nil {
			t.Errorf("with the May record outside the lexical candidates: got %v, want %s among them", resultIDs(res), may.ID)
		} else if sig := r.Explain.Signals; sig["date"].Rank != 1 || len(sig) != 1 {
			t.Errorf("signals %+v; want the date signal alone", sig)
		}
		p.DateWeight = 0
		res = mustSearch(t, rules.New(store, clock, rules.WithRanking(p)), q)
		if find(res, may.ID) != nil {
			t.Errorf("without the date signal the May record was found: %v", resultIDs(res))
		}
	})
}

// TestSearchAssistantPrior: the assistant's reply repeats the user's words
// at length and matches the query best by its words, but what a user's
// memory is asked about is most often what the user said: with the
// assistant prior the user's turn comes first, without it (--without
// assistant) the reply does. A query that recalls what the assistant said
// ("remind me … you recommended") lifts the prior.
func TestSearchAssistantPrior(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		store := open(t)
		roleOf := map[string]string{}
		search := func(svc *rules.Service, query string) []string {
			t.Helper()
			res := mustSearch(t, svc, loci.SearchQuery{Query: query, UserID: "u1", Explain: true})
			var roles []string
			for _, r := range res.Results {
				roles = append(roles, roleOf[r.Content])
			}
			return roles
		}
		svc := rules.New(store)
		msgs := []loci.Message{
			{Role: "user", Content: "I have been listening to the Arctic Monkeys on Spotify lately, any similar bands?"},
			{Role: "assistant", Content: "Listening to the Arctic Monkeys on Spotify? Spotify radio, built from what you have been " +
				"listening to lately, finds similar bands: try The Strokes, Spotify's indie playlists and the Neighbourhood."},
			{Role: "user", Content: "Thanks, I will try them."},
		}
		for _, m := range msgs {
			roleOf[m.Content] = m.Role
		}
		if _, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u1", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		const q = "What have I been listening to on Spotify lately?"
		if got := search(svc, q); len(got) < 2 || got[0] != "user" {
			t.Errorf("with the prior: roles %v, want the user's turn first", got)
		}
		p := rules.DefaultRanking()
		p.AssistantWeight = 0
		if got := search(rules.New(store, rules.WithRanking(p)), q); len(got) < 2 || got[0] != "assistant" {
			t.Errorf("without the prior: roles %v, want the assistant's reply first (it matches best)", got)
		}
		if got := search(svc, "Can you remind me which indie playlists you recommended on Spotify?"); len(got) < 2 || got[0] != "assistant" {
			t.Errorf("recalling what the assistant said: roles %v, want the assistant's reply first", got)
		}
	})
}
