package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestExpiredAnsweredNowhere: a fact, a passage, a note and a fact of a
// batch, each with a one-second time to live, are answered by no route
// once it has passed, the kinds' own included, and are in no export.
// GET /v1/export, GET /v1/export?user_id=U and GET /v1/facts/{id} once
// still held them (issue 36, item 4).
func TestExpiredAnsweredNowhere(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		add := func(path, body string) string {
			t.Helper()
			st, b := do(t, srv, "POST", path, body)
			if st != 201 && st != 200 {
				t.Fatalf("POST %s %s: %d %s", path, body, st, b)
			}
			m := decodeExact(t, b)
			if id, ok := m["id"].(string); ok {
				return id
			}
			return m["results"].([]any)[0].(map[string]any)["id"].(string)
		}
		fact := add("/v1/memories", `{"content": "zanzibar fact lives briefly", "user_id": "u", "kind": "fact", "key": "brief", "ttl_seconds": 1}`)
		passage := add("/v1/memories", `{"content": "zanzibar passage lives briefly", "agent_id": "a", "kind": "passage", "ttl_seconds": 1}`)
		note := add("/v1/memories", `{"content": "zanzibar note lives briefly", "agent_id": "a", "kind": "note", "key": "brief", "ttl_seconds": 1}`)
		batch := add("/v1/memories/batch", `{"add": [{"content": "zanzibar batch fact lives briefly", "user_id": "u", "ttl_seconds": 1}]}`)
		kept := add("/v1/memories", `{"content": "zanzibar stays", "user_id": "u"}`)
		// A disputed fact waits in the review queue, until it expires.
		if st, b := do(t, srv, "POST", "/v1/facts/"+fact+"/contradict", ""); st != 200 {
			t.Fatalf("contradict: %d %s", st, b)
		}
		expired := map[string]string{"fact": fact, "passage": passage, "note": note, "batch fact": batch}

		// Before it passes, every one is answered and exported.
		for name, id := range expired {
			if st, b := do(t, srv, "GET", "/v1/memories/"+id, ""); st != 200 {
				t.Fatalf("%s before expiry: %d %s", name, st, b)
			}
		}
		if st, b := exportOf(t, srv, ""); st != 200 || !strings.Contains(string(b), fact) || !strings.Contains(string(b), note) {
			t.Fatalf("export before expiry: %d %s", st, b)
		}

		clock.Add(2 * time.Second)
		for name, id := range expired {
			for _, path := range []string{"/v1/memories/" + id, "/v1/memories/" + id + "/history"} {
				if st, b := do(t, srv, "GET", path, ""); st != 404 {
					t.Errorf("%s: GET %s: %d %s, want 404", name, path, st, b)
				}
			}
		}
		for _, id := range []string{fact, batch} {
			for _, req := range []struct{ method, path string }{
				{"GET", "/v1/facts/" + id},
				{"GET", "/v1/facts/" + id + "/history"},
				{"POST", "/v1/facts/" + id + "/validate"},
				{"POST", "/v1/facts/" + id + "/contradict"},
				{"POST", "/v1/facts/" + id + "/invalidate"},
			} {
				if st, b := do(t, srv, req.method, req.path, ""); st != 404 {
					t.Errorf("%s %s: %d %s, want 404", req.method, req.path, st, b)
				}
			}
		}
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/v1/agents/a/notes/brief", ""},
			{"GET", "/v1/agents/a/notes/brief/history", ""},
		} {
			if st, b := do(t, srv, req.method, req.path, req.body); st != 404 {
				t.Errorf("%s %s: %d %s, want 404", req.method, req.path, st, b)
			}
		}
		// Listings, searches, the review queue and exports hold none of them.
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/v1/memories?user_id=u", ""},
			{"GET", "/v1/memories?agent_id=a", ""},
			{"GET", "/v1/users/u/memories", ""},
			{"GET", "/v1/users/u/review", ""},
			{"GET", "/v1/users/u/context", ""},
			{"GET", "/v1/facts?user_id=u", ""},
			{"GET", "/v1/facts/search?user_id=u&q=zanzibar", ""},
			{"GET", "/v1/agents/a/passages", ""},
			{"GET", "/v1/agents/a/passages/search?q=zanzibar", ""},
			{"GET", "/v1/agents/a/notes", ""},
			{"POST", "/v1/search", `{"query": "zanzibar", "user_id": "u"}`},
			{"POST", "/v1/search", `{"query": "zanzibar", "agent_id": "a"}`},
			{"POST", "/mem0/v3/memories/", `{"filters": {"user_id": "u"}}`},
			{"POST", "/mem0/v3/memories/search/", `{"query": "zanzibar", "filters": {"user_id": "u"}}`},
		} {
			st, b := do(t, srv, req.method, req.path, req.body)
			if st != 200 {
				t.Errorf("%s %s: %d %s", req.method, req.path, st, b)
			}
			if strings.Contains(string(b), "briefly") {
				t.Errorf("%s %s answers an expired record: %s", req.method, req.path, b)
			}
		}
		for _, q := range []string{"", "user_id=u"} {
			st, b := exportOf(t, srv, q)
			if st != 200 || !strings.Contains(string(b), kept) || strings.Contains(string(b), "briefly") {
				t.Errorf("export %q: %d %s", q, st, b)
			}
			for name, id := range expired {
				if strings.Contains(string(b), id) {
					t.Errorf("export %q holds the expired %s %s", q, name, id)
				}
			}
		}
	})
}
