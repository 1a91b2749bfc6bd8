package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestSearchAnswers: every search answer says how it ranked (retrieval),
// each result carries its record's metadata and its score is its
// relevance; threshold drops what is below it, reference_date is read,
// a wordless question in a user's scope answers the scope; bad
// thresholds and dates are 400 naming them, changing nothing.
func TestSearchAnswers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		for _, body := range []string{
			`{"content": "Alex is allergic to nuts", "user_id": "alex", "metadata": {"topic": "food"}}`,
			`{"content": "Alex is vegetarian", "user_id": "alex"}`,
			`{"content": "Alex is allergic to cats", "user_id": "alex"}`,
			`{"content": "Alex keeps nuts in the office for the team", "user_id": "alex"}`,
		} {
			if st, out, _ := e.call(t, "POST", "/v1/memories", "", []byte(body)); st != http.StatusCreated {
				t.Fatalf("add: %d %v", st, out)
			}
		}
		search := func(body string) (int, map[string]any) {
			t.Helper()
			st, out, _ := e.call(t, "POST", "/v1/search", "", []byte(body))
			return st, out
		}
		results := func(out map[string]any) []map[string]any {
			t.Helper()
			return asList(t, out["results"])
		}
		lexical := map[string]any{"mode": "lexical", "model": nil}

		st, out := search(`{"query": "allergic to nuts", "user_id": "alex"}`)
		if st != 200 || fmt.Sprint(out["retrieval"]) != fmt.Sprint(lexical) {
			t.Fatalf("%d %v, want retrieval lexical", st, out)
		}
		rs := results(out)
		if len(rs) != 3 || rs[0]["content"] != "Alex is allergic to nuts" || rs[0]["score"] != 1.0 ||
			fmt.Sprint(rs[0]["metadata"]) != "map[topic:food]" || fmt.Sprint(rs[1]["metadata"]) != "map[]" {
			t.Fatalf("results %v", rs)
		}
		for _, r := range rs[1:] {
			if s := r["score"].(float64); s <= 0 || s >= 1 {
				t.Errorf("%v: score %v, want a partial match's, in (0, 1)", r["content"], s)
			}
		}
		if _, out := search(`{"query": "allergic to nuts", "user_id": "alex", "threshold": 1}`); len(results(out)) != 1 {
			t.Errorf("threshold 1: %v, want the complete match only", out)
		}
		if st, out := search(`{"query": "allergic to nuts", "user_id": "alex", "reference_date": "2030-01-31"}`); st != 200 || len(results(out)) != 3 {
			t.Errorf("reference_date as a date: %d %v", st, out)
		}
		_, out = search(`{"query": "What do you know about me?", "user_id": "alex"}`)
		if rs := results(out); len(rs) != 4 || rs[0]["match"] != "scope" || rs[0]["score"] != 1.0 {
			t.Errorf("a wordless question: %v, want alex's 4 memories, match scope", rs)
		}
		if _, out := search(`{"query": "What do you know about me?", "user_id": "nobody"}`); len(results(out)) != 0 {
			t.Errorf("a wordless question in an empty scope: %v", out)
		}

		for _, tc := range []struct{ name, body, says string }{
			{"ErrThresholdAbove1", `{"query": "nuts", "threshold": 1.5}`, "threshold"},
			{"ErrThresholdNegative", `{"query": "nuts", "threshold": -0.2}`, "threshold"},
			{"ErrThresholdText", `{"query": "nuts", "threshold": "high"}`, "threshold"},
			{"ErrReferenceDate", `{"query": "nuts", "reference_date": "yesterday"}`, "reference_date"},
			{"ErrReferenceDateNumber", `{"query": "nuts", "reference_date": 20240101}`, "reference_date"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				st, out := search(tc.body)
				if st != 400 || out["code"] != "invalid" || !strings.Contains(fmt.Sprint(out["error"]), tc.says) {
					t.Errorf("%d %v, want 400 invalid naming %s", st, out, tc.says)
				}
			})
		}

		// The kinds' searches say it too.
		for _, path := range []string{"/v1/facts/search?user_id=alex&q=nuts", "/v1/agents/a1/passages/search?q=nuts"} {
			st, out, _ := e.call(t, "GET", path, "", nil)
			if st != 200 || fmt.Sprint(out["retrieval"]) != fmt.Sprint(lexical) {
				t.Errorf("GET %s: %d %v, want retrieval lexical", path, st, out)
			}
		}
		if st, out, _ := e.call(t, "GET", "/readyz", "", nil); st != 200 || fmt.Sprint(out["retrieval"]) != fmt.Sprint(lexical) {
			t.Errorf("readyz: %d %v", st, out)
		}
	})
}

// TestMem0Search: the mem0 API's search serves threshold, fields and
// reference_date, accepts rerank and says it is not available, and says
// how it ranked.
func TestMem0Search(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		key, _ := e.key(t, loci.RoleEditor, "")
		for _, m := range []string{"I'm allergic to nuts", "I keep nuts in a jar", "I'm vegetarian"} {
			if st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "`+m+`", "user_id": "alex", "metadata": {"topic": "food"}}`); st != 200 {
				t.Fatalf("add: %d %v", st, out)
			}
		}
		search := func(body string) map[string]any {
			t.Helper()
			st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, body)
			if st != 200 {
				t.Fatalf("search %s: %d %v", body, st, out)
			}
			return asObj(t, out)
		}
		out := search(`{"query": "allergic to nuts", "filters": {"user_id": "alex"}}`)
		rs := asList(t, out["results"])
		if len(rs) != 2 || rs[0]["memory"] != "I'm allergic to nuts" || rs[0]["score"] != 1.0 || fmt.Sprint(out["retrieval"]) != "map[mode:lexical model:<nil>]" {
			t.Fatalf("search: %v", out)
		}
		if _, ok := out["rerank"]; ok {
			t.Errorf("rerank said without being asked: %v", out)
		}
		out = search(`{"query": "allergic to nuts", "filters": {"user_id": "alex"}, "threshold": 0.9, "rerank": true, "fields": ["memory", "score", "metadata"],
			"reference_date": "2026-01-31T10:00:00Z"}`)
		rs = asList(t, out["results"])
		if len(rs) != 1 || len(rs[0]) != 3 || rs[0]["memory"] != "I'm allergic to nuts" || rs[0]["score"] != 1.0 || fmt.Sprint(rs[0]["metadata"]) != "map[topic:food]" {
			t.Errorf("threshold 0.9, three fields: %v", rs)
		}
		if out["rerank"] != "not available" {
			t.Errorf("rerank: %v, want \"not available\"", out["rerank"])
		}
		out = search(`{"query": "What do you know about me?", "filters": {"user_id": "alex"}, "reference_date": "2026-01-31"}`)
		if rs := asList(t, out["results"]); len(rs) != 3 || rs[0]["match"] != "scope" {
			t.Errorf("a wordless question: %v", rs)
		}
	})
}

// TestMem0NotServed: the calls of mem0's clients that loci does not serve
// (users and entities, profiles, feedback, exports, projects, webhooks)
// answer 501 not_implemented naming the call, never 404; a body that is
// not JSON is still 400; the key's role is checked first.
func TestMem0NotServed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		editor, _ := e.key(t, loci.RoleEditor, "")
		viewer, _ := e.key(t, loci.RoleViewer, "")
		for _, tc := range []struct{ method, path, body, call string }{
			{"GET", "/mem0/v1/entities/", "", "users()"},
			{"GET", "/mem0/v1/entities/?page=2&page_size=10", "", "users()"},
			{"DELETE", "/mem0/v1/entities/user/alex/", "", "deleteUser()"},
			{"DELETE", "/mem0/v2/entities/user/alex/", "", "deleteUsers()"},
			{"GET", "/mem0/v2/entities/user/alex/profile/", "", "getProfile()"},
			{"POST", "/mem0/v2/profiles/jobs/", `{"operation": "trigger", "entity_type": "user", "entity_id": "alex"}`, "generateProfile()"},
			{"GET", "/mem0/v2/profiles/jobs/j1/", "", "getProfileJob()"},
			{"GET", "/mem0/v2/profiles/settings/", "", "getProfileSettings()"},
			{"POST", "/mem0/v2/profiles/settings/", `{"enabled": true}`, "updateProfileSettings()"},
			{"POST", "/mem0/v1/feedback/", `{"memory_id": "m1", "feedback": "POSITIVE"}`, "feedback()"},
			{"POST", "/mem0/v1/exports/", `{"schema": {}, "filters": {}}`, "createMemoryExport()"},
			{"POST", "/mem0/v1/exports/get/", `{"memory_export_id": "x"}`, "getMemoryExport()"},
			{"GET", "/mem0/api/v1/orgs/organizations/o1/projects/p1/?fields=custom_instructions", "", "getProject()"},
			{"PATCH", "/mem0/api/v1/orgs/organizations/o1/projects/p1/", `{"custom_instructions": "x"}`, "updateProject()"},
			{"GET", "/mem0/api/v1/webhooks/projects/p1/", "", "getWebhooks()"},
			{"POST", "/mem0/api/v1/webhooks/projects/p1/", `{"url": "https://example.com", "name": "w"}`, "createWebhook()"},
			{"PUT", "/mem0/api/v1/webhooks/w1/", `{"name": "w"}`, "updateWebhook()"},
			{"DELETE", "/mem0/api/v1/webhooks/w1/", "", "deleteWebhook()"},
		} {
			t.Run(tc.method+" "+tc.path, func(t *testing.T) {
				st, out := e.mem0Call(t, tc.method, tc.path, editor, tc.body)
				m := asObj(t, out)
				if st != http.StatusNotImplemented || m["code"] != "not_implemented" || !strings.Contains(fmt.Sprint(m["error"]), tc.call) {
					t.Errorf("%d %v, want 501 not_implemented naming %s", st, m, tc.call)
				}
				if tc.method != "GET" {
					if st, _ := e.mem0Call(t, tc.method, tc.path, viewer, tc.body); st != http.StatusForbidden {
						t.Errorf("a viewer's key: %d, want 403", st)
					}
				}
				if tc.body != "" {
					if st, out := e.mem0Call(t, tc.method, tc.path, editor, `{"broken": `); st != 400 {
						t.Errorf("a body that is not JSON: %d %v, want 400", st, out)
					}
				}
			})
		}
	})
}
