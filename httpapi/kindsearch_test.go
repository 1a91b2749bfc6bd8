package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// kindSearchStep is one request of the kind-specific searches' scenario.
// want lists the texts of the results in order (nil: not checked);
// pending is the pending_embeddings wanted (-1: not checked).
type kindSearchStep struct {
	name       string
	method     string
	path       string
	body       string
	wantStatus int
	text       string // the field holding a result's text
	want       []string
	pending    int
	check      func(t *testing.T, results []map[string]any)
}

// TestKindSearchesOnPipeline drives the passage, fact and episode searches
// of the hybrid pipeline: a write is found lexically by the very next
// request while its embedding is still pending, scope and kind filters
// apply before ranking (a limit of 1 never lets a better match of another
// agent, user or outcome take the place), explain passes through, and
// after the embeddings are made the vector signal joins in.
func TestKindSearchesOnPipeline(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		// No embedding worker runs: every write stays pending until Reindex.
		svc := rules.New(open(t), rules.WithEmbedder(embed.NewHash(0)))
		srv := httptest.NewServer(httpapi.NewServer(svc, nil))
		defer srv.Close()

		post := func(path, body string) kindSearchStep {
			return kindSearchStep{name: "Write", method: "POST", path: path, body: body, wantStatus: 201, pending: -1}
		}
		get := func(name, path, text string, want []string, pending int) kindSearchStep {
			return kindSearchStep{name: name, method: "GET", path: path, wantStatus: 200, text: text, want: want, pending: pending}
		}
		explained := func(signals ...string) func(t *testing.T, results []map[string]any) {
			return func(t *testing.T, results []map[string]any) {
				for _, r := range results {
					ex, _ := r["explain"].(map[string]any)
					sig, _ := ex["signals"].(map[string]any)
					for _, s := range signals {
						if _, ok := sig[s]; !ok {
							t.Fatalf("explain of %v lacks the %s signal: %v", r["id"], s, ex)
						}
					}
					if ex["score"] != r["score"] {
						t.Errorf("explain score %v, result score %v", ex["score"], r["score"])
					}
				}
			}
		}
		noExplain := func(t *testing.T, results []map[string]any) {
			for _, r := range results {
				if _, ok := r["explain"]; ok {
					t.Fatalf("explain given unasked: %v", r)
				}
			}
		}
		const (
			aKeeper = "the keeper of the lighthouse keeps a log"
			aPhoto  = "a dawn photo of a lighthouse"
			bStrong = "lighthouse lighthouse keeper lighthouse"
			uFact   = "prefers lighthouse tours"
			vFact   = "lighthouse lighthouse keeper secret"
			gFact   = "lighthouses are tall towers"
			uaWin   = "inspected the lighthouse lamp"
			uaFail  = "lamp repair at the lighthouse failed"
			ubEp    = "lighthouse lighthouse lamp"
			vaEp    = "lighthouse lamp lighthouse"
		)
		steps := []kindSearchStep{
			post("/v1/agents/b/passages", `{"content": "`+bStrong+`"}`),
			post("/v1/agents/a/passages", `{"content": "`+aKeeper+`", "tags": ["log"]}`),
			post("/v1/agents/a/passages", `{"content": "`+aPhoto+`", "tags": ["photo"]}`),
			// Found at once, lexically, while both embeddings are pending.
			get("PassagesFreshWrite", "/v1/agents/a/passages/search?q=lighthouse+keeper", "content", []string{aKeeper, aPhoto}, 2),
			get("PassagesOtherAgentNeverTakesTheLimit", "/v1/agents/a/passages/search?q=lighthouse+keeper&limit=1", "content", []string{aKeeper}, 2),
			get("PassagesTagBeforeRanking", "/v1/agents/a/passages/search?q=lighthouse+keeper&tag=photo&limit=1", "content", []string{aPhoto}, 1),
			get("PassagesOtherAgent", "/v1/agents/b/passages/search?q=lighthouse", "content", []string{bStrong}, 1),
			get("PassagesUnknownAgent", "/v1/agents/c/passages/search?q=lighthouse", "content", []string{}, 0),

			post("/v1/facts", `{"user_id": "v", "category": "general_fact", "fact": "`+vFact+`"}`),
			post("/v1/facts", `{"category": "company_info", "fact": "`+gFact+`"}`),
			post("/v1/facts", `{"user_id": "u", "category": "user_preference", "fact": "`+uFact+`"}`),
			get("FactsFreshWrite", "/v1/facts/search?user_id=u&q=lighthouse", "fact", []string{uFact}, 1),
			get("FactsOtherUserNeverTakesTheLimit", "/v1/facts/search?user_id=u&q=lighthouse+keeper&limit=1", "fact", []string{uFact}, 1),
			get("FactsWithGlobal", "/v1/facts/search?user_id=u&q=lighthouse&include_global=true&limit=5", "fact", nil, 2),
			get("FactsCategoryBeforeRanking", "/v1/facts/search?user_id=u&q=lighthouse&include_global=true&category=company_info&limit=1", "fact", []string{gFact}, 1),
			get("FactsGlobalOnly", "/v1/facts/search?q=lighthouse+keeper", "fact", []string{gFact}, 1),

			post("/v1/episodes", `{"user_id": "u", "agent_id": "b", "action_type": "check", "action_description": "`+ubEp+`", "outcome": "success"}`),
			post("/v1/episodes", `{"user_id": "v", "agent_id": "a", "action_type": "check", "action_description": "`+vaEp+`", "outcome": "failure"}`),
			post("/v1/episodes", `{"user_id": "u", "agent_id": "a", "action_type": "check", "action_description": "`+uaWin+`", "outcome": "success", "confidence_score": 0.9}`),
			post("/v1/episodes", `{"user_id": "u", "agent_id": "a", "action_type": "repair", "action_description": "`+uaFail+`", "outcome": "failure", "confidence_score": 0.5}`),
			get("EpisodesFreshWrite", "/v1/episodes/search?user_id=u&agent_id=a&q=lighthouse+lamp&limit=5", "action_description", nil, 2),
			get("EpisodesOutcomeBeforeRanking", "/v1/episodes/search?user_id=u&agent_id=a&q=lighthouse+lamp&outcome=failure&limit=1", "action_description", []string{uaFail}, 1),
			get("EpisodesActionTypeBeforeRanking", "/v1/episodes/search?user_id=u&agent_id=a&q=lighthouse&action_type=check&limit=1", "action_description", []string{uaWin}, 1),
			get("EpisodesOtherUser", "/v1/episodes/search?user_id=v&agent_id=a&q=lighthouse", "action_description", []string{vaEp}, 1),
		}
		for i := range steps {
			if steps[i].name == "FactsWithGlobal" {
				steps[i].check = func(t *testing.T, results []map[string]any) {
					var got []string
					for _, r := range results {
						got = append(got, r["fact"].(string))
					}
					slices.Sort(got)
					if want := []string{gFact, uFact}; !slices.Equal(got, want) {
						t.Fatalf("facts %v, want %v (never v's)", got, want)
					}
				}
			}
			if steps[i].name == "EpisodesFreshWrite" {
				steps[i].check = func(t *testing.T, results []map[string]any) {
					var got []string
					for _, r := range results {
						if r["user_id"] != "u" || r["agent_id"] != "a" {
							t.Fatalf("episode of %v/%v leaked into u/a", r["user_id"], r["agent_id"])
						}
						got = append(got, r["action_description"].(string))
					}
					slices.Sort(got)
					if want := []string{uaWin, uaFail}; !slices.Equal(got, want) {
						t.Fatalf("episodes %v, want %v", got, want)
					}
				}
			}
		}
		steps = append(steps,
			kindSearchStep{name: "PassagesNoExplainByDefault", method: "GET", path: "/v1/agents/a/passages/search?q=lighthouse",
				wantStatus: 200, pending: -1, check: noExplain},
			kindSearchStep{name: "PassagesExplainLexical", method: "GET", path: "/v1/agents/a/passages/search?q=lighthouse&explain=true",
				wantStatus: 200, pending: 2, check: explained("lexical")},
			kindSearchStep{name: "FactsExplain", method: "GET", path: "/v1/facts/search?user_id=u&q=lighthouse&explain=true",
				wantStatus: 200, pending: 1, check: func(t *testing.T, results []map[string]any) {
					explained("lexical")(t, results)
					if c := results[0]["explain"].(map[string]any)["confidence"]; c != 1.0 {
						t.Errorf("explained confidence %v, want the fact's relevance 1", c)
					}
				}},
			kindSearchStep{name: "EpisodesExplain", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=a&q=inspected&explain=true",
				wantStatus: 200, pending: 2, check: func(t *testing.T, results []map[string]any) {
					explained("lexical")(t, results)
					if c := results[0]["explain"].(map[string]any)["confidence"]; c != 0.9 {
						t.Errorf("explained confidence %v, want the episode's confidence_score 0.9", c)
					}
				}},
			kindSearchStep{name: "ErrPassagesExplain", method: "GET", path: "/v1/agents/a/passages/search?q=x&explain=maybe", wantStatus: 400},
			kindSearchStep{name: "ErrFactsExplain", method: "GET", path: "/v1/facts/search?user_id=u&q=x&explain=maybe", wantStatus: 400},
			kindSearchStep{name: "ErrEpisodesExplain", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=a&q=x&explain=2", wantStatus: 400},
			kindSearchStep{name: "Reindex", wantStatus: 0},
			kindSearchStep{name: "PassagesEmbedded", method: "GET", path: "/v1/agents/a/passages/search?q=lighthouse+keeper&explain=true",
				wantStatus: 200, text: "content", want: []string{aKeeper, aPhoto}, pending: 0, check: explained("lexical", "vector")},
			kindSearchStep{name: "FactsEmbedded", method: "GET", path: "/v1/facts/search?user_id=u&q=lighthouse&explain=true",
				wantStatus: 200, text: "fact", want: []string{uFact}, pending: 0, check: explained("lexical", "vector")},
			kindSearchStep{name: "EpisodesEmbedded", method: "GET", path: "/v1/episodes/search?user_id=u&agent_id=a&q=lighthouse+lamp&outcome=failure",
				wantStatus: 200, text: "action_description", want: []string{uaFail}, pending: 0},
		)

		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				if st.name == "Reindex" {
					if _, err := svc.Reindex(context.Background(), nil); err != nil {
						t.Fatal(err)
					}
					return
				}
				req, err := http.NewRequest(st.method, srv.URL+st.path, strings.NewReader(st.body))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var body struct {
					Success bool             `json:"success"`
					Count   int              `json:"count"`
					Pending *int             `json:"pending_embeddings"`
					Results []map[string]any `json:"results"`
				}
				if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != st.wantStatus {
					t.Fatalf("%s %s: status %d, want %d", st.method, st.path, resp.StatusCode, st.wantStatus)
				}
				if st.method != "GET" || st.wantStatus != 200 {
					return
				}
				if body.Count != len(body.Results) || body.Pending == nil {
					t.Fatalf("count %d for %d results, pending_embeddings %v", body.Count, len(body.Results), body.Pending)
				}
				if st.pending >= 0 && *body.Pending != st.pending {
					t.Errorf("pending_embeddings %d, want %d", *body.Pending, st.pending)
				}
				for _, r := range body.Results {
					if _, ok := r["score"].(float64); !ok {
						t.Fatalf("result without a score: %v", r)
					}
				}
				if st.want != nil {
					got := []string{}
					for _, r := range body.Results {
						got = append(got, r[st.text].(string))
					}
					if !slices.Equal(got, st.want) {
						t.Fatalf("results %q, want %q", got, st.want)
					}
				}
				if st.check != nil {
					st.check(t, body.Results)
				}
			})
		}
	})
}
