package rules_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestFactRelevanceBounds(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		tests := []struct {
			name  string
			start float64
			op    string // validate, contradict
			times int
			want  float64
		}{
			{"ValidateAtCap", 1.0, "validate", 1, 1.0},
			{"ValidateToCap", 0.95, "validate", 1, 1.0},
			{"ValidateStep", 0.5, "validate", 1, 0.6},
			{"ValidateTwiceFrom0.85", 0.85, "validate", 2, 1.0},
			{"ContradictStep", 1.0, "contradict", 1, 0.8},
			{"ContradictToZeroExactly", 1.0, "contradict", 5, 0.0},
			{"ContradictAtFloor", 0.0, "contradict", 1, 0.0},
			{"ContradictBelowStep", 0.1, "contradict", 1, 0.0},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				id := e.lcFact(t, tc.start, `{}`, lcT0)
				var f *loci.Fact
				var err error
				for i := 0; i < tc.times; i++ {
					if tc.op == "validate" {
						f, err = e.svc.ValidateFact(e.ctx, id)
					} else {
						f, err = e.svc.ContradictFact(e.ctx, id)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if f.RelevanceScore != tc.want {
					t.Fatalf("relevance: got %v, want %v", f.RelevanceScore, tc.want)
				}
				if tc.op == "validate" && (!f.IsValidated || !f.ValidatedAt.Equal(lcT0)) {
					t.Fatalf("validated: got %v at %v, want true at %v", f.IsValidated, f.ValidatedAt, lcT0)
				}
				if tc.op == "contradict" && f.ContradictionCount != tc.times {
					t.Fatalf("contradiction_count: got %d, want %d", f.ContradictionCount, tc.times)
				}
				if got := e.lcGet(t, id).Confidence; got != tc.want {
					t.Fatalf("stored relevance: got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("ErrNotFound", func(t *testing.T) {
			_, err := e.svc.ValidateFact(e.ctx, "missing")
			lcCode(t, err, loci.ENOTFOUND)
			_, err = e.svc.ContradictFact(e.ctx, "missing")
			lcCode(t, err, loci.ENOTFOUND)
		})
	})
}

func TestFactDecay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		tests := []struct {
			name  string
			start float64
			runs  []int // days after the last access on which maintenance runs
			want  float64
		}{
			{"Day29", 1.0, []int{29}, 1.0},
			{"Day30", 1.0, []int{30}, 0.9},
			{"DailyFrom30To59Once", 1.0, days(30, 59), 0.9},
			{"Day60Again", 1.0, days(30, 60), 0.81},
			{"Day90OnlyOnceWhenNotRunBefore", 1.0, []int{90}, 0.9},
			{"FloorFrom0.11", 0.11, []int{30}, 0.1},
			{"AtFloorUnchanged", 0.1, []int{30, 60}, 0.1},
			{"BelowFloorNotRaised", 0.05, []int{30}, 0.05},
			{"DailyForAYearNeverBelowFloor", 0.2, days(1, 365), 0.1},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				id := e.lcFact(t, tc.start, `{}`, lcT0)
				for _, d := range tc.runs {
					e.clock.Set(lcT0.Add(time.Duration(d) * lcDay))
					e.lcMaintain(t, loci.MaintainDecay)
				}
				if got := e.lcGet(t, id).Confidence; got != tc.want {
					t.Fatalf("relevance: got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("AccessResetsDisuse", func(t *testing.T) {
			e := lcOpen(t, open)
			if _, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "likes tea", Keywords: []string{"tea"}}); err != nil {
				t.Fatal(err)
			}
			e.clock.Set(lcT0.Add(20 * lcDay))
			if _, _, err := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u", Keyword: "tea"}); err != nil {
				t.Fatal(err)
			}
			e.clock.Set(lcT0.Add(49 * lcDay)) // 29 days after the access
			if n := e.lcMaintain(t, loci.MaintainDecay).Tasks[loci.MaintainDecay].Updated; n != 0 {
				t.Fatalf("decayed %d facts 29 days after access, want 0", n)
			}
			e.clock.Set(lcT0.Add(50 * lcDay))
			if n := e.lcMaintain(t, loci.MaintainDecay).Tasks[loci.MaintainDecay].Updated; n != 1 {
				t.Fatalf("decayed %d facts 30 days after access, want 1", n)
			}
		})
	})
}

func days(from, to int) []int {
	var out []int
	for d := from; d <= to; d++ {
		out = append(out, d)
	}
	return out
}

func TestFactPrune(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		tests := []struct {
			name      string
			relevance float64
			data      string
			pruned    bool
		}{
			{"AtThreshold", 0.1, `{}`, false},
			{"JustBelow", 0.099999, `{}`, true},
			{"Zero", 0.0, `{}`, true},
			{"ZeroValidated", 0.0, `{"is_validated":true}`, false},
			{"High", 1.0, `{}`, false},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				id := e.lcFact(t, tc.relevance, tc.data, lcT0)
				dry, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainPrune}, DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if got := dry.Tasks[loci.MaintainPrune].Deleted == 1; got != tc.pruned {
					t.Fatalf("dry run would prune: got %v, want %v", got, tc.pruned)
				}
				if n := e.lcCount(t, loci.RecordFilter{IDs: []string{id}}); n != 1 {
					t.Fatalf("dry run deleted the fact")
				}
				rep := e.lcMaintain(t, loci.MaintainPrune)
				if got := rep.Tasks[loci.MaintainPrune].Deleted == 1; got != tc.pruned {
					t.Fatalf("pruned: got %v, want %v", got, tc.pruned)
				}
				if got := e.lcCount(t, loci.RecordFilter{IDs: []string{id}}) == 0; got != tc.pruned {
					t.Fatalf("gone: got %v, want %v", got, tc.pruned)
				}
			})
		}
	})
}

func TestFactSearchAndAccess(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		store := func(user, cat, text string, kw ...string) string {
			f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: user, AgentID: "interviewer", Category: cat, Fact: text, Keywords: kw,
				Evidence: json.RawMessage(`{"source_episodes":["e1"]}`)})
			if err != nil {
				t.Fatal(err)
			}
			if f.RelevanceScore != 1.0 || f.AccessCount != 0 {
				t.Fatalf("new fact: relevance %v access %d, want 1.0 and 0", f.RelevanceScore, f.AccessCount)
			}
			return f.ID
		}
		mine := store("u", loci.CategoryUserPreference, "prefers structured STAR interview answers", "interview", "STAR")
		global := store("", loci.CategoryJobMarketFact, "interview loops last four weeks", "interview")
		other := store("v", loci.CategoryUserPreference, "prefers free-form interview answers", "interview")
		e.clock.Add(time.Hour)
		for _, tc := range []struct {
			name    string
			q       loci.FactQuery
			want    []string
			wantErr string
		}{
			{"OwnOnly", loci.FactQuery{UserID: "u", Query: "interview"}, []string{mine}, ""},
			{"IncludeGlobal", loci.FactQuery{UserID: "u", Query: "interview", IncludeGlobal: true}, []string{mine, global}, ""},
			{"Category", loci.FactQuery{UserID: "u", Query: "interview", IncludeGlobal: true, Category: loci.CategoryJobMarketFact}, []string{global}, ""},
			{"GlobalWithoutUser", loci.FactQuery{Query: "interview"}, []string{global}, ""},
			{"ErrCategory", loci.FactQuery{UserID: "u", Query: "interview", Category: "9gossip"}, nil, loci.EINVALID},
			{"ErrEmptyQuery", loci.FactQuery{UserID: "u"}, nil, loci.EINVALID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, err := e.svc.SearchFacts(e.ctx, tc.q)
				lcCode(t, err, tc.wantErr)
				var got []string
				if res == nil {
					res = &loci.FactResults{}
				}
				for _, r := range res.Results {
					got = append(got, r.ID)
					if r.LastAccessedAt.IsZero() || r.AccessCount == 0 {
						t.Fatalf("returned fact not bumped: %+v", r.Fact)
					}
				}
				slices.Sort(got)
				want := slices.Clone(tc.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
		for id, want := range map[string]int{mine: 2, global: 3, other: 0} {
			if got := e.lcGet(t, id).AccessCount; got != want {
				t.Fatalf("access_count of %s: got %d, want %d", id, got, want)
			}
		}
		facts, total, err := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u", Keyword: "STAR"})
		if err != nil || total != 1 || facts[0].ID != mine || facts[0].AccessCount != 3 {
			t.Fatalf("by keyword: %d (%v) %+v, want mine with access 3", total, err, facts)
		}
		_, err = e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: "no such category", Fact: "x"})
		lcCode(t, err, loci.EINVALID)
		_, err = e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: " "})
		lcCode(t, err, loci.EINVALID)
		_, err = e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "x", Evidence: json.RawMessage(`"s"`)})
		lcCode(t, err, loci.EINVALID)
	})
}

// TestConsolidationOfIDsWithColons: an agent or action type holding ':'
// keeps a pattern of its own (agent a with action b:c, agent a:b with
// action c), so consolidation stays idempotent: a second run creates and
// updates nothing.
func TestConsolidationOfIDsWithColons(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		for _, p := range [][2]string{{"a", "b:c"}, {"a:b", "c"}, {"a%3Ab", "c"}} {
			for range 3 {
				if _, err := e.svc.RecordEpisode(e.ctx, lcEpisode("u", p[0], p[1], "did it", loci.OutcomeSuccess, 0.9)); err != nil {
					t.Fatal(err)
				}
				e.clock.Add(time.Minute)
			}
		}
		if r := e.lcMaintain(t, loci.MaintainConsolidate).Tasks[loci.MaintainConsolidate]; r.Created != 3 || r.Updated != 0 {
			t.Errorf("first run: %+v, want a pattern created for each of the 3 pairs", r)
		}
		if r := e.lcMaintain(t, loci.MaintainConsolidate).Tasks[loci.MaintainConsolidate]; r.Created != 0 || r.Updated != 0 {
			t.Errorf("second run: %+v, want nothing", r)
		}
	})
}

func TestConsolidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		record := func(user, actionType, outcome string, conf float64) string {
			t.Helper()
			ep, err := e.svc.RecordEpisode(e.ctx, lcEpisode(user, "interviewer", actionType, "did "+actionType, outcome, conf))
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Add(time.Minute)
			return ep.ID
		}
		var srcs []string
		for i := 0; i < 3; i++ {
			srcs = append(srcs, record("u", "analysis", loci.OutcomeSuccess, 0.9))
		}
		record("u", "resume", loci.OutcomeSuccess, 0.9)
		record("u", "resume", loci.OutcomeSuccess, 0.9)
		record("u", "resume", loci.OutcomeSuccess, 0.8) // not above 0.8
		record("u", "coaching", loci.OutcomePartial, 0.95)
		record("u", "coaching", loci.OutcomeFailure, 0.95)
		record("u", "coaching", loci.OutcomeSuccess, 0.95)
		record("v", "analysis", loci.OutcomeSuccess, 0.9)

		pattern := loci.RecordFilter{Kinds: []loci.Kind{loci.KindFact}, Category: loci.Ptr(loci.CategoryPatternLearned)}
		rep := e.lcMaintain(t, loci.MaintainConsolidate)
		if r := rep.Tasks[loci.MaintainConsolidate]; r.Created != 1 || r.Updated != 0 {
			t.Fatalf("first run: %+v, want 1 created", r)
		}
		facts, _, err := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u", Category: loci.CategoryPatternLearned})
		if err != nil || len(facts) != 1 {
			t.Fatalf("pattern facts: %d (%v), want 1", len(facts), err)
		}
		var ev struct {
			SourceEpisodes []string `json:"source_episodes"`
		}
		json.Unmarshal(facts[0].Evidence, &ev)
		slices.Sort(ev.SourceEpisodes)
		slices.Sort(srcs)
		if !slices.Equal(ev.SourceEpisodes, srcs) || facts[0].AgentID != "interviewer" || !slices.Contains(facts[0].Keywords, "analysis") {
			t.Fatalf("pattern fact: %+v, evidence %v, want sources %v", facts[0], ev.SourceEpisodes, srcs)
		}

		t.Run("SecondRunCreatesNothing", func(t *testing.T) {
			r := e.lcMaintain(t, loci.MaintainConsolidate).Tasks[loci.MaintainConsolidate]
			if r.Created != 0 || r.Updated != 0 {
				t.Fatalf("second run: %+v, want nothing", r)
			}
			if n := e.lcCount(t, pattern); n != 1 {
				t.Fatalf("pattern facts: %d, want 1", n)
			}
		})
		first := facts[0]
		if first.Key != "pattern:interviewer:analysis" || first.Status != loci.FactCurrent {
			t.Fatalf("pattern fact key %q status %q, want pattern:interviewer:analysis, current", first.Key, first.Status)
		}
		t.Run("NewEvidenceSupersedes", func(t *testing.T) {
			id := record("u", "analysis", loci.OutcomeSuccess, 0.99)
			r := e.lcMaintain(t, loci.MaintainConsolidate).Tasks[loci.MaintainConsolidate]
			if r.Created != 1 || r.Updated != 1 || !slices.Contains(r.IDs, first.ID) {
				t.Fatalf("run with new evidence: %+v, want 1 created and %s superseded", r, first.ID)
			}
			current := pattern
			current.AsOf = e.clock.Now()
			if n, all := e.lcCount(t, current), e.lcCount(t, pattern); n != 1 || all != 2 {
				t.Fatalf("pattern facts: %d current of %d, want 1 of 2", n, all)
			}
			facts, _, _ := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u", Category: loci.CategoryPatternLearned})
			if len(facts) != 1 || facts[0].Supersedes != first.ID || !slices.Contains(evidenceIDs(facts[0].Evidence), id) || len(evidenceIDs(facts[0].Evidence)) != 4 {
				t.Fatalf("current pattern: %+v, want 4 sources including %s, superseding %s", facts, id, first.ID)
			}
			// The superseded version keeps the evidence it had.
			old, err := e.svc.GetFact(e.ctx, first.ID)
			if err != nil || old.Status != loci.FactSuperseded || old.SupersededBy != facts[0].ID || len(evidenceIDs(old.Evidence)) != 3 {
				t.Fatalf("superseded pattern: %+v (%v), want superseded by %s with its 3 sources", old, err, facts[0].ID)
			}
			if r := e.lcMaintain(t, loci.MaintainConsolidate).Tasks[loci.MaintainConsolidate]; r.Created != 0 || r.Updated != 0 {
				t.Fatalf("run after superseding: %+v, want nothing", r)
			}
		})
		t.Run("DryRunChangesNothing", func(t *testing.T) {
			for i := 0; i < 3; i++ {
				record("v", "analysis", loci.OutcomeSuccess, 0.9)
			}
			rep, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainConsolidate}, DryRun: true})
			if err != nil || rep.Tasks[loci.MaintainConsolidate].Created != 1 || !rep.DryRun {
				t.Fatalf("dry run: %+v (%v), want 1 would be created", rep, err)
			}
			if n := e.lcCount(t, pattern); n != 2 {
				t.Fatalf("pattern facts after dry run: %d, want 2", n)
			}
		})
		t.Run("ErrUnknownTask", func(t *testing.T) {
			_, err := e.svc.Maintain(e.ctx, loci.MaintenanceRequest{Tasks: []string{"vacuum"}})
			lcCode(t, err, loci.EINVALID)
		})
	})
}

func evidenceIDs(raw json.RawMessage) []string {
	var ev struct {
		SourceEpisodes []string `json:"source_episodes"`
	}
	json.Unmarshal(raw, &ev)
	return ev.SourceEpisodes
}
