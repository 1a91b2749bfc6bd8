package rules_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

func lcEpisode(user, agent, actionType, desc, outcome string, conf float64) loci.EpisodeInput {
	return loci.EpisodeInput{UserID: user, AgentID: agent, ActionType: actionType, ActionDescription: desc, Outcome: outcome, ConfidenceScore: &conf}
}

func TestEpisodeCap(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		// 999 episodes of u+a straight into the store (fast), a minute apart,
		// the first being the oldest; and one of another agent.
		var recs []*loci.Record
		for i := 0; i < loci.DefaultEpisodeCap-1; i++ {
			at := lcT0.Add(-time.Duration(loci.DefaultEpisodeCap-i) * time.Minute)
			recs = append(recs, &loci.Record{Kind: loci.KindEpisode, Scope: loci.Scope{UserID: "u", AgentID: "a"},
				ActionType: "t", Outcome: loci.OutcomeSuccess, Content: "old", Data: json.RawMessage(`{}`),
				CreatedAt: at, ExpiresAt: at.Add(loci.DefaultEpisodeTTL)})
		}
		recs = append(recs, &loci.Record{Kind: loci.KindEpisode, Scope: loci.Scope{UserID: "u", AgentID: "other"},
			ActionType: "t", Outcome: loci.OutcomeSuccess, Content: "x", CreatedAt: lcT0.Add(-48 * time.Hour)})
		e.lcInsert(t, recs...)
		oldest := recs[0].ID
		ua := loci.RecordFilter{Kinds: []loci.Kind{loci.KindEpisode}, UserID: loci.Ptr("u"), AgentID: loci.Ptr("a")}

		for _, tc := range []struct {
			name       string
			wantCount  int
			wantOldest bool
		}{
			{"1000thKept", 1000, true},
			{"1001stEvictsOldest", 1000, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", "a", "t", "new", loci.OutcomeSuccess, 0.5)); err != nil {
					t.Fatal(err)
				}
				if n := e.lcCount(t, ua); n != tc.wantCount {
					t.Fatalf("episodes of u+a: got %d, want %d", n, tc.wantCount)
				}
				f := ua
				f.IDs = []string{oldest}
				if got := e.lcCount(t, f) == 1; got != tc.wantOldest {
					t.Fatalf("oldest present: got %v, want %v", got, tc.wantOldest)
				}
				if n := e.lcCount(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindEpisode}, AgentID: loci.Ptr("other")}); n != 1 {
					t.Fatalf("other agent's episodes: got %d, want 1 (untouched)", n)
				}
			})
		}
	})
}

func TestEpisodeCapConfigurable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open, rules.WithEpisodeCap(3))
		var ids []string
		for i := 0; i < 5; i++ {
			ep, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", "a", "t", "step", loci.OutcomeSuccess, 0.5))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ep.ID)
			e.clock.Add(time.Second)
		}
		got, total, err := e.svc.RecentEpisodes(e.ctx, loci.EpisodeQuery{UserID: "u", AgentID: "a"})
		if err != nil || total != 3 || len(got) != 3 {
			t.Fatalf("recent: got %d/%d (%v), want 3", len(got), total, err)
		}
		for i, want := range []string{ids[4], ids[3], ids[2]} {
			if got[i].ID != want {
				t.Fatalf("recent[%d]: got %s, want %s (newest first, two oldest evicted)", i, got[i].ID, want)
			}
		}
	})
}

func TestEpisodeExpiry(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tc := range []struct {
			name    string
			at      time.Duration
			visible bool
		}{
			{"Day29", 29 * lcDay, true},
			{"JustBefore30Days", 30*lcDay - time.Microsecond, true},
			{"Day30", 30 * lcDay, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				ep, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", "a", "analysis", "analyzed the interview", loci.OutcomeSuccess, 0.9))
				if err != nil {
					t.Fatal(err)
				}
				if want := lcT0.Add(30 * lcDay); !ep.ExpiresAt.Equal(want) {
					t.Fatalf("expires_at: got %v, want %v", ep.ExpiresAt, want)
				}
				e.clock.Set(lcT0.Add(tc.at))
				_, total, err := e.svc.RecentEpisodes(e.ctx, loci.EpisodeQuery{UserID: "u", AgentID: "a"})
				if err != nil || (total == 1) != tc.visible {
					t.Fatalf("recent: %d (%v), want visible %v", total, err, tc.visible)
				}
				res, err := e.svc.SearchEpisodes(e.ctx, loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "interview"})
				if err != nil {
					t.Fatalf("search: %v", err)
				}
				if (len(res.Results) == 1) != tc.visible {
					t.Fatalf("search: %d results, want visible %v", len(res.Results), tc.visible)
				}
				_, err = e.svc.AddEpisodeFeedback(e.ctx, ep.ID, loci.EpisodeFeedback{Comment: "good"})
				if (err == nil) != tc.visible {
					t.Fatalf("feedback: %v, want visible %v", err, tc.visible)
				}
				rep := e.lcMaintain(t, loci.MaintainExpire)
				if got, want := rep.Tasks[loci.MaintainExpire].Deleted, map[bool]int{true: 0, false: 1}[tc.visible]; got != want {
					t.Fatalf("expire deleted %d, want %d", got, want)
				}
			})
		}
	})
}

func TestEpisodeSearch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		for _, in := range []loci.EpisodeInput{
			lcEpisode("u", "a", "analysis", "analyzed behavioral interview transcript", loci.OutcomeSuccess, 0.9),
			lcEpisode("u", "a", "analysis", "analyzed technical interview transcript", loci.OutcomeFailure, 0.4),
			lcEpisode("u", "a", "resume", "rewrote the resume summary", loci.OutcomeSuccess, 0.9),
			lcEpisode("u", "b", "analysis", "analyzed behavioral interview transcript", loci.OutcomeSuccess, 0.9),
			lcEpisode("v", "a", "analysis", "analyzed behavioral interview transcript", loci.OutcomeSuccess, 0.9),
		} {
			if _, err := e.svc.RecordEpisode(e.ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name    string
			q       loci.EpisodeQuery
			want    int
			wantErr string
		}{
			{"AnyOutcome", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "interview transcript"}, 2, ""},
			{"Success", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "interview", Outcome: loci.OutcomeSuccess}, 1, ""},
			{"Failure", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "interview", Outcome: loci.OutcomeFailure}, 1, ""},
			{"Limit", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "interview", Limit: 1}, 1, ""},
			{"NoMatch", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "zebra"}, 0, ""},
			{"ErrOutcome", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "x", Outcome: "great"}, 0, loci.EINVALID},
			{"ErrNoQuery", loci.EpisodeQuery{UserID: "u", AgentID: "a", Query: "  !! "}, 0, loci.EINVALID},
			{"ErrNoAgent", loci.EpisodeQuery{UserID: "u", Query: "x"}, 0, loci.EINVALID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, err := e.svc.SearchEpisodes(e.ctx, tc.q)
				lcCode(t, err, tc.wantErr)
				var got []loci.ScoredEpisode
				if res != nil {
					got = res.Results
				}
				if len(got) != tc.want {
					t.Fatalf("got %d results, want %d", len(got), tc.want)
				}
				for _, r := range got {
					if r.UserID != "u" || r.AgentID != "a" {
						t.Fatalf("result of %s/%s leaked into u/a", r.UserID, r.AgentID)
					}
				}
			})
		}
	})
}

func TestEpisodeErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		ok := lcEpisode("u", "a", "t", "d", loci.OutcomeSuccess, 0.5)
		for _, tc := range []struct {
			name   string
			change func(*loci.EpisodeInput)
		}{
			{"ErrOutcome", func(in *loci.EpisodeInput) { in.Outcome = "win" }},
			{"ErrNoUser", func(in *loci.EpisodeInput) { in.UserID = "" }},
			{"ErrNoDescription", func(in *loci.EpisodeInput) { in.ActionDescription = " " }},
			{"ErrConfidenceAbove1", func(in *loci.EpisodeInput) { c := 1.01; in.ConfidenceScore = &c }},
			{"ErrConfidenceNegative", func(in *loci.EpisodeInput) { c := -0.1; in.ConfidenceScore = &c }},
			{"ErrContextNotObject", func(in *loci.EpisodeInput) { in.Context = json.RawMessage(`[1]`) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in := ok
				tc.change(&in)
				_, err := e.svc.RecordEpisode(e.ctx, in)
				lcCode(t, err, loci.EINVALID)
			})
		}
		_, err := e.svc.AddEpisodeFeedback(e.ctx, "nope", loci.EpisodeFeedback{Comment: "x"})
		lcCode(t, err, loci.ENOTFOUND)
		ep, _ := e.svc.RecordEpisode(e.ctx, ok)
		_, err = e.svc.AddEpisodeFeedback(e.ctx, ep.ID, loci.EpisodeFeedback{})
		lcCode(t, err, loci.EINVALID)
	})
}
