package httpapi

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestOverwriteNeedsEditor: on every create-or-update endpoint a creator
// may add a record but not change one that exists (403, and the record is
// unchanged), and an editor may change it.
func TestOverwriteNeedsEditor(t *testing.T) {
	tests := []struct {
		name, method, path, get string
		body                    func(v string) string
	}{
		{"Note", "PUT", "/v1/agents/a1/notes/k", "/v1/agents/a1/notes/k",
			func(v string) string { return `{"value":"` + v + `"}` }},
		{"Block", "PUT", "/v1/agents/a1/blocks/persona", "/v1/agents/a1/blocks/persona",
			func(v string) string { return `{"content":"` + v + `"}` }},
		{"Working", "PUT", "/v1/tasks/t1/working/k", "/v1/tasks/t1/working/k",
			func(v string) string { return `{"agent_id":"a1","value":"` + v + `"}` }},
		{"Session", "PUT", "/v1/sessions/s1", "/v1/sessions/s1",
			func(v string) string { return `{"user_id":"u1","summary":"` + v + `"}` }},
		{"Preference", "POST", "/v1/users/u1/preferences", "/v1/users/u1/preferences",
			func(v string) string { return `{"type":"tone","value":"` + v + `","source":"explicit"}` }},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		creator, _ := e.key(t, loci.RoleCreator, "")
		editor, _ := e.key(t, loci.RoleEditor, "")
		viewer, _ := e.key(t, loci.RoleViewer, "")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				read := func() []byte {
					t.Helper()
					s, _, rec := e.call(t, "GET", tt.get, viewer, nil)
					if s != http.StatusOK {
						t.Fatalf("GET %s: status %d %s", tt.get, s, rec.Body)
					}
					return rec.Body.Bytes()
				}
				if s, body, _ := e.call(t, tt.method, tt.path, creator, []byte(tt.body("first"))); s != http.StatusCreated && s != http.StatusOK {
					t.Fatalf("creator creates: status %d %v", s, body)
				}
				before := read()
				s, body, _ := e.call(t, tt.method, tt.path, creator, []byte(tt.body("overwritten")))
				if s != http.StatusForbidden || body["code"] != loci.EFORBIDDEN {
					t.Errorf("creator overwrites: status %d %v, want 403 forbidden", s, body)
				}
				if after := read(); !bytes.Equal(before, after) {
					t.Errorf("a refused overwrite changed the record:\nbefore %s\nafter  %s", before, after)
				}
				if s, body, _ := e.call(t, tt.method, tt.path, editor, []byte(tt.body("edited"))); s != http.StatusOK {
					t.Errorf("editor overwrites: status %d %v, want 200", s, body)
				}
				if after := read(); !bytes.Contains(after, []byte("edited")) {
					t.Errorf("editor's write not stored: %s", after)
				}
			})
		}
	})
}
