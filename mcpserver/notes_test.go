package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

func TestNoteToolsList(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
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
			required []string // input
			props    []string // input
			output   []string // output properties
		}{
			{"remember", []string{"key", "value"}, []string{"key", "value"}, []string{"success", "message", "action", "key", "updated_at"}},
			{"recall", nil, []string{"key"}, []string{"success", "key", "value", "updated_at", "count", "memories"}},
			{"forget", []string{"key"}, []string{"key"}, []string{"success", "message", "key"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tool := tools[tc.name]
				if tool == nil {
					t.Fatalf("tool %q not listed", tc.name)
				}
				if len(tool.Description) < 40 {
					t.Errorf("description %q is too thin for a model to act on", tool.Description)
				}
				in := schemaOf(t, tool.InputSchema)
				if got := in.Required; !slices.Equal(got, tc.required) {
					t.Errorf("input required = %v, want %v", got, tc.required)
				}
				for _, p := range tc.props {
					if in.Properties[p].Description == "" {
						t.Errorf("input property %q has no description", p)
					}
				}
				if in.AdditionalProperties == nil {
					t.Errorf("input schema allows unknown arguments")
				}
				for p := range in.Properties {
					if p == "agent_id" || p == "agent" || p == "user_id" {
						t.Errorf("input property %q: the identity must come from the connection", p)
					}
				}
				out := schemaOf(t, tool.OutputSchema)
				for _, p := range tc.output {
					prop, ok := out.Properties[p]
					if !ok {
						t.Errorf("output schema lacks %q", p)
					} else if _, one := prop.Type.(string); !one {
						t.Errorf("output property %q has type %v, want one type (omitted when absent, never null)", p, prop.Type)
					}
				}
			})
		}
	})
}

// toolSchema is the part of a JSON schema the tests look at.
type toolSchema struct {
	Required   []string `json:"required"`
	Properties map[string]struct {
		Type        any    `json:"type"`
		Description string `json:"description"`
		Enum        []any  `json:"enum"`
	} `json:"properties"`
	AdditionalProperties any `json:"additionalProperties"`
}

func schemaOf(t *testing.T, v any) toolSchema {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var s toolSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	return s
}

func TestRemember(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "writer"})
		t.Run("OKCreated", func(t *testing.T) {
			r := MustCall(t, cs, "remember", map[string]any{"key": "best_posting_time", "value": "Thursday 9am EST"})
			if r.isError {
				t.Fatalf("tool error: %s", r.text)
			}
			want := map[string]any{"success": true, "message": "Remembered: best_posting_time", "action": "created", "key": "best_posting_time"}
			for k, v := range want {
				if r.out[k] != v {
					t.Errorf("%s = %v, want %v", k, r.out[k], v)
				}
			}
			if _, err := time.Parse(time.RFC3339, r.out["updated_at"].(string)); err != nil {
				t.Errorf("updated_at %v: %v", r.out["updated_at"], err)
			}
		})
		t.Run("OKUpdated", func(t *testing.T) {
			r := MustCall(t, cs, "remember", map[string]any{"key": "best_posting_time", "value": "Friday 8am EST"})
			if r.isError || r.out["action"] != "updated" {
				t.Fatalf("got %s, want action updated", r.text)
			}
			n, err := svc.Recall(context.Background(), "writer", "best_posting_time")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(n.Value), `"Friday 8am EST"`; got != want {
				t.Errorf("stored value = %s, want %s (a JSON string)", got, want)
			}
		})
		for _, tc := range []struct {
			name string
			args map[string]any
			msg  string // "" when the SDK's schema validation answers
		}{
			{"ErrEmptyKey", map[string]any{"key": "", "value": "v"}, "key must not be empty"},
			{"ErrBlankKey", map[string]any{"key": "  ", "value": "v"}, "key must not be empty"},
			{"ErrEmptyValue", map[string]any{"key": "k", "value": ""}, "value must not be empty"},
			{"ErrBlankValue", map[string]any{"key": "k", "value": " \n"}, "value must not be empty"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, MustCall(t, cs, "remember", tc.args), loci.EINVALID, tc.msg)
				if _, err := svc.Recall(context.Background(), "writer", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
					t.Errorf("a refused remember stored something: %v", err)
				}
			})
		}
		t.Run("ErrTooLarge", func(t *testing.T) {
			r := MustCall(t, cs, "remember", map[string]any{"key": "big", "value": strings.Repeat("x", loci.MaxNoteValueBytes+1)})
			wantError(t, r, loci.ETOOLARGE, "")
		})
		// Arguments the input schema refuses: the SDK answers with a tool
		// error naming the problem, and nothing is stored.
		for _, tc := range []struct {
			name string
			args map[string]any
		}{
			{"ErrMissingValue", map[string]any{"key": "k"}},
			{"ErrMissingKey", map[string]any{"value": "v"}},
			{"ErrValueNotString", map[string]any{"key": "k", "value": map[string]any{"a": 1}}},
			{"ErrAgentArgument", map[string]any{"key": "k", "value": "v", "agent_id": "other"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := MustCall(t, cs, "remember", tc.args)
				if !r.isError {
					t.Fatalf("isError = false, want a tool error; got %s", r.text)
				}
				if _, err := svc.Recall(context.Background(), "writer", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
					t.Errorf("a refused remember stored something: %v", err)
				}
				if _, err := svc.Recall(context.Background(), "other", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
					t.Errorf("an agent_id argument reached another agent: %v", err)
				}
			})
		}
	})
}

func TestRecall(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "writer"})
		t.Run("OKAllEmpty", func(t *testing.T) {
			r := MustCall(t, cs, "recall", nil)
			if r.isError || r.out["success"] != true || r.out["count"] != float64(0) {
				t.Fatalf("got %s, want success and count 0", r.text)
			}
			if m, ok := r.out["memories"].([]any); !ok || len(m) != 0 {
				t.Errorf("memories = %v, want []", r.out["memories"])
			}
		})
		MustCall(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"})
		MustCall(t, cs, "remember", map[string]any{"key": "audience", "value": "developers"})
		// A note written through another interface with a JSON value.
		if _, err := svc.Remember(ctx, "writer", "limits", json.RawMessage(`{"posts_per_day": 3}`)); err != nil {
			t.Fatal(err)
		}
		t.Run("OKOne", func(t *testing.T) {
			r := MustCall(t, cs, "recall", map[string]any{"key": "tone"})
			if r.isError {
				t.Fatalf("tool error: %s", r.text)
			}
			if r.out["success"] != true || r.out["key"] != "tone" || r.out["value"] != "friendly" {
				t.Errorf("got %s, want key tone, value friendly", r.text)
			}
			if _, err := time.Parse(time.RFC3339, r.out["updated_at"].(string)); err != nil {
				t.Errorf("updated_at: %v", err)
			}
			if _, ok := r.out["count"]; ok {
				t.Errorf("a single recall has count: %s", r.text)
			}
		})
		t.Run("OKJSONValueAsText", func(t *testing.T) {
			r := MustCall(t, cs, "recall", map[string]any{"key": "limits"})
			if got, want := r.out["value"], `{"posts_per_day":3}`; got != want {
				t.Errorf("value = %v, want %s", got, want)
			}
		})
		t.Run("OKAll", func(t *testing.T) {
			r := MustCall(t, cs, "recall", map[string]any{})
			if r.isError || r.out["count"] != float64(3) {
				t.Fatalf("got %s, want count 3", r.text)
			}
			var keys []string
			for _, m := range r.out["memories"].([]any) {
				m := m.(map[string]any)
				keys = append(keys, m["key"].(string))
				if m["value"] == "" || m["updated_at"] == "" {
					t.Errorf("memory %v lacks value or updated_at", m)
				}
			}
			if want := []string{"audience", "limits", "tone"}; !slices.Equal(keys, want) {
				t.Errorf("keys = %v, want %v", keys, want)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			r := MustCall(t, cs, "recall", map[string]any{"key": "missing"})
			wantError(t, r, loci.ENOTFOUND, "Memory not found")
			if want := `{"success":false,"error":"Memory not found","code":"not_found"}`; r.text != want {
				t.Errorf("text = %s, want %s", r.text, want)
			}
		})
		t.Run("ErrBlankKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "recall", map[string]any{"key": " "}), loci.EINVALID, "key must not be empty")
		})
	})
}

func TestForget(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "writer"})
		MustCall(t, cs, "remember", map[string]any{"key": "tone", "value": "friendly"})
		t.Run("OK", func(t *testing.T) {
			r := MustCall(t, cs, "forget", map[string]any{"key": "tone"})
			if r.isError || r.out["success"] != true || r.out["message"] != "Forgotten: tone" {
				t.Fatalf("got %s", r.text)
			}
			wantError(t, MustCall(t, cs, "recall", map[string]any{"key": "tone"}), loci.ENOTFOUND, "Memory not found")
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "forget", map[string]any{"key": "tone"}), loci.ENOTFOUND, "Memory not found")
		})
		t.Run("ErrEmptyKey", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "forget", map[string]any{"key": ""}), loci.EINVALID, "key must not be empty")
		})
		t.Run("ErrMissingKey", func(t *testing.T) {
			if r := MustCall(t, cs, "forget", nil); !r.isError {
				t.Errorf("isError = false, want a tool error; got %s", r.text)
			}
		})
	})
}

// TestIsolation: two connections bound to different agents cannot see or
// touch each other's notes.
func TestIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		a := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		b := MustConnect(t, svc, mcpserver.Identity{AgentID: "b"})
		MustCall(t, a, "remember", map[string]any{"key": "secret", "value": "a's"})
		MustCall(t, b, "remember", map[string]any{"key": "other", "value": "b's"})

		if r := MustCall(t, b, "recall", nil); r.out["count"] != float64(1) || strings.Contains(r.text, "secret") {
			t.Errorf("b's recall all = %s, want only b's note", r.text)
		}
		wantError(t, MustCall(t, b, "recall", map[string]any{"key": "secret"}), loci.ENOTFOUND, "Memory not found")
		wantError(t, MustCall(t, b, "forget", map[string]any{"key": "secret"}), loci.ENOTFOUND, "Memory not found")
		if r := MustCall(t, b, "remember", map[string]any{"key": "secret", "value": "b's"}); r.out["action"] != "created" {
			t.Errorf("b's remember of a's key: action %v, want created (its own note)", r.out["action"])
		}
		if r := MustCall(t, a, "recall", map[string]any{"key": "secret"}); r.out["value"] != "a's" {
			t.Errorf("a's note = %s, want a's value untouched", r.text)
		}
		if r := MustCall(t, a, "recall", nil); r.out["count"] != float64(1) {
			t.Errorf("a's recall all = %s, want 1 note", r.text)
		}
	})
}

// failingService fails every note call with a non-domain error.
type failingService struct{ loci.Service }

func (failingService) Retrieval() loci.Retrieval { return loci.Retrieval{Mode: loci.RetrievalLexical} }

func (failingService) RecallAll(context.Context, string) ([]*loci.Note, error) {
	return nil, errors.New("disk on fire")
}

func TestInternalError(t *testing.T) {
	srv, err := mcpserver.New(failingService{}, mcpserver.Identity{AgentID: "a"}, mcpserver.WithLogger(quiet), mcpserver.WithAudit(false))
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := MustCall(t, cs, "recall", nil)
	wantError(t, r, loci.EINTERNAL, "internal error")
	if strings.Contains(r.text, "disk on fire") {
		t.Errorf("the internal cause leaked to the client: %s", r.text)
	}
}
