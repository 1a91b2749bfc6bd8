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

// TestAuditEveryOperation: every operation over REST writes exactly one
// entry (the operation's own: REST adds none), with the key, role, scope,
// kind, the ids of the records touched and the status; never content or a
// key's secret. A refusal by the transport (a role too low, no key) is
// logged too.
func TestAuditEveryOperation(t *testing.T) {
	const secret = "TOP-SECRET-CONTENT-42"
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		editor, editorID := e.key(t, loci.RoleEditor, "")
		viewer, viewerID := e.key(t, loci.RoleViewer, "")
		ctx := context.Background()
		// noteID returns the record id of a1's note key (once it exists).
		ids := map[string]string{}
		noteID := func(key string) string {
			if id, ok := ids[key]; ok {
				return id
			}
			var id string
			err := e.store.View(ctx, func(tx loci.Tx) error {
				recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindNote},
					AgentID: loci.Ptr("a1"), Key: &key})
				if len(recs) == 1 {
					id = recs[0].ID
				}
				return err
			})
			if err != nil || id == "" {
				t.Fatalf("note %s: %v", key, err)
			}
			ids[key] = id
			return id
		}
		tests := []struct {
			name, method, path, key, body string
			wantStatus                    int
			wantOp                        string
			keyID                         string
			role                          loci.Role
			wantKeys                      []string // the notes whose ids are logged
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
			{"ErrNoKey", "GET", "/v1/agents/a1/notes", "", "", 401, "note.recall_all", "", "", nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before, n0, err := e.svc.FindAudit(ctx, loci.AuditFilter{Operation: tt.wantOp})
				if err != nil {
					t.Fatal(err)
				}
				_ = before
				if tt.name == "Forget" {
					noteID("k2") // before it goes
				}
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				if s, out, _ := e.call(t, tt.method, tt.path, tt.key, body); s != tt.wantStatus {
					t.Fatalf("status %d (%v), want %d", s, out, tt.wantStatus)
				}
				entries, n, err := e.svc.FindAudit(ctx, loci.AuditFilter{Operation: tt.wantOp})
				if err != nil {
					t.Fatal(err)
				}
				if n != n0+1 {
					t.Fatalf("%d new %s entries, want exactly one", n-n0, tt.wantOp)
				}
				got := entries[0]
				if got.KeyID != tt.keyID || got.Role != tt.role || got.Workspace != loci.DefaultWorkspace ||
					got.AgentID != "a1" || got.Kind != loci.KindNote || got.Status != tt.wantStatus || got.Time.IsZero() || got.Via != loci.ViaREST {
					t.Errorf("entry = %+v", got)
				}
				var want []string
				for _, k := range tt.wantKeys {
					want = append(want, noteID(k))
				}
				if !slices.Equal(got.RecordIDs, want) && !(len(got.RecordIDs) == 0 && len(want) == 0) {
					t.Errorf("record ids = %v, want %v (%v)", got.RecordIDs, want, tt.wantKeys)
				}
				if got.Count != tt.wantCount {
					t.Errorf("count = %d, want %d", got.Count, tt.wantCount)
				}
			})
		}
		entries, _, err := e.svc.FindAudit(ctx, loci.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(entries)
		if strings.Contains(string(raw), secret) || strings.Contains(string(raw), editor) || strings.Contains(string(raw), viewer) {
			t.Errorf("the audit log holds content or a key secret: %s", raw)
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
			// Two keys created, three operations; then each read of the
			// log is logged itself, after it answered.
			{"All", "", admin, 200, 5},
			{"Agent", "?agent_id=a2", admin, 200, 2},
			{"Since", "?since=2000-01-01T00:00:00Z", admin, 200, 7},
			{"SinceFuture", "?since=2100-01-01T00:00:00Z", admin, 200, 0},
			{"Limit", "?limit=1", admin, 200, 9},
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
