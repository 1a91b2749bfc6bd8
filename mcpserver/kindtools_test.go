package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// wantUnlisted checks that a tool that needs a user is neither listed nor
// callable on a connection without one.
func wantUnlisted(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) {
	t.Helper()
	if slices.Contains(listTools(t, cs), name) {
		t.Errorf("%s is listed on a connection without a user", name)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args}); err == nil {
		t.Errorf("%s called on a connection without a user: %+v, want an unknown tool", name, res)
	}
}

// wantOK fails the test unless r succeeded.
func wantOK(t *testing.T, r result) {
	t.Helper()
	if r.isError || r.out["success"] != true {
		t.Fatalf("got %s, want success", r.text)
	}
}

// wantSchemaError checks that r is a tool error from the SDK's validation of
// the arguments against the input schema, naming the argument.
func wantSchemaError(t *testing.T, r result, arg string) {
	t.Helper()
	if !r.isError {
		t.Fatalf("isError = false, want a tool error; got %s", r.text)
	}
	if !strings.Contains(r.text, arg) {
		t.Errorf("error %q does not name %q", r.text, arg)
	}
}

func TestLifecycleToolsList(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			tools[tool.Name] = tool
		}
		for _, tc := range []struct {
			name     string
			required []string            // input
			enums    map[string][]string // input property: enum
			output   []string            // output properties
		}{
			{"set_working", []string{"task_id", "key", "value"}, nil, []string{"success", "action", "task_id", "key", "updated_at", "expires_at"}},
			{"get_working", []string{"task_id"}, nil, []string{"success", "task_id", "key", "value", "updated_at", "expires_at", "count", "values"}},
			{"record_episode", []string{"action_type", "action_description", "outcome"},
				map[string][]string{"outcome": loci.Outcomes}, []string{"success", "id", "created_at", "expires_at"}},
			{"find_similar_episodes", []string{"query"},
				map[string][]string{"outcome": loci.Outcomes}, []string{"success", "count", "episodes"}},
			{"store_fact", []string{"category", "fact"},
				nil, []string{"success", "id", "category", "scope", "relevance_score", "created_at", "key", "valid_at", "status", "supersedes"}},
			{"search_facts", []string{"query"},
				nil, []string{"success", "count", "facts"}},
			{"observe_preference", []string{"type", "value", "source"},
				map[string][]string{"source": {"explicit", "implicit", "decision"}},
				[]string{"success", "action", "type", "value", "source", "confidence", "tier", "observation_count", "first_observed", "learned_from"}},
			{"get_user_context", nil, nil, []string{"success", "user_id", "created", "defaults", "preferences", "sessions"}},
			{"list_review", nil, nil, []string{"success", "count", "items"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tool := tools[tc.name]
				if tool == nil {
					t.Fatalf("tool %q not listed", tc.name)
				}
				if len(tool.Description) < 100 {
					t.Errorf("description %q is too thin for a model to act on", tool.Description)
				}
				for _, word := range []string{"career", "interview", "job_market", "salar", "Retail", "campaign", "vertical", "budget", "kpi"} {
					if strings.Contains(tool.Description+string(mustJSON(t, tool.InputSchema)), word) {
						t.Errorf("description or schema holds the domain word %q", word)
					}
				}
				in := schemaOf(t, tool.InputSchema)
				if got := in.Required; !slices.Equal(got, tc.required) {
					t.Errorf("input required = %v, want %v", got, tc.required)
				}
				for p, prop := range in.Properties {
					if prop.Description == "" {
						t.Errorf("input property %q has no description", p)
					}
					if strings.Contains(p, "agent") || p == "user_id" || p == "user" {
						t.Errorf("input property %q: the identity must come from the connection", p)
					}
				}
				for p, want := range tc.enums {
					var got []string
					for _, v := range in.Properties[p].Enum {
						got = append(got, fmt.Sprint(v))
					}
					if !slices.Equal(got, want) {
						t.Errorf("input %q enum = %v, want %v", p, got, want)
					}
				}
				if in.AdditionalProperties == nil {
					t.Errorf("input schema allows unknown arguments")
				}
				out := schemaOf(t, tool.OutputSchema)
				for _, p := range tc.output {
					if _, ok := out.Properties[p]; !ok {
						t.Errorf("output schema lacks %q", p)
					}
				}
			})
		}
	})
}

func TestSetWorking(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "planner", UserID: "u"})
		t.Run("OKCreated", func(t *testing.T) {
			r := MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "plan", "value": map[string]any{"steps": []any{"parse", "score"}, "done": 1}})
			wantOK(t, r)
			if r.out["action"] != "created" || r.out["task_id"] != "t1" || r.out["key"] != "plan" {
				t.Errorf("got %s, want created t1/plan", r.text)
			}
			e, err := svc.GetWorking(ctx, "t1", "plan", loci.WorkingFilter{AgentID: "planner", UserID: "u"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(e.Value), `{"done":1,"steps":["parse","score"]}`; got != want {
				t.Errorf("stored value = %s, want %s", got, want)
			}
			if e.AgentID != "planner" || e.UserID != "u" {
				t.Errorf("stored scope = %s/%s, want the connection's planner/u", e.AgentID, e.UserID)
			}
		})
		t.Run("OKUpdated", func(t *testing.T) {
			r := MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "plan", "value": "rewritten"})
			wantOK(t, r)
			if r.out["action"] != "updated" {
				t.Errorf("action = %v, want updated", r.out["action"])
			}
		})
		t.Run("OKFalsyValue", func(t *testing.T) {
			wantOK(t, MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "flag", "value": false}))
			if r := MustCall(t, cs, "get_working", map[string]any{"task_id": "t1", "key": "flag"}); r.out["value"] != false {
				t.Errorf("value = %v, want false", r.out["value"])
			}
		})
		for _, tc := range []struct {
			name string
			args map[string]any
			code string
			msg  string
		}{
			{"ErrEmptyTask", map[string]any{"task_id": "", "key": "k", "value": 1}, loci.EINVALID, "task_id must not be empty"},
			{"ErrEmptyKey", map[string]any{"task_id": "t1", "key": " ", "value": 1}, loci.EINVALID, "key must not be empty"},
			{"ErrNullValue", map[string]any{"task_id": "t1", "key": "k", "value": nil}, loci.EINVALID, "value is required"},
			{"ErrKeyTooLong", map[string]any{"task_id": "t1", "key": strings.Repeat("k", loci.MaxWorkingKeyBytes+1), "value": 1}, loci.EINVALID, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, MustCall(t, cs, "set_working", tc.args), tc.code, tc.msg)
			})
		}
		t.Run("ErrMissingValue", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "k"}), "value")
		})
		t.Run("ErrTooLarge", func(t *testing.T) {
			// One value over the task's limit (the JSON string's quotes count).
			big := strings.Repeat("x", loci.MaxWorkingTaskBytes)
			wantError(t, MustCall(t, cs, "set_working", map[string]any{"task_id": "t2", "key": "big", "value": big}), loci.ETOOLARGE, "")
			// Values that fit one by one but not together: nothing changes.
			half := strings.Repeat("y", loci.MaxWorkingTaskBytes/2)
			wantOK(t, MustCall(t, cs, "set_working", map[string]any{"task_id": "t2", "key": "a", "value": half}))
			r := MustCall(t, cs, "set_working", map[string]any{"task_id": "t2", "key": "b", "value": half})
			wantError(t, r, loci.ETOOLARGE, fmt.Sprintf("working memory of task %q would total %d bytes, more than %d", "t2", 2*(len(half)+2), loci.MaxWorkingTaskBytes))
			if r := MustCall(t, cs, "get_working", map[string]any{"task_id": "t2"}); r.out["count"] != float64(1) {
				t.Errorf("after a refused write: %s, want only a", r.text)
			}
		})
		t.Run("ErrAgentArgument", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "set_working", map[string]any{"task_id": "t3", "key": "k", "value": 1, "agent_id": "other"}), "agent_id")
		})
	})
}

func TestGetWorking(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "planner", UserID: "u"})
		MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "plan", "value": map[string]any{"step": 2}})
		MustCall(t, cs, "set_working", map[string]any{"task_id": "t1", "key": "notes", "value": "check dates"})
		MustCall(t, cs, "set_working", map[string]any{"task_id": "t2", "key": "other", "value": 1})
		t.Run("OKOne", func(t *testing.T) {
			r := MustCall(t, cs, "get_working", map[string]any{"task_id": "t1", "key": "plan"})
			wantOK(t, r)
			if v, _ := r.out["value"].(map[string]any); v["step"] != float64(2) || r.out["key"] != "plan" {
				t.Errorf("got %s, want plan {step: 2}", r.text)
			}
			if r.out["updated_at"] == nil || r.out["expires_at"] == nil {
				t.Errorf("got %s, want updated_at and expires_at", r.text)
			}
			if _, ok := r.out["count"]; ok {
				t.Errorf("a single read has count: %s", r.text)
			}
		})
		t.Run("OKAll", func(t *testing.T) {
			r := MustCall(t, cs, "get_working", map[string]any{"task_id": "t1"})
			wantOK(t, r)
			values, _ := r.out["values"].(map[string]any)
			if r.out["count"] != float64(2) || values["notes"] != "check dates" || values["plan"] == nil {
				t.Errorf("got %s, want plan and notes of t1 only", r.text)
			}
		})
		t.Run("OKEmptyTask", func(t *testing.T) {
			r := MustCall(t, cs, "get_working", map[string]any{"task_id": "none"})
			wantOK(t, r)
			if v, ok := r.out["values"].(map[string]any); r.out["count"] != float64(0) || !ok || len(v) != 0 {
				t.Errorf("got %s, want count 0 and values {}", r.text)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "get_working", map[string]any{"task_id": "t1", "key": "missing"}), loci.ENOTFOUND, "working memory entry not found")
		})
		t.Run("ErrEmptyTask", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "get_working", map[string]any{"task_id": ""}), loci.EINVALID, "task_id must not be empty")
		})
		t.Run("ErrBlankKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "get_working", map[string]any{"task_id": "t1", "key": " "}), loci.EINVALID, "key must not be empty")
		})
	})
}

// TestWorkingIsolation: working memory of one task is split by the
// connection's agent and user, never by an argument.
func TestWorkingIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		a := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		b := MustConnect(t, svc, mcpserver.Identity{AgentID: "b", UserID: "u"})
		aNoUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		wantOK(t, MustCall(t, a, "set_working", map[string]any{"task_id": "shared", "key": "secret", "value": "a's"}))

		wantError(t, MustCall(t, b, "get_working", map[string]any{"task_id": "shared", "key": "secret"}), loci.ENOTFOUND, "working memory entry not found")
		if r := MustCall(t, b, "get_working", map[string]any{"task_id": "shared"}); r.out["count"] != float64(0) {
			t.Errorf("agent b lists %s, want none of a's values", r.text)
		}
		// The same agent without the user does not see the user's entry.
		wantError(t, MustCall(t, aNoUser, "get_working", map[string]any{"task_id": "shared", "key": "secret"}), loci.ENOTFOUND, "working memory entry not found")
		if r := MustCall(t, aNoUser, "get_working", map[string]any{"task_id": "shared"}); r.out["count"] != float64(0) {
			t.Errorf("a without user lists %s, want none of a/u's values", r.text)
		}
		// Each writes its own entry under the same key.
		if r := MustCall(t, b, "set_working", map[string]any{"task_id": "shared", "key": "secret", "value": "b's"}); r.out["action"] != "created" {
			t.Errorf("b's write: %s, want its own entry created", r.text)
		}
		if r := MustCall(t, aNoUser, "set_working", map[string]any{"task_id": "shared", "key": "secret", "value": "a alone"}); r.out["action"] != "created" {
			t.Errorf("a-without-user's write: %s, want its own entry created", r.text)
		}
		for _, tc := range []struct {
			name string
			cs   *mcp.ClientSession
			want string
		}{{"A", a, "a's"}, {"B", b, "b's"}, {"ANoUser", aNoUser, "a alone"}} {
			t.Run(tc.name, func(t *testing.T) {
				if r := MustCall(t, tc.cs, "get_working", map[string]any{"task_id": "shared", "key": "secret"}); r.out["value"] != tc.want {
					t.Errorf("value = %v, want %q", r.out["value"], tc.want)
				}
				if r := MustCall(t, tc.cs, "get_working", map[string]any{"task_id": "shared"}); r.out["count"] != float64(1) {
					t.Errorf("lists %s, want its one value", r.text)
				}
			})
		}
	})
}

func TestRecordEpisode(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "interviewer", UserID: "u"})
		t.Run("OK", func(t *testing.T) {
			r := MustCall(t, cs, "record_episode", map[string]any{
				"action_type":        "interview_analysis",
				"action_description": "Analyzed behavioral interview for STAR methodology compliance",
				"context":            map[string]any{"goal": "Improve interview responses", "tools_used": []any{"transcript_parser"}},
				"outcome":            "success",
				"outcome_details":    map[string]any{"result": map[string]any{"score": 85}, "metrics": map[string]any{"improvements": 3}},
				"confidence_score":   0.92,
			})
			wantOK(t, r)
			if r.out["id"] == "" || r.out["created_at"] == nil || r.out["expires_at"] == nil {
				t.Errorf("got %s, want id, created_at, expires_at", r.text)
			}
			eps, n, err := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u", AgentID: "interviewer"})
			if err != nil || n != 1 {
				t.Fatalf("stored episodes: %d, %v; want 1", n, err)
			}
			ep := eps[0]
			if ep.ID != r.out["id"] || ep.Outcome != "success" || ep.ConfidenceScore == nil || *ep.ConfidenceScore != 0.92 {
				t.Errorf("stored %+v", ep)
			}
			if got, want := string(ep.Context), `{"goal":"Improve interview responses","tools_used":["transcript_parser"]}`; got != want {
				t.Errorf("context = %s, want %s", got, want)
			}
		})
		for _, tc := range []struct {
			name string
			args map[string]any
			msg  string
		}{
			{"ErrEmptyActionType", map[string]any{"action_type": " ", "action_description": "d", "outcome": "success"}, "action_type must not be empty"},
			{"ErrEmptyDescription", map[string]any{"action_type": "a", "action_description": "", "outcome": "failure"}, "action_description must not be empty"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, MustCall(t, cs, "record_episode", tc.args), loci.EINVALID, tc.msg)
			})
		}
		// Arguments the input schema refuses, naming the argument.
		for _, tc := range []struct {
			name, arg string
			args      map[string]any
		}{
			{"ErrBadOutcome", "outcome", map[string]any{"action_type": "a", "action_description": "d", "outcome": "great"}},
			{"ErrConfidenceRange", "confidence_score", map[string]any{"action_type": "a", "action_description": "d", "outcome": "success", "confidence_score": 1.5}},
			{"ErrContextNotObject", "context", map[string]any{"action_type": "a", "action_description": "d", "outcome": "success", "context": "text"}},
			{"ErrMissingOutcome", "outcome", map[string]any{"action_type": "a", "action_description": "d"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantSchemaError(t, MustCall(t, cs, "record_episode", tc.args), tc.arg)
			})
		}
		if _, n, _ := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u", AgentID: "interviewer"}); n != 1 {
			t.Errorf("refused calls stored episodes: %d, want 1", n)
		}
		t.Run("ErrNoUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "interviewer"})
			wantUnlisted(t, noUser, "record_episode", map[string]any{"action_type": "a", "action_description": "d", "outcome": "success"})
		})
	})
}

func TestFindSimilarEpisodes(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "interviewer", UserID: "u"})
		for _, ep := range []map[string]any{
			{"action_type": "interview_analysis", "action_description": "Analyzed behavioral interview transcript with STAR scoring", "outcome": "success", "confidence_score": 0.9},
			{"action_type": "interview_analysis", "action_description": "Analyzed technical interview transcript, parser crashed", "outcome": "failure", "outcome_details": map[string]any{"error": "parser timeout"}},
			{"action_type": "resume_review", "action_description": "Reviewed resume formatting", "outcome": "partial"},
		} {
			wantOK(t, MustCall(t, cs, "record_episode", ep))
		}
		t.Run("OK", func(t *testing.T) {
			r := MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "analyzing interview transcript"})
			wantOK(t, r)
			eps, _ := r.out["episodes"].([]any)
			if r.out["count"] != float64(2) || len(eps) != 2 {
				t.Fatalf("got %s, want the two interview episodes", r.text)
			}
			for _, e := range eps {
				e := e.(map[string]any)
				if e["action_type"] != "interview_analysis" || e["score"] == nil || e["id"] == "" {
					t.Errorf("episode %v", e)
				}
			}
		})
		t.Run("OKOutcomeFilter", func(t *testing.T) {
			r := MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "interview transcript", "outcome": "failure"})
			eps, _ := r.out["episodes"].([]any)
			if len(eps) != 1 {
				t.Fatalf("got %s, want the failure only", r.text)
			}
			e := eps[0].(map[string]any)
			if d, _ := e["outcome_details"].(map[string]any); e["outcome"] != "failure" || d["error"] != "parser timeout" {
				t.Errorf("episode %v, want the failure with its error", e)
			}
		})
		t.Run("OKLimit", func(t *testing.T) {
			if r := MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "interview", "limit": 1}); r.out["count"] != float64(1) {
				t.Errorf("got %s, want 1 episode", r.text)
			}
		})
		t.Run("OKNone", func(t *testing.T) {
			r := MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "negotiating salary"})
			wantOK(t, r)
			if eps, ok := r.out["episodes"].([]any); r.out["count"] != float64(0) || !ok || len(eps) != 0 {
				t.Errorf("got %s, want count 0 and episodes []", r.text)
			}
		})
		t.Run("ErrEmptyQuery", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "find_similar_episodes", map[string]any{"query": " "}), loci.EINVALID, "query must contain at least one word")
		})
		t.Run("ErrBadOutcome", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "x", "outcome": "win"}), "outcome")
		})
		t.Run("ErrLimit", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "find_similar_episodes", map[string]any{"query": "x", "limit": 0}), "limit")
		})
		t.Run("ErrNoUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "interviewer"})
			wantUnlisted(t, noUser, "find_similar_episodes", map[string]any{"query": "interview"})
		})
	})
}

// TestEpisodeIsolation: episodes are the connection's user's with its
// agent.
func TestEpisodeIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		u := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "U"})
		v := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "V"})
		otherAgent := MustConnect(t, svc, mcpserver.Identity{AgentID: "b", UserID: "U"})
		wantOK(t, MustCall(t, u, "record_episode", map[string]any{"action_type": "draft", "action_description": "Drafted the quarterly budget memo", "outcome": "success"}))
		for _, tc := range []struct {
			name string
			cs   *mcp.ClientSession
			want float64
		}{{"SameUser", u, 1}, {"OtherUser", v, 0}, {"OtherAgent", otherAgent, 0}} {
			t.Run(tc.name, func(t *testing.T) {
				if r := MustCall(t, tc.cs, "find_similar_episodes", map[string]any{"query": "budget memo"}); r.out["count"] != tc.want {
					t.Errorf("got %s, want count %v", r.text, tc.want)
				}
			})
		}
	})
}

func TestStoreFact(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "interviewer", UserID: "u"})
		t.Run("OKUser", func(t *testing.T) {
			r := MustCall(t, cs, "store_fact", map[string]any{
				"category": "interview_insight",
				"fact":     "User performs better with structured STAR responses than free-form answers",
				"keywords": []any{"interview", "STAR"},
				"evidence": map[string]any{"source_episodes": []any{"e1", "e2"}},
			})
			wantOK(t, r)
			if r.out["scope"] != "user" || r.out["category"] != "interview_insight" || r.out["relevance_score"] != float64(1) {
				t.Errorf("got %s, want a user fact with relevance 1", r.text)
			}
			facts, n, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u", Keyword: "STAR"})
			if err != nil || n != 1 {
				t.Fatalf("stored: %d, %v; want 1", n, err)
			}
			if f := facts[0]; f.UserID != "u" || f.AgentID != "interviewer" || string(f.Evidence) != `{"source_episodes":["e1","e2"]}` {
				t.Errorf("stored %+v, want u's fact by interviewer with its evidence", f)
			}
		})
		t.Run("OKGlobalWithoutUser", func(t *testing.T) {
			noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "researcher"})
			r := MustCall(t, noUser, "store_fact", map[string]any{"category": "job_market_fact", "fact": "Senior Go roles in Berlin pay 80k to 100k EUR"})
			wantOK(t, r)
			if r.out["scope"] != "global" {
				t.Errorf("scope = %v, want global", r.out["scope"])
			}
			if _, n, _ := svc.FactsByKeyword(ctx, loci.FactQuery{}); n != 1 {
				t.Errorf("global facts = %d, want 1", n)
			}
		})
		t.Run("ErrEmptyFact", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "  "}), loci.EINVALID, "fact must not be empty")
		})
		t.Run("ErrBadCategory", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "store_fact", map[string]any{"category": "Gossip!", "fact": "x"}), "category")
		})
		t.Run("ErrEvidenceNotObject", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "store_fact", map[string]any{"category": "general_fact", "fact": "x", "evidence": []any{"e1"}}), "evidence")
		})
		t.Run("ErrMissingCategory", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "store_fact", map[string]any{"fact": "x"}), "category")
		})
		if _, n, _ := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u"}); n != 1 {
			t.Errorf("refused calls stored facts: u has %d, want 1", n)
		}
	})
}

func TestSearchFacts(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"})
		noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		wantOK(t, MustCall(t, cs, "store_fact", map[string]any{"category": "user_preference", "fact": "User prefers a direct interview style", "keywords": []any{"style"}}))
		wantOK(t, MustCall(t, cs, "store_fact", map[string]any{"category": "career_goal", "fact": "User wants a staff interview loop at a startup"}))
		wantOK(t, MustCall(t, noUser, "store_fact", map[string]any{"category": "general_fact", "fact": "Behavioral interview questions follow the STAR style"}))
		t.Run("OKUserAndGlobal", func(t *testing.T) {
			r := MustCall(t, cs, "search_facts", map[string]any{"query": "interview style"})
			wantOK(t, r)
			facts, _ := r.out["facts"].([]any)
			if len(facts) != 3 || r.out["count"] != float64(3) {
				t.Fatalf("got %s, want the user's two facts and the global one", r.text)
			}
			scopes := map[string]int{}
			for _, f := range facts {
				f := f.(map[string]any)
				scopes[f["scope"].(string)]++
				if f["access_count"] != float64(1) || f["relevance_score"] != float64(1) {
					t.Errorf("fact %v: want access_count 1 (this search) and relevance 1", f)
				}
			}
			if scopes["user"] != 2 || scopes["global"] != 1 {
				t.Errorf("scopes = %v, want 2 user, 1 global", scopes)
			}
		})
		t.Run("OKUserOnly", func(t *testing.T) {
			r := MustCall(t, cs, "search_facts", map[string]any{"query": "interview style", "include_global": false})
			if r.out["count"] != float64(2) || strings.Contains(r.text, `"global"`) {
				t.Errorf("got %s, want the user's two facts only", r.text)
			}
		})
		t.Run("OKCategory", func(t *testing.T) {
			r := MustCall(t, cs, "search_facts", map[string]any{"query": "interview", "category": "user_preference"})
			facts, _ := r.out["facts"].([]any)
			if len(facts) != 1 || facts[0].(map[string]any)["fact"] != "User prefers a direct interview style" {
				t.Errorf("got %s, want the preference only", r.text)
			}
		})
		t.Run("OKGlobalOnlyWithoutUser", func(t *testing.T) {
			r := MustCall(t, noUser, "search_facts", map[string]any{"query": "interview style"})
			facts, _ := r.out["facts"].([]any)
			if len(facts) != 1 || facts[0].(map[string]any)["scope"] != "global" {
				t.Errorf("got %s, want only the global fact", r.text)
			}
		})
		t.Run("ErrEmptyQuery", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "search_facts", map[string]any{"query": ""}), loci.EINVALID, "query must contain at least one word")
		})
		t.Run("ErrBadCategory", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "search_facts", map[string]any{"query": "x", "category": "Rumour!"}), "category")
		})
		t.Run("ErrLimit", func(t *testing.T) {
			wantSchemaError(t, MustCall(t, cs, "search_facts", map[string]any{"query": "x", "limit": 101}), "limit")
		})
	})
}

// TestFactIsolation: a connection bound to user V cannot find user U's
// facts.
func TestFactIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		u := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "U"})
		v := MustConnect(t, svc, mcpserver.Identity{AgentID: "a", UserID: "V"})
		noUser := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		wantOK(t, MustCall(t, u, "store_fact", map[string]any{"category": "career_goal", "fact": "U wants to become a lighthouse keeper"}))
		for _, tc := range []struct {
			name string
			cs   *mcp.ClientSession
			want float64
		}{{"SameUser", u, 1}, {"OtherUser", v, 0}, {"NoUser", noUser, 0}} {
			t.Run(tc.name, func(t *testing.T) {
				if r := MustCall(t, tc.cs, "search_facts", map[string]any{"query": "lighthouse keeper"}); r.out["count"] != tc.want {
					t.Errorf("got %s, want count %v", r.text, tc.want)
				}
			})
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
