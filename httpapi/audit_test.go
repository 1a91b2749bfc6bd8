package httpapi

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestAuditEveryOperation(t *testing.T) {
	const secret = "TOP-SECRET-CONTENT-42"
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		editor, editorID := e.key(t, loci.RoleEditor, "")
		viewer, viewerID := e.key(t, loci.RoleViewer, "")
		tests := []struct {
			name, method, path, key, body string
			wantStatus                    int
			wantOp                        string
			keyID                         string
			role                          loci.Role
			wantIDs                       []string
			wantCount                     int
		}{
			{"Remember", "PUT", "/v1/agents/a1/notes/k1", editor, `{"value":"` + secret + `"}`, 201, "note.remember", editorID, loci.RoleEditor, []string{"k1"}, 1},
			{"RememberAgain", "PUT", "/v1/agents/a1/notes/k2", editor, `{"value":{"nested":"` + secret + `"}}`, 201, "note.remember", editorID, loci.RoleEditor, []string{"k2"}, 1},
			{"Recall", "GET", "/v1/agents/a1/notes/k1", viewer, "", 200, "note.recall", viewerID, loci.RoleViewer, []string{"k1"}, 1},
			{"RecallAll", "GET", "/v1/agents/a1/notes", viewer, "", 200, "note.recall_all", viewerID, loci.RoleViewer, []string{"k1", "k2"}, 2},
			{"History", "GET", "/v1/agents/a1/notes/k1/history", viewer, "", 200, "note.history", viewerID, loci.RoleViewer, []string{"k1"}, 1},
			{"Forget", "DELETE", "/v1/agents/a1/notes/k2", editor, "", 200, "note.forget", editorID, loci.RoleEditor, []string{"k2"}, 1},
			{"ErrForbidden", "DELETE", "/v1/agents/a1/notes/k1", viewer, "", 403, "note.forget", viewerID, loci.RoleViewer, nil, 0},
			{"ErrNotFound", "GET", "/v1/agents/a1/notes/nope", viewer, "", 404, "note.recall", viewerID, loci.RoleViewer, nil, 0},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				if s, out, _ := e.call(t, tt.method, tt.path, tt.key, body); s != tt.wantStatus {
					t.Fatalf("status %d (%v), want %d", s, out, tt.wantStatus)
				}
				entries, total, err := e.svc.FindAudit(context.Background(), loci.AuditFilter{})
				if err != nil {
					t.Fatal(err)
				}
				if total != i+1 {
					t.Fatalf("audit has %d entries after %d operations, want exactly one per operation", total, i+1)
				}
				got := entries[0]
				if got.Operation != tt.wantOp || got.KeyID != tt.keyID || got.Role != tt.role || got.Workspace != loci.DefaultWorkspace ||
					got.AgentID != "a1" || got.Kind != loci.KindNote || got.Status != tt.wantStatus || got.Time.IsZero() {
					t.Errorf("entry = %+v", got)
				}
				if !slices.Equal(got.RecordIDs, tt.wantIDs) && !(len(got.RecordIDs) == 0 && len(tt.wantIDs) == 0) {
					t.Errorf("record ids = %v, want %v", got.RecordIDs, tt.wantIDs)
				}
				if got.Count != tt.wantCount {
					t.Errorf("count = %d, want %d", got.Count, tt.wantCount)
				}
			})
		}
		entries, _, err := e.svc.FindAudit(context.Background(), loci.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(entries)
		if strings.Contains(string(raw), secret) || strings.Contains(string(raw), editor) || strings.Contains(string(raw), viewer) {
			t.Errorf("the audit log holds content or a key secret: %s", raw)
		}
		// Unauthenticated requests are not attributable and not logged.
		e.call(t, "GET", "/v1/agents/a1/notes", "", nil)
		if _, total, _ := e.svc.FindAudit(context.Background(), loci.AuditFilter{}); total != len(tests) {
			t.Errorf("a 401 was logged: %d entries, want %d", total, len(tests))
		}
	})
}

func TestAuditEndpoint(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		admin, _ := e.key(t, loci.RoleAdmin, "")
		viewer, _ := e.key(t, loci.RoleViewer, "")
		e.call(t, "PUT", "/v1/agents/a1/notes/k", admin, []byte(`{"value":"v"}`))
		e.call(t, "PUT", "/v1/agents/a2/notes/k", admin, []byte(`{"value":"v"}`))
		e.call(t, "GET", "/v1/agents/a2/notes", viewer, nil)
		tests := []struct {
			name, query, key string
			wantStatus       int
			wantCount        float64
		}{
			{"All", "", admin, 200, 3},
			{"Agent", "?agent_id=a2", admin, 200, 2},
			{"Since", "?since=2000-01-01T00:00:00Z", admin, 200, 5},
			{"SinceFuture", "?since=2100-01-01T00:00:00Z", admin, 200, 0},
			{"Limit", "?limit=1", admin, 200, 7},
			{"ErrSince", "?since=yesterday", admin, 400, 0},
			{"ErrLimit", "?limit=5000", admin, 400, 0},
			{"ErrViewer", "", viewer, 403, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, body, _ := e.call(t, "GET", "/v1/audit"+tt.query, tt.key, nil)
				if s != tt.wantStatus {
					t.Fatalf("status %d (%v), want %d", s, body, tt.wantStatus)
				}
				if s == 200 && body["count"] != tt.wantCount {
					t.Errorf("count = %v, want %v", body["count"], tt.wantCount)
				}
				if s == 200 && tt.name == "Limit" && len(body["entries"].([]any)) != 1 {
					t.Errorf("entries = %d, want 1", len(body["entries"].([]any)))
				}
			})
		}
	})
}
