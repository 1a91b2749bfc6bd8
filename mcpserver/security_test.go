package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/mcpserver"
	"github.com/loci-memory/loci/rules"
)

// secret is a value the tests store; it must never reach the audit log.
const secret = "SECRET-CONTENT"

// toolArgs are valid arguments for every tool.
var toolArgs = map[string]map[string]any{
	"remember":              {"key": "k", "value": secret},
	"recall":                {},
	"forget":                {"key": "k"},
	"core_memory_read":      {},
	"update_memory":         {"label": "persona", "mode": "replace", "content": secret},
	"store_memory":          {"content": secret},
	"set_working":           {"task_id": "t1", "key": "plan", "value": secret},
	"get_working":           {"task_id": "t1"},
	"record_episode":        {"action_type": "analysis", "action_description": secret, "outcome": "success"},
	"find_similar_episodes": {"query": "analysis"},
	"store_fact":            {"category": loci.FactCategories[0], "fact": secret},
	"search_facts":          {"query": "content"},
	"list_review":           {},
	"observe_preference":    {"type": "tone", "value": secret, "source": "explicit"},
	"get_user_context":      {},
	"search_memory":         {"query": "content", "kinds": []any{"note", "passage"}},
}

// wantRole is the least role of each tool (the roles: viewer reads; creator
// also adds; editor also updates and deletes), written out here independently
// of the policy table it checks.
var wantRole = map[string]loci.Role{
	"recall": loci.RoleViewer, "core_memory_read": loci.RoleViewer, "get_working": loci.RoleViewer,
	"find_similar_episodes": loci.RoleViewer, "search_facts": loci.RoleViewer, "get_user_context": loci.RoleViewer,
	"remember": loci.RoleCreator, "update_memory": loci.RoleCreator, "store_memory": loci.RoleCreator,
	"set_working": loci.RoleCreator, "record_episode": loci.RoleCreator, "store_fact": loci.RoleCreator,
	"observe_preference": loci.RoleCreator, "search_memory": loci.RoleViewer, "list_review": loci.RoleViewer,
	"forget": loci.RoleEditor,
}

// compactToolArgs and compactWantRole are toolArgs and wantRole for the
// default set.
var (
	compactToolArgs = map[string]map[string]any{
		"remember":      {"key": "k", "value": secret},
		"recall":        {},
		"add_memory":    {"content": secret, "metadata": map[string]any{"source": "test"}},
		"search_memory": {"query": "content", "filters": map[string]any{"metadata.source": "test"}},
		"update_memory": {"id": "absent", "content": secret},
		"delete_memory": {"id": "absent"},
	}
	compactWantRole = map[string]loci.Role{
		"remember": loci.RoleCreator, "recall": loci.RoleViewer, "add_memory": loci.RoleCreator,
		"search_memory": loci.RoleViewer, "update_memory": loci.RoleEditor, "delete_memory": loci.RoleEditor,
	}
	setArgs  = map[mcpserver.ToolSet]map[string]map[string]any{mcpserver.ToolsAll: toolArgs, mcpserver.ToolsDefault: compactToolArgs}
	setRoles = map[mcpserver.ToolSet]map[string]loci.Role{mcpserver.ToolsAll: wantRole, mcpserver.ToolsDefault: compactWantRole}
	toolSets = []mcpserver.ToolSet{mcpserver.ToolsDefault, mcpserver.ToolsAll}
)

func listTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestToolPolicyCoversEveryTool(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	for _, set := range toolSets {
		t.Run(string(set), func(t *testing.T) {
			cs := MustConnectTools(t, svc, mcpserver.Identity{AgentID: "a", UserID: "u"}, set)
			names := listTools(t, cs)
			if set == mcpserver.ToolsDefault && len(names) > 6 {
				t.Errorf("the default set lists %d tools %v, want at most 6", len(names), names)
			}
			for _, name := range names {
				if _, ok := mcpserver.PolicyOfTool(set, name); !ok {
					t.Errorf("tool %s has no operation in the tool table (addTool names it)", name)
				}
				if _, ok := setArgs[set][name]; !ok {
					t.Errorf("tool %s has no sample arguments in toolArgs", name)
				}
				if _, ok := setRoles[set][name]; !ok {
					t.Errorf("tool %s has no expected role in wantRole", name)
				}
			}
		})
	}
}

// keyIdentity is an identity acting for a key of role.
func keyIdentity(t *testing.T, svc loci.Service, role loci.Role) mcpserver.Identity {
	t.Helper()
	k, _, err := svc.CreateKey(context.Background(), loci.KeySpec{Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return mcpserver.Identity{AgentID: "a1", UserID: "u1", Principal: &loci.Principal{KeyID: k.ID, Role: role, Workspace: loci.DefaultWorkspace}}
}

// TestToolRoleMatrix calls every tool with a key of every role: refused
// with code forbidden exactly when the tool's policy says the role may not
// call it.
func TestToolRoleMatrix(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		for _, set := range toolSets {
			t.Run(string(set), func(t *testing.T) {
				sessions := map[loci.Role]*mcp.ClientSession{}
				for _, role := range loci.Roles {
					sessions[role] = MustConnectTools(t, svc, keyIdentity(t, svc, role), set)
				}
				for _, name := range listTools(t, sessions[loci.RoleAdmin]) {
					t.Run(name, func(t *testing.T) {
						want := setRoles[set][name]
						if pol, _ := mcpserver.PolicyOfTool(set, name); pol.Role != want {
							t.Errorf("policy role %q, want %q", pol.Role, want)
						}
						for _, role := range loci.Roles {
							r := MustCall(t, sessions[role], name, setArgs[set][name])
							forbidden := r.isError && r.out["code"] == loci.EFORBIDDEN
							if allowed := role.Allows(want); allowed && forbidden {
								t.Errorf("%s: forbidden (%s), want allowed", role, r.text)
							} else if !allowed && !forbidden {
								t.Errorf("%s: %s, want a forbidden tool error", role, r.text)
							}
						}
					})
				}
				if set != mcpserver.ToolsAll {
					return
				}
				// The resource needs viewer: every role reads it.
				for _, role := range loci.Roles {
					if _, err := sessions[role].ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.CoreMemoryURI}); err != nil {
						t.Errorf("%s: read resource: %v", role, err)
					}
				}
			})
		}
	})
}

// TestToolOverwriteNeedsEditor: a creator key adds through the
// create-or-update tools but cannot change what exists; an editor can.
func TestToolOverwriteNeedsEditor(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		creator := MustConnect(t, svc, keyIdentity(t, svc, loci.RoleCreator))
		editor := MustConnect(t, svc, keyIdentity(t, svc, loci.RoleEditor))
		tests := []struct {
			tool string
			args func(v string) map[string]any
		}{
			{"remember", func(v string) map[string]any { return map[string]any{"key": "k", "value": v} }},
			{"update_memory", func(v string) map[string]any {
				return map[string]any{"label": "persona", "mode": "replace", "content": v}
			}},
			{"set_working", func(v string) map[string]any { return map[string]any{"task_id": "t1", "key": "plan", "value": v} }},
			{"observe_preference", func(v string) map[string]any {
				return map[string]any{"type": "tone", "value": v, "source": "explicit"}
			}},
		}
		for _, tt := range tests {
			t.Run(tt.tool, func(t *testing.T) {
				if r := MustCall(t, creator, tt.tool, tt.args("first")); r.isError {
					t.Fatalf("creator creates: %s", r.text)
				}
				wantError(t, MustCall(t, creator, tt.tool, tt.args("second")), loci.EFORBIDDEN, "")
				if r := MustCall(t, editor, tt.tool, tt.args("third")); r.isError {
					t.Errorf("editor updates: %s", r.text)
				}
			})
		}
		// update_memory's append mode changes the block too.
		wantError(t, MustCall(t, creator, "update_memory", map[string]any{"label": "persona", "mode": "append", "content": "more"}), loci.EFORBIDDEN, "")
		b, err := svc.GetBlock(context.Background(), "a1", "persona")
		if err != nil || b.Content != "third" {
			t.Errorf("block = %v, %v; want the editor's content only", b, err)
		}
	})
}

// TestToolAudit: the operations a tool call runs audit themselves, as
// coming through MCP, with the connection's key, agent and user, the kind
// and the ids, never content; failed calls too; a call the role forbids is
// logged by the server, under the tool's name.
func TestToolAudit(t *testing.T) {
	eachService(t, func(t *testing.T, svc loci.Service) {
		ctx := context.Background()
		id := keyIdentity(t, svc, loci.RoleEditor)
		cs := MustConnect(t, svc, id)
		viewerID := keyIdentity(t, svc, loci.RoleViewer)
		viewer := MustConnect(t, svc, viewerID)
		// written returns the entries written through MCP since the last
		// call, oldest first.
		seen := 0
		written := func(t *testing.T) []*loci.AuditEntry {
			t.Helper()
			entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var mcpEntries []*loci.AuditEntry
			for i := len(entries) - 1; i >= 0; i-- {
				if entries[i].Via == loci.ViaMCP {
					mcpEntries = append(mcpEntries, entries[i])
				}
			}
			out := mcpEntries[seen:]
			seen = len(mcpEntries)
			for _, e := range out {
				b, _ := json.Marshal(e)
				if strings.Contains(string(b), secret) {
					t.Errorf("audit entry holds content: %s", b)
				}
			}
			return out
		}
		one := func(t *testing.T) *loci.AuditEntry {
			t.Helper()
			es := written(t)
			if len(es) != 1 {
				t.Fatalf("%d entries written, want exactly 1: %+v", len(es), es)
			}
			return es[0]
		}
		ops := map[string]string{
			"remember": "note.remember", "recall": "note.recall_all", "forget": "note.forget", "core_memory_read": "block.list",
			"update_memory": "block.put", "store_memory": "passage.add", "set_working": "working.set", "get_working": "working.get_all",
			"record_episode": "episode.record", "find_similar_episodes": "episode.search", "store_fact": "fact.add",
			"search_facts": "fact.search", "observe_preference": "preference.observe", "get_user_context": "user.context",
			"search_memory": "memory.search",
		}
		order := []string{"remember", "recall", "update_memory", "core_memory_read", "store_memory", "set_working", "get_working",
			"record_episode", "find_similar_episodes", "store_fact", "search_facts", "observe_preference", "get_user_context", "search_memory", "forget"}
		for _, name := range order {
			t.Run(name, func(t *testing.T) {
				r := MustCall(t, cs, name, toolArgs[name])
				if r.isError {
					t.Fatalf("call: %s", r.text)
				}
				es := written(t)
				var e *loci.AuditEntry
				for _, x := range es {
					if x.Operation == ops[name] {
						e = x
					}
				}
				if e == nil {
					t.Fatalf("no %s entry among %+v", ops[name], es)
				}
				for _, x := range es {
					if x.KeyID != id.Principal.KeyID || x.Role != loci.RoleEditor || x.Status/100 != 2 {
						t.Errorf("entry = %+v", x)
					}
				}
				if (e.AgentID != "a1" && e.AgentID != "") || (e.UserID != "u1" && e.UserID != "") {
					t.Errorf("scope = %+v", e.Scope)
				}
				if name == "set_working" || name == "get_working" {
					if e.TaskID != "t1" {
						t.Errorf("task = %q, want t1", e.TaskID)
					}
				}
				if e.Count < len(e.RecordIDs) || (len(e.RecordIDs) == 0 && name != "find_similar_episodes" && name != "search_facts" && name != "search_memory") {
					t.Errorf("ids %v, count %d", e.RecordIDs, e.Count)
				}
			})
		}
		t.Run("StoreMemoryID", func(t *testing.T) {
			r := MustCall(t, cs, "store_memory", toolArgs["store_memory"])
			if e := one(t); len(e.RecordIDs) != 1 || e.RecordIDs[0] != r.out["id"] || e.Count != 1 || e.Operation != "passage.add" {
				t.Errorf("entry %+v, want the passage id %v", e, r.out["id"])
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			MustCall(t, cs, "recall", map[string]any{"key": "missing"})
			if e := one(t); e.Operation != "note.recall" || e.Status != http.StatusNotFound || len(e.RecordIDs) != 0 {
				t.Errorf("entry = %+v", e)
			}
		})
		t.Run("ErrForbidden", func(t *testing.T) {
			MustCall(t, viewer, "remember", toolArgs["remember"])
			if e := one(t); e.Operation != "mcp.remember" || e.Status != http.StatusForbidden || e.KeyID != viewerID.Principal.KeyID || e.Role != loci.RoleViewer {
				t.Errorf("entry = %+v", e)
			}
		})
		t.Run("Resource", func(t *testing.T) {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CoreMemoryURI}); err != nil {
				t.Fatal(err)
			}
			if e := one(t); e.Operation != "agent.prompt" || e.Kind != loci.KindBlock || e.KeyID != id.Principal.KeyID {
				t.Errorf("entry = %+v", e)
			}
		})
		t.Run("ListingNotAudited", func(t *testing.T) {
			listTools(t, cs)
			if es := written(t); len(es) != 0 {
				t.Errorf("tools/list wrote %d audit entries, want 0", len(es))
			}
		})
	})
}

func TestKeyIdentity(t *testing.T) {
	bound := &loci.Principal{KeyID: "k1", Role: loci.RoleEditor, AgentID: "a1", Workspace: "w"}
	free := &loci.Principal{KeyID: "k2", Role: loci.RoleViewer, Workspace: "w"}
	tests := []struct {
		name      string
		principal *loci.Principal
		url       string
		header    http.Header
		wantAgent string
		wantUser  string
		code      string
	}{
		{"BoundNoHeader", bound, "/mcp", nil, "a1", "", ""},
		{"BoundSameHeader", bound, "/mcp", agentHeader("a1"), "a1", "", ""},
		{"BoundUser", bound, "/mcp?user=u1", nil, "a1", "u1", ""},
		{"ErrBoundOtherHeader", bound, "/mcp", agentHeader("a2"), "", "", loci.EFORBIDDEN},
		{"ErrBoundOtherParam", bound, "/mcp?agent=a2", nil, "", "", loci.EFORBIDDEN},
		{"FreeHeader", free, "/mcp", agentHeader("b"), "b", "", ""},
		{"ErrFreeNoAgent", free, "/mcp", nil, "", "", loci.EINVALID},
		{"NoPrincipalHeader", nil, "/mcp", agentHeader("c"), "c", "", ""},
		{"ErrNoPrincipalNoAgent", nil, "/mcp", nil, "", "", loci.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest("POST", "http://x"+tt.url, nil)
			for k, v := range tt.header {
				r.Header[k] = v
			}
			if tt.principal != nil {
				r = r.WithContext(loci.WithPrincipal(r.Context(), tt.principal))
			}
			id, err := mcpserver.KeyIdentity(r)
			if got := loci.ErrorCode(err); got != tt.code {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.code)
			}
			if err != nil {
				return
			}
			if id.AgentID != tt.wantAgent || id.UserID != tt.wantUser || id.Principal != tt.principal {
				t.Errorf("identity = %+v", id)
			}
			if tt.principal != nil && id.Workspace != tt.principal.Workspace {
				t.Errorf("workspace = %q, want the key's", id.Workspace)
			}
		})
	}
}

func TestNewBoundPrincipal(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	_, err := mcpserver.New(svc, mcpserver.Identity{AgentID: "a2", Principal: &loci.Principal{KeyID: "k", Role: loci.RoleAdmin, AgentID: "a1"}})
	if loci.ErrorCode(err) != loci.EFORBIDDEN {
		t.Errorf("err = %v, want forbidden", err)
	}
}
