package mcpserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/mcpserver"
)

// passages returns an agent's passages straight from the service.
func passages(t *testing.T, svc loci.Service, agent string) []*loci.Passage {
	t.Helper()
	ps, _, err := svc.ListPassages(context.Background(), agent, loci.PassageFilter{Limit: 100})
	if err != nil {
		t.Fatalf("ListPassages %s: %v", agent, err)
	}
	return ps
}

func TestStoreMemory(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		t.Run("OK", func(t *testing.T) {
			r := MustCall(t, cs, "store_memory", map[string]any{"content": "That time I grilled my foot", "tags": []any{" episode ", "episode", "kitchen"}})
			if r.isError || r.out["success"] != true {
				t.Fatalf("got %s, want success", r.text)
			}
			if tags, _ := r.out["tags"].([]any); !slices.Equal(tags, []any{"episode", "kitchen"}) {
				t.Errorf("tags = %v, want [episode kitchen]", r.out["tags"])
			}
			at, err := time.Parse(time.RFC3339, r.out["created_at"].(string))
			if err != nil {
				t.Errorf("created_at: %v", err)
			}
			ps := passages(t, svc, "michael")
			if len(ps) != 1 || ps[0].ID != r.out["id"] || ps[0].Content != "That time I grilled my foot" || !ps[0].CreatedAt.Equal(at) {
				t.Errorf("stored = %+v, want the passage with id %v", ps, r.out["id"])
			}
			if _, err := svc.GetAgent(context.Background(), "michael"); err != nil {
				t.Errorf("the first store did not create the agent: %v", err)
			}
		})
		t.Run("OKNoTags", func(t *testing.T) {
			r := MustCall(t, cs, "store_memory", map[string]any{"content": "Dundies at Chili's"})
			if r.isError {
				t.Fatalf("tool error: %s", r.text)
			}
			if tags, ok := r.out["tags"].([]any); !ok || len(tags) != 0 {
				t.Errorf("tags = %v, want []", r.out["tags"])
			}
			if ps := passages(t, svc, "michael"); len(ps) != 2 || ps[0].ID == ps[1].ID {
				t.Errorf("passages = %d, want 2 distinct", len(ps))
			}
		})
		tooMany := make([]any, loci.MaxPassageTags+1)
		for i := range tooMany {
			tooMany[i] = "t" + strings.Repeat("x", i)
		}
		for _, tc := range []struct {
			name string
			args map[string]any
			code string
			msg  string // "" when the SDK's schema validation answers
		}{
			{"ErrEmptyContent", map[string]any{"content": ""}, loci.EINVALID, "content must not be empty"},
			{"ErrBlankContent", map[string]any{"content": " \n"}, loci.EINVALID, "content must not be empty"},
			{"ErrTooLarge", map[string]any{"content": strings.Repeat("x", loci.MaxPassageBytes+1)}, loci.ETOOLARGE, "content must be at most 65536 bytes"},
			{"ErrBlankTag", map[string]any{"content": "x", "tags": []any{" "}}, loci.EINVALID, "tag must not be empty"},
			{"ErrTooManyTags", map[string]any{"content": "x", "tags": tooMany}, loci.EINVALID, "at most 32 tags"},
			{"ErrMissingContent", map[string]any{"tags": []any{"a"}}, "", ""},
			{"ErrTagNotString", map[string]any{"content": "x", "tags": []any{1}}, "", ""},
			{"ErrAgentArgument", map[string]any{"content": "x", "agent_id": "dwight"}, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := MustCall(t, cs, "store_memory", tc.args)
				if tc.code == "" {
					if !r.isError {
						t.Fatalf("isError = false, want a tool error; got %s", r.text)
					}
				} else {
					wantError(t, r, tc.code, tc.msg)
				}
				if n := len(passages(t, svc, "michael")); n != 2 {
					t.Errorf("passages = %d after a refused store, want 2", n)
				}
				if n := len(passages(t, svc, "dwight")); n != 0 {
					t.Errorf("an agent_id argument reached another agent: %d passages", n)
				}
			})
		}
	})
}

// TestMemoryIsolation: two connections bound to different agents cannot
// read or write each other's blocks or passages.
func TestMemoryIsolation(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		a := MustConnect(t, svc, mcpserver.Identity{AgentID: "a"})
		b := MustConnect(t, svc, mcpserver.Identity{AgentID: "b"})
		MustCall(t, a, "update_memory", map[string]any{"label": "personality", "mode": "replace", "content": "a's secret self"})
		MustCall(t, a, "update_memory", map[string]any{"label": "diary", "mode": "append", "content": "a's diary"})
		MustCall(t, a, "store_memory", map[string]any{"content": "a's passage", "tags": []any{"private"}})

		t.Run("ReadNothingOfA", func(t *testing.T) {
			r := MustCall(t, b, "core_memory_read", nil)
			if r.out["count"] != float64(0) || strings.Contains(r.text, "a's") {
				t.Errorf("b's core memory = %s, want empty", r.text)
			}
			wantError(t, MustCall(t, b, "core_memory_read", map[string]any{"label": "diary"}), loci.ENOTFOUND, `block "diary" not found`)
			res, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CoreMemoryURI})
			if err != nil {
				t.Fatal(err)
			}
			if txt := res.Contents[0].Text; strings.Contains(txt, "a's") {
				t.Errorf("b's resource = %q shows a's memory", txt)
			}
		})
		t.Run("StaleAgainstAsVersion", func(t *testing.T) {
			r := MustCall(t, b, "update_memory", map[string]any{"label": "diary", "mode": "replace", "content": "b was here", "expected_version": 1})
			wantError(t, r, loci.ECONFLICT, `version conflict: block "diary" does not exist, expected version 1`)
		})
		t.Run("WritesGoToB", func(t *testing.T) {
			for _, label := range []string{"personality", "diary"} {
				r := MustCall(t, b, "update_memory", map[string]any{"label": label, "mode": "append", "content": "b was here"})
				if r.isError || r.out["content"] != "b was here" {
					t.Errorf("b's append to %s = %s, want b's own block with only b's text", label, r.text)
				}
			}
			MustCall(t, b, "store_memory", map[string]any{"content": "b's passage"})
			if got, v := content(t, svc, "a", "personality"); got != "a's secret self" || v != 1 {
				t.Errorf("a's personality = %q v%d, want untouched", got, v)
			}
			if got, _ := content(t, svc, "a", "diary"); got != "a's diary" {
				t.Errorf("a's diary = %q, want untouched", got)
			}
			if ps := passages(t, svc, "a"); len(ps) != 1 || ps[0].Content != "a's passage" {
				t.Errorf("a's passages = %v, want only a's", ps)
			}
			if ps := passages(t, svc, "b"); len(ps) != 1 || ps[0].Content != "b's passage" {
				t.Errorf("b's passages = %v, want only b's", ps)
			}
		})
		t.Run("AStillSeesOnlyA", func(t *testing.T) {
			r := MustCall(t, a, "core_memory_read", nil)
			if strings.Contains(r.text, "b was here") {
				t.Errorf("a's core memory = %s shows b's writes", r.text)
			}
		})
	})
}
