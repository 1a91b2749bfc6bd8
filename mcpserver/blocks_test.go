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

// toolCase is what TestMemoryToolsList checks of one tool's schemas.
type toolCase struct {
	name     string
	required []string // input
	props    []string // input
	output   []string // output properties
	enums    map[string][]any
}

func TestMemoryToolsList(t *testing.T) {
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
		blockOut := []string{"label", "content", "chars", "limit", "version", "is_shared", "owner_agent_id", "updated_at"}
		for _, tc := range []toolCase{
			{name: "core_memory_read", props: []string{"label"}, output: []string{"success", "count", "blocks"}},
			{name: "update_memory", required: []string{"label", "mode", "content"},
				props:  []string{"label", "mode", "content", "expected_version"},
				output: append([]string{"success", "action"}, blockOut...),
				enums:  map[string][]any{"mode": {"append", "replace"}}},
			{name: "store_memory", required: []string{"content"}, props: []string{"content", "tags"},
				output: []string{"success", "id", "tags", "created_at"}},
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
				for p, want := range tc.enums {
					if got := in.Properties[p].Enum; !slices.Equal(got, want) {
						t.Errorf("input %q enum = %v, want %v", p, got, want)
					}
				}
				if in.AdditionalProperties == nil {
					t.Errorf("input schema allows unknown arguments")
				}
				for p, prop := range in.Properties {
					if _, one := prop.Type.(string); !one {
						t.Errorf("input property %q has type %v, want one type (omitted when absent, never null)", p, prop.Type)
					}
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
						t.Errorf("output property %q has type %v, want one type", p, prop.Type)
					}
				}
			})
		}
	})
}

// blocksOf returns the blocks of a core_memory_read result by label.
func blocksOf(t *testing.T, r result) map[string]map[string]any {
	t.Helper()
	if r.isError {
		t.Fatalf("tool error: %s", r.text)
	}
	out := map[string]map[string]any{}
	list, _ := r.out["blocks"].([]any)
	for _, b := range list {
		b := b.(map[string]any)
		out[b["label"].(string)] = b
	}
	if r.out["count"] != float64(len(list)) {
		t.Errorf("count = %v, want %d", r.out["count"], len(list))
	}
	return out
}

func TestCoreMemoryRead(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		t.Run("OKAgentNotYetEmpty", func(t *testing.T) {
			r := MustCall(t, cs, "core_memory_read", nil)
			if r.isError || r.out["success"] != true || r.out["count"] != float64(0) {
				t.Fatalf("got %s, want success and count 0", r.text)
			}
			if b, ok := r.out["blocks"].([]any); !ok || len(b) != 0 {
				t.Errorf("blocks = %v, want []", r.out["blocks"])
			}
			if _, err := svc.GetAgent(ctx, "michael"); loci.ErrorCode(err) != loci.ENOTFOUND {
				t.Errorf("reading created the agent: %v", err)
			}
		})
		t.Run("ErrAgentNotYetLabel", func(t *testing.T) {
			r := MustCall(t, cs, "core_memory_read", map[string]any{"label": "personality"})
			wantError(t, r, loci.ENOTFOUND, `block "personality" not found`)
		})

		if _, _, err := svc.CreateAgent(ctx, loci.AgentCreate{ID: "michael"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.SetBlock(ctx, "michael", "personality", loci.BlockWrite{Content: "World's best boss. Ünïcode"}); err != nil {
			t.Fatal(err)
		}
		shared, err := svc.CreateBlock(ctx, "dwight", loci.BlockSpec{Label: "office_news", Content: "Party on Friday"}, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.AttachBlock(ctx, shared.ID, "michael"); err != nil {
			t.Fatal(err)
		}

		t.Run("OKAll", func(t *testing.T) {
			r := MustCall(t, cs, "core_memory_read", map[string]any{})
			var labels []string
			for _, b := range r.out["blocks"].([]any) {
				labels = append(labels, b.(map[string]any)["label"].(string))
			}
			if want := []string{"current_state", "personality", "relationships", "office_news"}; !slices.Equal(labels, want) {
				t.Errorf("labels = %v, want %v (own by label, then shared)", labels, want)
			}
			blocks := blocksOf(t, r)
			p := blocks["personality"]
			for k, want := range map[string]any{
				"content": "World's best boss. Ünïcode", "chars": float64(26), "limit": float64(loci.DefaultBlockLimit),
				"version": float64(2), "is_shared": false,
			} {
				if p[k] != want {
					t.Errorf("personality %s = %v, want %v", k, p[k], want)
				}
			}
			if _, ok := p["owner_agent_id"]; ok {
				t.Errorf("an own block shows owner_agent_id: %v", p)
			}
			if _, err := time.Parse(time.RFC3339, p["updated_at"].(string)); err != nil {
				t.Errorf("updated_at: %v", err)
			}
			if n := blocks["office_news"]; n["is_shared"] != true || n["owner_agent_id"] != "dwight" || n["content"] != "Party on Friday" {
				t.Errorf("shared block = %v, want is_shared, owner dwight", n)
			}
		})
		t.Run("OKOne", func(t *testing.T) {
			blocks := blocksOf(t, MustCall(t, cs, "core_memory_read", map[string]any{"label": "personality"}))
			if len(blocks) != 1 || blocks["personality"]["content"] != "World's best boss. Ünïcode" {
				t.Errorf("blocks = %v, want personality only", blocks)
			}
		})
		t.Run("OKOneShared", func(t *testing.T) {
			blocks := blocksOf(t, MustCall(t, cs, "core_memory_read", map[string]any{"label": "office_news"}))
			if len(blocks) != 1 || blocks["office_news"]["owner_agent_id"] != "dwight" {
				t.Errorf("blocks = %v, want office_news only", blocks)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "core_memory_read", map[string]any{"label": "nope"}), loci.ENOTFOUND, `block "nope" not found`)
		})
		t.Run("ErrBlankLabel", func(t *testing.T) {
			wantError(t, MustCall(t, cs, "core_memory_read", map[string]any{"label": " "}), loci.EINVALID, "label must not be empty")
		})
		t.Run("ErrAgentArgument", func(t *testing.T) {
			if r := MustCall(t, cs, "core_memory_read", map[string]any{"agent_id": "dwight"}); !r.isError {
				t.Errorf("isError = false, want a tool error; got %s", r.text)
			}
		})
	})
}

// content returns a block's content straight from the service.
func content(t *testing.T, svc loci.Service, agent, label string) (string, int) {
	t.Helper()
	b, err := svc.GetBlock(context.Background(), agent, label)
	if err != nil {
		t.Fatalf("GetBlock %s/%s: %v", agent, label, err)
	}
	return b.Content, b.Version
}

func TestUpdateMemory(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		update := func(args map[string]any) result { return MustCall(t, cs, "update_memory", args) }
		wantBlock := func(t *testing.T, r result, action, text string, version int) {
			t.Helper()
			if r.isError {
				t.Fatalf("tool error: %s", r.text)
			}
			if r.out["success"] != true || r.out["action"] != action || r.out["content"] != text || r.out["version"] != float64(version) {
				t.Errorf("got %s, want action %s, content %q, version %d", r.text, action, text, version)
			}
			if got, _ := content(t, svc, "michael", r.out["label"].(string)); got != text {
				t.Errorf("stored content = %q, want %q", got, text)
			}
		}

		t.Run("OKAppendCreatesAgent", func(t *testing.T) {
			r := update(map[string]any{"label": "personality", "mode": "append", "content": "Loves improv"})
			wantBlock(t, r, "created", "Loves improv", 1)
			blocks, err := svc.ListBlocks(ctx, "michael")
			if err != nil || len(blocks) != 3 {
				t.Errorf("blocks = %d (%v), want the 3 standard blocks", len(blocks), err)
			}
		})
		t.Run("OKAppend", func(t *testing.T) {
			r := update(map[string]any{"label": "personality", "mode": "append", "content": "Hates Toby"})
			wantBlock(t, r, "updated", "Loves improv\nHates Toby", 2)
			if r.out["chars"] != float64(len("Loves improv\nHates Toby")) || r.out["limit"] != float64(loci.DefaultBlockLimit) {
				t.Errorf("chars/limit = %v/%v", r.out["chars"], r.out["limit"])
			}
		})
		t.Run("OKAppendToEmptyBlock", func(t *testing.T) {
			r := update(map[string]any{"label": "current_state", "mode": "append", "content": "Planning a party"})
			wantBlock(t, r, "updated", "Planning a party", 2)
		})
		t.Run("OKAppendExpectedVersion", func(t *testing.T) {
			r := update(map[string]any{"label": "current_state", "mode": "append", "content": "Jan is upset", "expected_version": 2})
			wantBlock(t, r, "updated", "Planning a party\nJan is upset", 3)
		})
		t.Run("OKReplace", func(t *testing.T) {
			r := update(map[string]any{"label": "personality", "mode": "replace", "content": "World's best boss"})
			wantBlock(t, r, "updated", "World's best boss", 3)
		})
		t.Run("OKReplaceExpectedVersion", func(t *testing.T) {
			r := update(map[string]any{"label": "personality", "mode": "replace", "content": "Improv fan", "expected_version": 3})
			wantBlock(t, r, "updated", "Improv fan", 4)
		})
		t.Run("OKReplaceEmptyClears", func(t *testing.T) {
			r := update(map[string]any{"label": "relationships", "mode": "replace", "content": "Jan: manager"})
			wantBlock(t, r, "updated", "Jan: manager", 2)
			r = update(map[string]any{"label": "relationships", "mode": "replace", "content": ""})
			wantBlock(t, r, "updated", "", 3)
		})
		t.Run("OKReplaceSameIsNoop", func(t *testing.T) {
			// The same content again writes no new version (docs/rules.md).
			r := update(map[string]any{"label": "relationships", "mode": "replace", "content": ""})
			wantBlock(t, r, "updated", "", 3)
		})
		t.Run("OKNewLabelExpectedZero", func(t *testing.T) {
			r := update(map[string]any{"label": "goals", "mode": "replace", "content": "Sell paper", "expected_version": 0})
			wantBlock(t, r, "created", "Sell paper", 1)
		})

		// Refused writes change nothing.
		if _, _, err := svc.SetBlock(ctx, "michael", "motto", loci.BlockWrite{Content: "12345", Limit: 10}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			args  map[string]any
			code  string
			msg   string // "" when the SDK's schema validation answers
			label string // the block that must be unchanged
		}{
			{"ErrReplaceStale", map[string]any{"label": "personality", "mode": "replace", "content": "x", "expected_version": 1},
				loci.ECONFLICT, `version conflict: block "personality" is at version 4, expected 1`, "personality"},
			{"ErrAppendStale", map[string]any{"label": "personality", "mode": "append", "content": "x", "expected_version": 3},
				loci.ECONFLICT, `version conflict: block "personality" is at version 4, expected 3`, "personality"},
			{"ErrExpectedVersionOfMissing", map[string]any{"label": "plans", "mode": "append", "content": "x", "expected_version": 2},
				loci.ECONFLICT, `version conflict: block "plans" does not exist, expected version 2`, "plans"},
			{"ErrExpectedZeroExists", map[string]any{"label": "personality", "mode": "replace", "content": "x", "expected_version": 0},
				loci.ECONFLICT, `version conflict: block "personality" is at version 4, expected 0`, "personality"},
			{"ErrReplaceOverLimit", map[string]any{"label": "motto", "mode": "replace", "content": "abcdefghijk"},
				loci.ETOOLARGE, "content is 11 characters, over the block's limit of 10", "motto"},
			{"ErrAppendOverLimit", map[string]any{"label": "motto", "mode": "append", "content": "abcde"},
				loci.ETOOLARGE, "content is 11 characters, over the block's limit of 10", "motto"},
			{"ErrAppendEmpty", map[string]any{"label": "personality", "mode": "append", "content": " "},
				loci.EINVALID, "content must not be empty", "personality"},
			{"ErrBlankLabel", map[string]any{"label": " ", "mode": "replace", "content": "x"},
				loci.EINVALID, "label must not be empty", ""},
			{"ErrBadMode", map[string]any{"label": "personality", "mode": "prepend", "content": "x"}, "", "", "personality"},
			{"ErrMissingMode", map[string]any{"label": "personality", "content": "x"}, "", "", "personality"},
			{"ErrMissingContent", map[string]any{"label": "personality", "mode": "replace"}, "", "", "personality"},
			{"ErrNegativeVersion", map[string]any{"label": "personality", "mode": "replace", "content": "x", "expected_version": -1}, "", "", "personality"},
			{"ErrAgentArgument", map[string]any{"label": "personality", "mode": "replace", "content": "x", "agent_id": "dwight"}, "", "", "personality"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var before string
				var version int
				if tc.label != "" && tc.label != "plans" {
					before, version = content(t, svc, "michael", tc.label)
				}
				r := update(tc.args)
				if tc.code == "" {
					if !r.isError {
						t.Fatalf("isError = false, want a tool error; got %s", r.text)
					}
				} else {
					wantError(t, r, tc.code, tc.msg)
				}
				switch tc.label {
				case "":
				case "plans":
					if _, err := svc.GetBlock(ctx, "michael", "plans"); loci.ErrorCode(err) != loci.ENOTFOUND {
						t.Errorf("a refused write created the block: %v", err)
					}
				default:
					if after, v := content(t, svc, "michael", tc.label); after != before || v != version {
						t.Errorf("block %s = %q v%d after a refused write, want %q v%d", tc.label, after, v, before, version)
					}
				}
				if _, err := svc.GetAgent(ctx, "dwight"); loci.ErrorCode(err) != loci.ENOTFOUND {
					t.Errorf("an agent_id argument reached another agent: %v", err)
				}
			})
		}
		t.Run("AppendAtLimitOK", func(t *testing.T) {
			r := update(map[string]any{"label": "motto", "mode": "append", "content": "abcd"})
			if r.isError || r.out["content"] != "12345\nabcd" || r.out["chars"] != float64(10) {
				t.Errorf("got %s, want 12345\\nabcd (10 characters, the limit)", r.text)
			}
		})
	})
}

func TestUpdateMemorySharedBlock(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		shared, err := svc.CreateBlock(ctx, "dwight", loci.BlockSpec{Label: "office_news", Content: "Party on Friday"}, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.AttachBlock(ctx, shared.ID, "michael"); err != nil {
			t.Fatal(err)
		}
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		r := MustCall(t, cs, "update_memory", map[string]any{"label": "office_news", "mode": "append", "content": "Bring cake"})
		if r.isError || r.out["action"] != "updated" || r.out["is_shared"] != true || r.out["owner_agent_id"] != "dwight" {
			t.Fatalf("got %s, want the shared block updated in place", r.text)
		}
		if got, _ := content(t, svc, "dwight", "office_news"); got != "Party on Friday\nBring cake" {
			t.Errorf("owner's block = %q, want the consumer's append", got)
		}
	})
}

func TestCoreMemoryResource(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		cs := MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		read := func(t *testing.T) string {
			t.Helper()
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CoreMemoryURI})
			if err != nil {
				t.Fatalf("ReadResource: %v", err)
			}
			if len(res.Contents) != 1 {
				t.Fatalf("contents = %d, want 1", len(res.Contents))
			}
			c := res.Contents[0]
			if c.URI != mcpserver.CoreMemoryURI || c.MIMEType != "text/plain" {
				t.Errorf("uri, mimeType = %q, %q", c.URI, c.MIMEType)
			}
			return c.Text
		}
		t.Run("Listed", func(t *testing.T) {
			res, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Resources) != 1 {
				t.Fatalf("resources = %d, want 1", len(res.Resources))
			}
			r := res.Resources[0]
			if r.URI != mcpserver.CoreMemoryURI || r.MIMEType != "text/plain" || r.Name == "" || r.Description == "" {
				t.Errorf("resource = %+v", r)
			}
		})
		t.Run("OKAgentNotYetEmpty", func(t *testing.T) {
			if got := read(t); got != "" {
				t.Errorf("text = %q, want empty", got)
			}
		})
		MustCall(t, cs, "update_memory", map[string]any{"label": "personality", "mode": "replace", "content": "World's best boss"})
		shared, err := svc.CreateBlock(ctx, "dwight", loci.BlockSpec{Label: "office_news", Content: "Party on Friday"}, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.AttachBlock(ctx, shared.ID, "michael"); err != nil {
			t.Fatal(err)
		}
		t.Run("OKSameAsPrompt", func(t *testing.T) {
			want, err := svc.Prompt(ctx, "michael")
			if err != nil {
				t.Fatal(err)
			}
			got := read(t)
			if got != want {
				t.Errorf("text = %q, want the prompt %q", got, want)
			}
			if !strings.Contains(got, "### personality\nWorld's best boss") || !strings.Contains(got, "### office_news\nParty on Friday") {
				t.Errorf("text = %q lacks the blocks", got)
			}
		})
		t.Run("OKFollowsUpdates", func(t *testing.T) {
			MustCall(t, cs, "update_memory", map[string]any{"label": "current_state", "mode": "append", "content": "Hosting the party"})
			if got := read(t); !strings.Contains(got, "### current_state\nHosting the party") {
				t.Errorf("text = %q, want the new state", got)
			}
		})
		t.Run("ErrUnknownURI", func(t *testing.T) {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "loci://agent/dwight/core-memory"}); err == nil {
				t.Errorf("reading an unknown URI succeeded")
			}
		})
	})
}

// TestUpdateMemoryConcurrentAppends: appends racing on one block are
// compare-and-set writes: none is lost (a loser re-reads and retries, or
// at worst reports a conflict; it never overwrites a winner).
func TestUpdateMemoryConcurrentAppends(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		const n = 8
		conns := make([]*mcp.ClientSession, n)
		for i := range conns {
			conns[i] = MustConnect(t, svc, mcpserver.Identity{AgentID: "michael"})
		}
		MustCall(t, conns[0], "update_memory", map[string]any{"label": "log", "mode": "replace", "content": "start"})
		results := make(chan result, n)
		for i, cs := range conns {
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "update_memory",
					Arguments: map[string]any{"label": "log", "mode": "append", "content": "entry " + string(rune('a'+i))}})
				var r result
				if err != nil {
					r.isError, r.text = true, err.Error()
				} else {
					r.isError = res.IsError
					r.text = res.Content[0].(*mcp.TextContent).Text
				}
				results <- r
			}()
		}
		var ok int
		for range n {
			r := <-results
			if !r.isError {
				ok++
			} else if !strings.Contains(r.text, `"code":"conflict"`) {
				t.Errorf("append failed with %s, want success or a conflict", r.text)
			}
		}
		got, version := content(t, svc, "michael", "log")
		if lines := strings.Split(got, "\n"); len(lines) != ok+1 || version != ok+1 {
			t.Errorf("log = %q (version %d), want start and the %d successful appends", got, version, ok)
		}
		if ok == 0 {
			t.Errorf("no append succeeded")
		}
	})
}
