package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// secEnv is a server on a fresh store, with the service behind it.
type secEnv struct {
	srv   *Server
	svc   *rules.Service
	store loci.Store
}

func newSecEnv(t testing.TB, open func(testing.TB) loci.Store, opts ...Option) *secEnv {
	t.Helper()
	store := open(t)
	svc := rules.New(store, rules.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return &secEnv{srv: NewServer(svc, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...), svc: svc, store: store}
}

// key creates a key and returns its secret and id.
func (e *secEnv) key(t testing.TB, role loci.Role, agent string) (string, string) {
	t.Helper()
	k, secret, err := e.svc.CreateKey(context.Background(), loci.KeySpec{Role: role, AgentID: agent})
	if err != nil {
		t.Fatalf("create key: %v", err)
	}
	return secret, k.ID
}

// call sends one request and returns its status and decoded JSON body.
func (e *secEnv) call(t testing.TB, method, path, key string, body []byte) (int, map[string]any, *httptest.ResponseRecorder) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	var out map[string]any
	json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out, rec
}

// concrete fills a route's wildcards with sample values.
func concrete(rt Route) string {
	p := rt.Pattern
	for _, name := range patternWildcards(p) {
		v := "x-" + name
		if name == "agent_id" {
			v = "a1"
		}
		p = strings.Replace(p, "{"+name+"...}", v, 1)
		p = strings.Replace(p, "{"+name+"}", v, 1)
	}
	return strings.Replace(p, "{$}", "", 1)
}

func sampleBody(rt Route) []byte {
	if rt.Method == http.MethodPost || rt.Method == http.MethodPut || rt.Method == http.MethodPatch {
		return []byte(`{}`)
	}
	return nil
}

// TestRouteTable checks the route table against the server and the
// OpenAPI document: every entry has a policy (a forgotten one would fall
// back to admin only), public routes are free to bound keys, an entry is
// either documented or says why not, a server given every option
// registers exactly the table's routes with their policies, and the
// embedded document describes exactly the documented entries.
func TestRouteTable(t *testing.T) {
	table := routeTable()
	seen := map[string]bool{}
	documented := map[string]bool{}
	for _, ep := range table {
		if seen[ep.pattern] {
			t.Errorf("%s: declared twice", ep.pattern)
		}
		seen[ep.pattern] = true
		if ep.op == nil {
			t.Errorf("%s: no policy", ep.pattern)
		}
		if ep.policy().Role == public && ep.policy().Agent != loci.AgentFree {
			t.Errorf("%s: a public route must be free to bound keys (loci.AgentFree)", ep.pattern)
		}
		if (ep.doc == nil) == (ep.undocumented == "") {
			t.Errorf("%s: give exactly one of doc and undocumented (the reason it is left out)", ep.pattern)
		}
		if ep.doc != nil {
			documented[strings.ReplaceAll(ep.pattern, "...}", "}")] = true
		}
	}

	srv := NewServer(rules.New(testdb.OpenSQLite(t)), nil, WithInspector(http.NotFoundHandler()), WithMCP(http.NotFoundHandler()))
	routes := srv.Routes()
	if len(routes) != len(table) {
		t.Errorf("the server registers %d routes, the table has %d", len(routes), len(table))
	}
	for i, rt := range routes {
		if i < len(table) && (rt.String() != table[i].pattern || rt.Policy != table[i].policy()) {
			t.Errorf("route %d: registered %s %+v, the table says %s %+v", i, rt, rt.Policy, table[i].pattern, table[i].policy())
		}
	}

	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	inDoc := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			key := strings.ToUpper(method) + " " + path
			inDoc[key] = true
			if !documented[key] {
				t.Errorf("%s is in openapi.json but no documented entry of the route table (go generate ./httpapi)", key)
			}
		}
	}
	for key := range documented {
		if !inDoc[key] {
			t.Errorf("%s is documented in the route table but not in openapi.json (go generate ./httpapi)", key)
		}
	}
}

// TestZeroPolicyFailsClosed: an entry without a policy is registered as
// admin only, denied to bound keys, whatever its method.
func TestZeroPolicyFailsClosed(t *testing.T) {
	s := &Server{mux: http.NewServeMux()}
	s.handle(endpoint{pattern: "GET /forgotten", handler: (*Server).handleHealth})
	if got := s.Routes()[0].Policy; got != fallbackPolicy || got.Role != admin || got.Agent != loci.AgentDeny {
		t.Errorf("policy = %+v, want the fallback (admin, deny)", got)
	}
	if pol, ok := PolicyOf("GET /forgotten"); ok || pol != fallbackPolicy {
		t.Errorf("PolicyOf of a pattern the table lacks = %+v, %v; want the fallback, false", pol, ok)
	}
}

// TestRoleMatrix calls every route with a key of every role and checks
// the answer is 403 exactly when the route table says the role may not
// call it, and 401 without a key.
func TestRoleMatrix(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open, WithInspector(http.NotFoundHandler()))
		keys := map[loci.Role]string{}
		for _, role := range loci.Roles {
			keys[role], _ = e.key(t, role, "")
		}
		for _, rt := range e.srv.Routes() {
			pol := rt.Policy
			t.Run(rt.String(), func(t *testing.T) {
				status, _, _ := e.call(t, rt.Method, concrete(rt), "", sampleBody(rt))
				if pol.Role == public {
					if status == http.StatusUnauthorized || status == http.StatusForbidden {
						t.Errorf("public route without a key: status %d", status)
					}
					return
				}
				if status != http.StatusUnauthorized {
					t.Errorf("no key: status %d, want 401", status)
				}
				for _, role := range loci.Roles {
					status, body, _ := e.call(t, rt.Method, concrete(rt), keys[role], sampleBody(rt))
					allowed := role.Allows(pol.Role)
					if allowed && (status == http.StatusForbidden || status == http.StatusUnauthorized) {
						t.Errorf("%s: status %d (%v), want allowed", role, status, body["error"])
					} else if !allowed && status != http.StatusForbidden {
						t.Errorf("%s: status %d, want 403", role, status)
					}
					if !allowed && body["code"] != loci.EFORBIDDEN {
						t.Errorf("%s: code %v, want forbidden", role, body["code"])
					}
				}
			})
		}
	})
}

// TestNoteUpdateNeedsEditor: a creator may remember a new note but not
// overwrite one.
func TestNoteUpdateNeedsEditor(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		creator, _ := e.key(t, loci.RoleCreator, "")
		editor, _ := e.key(t, loci.RoleEditor, "")
		tests := []struct {
			name, key string
			want      int
		}{
			{"CreatorCreates", creator, http.StatusCreated},
			{"ErrCreatorUpdates", creator, http.StatusForbidden},
			{"EditorUpdates", editor, http.StatusOK},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, body, _ := e.call(t, "PUT", "/v1/agents/a1/notes/k", tt.key, []byte(`{"value":"v-`+tt.name+`"}`))
				if status != tt.want {
					t.Errorf("status %d (%v), want %d", status, body, tt.want)
				}
			})
		}
	})
}

func TestAgentBoundKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		bound, _ := e.key(t, loci.RoleEditor, "a1")
		boundAdmin, _ := e.key(t, loci.RoleAdmin, "a1")
		free, _ := e.key(t, loci.RoleEditor, "")
		if s, _, _ := e.call(t, "PUT", "/v1/agents/a2/notes/secret", free, []byte(`{"value":"a2 only"}`)); s != http.StatusCreated {
			t.Fatalf("seed a2: %d", s)
		}
		tests := []struct {
			name, method, path, key, body string
			want                          int
		}{
			{"OwnWrite", "PUT", "/v1/agents/a1/notes/k", bound, `{"value":"mine"}`, http.StatusCreated},
			{"OwnRead", "GET", "/v1/agents/a1/notes/k", bound, "", http.StatusOK},
			{"OwnList", "GET", "/v1/agents/a1/notes", bound, "", http.StatusOK},
			{"ErrOtherRead", "GET", "/v1/agents/a2/notes/secret", bound, "", http.StatusForbidden},
			{"ErrOtherList", "GET", "/v1/agents/a2/notes", bound, "", http.StatusForbidden},
			{"ErrOtherHistory", "GET", "/v1/agents/a2/notes/secret/history", bound, "", http.StatusForbidden},
			{"ErrOtherWrite", "PUT", "/v1/agents/a2/notes/secret", bound, `{"value":"overwrite"}`, http.StatusForbidden},
			{"ErrOtherDelete", "DELETE", "/v1/agents/a2/notes/secret", bound, "", http.StatusForbidden},
			// A parameter the route does not take is refused: it never
			// names another agent.
			{"ErrOtherViaUnusedQuery", "GET", "/v1/agents/a1/notes?agent_id=a2", bound, "", http.StatusBadRequest},
			{"ErrCrossAgentExport", "GET", "/v1/export", boundAdmin, "", http.StatusForbidden},
			{"ErrCrossAgentAudit", "GET", "/v1/audit", boundAdmin, "", http.StatusForbidden},
			{"ErrKeys", "POST", "/v1/keys", boundAdmin, `{"role":"admin"}`, http.StatusForbidden},
			{"MetricsAllowed", "GET", "/metrics", bound, "", http.StatusNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				status, out, _ := e.call(t, tt.method, tt.path, tt.key, body)
				if status != tt.want {
					t.Errorf("status %d (%v), want %d", status, out, tt.want)
				}
			})
		}
		// a2's note is untouched.
		n, err := e.svc.Recall(context.Background(), "a2", "secret")
		if err != nil || string(n.Value) != `"a2 only"` {
			t.Errorf("a2's note = %v, %v; want unchanged", n, err)
		}
	})
}

func TestAuthentication(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		t.Run("OffWithoutKeys", func(t *testing.T) {
			e := newSecEnv(t, open)
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusOK {
				t.Errorf("status %d, want 200", s)
			}
			// A key turns authentication on.
			secret, id := e.key(t, loci.RoleViewer, "")
			if s, _, rec := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("no key after a key exists: status %d, want 401 with WWW-Authenticate", s)
			}
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", secret, nil); s != http.StatusOK {
				t.Errorf("valid key: status %d, want 200", s)
			}
			if s, body, _ := e.call(t, "GET", "/v1/agents/a1/notes", secret+"x", nil); s != http.StatusUnauthorized || body["code"] != loci.EUNAUTHORIZED {
				t.Errorf("wrong key: status %d %v, want 401 unauthorized", s, body)
			}
			// X-API-Key works too.
			req := httptest.NewRequest("GET", "/v1/agents/a1/notes", nil)
			req.Header.Set("X-API-Key", secret)
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Errorf("X-API-Key: status %d, want 200", rec.Code)
			}
			if s, _, _ := e.call(t, "GET", "/healthz", "", nil); s != http.StatusOK {
				t.Errorf("healthz: status %d, want 200", s)
			}
			// Revoking the only key turns authentication off at the next
			// request, as a restart would.
			if err := e.svc.RevokeKey(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			if s, body, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusOK {
				t.Errorf("no key after revoking the only one: status %d %v, want 200", s, body)
			}
		})
		t.Run("KeyChangesTakeEffectAtOnce", func(t *testing.T) {
			e := newSecEnv(t, open)
			admin, adminID := e.key(t, loci.RoleAdmin, "")
			viewer, viewerID := e.key(t, loci.RoleViewer, "")
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", viewer, nil); s != http.StatusOK {
				t.Fatalf("viewer: status %d, want 200", s)
			}
			// Revoked outside the server (the CLI, another replica): the
			// next request with it is refused.
			if err := e.svc.RevokeKey(context.Background(), viewerID); err != nil {
				t.Fatal(err)
			}
			if s, body, _ := e.call(t, "GET", "/v1/agents/a1/notes", viewer, nil); s != http.StatusUnauthorized {
				t.Errorf("revoked key: status %d %v, want 401", s, body)
			}
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusUnauthorized {
				t.Errorf("no key while the admin key is active: status %d, want 401", s)
			}
			// Revoking the last key through the API turns authentication
			// off for the next request.
			if s, body, _ := e.call(t, "DELETE", "/v1/keys/"+adminID, admin, nil); s != http.StatusOK {
				t.Fatalf("revoke the last key: status %d %v", s, body)
			}
			if s, body, _ := e.call(t, "GET", "/v1/agents/a1/notes", admin, nil); s != http.StatusOK {
				t.Errorf("revoked key once no key is active: status %d %v, want 200 (authentication off)", s, body)
			}
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusOK {
				t.Errorf("no key once no key is active: status %d, want 200", s)
			}
			// A key created outside the server turns it on again at once.
			fresh, _ := e.key(t, loci.RoleViewer, "")
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusUnauthorized {
				t.Errorf("no key after a key was created: status %d, want 401", s)
			}
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", fresh, nil); s != http.StatusOK {
				t.Errorf("the new key: status %d, want 200", s)
			}
		})
		t.Run("RequiredStaysOnWithoutKeys", func(t *testing.T) {
			e := newSecEnv(t, open, WithAuth(true))
			_, id := e.key(t, loci.RoleViewer, "")
			if err := e.svc.RevokeKey(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusUnauthorized {
				t.Errorf("no key with authentication required: status %d, want 401", s)
			}
		})
		t.Run("Required", func(t *testing.T) {
			e := newSecEnv(t, open, WithAuth(true))
			if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", "", nil); s != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", s)
			}
		})
		t.Run("Workspace", func(t *testing.T) {
			e := newSecEnv(t, open)
			ctx := loci.WithWorkspace(context.Background(), "acme")
			_, secret, err := e.svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleEditor})
			if err != nil {
				t.Fatal(err)
			}
			if s, _, _ := e.call(t, "PUT", "/v1/agents/a1/notes/k", secret, []byte(`{"value":"in acme"}`)); s != http.StatusCreated {
				t.Fatalf("status %d", s)
			}
			if _, err := e.svc.Recall(ctx, "a1", "k"); err != nil {
				t.Errorf("note not in the key's workspace: %v", err)
			}
			if _, err := e.svc.Recall(context.Background(), "a1", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
				t.Errorf("note leaked into the default workspace: %v", err)
			}
		})
	})
}

func TestRateLimit(t *testing.T) {
	e := newSecEnv(t, testdb.OpenSQLite, WithRateLimit(0.001, 2))
	k1, _ := e.key(t, loci.RoleViewer, "")
	k2, _ := e.key(t, loci.RoleViewer, "")
	for i, want := range []int{200, 200, 429} {
		s, body, rec := e.call(t, "GET", "/v1/agents/a1/notes", k1, nil)
		if s != want {
			t.Fatalf("request %d: status %d, want %d", i+1, s, want)
		}
		if s == 429 && (rec.Header().Get("Retry-After") == "" || body["code"] != loci.ERATELIMIT) {
			t.Errorf("429 without Retry-After or code: %v %v", rec.Header(), body)
		}
	}
	if s, _, _ := e.call(t, "GET", "/v1/agents/a1/notes", k2, nil); s != 200 {
		t.Errorf("another key: status %d, want 200", s)
	}
}

// TestPolicySemantics checks the table against the roles: reads need viewer
// (or admin), adds creator at least, deletes editor at least.
func TestPolicySemantics(t *testing.T) {
	for _, ep := range routeTable() {
		pattern, pol := ep.pattern, ep.policy()
		method, _, _ := strings.Cut(pattern, " ")
		var ok bool
		switch method {
		case http.MethodGet:
			ok = pol.Role == public || pol.Role == viewer || pol.Role == admin
		case http.MethodDelete:
			ok = pol.Role == editor || pol.Role == admin || strings.HasSuffix(pattern, "/mcp")
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			// A search is a read, even when posted (mem0's get all too).
			ok = pol.Role.Allows(creator) || strings.HasSuffix(pattern, "/mcp") || strings.HasSuffix(pattern, "/search") ||
				pol.Op == "mem0.search" || pol.Op == "mem0.list"
		default:
			ok = pol.Role == viewer // routes of every method (MCP)
		}
		if !ok {
			t.Errorf("%s: role %q does not fit its method", pattern, pol.Role)
		}
		if pol.Role != public && pol.Op == "" && !strings.Contains(pattern, "mcp") && pattern != "GET /metrics" {
			t.Errorf("%s: a non-public route must be audited (Op)", pattern)
		}
	}
}
