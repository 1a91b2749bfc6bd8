package httpapi_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestAuditNamesRecordScope: every audit entry names the scope of the
// record it touched, also where the call named only an id (the memories
// API, a fact or an episode by id, a session): GET /v1/audit?user_id=U
// shows what was done to U's records. A batch over two users' records
// writes an entry for each, with that user's ids.
func TestAuditNamesRecordScope(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		idOf := func(status int, body []byte) string {
			t.Helper()
			if status != 201 {
				t.Fatalf("status %d, want 201: %s", status, body)
			}
			var out struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(body, &out); err != nil || out.ID == "" {
				t.Fatalf("no id in %s", body)
			}
			return out.ID
		}
		add := func(user, content string) string {
			t.Helper()
			st, b := do(t, srv, "POST", "/v1/memories", `{"content": "`+content+`", "user_id": "`+user+`", "agent_id": "a1"}`)
			return idOf(st, b)
		}
		mem := add("alice", "alice takes the train")
		fact := idOf(do(t, srv, "POST", "/v1/facts", `{"user_id": "alice", "category": "general_fact", "fact": "alice lives by the sea"}`))
		ep := idOf(do(t, srv, "POST", "/v1/episodes", `{"user_id": "alice", "agent_id": "a1", "action_type": "search", "action_description": "looked up trains", "outcome": "success"}`))
		if st, b := do(t, srv, "PUT", "/v1/sessions/s1", `{"user_id": "alice", "summary": "planning"}`); st != 200 && st != 201 {
			t.Fatalf("PUT session: %d %s", st, b)
		}
		aliceBatch, bobBatch := add("alice", "alice reads at night"), add("bob", "bob reads at noon")

		calls := []struct{ method, path, body, op string }{
			{"GET", "/v1/memories/" + mem, "", loci.OpMemoryGet.AuditName()},
			{"PATCH", "/v1/memories/" + mem, `{"content": "alice takes the bus"}`, loci.OpMemoryUpdate.AuditName()},
			{"GET", "/v1/memories/" + mem + "/history", "", loci.OpMemoryHistory.AuditName()},
			{"DELETE", "/v1/memories/" + mem, "", loci.OpMemoryDelete.AuditName()},
			{"GET", "/v1/facts/" + fact, "", loci.OpFactGet.AuditName()},
			{"POST", "/v1/facts/" + fact + "/validate", "", loci.OpFactValidate.AuditName()},
			{"GET", "/v1/facts/" + fact + "/history", "", loci.OpFactHistory.AuditName()},
			{"DELETE", "/v1/facts/" + fact, "", loci.OpFactDelete.AuditName()},
			{"GET", "/v1/episodes/" + ep, "", loci.OpEpisodeGet.AuditName()},
			{"POST", "/v1/episodes/" + ep + "/feedback", `{"rating": 1}`, loci.OpEpisodeFeedback.AuditName()},
			{"DELETE", "/v1/episodes/" + ep, "", loci.OpEpisodeDelete.AuditName()},
			{"GET", "/v1/sessions/s1", "", loci.OpSessionGet.AuditName()},
			{"DELETE", "/v1/sessions/s1", "", loci.OpSessionDelete.AuditName()},
		}
		for _, c := range calls {
			if st, b := do(t, srv, c.method, c.path, c.body); st != 200 {
				t.Fatalf("%s %s: %d %s", c.method, c.path, st, b)
			}
		}
		if st, b := do(t, srv, "POST", "/v1/memories/batch", `{"delete": ["`+aliceBatch+`", "`+bobBatch+`"]}`); st != 200 {
			t.Fatalf("batch: %d %s", st, b)
		}

		audit := func(user string) []loci.AuditEntry {
			t.Helper()
			st, b := do(t, srv, "GET", "/v1/audit?limit=1000&user_id="+url.QueryEscape(user), "")
			if st != 200 {
				t.Fatalf("audit: %d %s", st, b)
			}
			var out struct {
				Entries []loci.AuditEntry `json:"entries"`
			}
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			return out.Entries
		}
		alice := audit("alice")
		for _, c := range calls {
			i := slices.IndexFunc(alice, func(e loci.AuditEntry) bool { return e.Operation == c.op && e.Status == 200 })
			if i < 0 {
				t.Errorf("%s %s: no %s entry in alice's audit", c.method, c.path, c.op)
				continue
			}
			if e := alice[i]; len(e.RecordIDs) == 0 {
				t.Errorf("%s: the entry names no record: %+v", c.op, e)
			}
		}
		batchOf := func(entries []loci.AuditEntry) []loci.AuditEntry {
			return slices.DeleteFunc(slices.Clone(entries), func(e loci.AuditEntry) bool { return e.Operation != loci.OpMemoryBatch.AuditName() })
		}
		if b := batchOf(alice); len(b) != 1 || !slices.Equal(b[0].RecordIDs, []string{aliceBatch}) || b[0].Count != 1 {
			t.Errorf("alice's batch entries: %+v, want one naming %s", b, aliceBatch)
		}
		if b := batchOf(audit("bob")); len(b) != 1 || !slices.Equal(b[0].RecordIDs, []string{bobBatch}) || b[0].UserID != "bob" {
			t.Errorf("bob's batch entries: %+v, want one naming %s", b, bobBatch)
		}
		// The entry of a delete names the agent too.
		i := slices.IndexFunc(alice, func(e loci.AuditEntry) bool { return e.Operation == loci.OpMemoryDelete.AuditName() })
		if i >= 0 && (alice[i].AgentID != "a1" || !slices.Equal(alice[i].RecordIDs, []string{mem})) {
			t.Errorf("the delete's entry: %+v, want agent a1 and the memory %s", alice[i], mem)
		}
	})
}
