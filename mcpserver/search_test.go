package mcpserver_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

var markerRE = regexp.MustCompile(`m\d+`)

// markers returns the marker (m1, m2, ...) in each result's content, in
// the order of the results.
func markers(t *testing.T, r result) []string {
	t.Helper()
	if r.isError {
		t.Fatalf("tool error: %s", r.text)
	}
	results, _ := r.out["results"].([]any)
	if r.out["success"] != true || r.out["count"] != float64(len(results)) {
		t.Fatalf("success %v, count %v for %d results", r.out["success"], r.out["count"], len(results))
	}
	got := []string{}
	for _, x := range results {
		res := x.(map[string]any)
		for _, f := range []string{"id", "kind", "content", "created_at"} {
			if s, _ := res[f].(string); s == "" {
				t.Fatalf("result without %s: %v", f, res)
			}
		}
		if _, ok := res["score"].(float64); !ok {
			t.Fatalf("result without a score: %v", res)
		}
		got = append(got, markerRE.FindString(res["content"].(string)))
	}
	return got
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestSearchMemory drives search_memory through real SDK client sessions:
// the connection's identity is the whole scope (the agent's own memories,
// and with a user the agent's memories about that user and the user's
// preferences and sessions), never another agent's or another user's, even
// when theirs match better and the limit is 1; kinds, tags and limit
// narrow it; explain and pending embeddings are answered; errors are tool
// errors.
func TestSearchMemory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		// No embedding worker runs: writes stay pending until Reindex.
		svc := rules.New(open(t), rules.WithEmbedder(embed.NewHash(0)))
		au := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		av := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "v"})
		a0 := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		bu := MustConnect(t, svc, mcpserver.Identity{AgentID: "b", UserID: "u"})
		c0 := MustConnect(t, svc, mcpserver.Identity{AgentID: "c"})
		conns := []*mcp.ClientSession{au, av, a0, bu, c0}
		for _, w := range []struct {
			name string
			cs   int // index in conns
			tool string
			args map[string]any
		}{
			// The agent a's own memories about no user: m1 to m3.
			{"ANote", 2, "remember", map[string]any{"key": "harbour", "value": "m1 the lighthouse at the harbour"}},
			{"APassage", 0, "store_memory", map[string]any{"content": "m2 lighthouse keeper lore", "tags": []any{"lore"}}},
			{"AGlobalFact", 2, "store_fact", map[string]any{"category": "general_fact", "fact": "m3 lighthouses guide ships"}},
			// a's memories about u: m4, m5; u's own (no agent): m6, and the session m7 below.
			{"AFactU", 0, "store_fact", map[string]any{"category": "user_preference", "fact": "m4 u likes lighthouse tours"}},
			{"AEpisodeU", 0, "record_episode", map[string]any{"action_type": "plan", "action_description": "m5 planned a lighthouse tour", "outcome": "success"}},
			{"UPreference", 0, "observe_preference", map[string]any{"type": "trip", "value": "m6 lighthouse", "source": "explicit"}},
			// Never for a with u: a's about v, b's (also about u), c's.
			{"AFactV", 1, "store_fact", map[string]any{"category": "user_preference", "fact": "m8 lighthouse lighthouse lighthouse secret of v"}},
			{"AEpisodeV", 1, "record_episode", map[string]any{"action_type": "plan", "action_description": "m9 lighthouse lighthouse for v", "outcome": "success"}},
			{"BNote", 3, "remember", map[string]any{"key": "harbour", "value": "m10 lighthouse lighthouse lighthouse b's note"}},
			{"BFactU", 3, "store_fact", map[string]any{"category": "user_preference", "fact": "m11 lighthouse lighthouse lighthouse b about u"}},
			{"BEpisodeU", 3, "record_episode", map[string]any{"action_type": "plan", "action_description": "m12 lighthouse lighthouse b with u", "outcome": "success"}},
			{"CGlobalFact", 4, "store_fact", map[string]any{"category": "general_fact", "fact": "m13 lighthouse lighthouse lighthouse c's global"}},
			{"BPassage", 3, "store_memory", map[string]any{"content": "m14 lighthouse lighthouse lighthouse keeper lore", "tags": []any{"lore"}}},
		} {
			if r := MustCall(t, conns[w.cs], w.tool, w.args); r.isError {
				t.Fatalf("%s: %s", w.name, r.text)
			}
		}
		for user, summary := range map[string]string{"u": "m7 talked about the lighthouse trip", "v": "m15 lighthouse lighthouse session of v"} {
			if _, _, err := svc.PutSession(ctx, "s-"+user, loci.SessionPut{UserID: user, Summary: summary, IsPersistent: true}); err != nil {
				t.Fatal(err)
			}
		}

		forAU := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7"}
		for _, tc := range []struct {
			name     string
			cs       func() result
			want     []string // as a set, unless ordered
			ordered  bool
			pending  float64 // -1: not checked
			explains bool
		}{
			{name: "AgentWithUser", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse", "limit": 100})
			},
				want: forAU, pending: 10},
			{name: "AgentWithoutUser", cs: func() result {
				return MustCall(t, a0, "search_memory", map[string]any{"query": "lighthouse", "limit": 100})
			},
				want: []string{"m1", "m2", "m3"}, pending: 6},
			{name: "AgentWithOtherUser", cs: func() result {
				return MustCall(t, av, "search_memory", map[string]any{"query": "lighthouse", "limit": 100})
			},
				want: []string{"m1", "m2", "m3", "m8", "m9", "m15"}, pending: 9},
			{name: "OtherAgentSameUser", cs: func() result {
				return MustCall(t, bu, "search_memory", map[string]any{"query": "lighthouse", "limit": 100})
			},
				want: []string{"m6", "m7", "m10", "m11", "m12", "m14"}, pending: 9},
			{name: "LimitOneNeverOthers", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse lighthouse keeper lore secret", "limit": 1})
			}, want: nil, pending: 10},
			{name: "KindsPassage", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse", "kinds": []any{"passage"}})
			}, want: []string{"m2"}, pending: 1},
			{name: "KindsFactAndPreference", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse", "kinds": []any{"fact", "preference"}})
			}, want: []string{"m3", "m4", "m6"}, pending: 3},
			{name: "Tags", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse keeper", "tags": []any{"lore"}})
			}, want: []string{"m2"}, pending: 1},
			{name: "NoMatch", cs: func() result { return MustCall(t, au, "search_memory", map[string]any{"query": "zebra"}) },
				want: []string{}, pending: 10},
			{name: "Explain", cs: func() result {
				return MustCall(t, au, "search_memory", map[string]any{"query": "keeper lore", "explain": true})
			}, want: []string{"m2"}, pending: 10, explains: true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := tc.cs()
				got := markers(t, r)
				if tc.want == nil { // the limit: one result, of this scope
					if len(got) != 1 || !slices.Contains(forAU, got[0]) {
						t.Fatalf("results %v, want one of %v", got, forAU)
					}
				} else if !slices.Equal(sorted(got), sorted(tc.want)) {
					t.Fatalf("results %v, want %v", got, tc.want)
				}
				if tc.pending >= 0 && r.out["pending_embeddings"] != tc.pending {
					t.Errorf("pending_embeddings %v, want %v", r.out["pending_embeddings"], tc.pending)
				}
				for _, x := range r.out["results"].([]any) {
					res := x.(map[string]any)
					ex, has := res["explain"].(map[string]any)
					if has != tc.explains {
						t.Fatalf("explain %v, want it %v", res["explain"], tc.explains)
					}
					if has {
						if sig, _ := ex["signals"].(map[string]any); sig["lexical"] == nil || ex["score"] != res["score"] {
							t.Errorf("explain %v of score %v", ex, res["score"])
						}
					}
				}
			})
		}

		t.Run("FreshWriteFoundAtOnce", func(t *testing.T) {
			w := MustCall(t, au, "store_memory", map[string]any{"content": "m16 the foghorn sounded at midnight"})
			r := MustCall(t, au, "search_memory", map[string]any{"query": "foghorn"})
			results, _ := r.out["results"].([]any)
			if len(results) != 1 || results[0].(map[string]any)["id"] != w.out["id"] {
				t.Fatalf("results %s, want the passage just stored (%v)", r.text, w.out["id"])
			}
			if r.out["pending_embeddings"] != float64(11) {
				t.Errorf("pending_embeddings %v, want 11 (nothing embedded yet: 8 memories and a's 3 blocks)", r.out["pending_embeddings"])
			}
		})

		t.Run("AfterEmbedding", func(t *testing.T) {
			if _, err := svc.Reindex(ctx, nil); err != nil {
				t.Fatal(err)
			}
			r := MustCall(t, au, "search_memory", map[string]any{"query": "lighthouse keeper lore", "explain": true, "limit": 100})
			got := markers(t, r)
			for _, m := range got {
				if !slices.Contains(append(forAU, "m16"), m) {
					t.Fatalf("result %s leaked into a with u: %v", m, got)
				}
			}
			if r.out["pending_embeddings"] != float64(0) {
				t.Errorf("pending_embeddings %v, want 0", r.out["pending_embeddings"])
			}
			first := r.out["results"].([]any)[0].(map[string]any)
			sig := first["explain"].(map[string]any)["signals"].(map[string]any)
			if markerRE.FindString(first["content"].(string)) != "m2" || sig["lexical"] == nil || sig["vector"] == nil {
				t.Errorf("first %v, want m2 found by both signals", first)
			}
		})

		for _, tc := range []struct {
			name string
			args map[string]any
			code string // "" when the SDK's schema validation answers
			msg  string // the message, or the argument a schema error names
		}{
			{"ErrEmptyQuery", map[string]any{"query": ""}, loci.EINVALID, "query is required"},
			{"ErrBlankQuery", map[string]any{"query": " \t "}, loci.EINVALID, "query is required"},
			{"ErrMissingQuery", map[string]any{"kinds": []any{"note"}}, "", "query"},
			{"ErrUnknownKind", map[string]any{"query": "x", "kinds": []any{"gossip"}}, "", "kinds"},
			{"ErrLimitHigh", map[string]any{"query": "x", "limit": 101}, "", "limit"},
			{"ErrLimitZero", map[string]any{"query": "x", "limit": 0}, "", "limit"},
			{"ErrQueryTooLarge", map[string]any{"query": strings.Repeat("x", loci.MaxQueryBytes+1)}, "", "query"},
			{"ErrAgentArgument", map[string]any{"query": "lighthouse", "agent_id": "b"}, "", "agent_id"},
			{"ErrUserArgument", map[string]any{"query": "lighthouse", "user_id": "v"}, "", "user_id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := MustCall(t, au, "search_memory", tc.args)
				if tc.code == "" {
					wantSchemaError(t, r, tc.msg)
					return
				}
				wantError(t, r, tc.code, tc.msg)
			})
		}
	})
}
