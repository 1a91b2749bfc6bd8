package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestNoteListingAuditsItsPage: GET /v1/agents/{id}/notes?limit=20 of an
// agent with 50 notes answers count 50 and 20 notes, and its audit entry
// names those 20, not every note of the agent.
func TestNoteListingAuditsItsPage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, _ := newServer(t, open)
		for i := range 50 {
			if st, _, out := call(t, srv.URL, "PUT", fmt.Sprintf("/v1/agents/a/notes/k%02d", i), `{"value":"v"}`); st != http.StatusCreated {
				t.Fatalf("remember: %d %v", st, out)
			}
		}
		st, _, out := call(t, srv.URL, "GET", "/v1/agents/a/notes?limit=20&offset=10", "")
		mems, _ := out["memories"].([]any)
		if st != http.StatusOK || out["count"] != 50.0 || len(mems) != 20 || mems[0].(map[string]any)["key"] != "k10" {
			t.Fatalf("listing: %d count %v, %d notes; want 200, count 50, 20 notes from k10", st, out["count"], len(mems))
		}
		_, _, audit := call(t, srv.URL, "GET", "/v1/audit?agent_id=a&limit=1", "")
		entries, _ := audit["entries"].([]any)
		if len(entries) != 1 {
			t.Fatalf("audit: %v", audit)
		}
		e := entries[0].(map[string]any)
		ids, _ := e["record_ids"].([]any)
		if e["operation"] != "note.recall_all" || len(ids) != 20 || e["count"] != 20.0 {
			t.Errorf("audit entry of a page of 20: %s with %d ids, count %v; want note.recall_all with 20", e["operation"], len(ids), e["count"])
		}
	})
}
