package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// mem0Call sends one request to the mem0 API as mem0's clients do (the
// key as "Authorization: Token KEY") and decodes the answer.
func (e *secEnv) mem0Call(t testing.TB, method, path, key, body string) (int, any) {
	t.Helper()
	var rd *bytes.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Token "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	var out any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %q", method, path, rec.Code, rec.Body.String())
	}
	return rec.Code, out
}

func asList(t testing.TB, v any) []map[string]any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %v", v)
	}
	out := make([]map[string]any, len(l))
	for i, e := range l {
		out[i] = e.(map[string]any)
	}
	return out
}

func asObj(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %v", v)
	}
	return m
}

// TestMem0Door: what mem0's client does, in order, through the mem0 API:
// ping, add (messages and text, with user, agent, run and metadata), get,
// search and get all with mem0's filters, update, history, batch update
// and delete, delete, delete all; each answer in mem0's shape.
func TestMem0Door(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		key, _ := e.key(t, loci.RoleEditor, "")

		if st, out := e.mem0Call(t, "GET", "/mem0/v1/ping/", key, ""); st != 200 || asObj(t, out)["status"] != "ok" {
			t.Fatalf("ping: %d %v", st, out)
		}
		if st, _ := e.mem0Call(t, "GET", "/mem0/v1/ping/", "wrong", ""); st != 401 {
			t.Errorf("ping with a wrong key: %d, want 401", st)
		}

		st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": [
			{"role": "system", "content": "You are a helpful chef"},
			{"role": "user", "content": "I am vegetarian and allergic to nuts"},
			{"role": "assistant", "content": "Noted: vegetarian, no nuts"},
			{"role": "user", "content": "No nuts in desserts either"}],
			"user_id": "alex", "agent_id": "chef", "run_id": "trip-1", "metadata": {"topic": "food", "n": 1},
			"infer": true, "async_mode": false, "output_format": "v1.1", "version": "v2"}`)
		if st != 200 {
			t.Fatalf("add: %d %v", st, out)
		}
		added := asList(t, out)
		if len(added) != 2 {
			t.Fatalf("add stored %d memories, want one per user message (a system prompt and the assistant's reply are no memories about the user): %v", len(added), added)
		}
		for i, want := range []string{"I am vegetarian and allergic to nuts", "No nuts in desserts either"} {
			m := added[i]
			if m["memory"] != want || m["event"] != "ADD" || m["data"].(map[string]any)["memory"] != want ||
				m["user_id"] != "alex" || m["agent_id"] != "chef" || m["run_id"] != "trip-1" ||
				asObj(t, m["metadata"])["topic"] != "food" {
				t.Errorf("added[%d] = %v", i, m)
			}
		}
		first := added[0]["id"].(string)

		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "Alex lives in Lisbon", "user_id": "alex", "metadata": {"topic": "home"}}`)
		if st != 200 || len(asList(t, out)) != 1 || asList(t, out)[0]["memory"] != "Alex lives in Lisbon" {
			t.Fatalf("add text: %d %v", st, out)
		}
		lisbon := asList(t, out)[0]["id"].(string)
		// The same again changes nothing: NOOP, the same id.
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "Alex lives in Lisbon", "user_id": "alex"}`)
		if st != 200 || asList(t, out)[0]["event"] != "NOOP" || asList(t, out)[0]["id"] != lisbon {
			t.Errorf("add again: %d %v, want NOOP %s", st, out, lisbon)
		}
		e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "Sam likes nuts", "user_id": "sam"}`)

		st, out = e.mem0Call(t, "GET", "/mem0/v1/memories/"+first+"/", key, "")
		if m := asObj(t, out); st != 200 || m["id"] != first || m["memory"] != "I am vegetarian and allergic to nuts" {
			t.Errorf("get: %d %v", st, out)
		}

		// search: mem0's filters, with AND, metadata and dates.
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, `{"query": "nuts", "output_format": "v1.1",
			"filters": {"AND": [{"user_id": "alex"}, {"created_at": {"gte": "2000-01-01"}}]}}`)
		res := asList(t, asObj(t, out)["results"])
		if st != 200 || len(res) != 2 {
			t.Fatalf("search: %d %v", st, out)
		}
		for _, m := range res {
			if m["user_id"] != "alex" || m["score"] == nil {
				t.Errorf("search answered %v", m)
			}
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, `{"query": "nuts", "top_k": 1,
			"filters": {"OR": [{"user_id": "sam"}, {"metadata": {"topic": "food"}}]}}`)
		if res := asList(t, asObj(t, out)["results"]); st != 200 || len(res) != 1 {
			t.Errorf("search top_k 1: %d %v", st, out)
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/search/", key, `{"query": "nuts", "filters": {"run_id": "trip-1", "NOT": [{"metadata": {"n": 1}}]}}`)
		if res := asList(t, asObj(t, out)["results"]); st != 200 || len(res) != 0 {
			t.Errorf("search with NOT: %d %v", st, out)
		}

		// get all, paged.
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/?page=1&page_size=2", key, `{"filters": {"AND": [{"user_id": "alex"}]}}`)
		page := asObj(t, out)
		if st != 200 || page["count"] != float64(3) || len(asList(t, page["results"])) != 2 || page["next"] == nil || page["previous"] != nil {
			t.Fatalf("get all: %d %v", st, out)
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/?page=2&page_size=2", key, `{"filters": {"user_id": "alex"}}`)
		if page := asObj(t, out); st != 200 || len(asList(t, page["results"])) != 1 || page["next"] != nil || page["previous"] == nil {
			t.Errorf("get all, page 2: %d %v", st, out)
		}
		for body, want := range map[string]float64{
			`{"filters": {"user_id": "alex"}, "start_date": "2000-01-01", "end_date": "2999-01-01"}`:    3,
			`{"filters": {"user_id": "alex"}, "start_date": "2999-01-01"}`:                              0,
			`{"filters": {"user_id": "alex"}, "end_date": "2000-01-01T00:00:00Z"}`:                      0,
			`{"filters": {"user_id": "alex"}, "categories": ["general_fact"]}`:                          3,
			`{"filters": {"user_id": "alex"}, "categories": ["other"]}`:                                 0,
			`{"filters": {"AND": [{"user_id": "alex"}, {"categories": {"contains": "general_fact"}}]}}`: 3,
		} {
			if st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/", key, body); st != 200 || asObj(t, out)["count"] != want {
				t.Errorf("get all %s: %d %v, want %v", body, st, out, want)
			}
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/", key, `{"filters": {"metadata": {"topic": {"in": ["home"]}}}}`)
		if page := asObj(t, out); st != 200 || page["count"] != float64(1) {
			t.Errorf("get all by metadata: %d %v", st, out)
		}

		// update, then history: oldest first.
		st, out = e.mem0Call(t, "PUT", "/mem0/v1/memories/"+lisbon+"/", key, `{"text": "Alex lives in Porto", "metadata": {"topic": "home", "moved": true}}`)
		if m := asObj(t, out); st != 200 || m["memory"] != "Alex lives in Porto" || asObj(t, m["metadata"])["moved"] != true {
			t.Fatalf("update: %d %v", st, out)
		}
		lisbon = asObj(t, out)["id"].(string)
		st, out = e.mem0Call(t, "GET", "/mem0/v1/memories/"+lisbon+"/history/", key, "")
		hist := asList(t, out)
		// (loci's PATCH of content and metadata together keeps them as two
		// versions: the content's, then the metadata's.)
		last := hist[len(hist)-1]
		if st != 200 || len(hist) < 2 || hist[0]["event"] != "ADD" || hist[0]["new_memory"] != "Alex lives in Lisbon" || hist[0]["old_memory"] != nil ||
			hist[1]["event"] != "UPDATE" || hist[1]["old_memory"] != "Alex lives in Lisbon" || hist[1]["new_memory"] != "Alex lives in Porto" ||
			last["new_memory"] != "Alex lives in Porto" || asObj(t, last["metadata"])["moved"] != true {
			t.Errorf("history: %d %v", st, out)
		}

		// batch update; a batch with one unknown id applies nothing.
		second := added[1]["id"].(string)
		st, out = e.mem0Call(t, "PUT", "/mem0/v1/batch/", key, `{"memories": [{"memory_id": "`+first+`", "text": "vegan now"}, {"memory_id": "nope", "text": "x"}]}`)
		if st != 404 || !strings.Contains(asObj(t, out)["error"].(string), "memories[1]") {
			t.Errorf("batch update with an unknown id: %d %v, want 404 naming memories[1]", st, out)
		}
		if _, out := e.mem0Call(t, "GET", "/mem0/v1/memories/"+first+"/", key, ""); asObj(t, out)["memory"] != "I am vegetarian and allergic to nuts" {
			t.Errorf("a refused batch changed a memory: %v", out)
		}
		st, out = e.mem0Call(t, "PUT", "/mem0/v1/batch/", key, `{"memories": [{"memory_id": "`+first+`", "text": "vegan now"}]}`)
		if st != 200 || asObj(t, out)["message"] != "Successfully updated 1 memories" {
			t.Errorf("batch update: %d %v", st, out)
		}
		st, out = e.mem0Call(t, "DELETE", "/mem0/v1/batch/", key, `{"memories": [{"memory_id": "`+second+`"}]}`)
		if st != 200 || asObj(t, out)["message"] != "Successfully deleted 1 memories" {
			t.Errorf("batch delete: %d %v", st, out)
		}
		if st, _ := e.mem0Call(t, "GET", "/mem0/v1/memories/"+second+"/", key, ""); st != 404 {
			t.Errorf("get after batch delete: %d, want 404", st)
		}

		// delete one, then all of alex's.
		if st, out := e.mem0Call(t, "DELETE", "/mem0/v1/memories/"+first+"/", key, ""); st != 200 || asObj(t, out)["message"] == nil {
			t.Errorf("delete: %d %v", st, out)
		}
		if st, _ := e.mem0Call(t, "DELETE", "/mem0/v1/memories/"+first+"/", key, ""); st != 404 {
			t.Errorf("delete again: %d, want 404", st)
		}
		// What is left of alex's: the fact in Porto, and the conversation of
		// run trip-1 (its session and its four messages).
		if st, out := e.mem0Call(t, "DELETE", "/mem0/v1/memories/?user_id=alex", key, ""); st != 200 || asObj(t, out)["count"] != float64(6) {
			t.Errorf("delete all: %d %v", st, out)
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/", key, `{}`)
		if page := asObj(t, out); st != 200 || page["count"] != float64(1) || asList(t, page["results"])[0]["user_id"] != "sam" {
			t.Errorf("after delete all of alex: %d %v", st, out)
		}
	})
}

// TestMem0DoorErrors: bad input through the mem0 API gets a clear error
// with mem0's status, and changes nothing.
func TestMem0DoorErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		key, _ := e.key(t, loci.RoleEditor, "")
		viewerKey, _ := e.key(t, loci.RoleViewer, "")
		_, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", key, `{"messages": "kept", "user_id": "u"}`)
		kept := asList(t, out)[0]["id"].(string)
		tests := []struct {
			name, method, path, key, body string
			status                        int
			says                          string
		}{
			{"ErrNoKey", "POST", "/mem0/v3/memories/add/", "", `{"messages": "x"}`, 401, "API key"},
			{"ErrWrongKey", "GET", "/mem0/v1/ping/", "nope", "", 401, ""},
			{"ErrViewerAdds", "POST", "/mem0/v3/memories/add/", viewerKey, `{"messages": "x"}`, 403, "creator"},
			{"ErrEmptyMessages", "POST", "/mem0/v3/memories/add/", key, `{"messages": []}`, 400, "empty"},
			{"ErrNoMessages", "POST", "/mem0/v3/memories/add/", key, `{"user_id": "u"}`, 400, "messages is required"},
			{"ErrBadRole", "POST", "/mem0/v3/memories/add/", key, `{"messages": [{"role": "robot", "content": "x"}]}`, 400, "role"},
			{"ErrImage", "POST", "/mem0/v3/memories/add/", key, `{"messages": [{"role": "user", "content": {"type": "image_url", "image_url": {"url": "u"}}}]}`, 400, "text"},
			{"ErrOneBadMessage", "POST", "/mem0/v3/memories/add/", key, `{"messages": [{"role": "user", "content": "fine"}, {"role": "user", "content": "  "}]}`, 400, "messages[1]"},
			{"ErrAppID", "POST", "/mem0/v3/memories/add/", key, `{"messages": "x", "app_id": "a"}`, 400, "app_id"},
			{"ErrCustomCategories", "POST", "/mem0/v3/memories/add/", key, `{"messages": "x", "custom_categories": [{"a": "b"}]}`, 400, "custom_categories is not supported"},
			{"ErrUnknownField", "POST", "/mem0/v3/memories/add/", key, `{"messages": "x", "usr_id": "u"}`, 400, "usr_id"},
			{"ErrBadMetadata", "POST", "/mem0/v3/memories/add/", key, `{"messages": "x", "metadata": {"bad.key": 1}}`, 400, "bad.key"},
			{"ErrPastExpiration", "POST", "/mem0/v3/memories/add/", key, `{"messages": "x", "expiration_date": "2001-01-01"}`, 400, "future"},
			{"ErrFilterField", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"keywords": {"icontains": "x"}}}`, 400, "keywords"},
			{"ErrFilterIcontains", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"metadata.team": {"icontains": 1}}}`, 400, "icontains"},
			{"ErrFilterWildcard", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"AND": [{"user_id": "*"}]}}`, 400, "wildcard"},
			{"ErrFilterOperator", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"created_at": {"after": "2020-01-01"}}}`, 400, "operator"},
			{"ErrFilterBadDate", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"created_at": {"gte": "yesterday"}}}`, 400, "RFC 3339"},
			{"ErrFilterAnd", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "filters": {"AND": {"user_id": "u"}}}`, 400, "array"},
			{"ErrThresholdAbove1", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "threshold": 1.5}`, 400, "threshold"},
			{"ErrThresholdNegative", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "threshold": -0.1}`, 400, "threshold"},
			{"ErrThresholdText", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "threshold": "high"}`, 400, "threshold"},
			{"ErrReferenceDate", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "reference_date": "last Tuesday"}`, 400, "reference_date"},
			{"ErrReferenceDateEmpty", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "reference_date": ""}`, 400, "reference_date"},
			{"ErrFieldsUnknown", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "fields": ["memory", "secret"]}`, 400, "fields[1]"},
			{"ErrRerankText", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "rerank": "yes"}`, 400, "rerank"},
			{"ErrTopK", "POST", "/mem0/v3/memories/search/", key, `{"query": "x", "top_k": 0}`, 400, "top_k"},
			{"ErrNoQuery", "POST", "/mem0/v3/memories/search/", key, `{"query": ""}`, 400, "query"},
			{"ErrPage", "POST", "/mem0/v3/memories/?page=0", key, `{}`, 400, "page"},
			{"ErrListParam", "POST", "/mem0/v3/memories/?user_id=u", key, `{}`, 400, "user_id"},
			{"ErrGetUnknown", "GET", "/mem0/v1/memories/nope/", key, "", 404, "not found"},
			{"ErrUpdateUnknown", "PUT", "/mem0/v1/memories/nope/", key, `{"text": "x"}`, 404, "not found"},
			{"ErrUpdateNothing", "PUT", "/mem0/v1/memories/" + kept + "/", key, `{}`, 400, "text"},
			{"ErrUpdateTimestamp", "PUT", "/mem0/v1/memories/" + kept + "/", key, `{"timestamp": 1}`, 400, "timestamp"},
			{"ErrDeleteUnknown", "DELETE", "/mem0/v1/memories/nope/", key, "", 404, "not found"},
			{"ErrDeleteLinked", "DELETE", "/mem0/v1/memories/" + kept + "/?delete_linked=true", key, "", 400, "delete_linked"},
			{"ErrHistoryUnknown", "GET", "/mem0/v1/memories/nope/history/", key, "", 404, "not found"},
			{"ErrDeleteAllUnscoped", "DELETE", "/mem0/v1/memories/", key, "", 400, "user_id"},
			{"ErrDeleteAllApp", "DELETE", "/mem0/v1/memories/?app_id=a", key, "", 400, "app_id"},
			{"ErrDeleteAllParam", "DELETE", "/mem0/v1/memories/?user=u", key, "", 400, "user"},
			{"ErrBatchEmpty", "PUT", "/mem0/v1/batch/", key, `{"memories": []}`, 400, "memories"},
			{"ErrBatchNoID", "PUT", "/mem0/v1/batch/", key, `{"memories": [{"text": "x"}]}`, 400, "memories[0]"},
			{"ErrBatchDeleteUnknown", "DELETE", "/mem0/v1/batch/", key, `{"memories": [{"memory_id": "` + kept + `"}, {"memory_id": "nope"}]}`, 404, "memories[1]"},
			{"ErrBatchDeleteText", "DELETE", "/mem0/v1/batch/", key, `{"memories": [{"memory_id": "` + kept + `", "text": "x"}]}`, 400, "memory_id only"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st, out := e.mem0Call(t, tt.method, tt.path, tt.key, tt.body)
				m := asObj(t, out)
				if st != tt.status || m["success"] != false || !strings.Contains(m["error"].(string), tt.says) {
					t.Errorf("%d %v, want %d saying %q", st, m, tt.status, tt.says)
				}
			})
		}
		// Nothing changed: only the memory kept is there, as it was.
		mems, total, err := e.svc.ListMemories(context.Background(), loci.MemoryQuery{})
		if err != nil || total != 1 || mems[0].ID != kept || mems[0].Content != "kept" || mems[0].Version != 1 {
			t.Errorf("bad input changed something: %d %v %v", total, mems, err)
		}
	})
}

// TestMem0TokenOnlyOnMem0: the "Token" scheme is mem0's, taken on the
// mem0 API only; the rest of the API keeps Bearer.
func TestMem0TokenOnlyOnMem0(t *testing.T) {
	e := newSecEnv(t, testdb.OpenSQLite)
	key, _ := e.key(t, loci.RoleViewer, "")
	req := httptest.NewRequest("GET", "/v1/memories", nil)
	req.Header.Set("Authorization", "Token "+key)
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("Token on /v1: %d, want 401", rec.Code)
	}
}

// TestMem0APIAgentKey: a key bound to an agent reaches, through the mem0
// API as everywhere, its own agent's memories and those of no agent,
// never another agent's, and cannot write as another agent.
func TestMem0APIAgentKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		admin, _ := e.key(t, loci.RoleAdmin, "")
		chef, _ := e.key(t, loci.RoleEditor, "chef")
		_, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", admin, `{"messages": "the waiter's secret", "agent_id": "waiter", "user_id": "u"}`)
		secret := asList(t, out)[0]["id"].(string)
		if st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", chef, `{"messages": "the chef's recipe", "agent_id": "chef", "user_id": "u"}`); st != 200 {
			t.Fatalf("add as its own agent: %d %v", st, out)
		}
		if st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/add/", chef, `{"messages": "x", "agent_id": "waiter"}`); st != 403 {
			t.Errorf("add as another agent: %d %v, want 403", st, out)
		}
		if st, _ := e.mem0Call(t, "GET", "/mem0/v1/memories/"+secret+"/", chef, ""); st != 404 {
			t.Errorf("get another agent's memory: %d, want 404", st)
		}
		if st, _ := e.mem0Call(t, "PUT", "/mem0/v1/batch/", chef, `{"memories": [{"memory_id": "`+secret+`", "text": "mine now"}]}`); st != 404 {
			t.Errorf("batch update of another agent's memory: %d, want 404", st)
		}
		st, out := e.mem0Call(t, "POST", "/mem0/v3/memories/search/", chef, `{"query": "secret recipe", "filters": {"agent_id": "chef"}}`)
		for _, m := range asList(t, asObj(t, out)["results"]) {
			if m["agent_id"] == "waiter" {
				t.Errorf("search answered another agent's memory: %v", m)
			}
		}
		if st != 200 {
			t.Errorf("search: %d %v", st, out)
		}
		// Search and get all without an agent: the key's own.
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/search/", chef, `{"query": "secret recipe"}`)
		if res := asList(t, asObj(t, out)["results"]); st != 200 || len(res) != 1 || res[0]["agent_id"] != "chef" {
			t.Errorf("search, unscoped, with the chef's key: %d %v", st, out)
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/", chef, `{}`)
		if page := asObj(t, out); st != 200 || page["count"] != float64(1) || asList(t, page["results"])[0]["agent_id"] != "chef" {
			t.Errorf("get all, unscoped, with the chef's key: %d %v", st, out)
		}
		// Delete all of a user deletes what the key reaches: the waiter's memory stays.
		if st, out := e.mem0Call(t, "DELETE", "/mem0/v1/memories/?user_id=u", chef, ""); st != 200 || asObj(t, out)["count"] != float64(1) {
			t.Errorf("delete all of u with the chef's key: %d %v, want its one memory deleted", st, out)
		}
		if _, out := e.mem0Call(t, "GET", "/mem0/v1/memories/"+secret+"/", admin, ""); asObj(t, out)["memory"] != "the waiter's secret" {
			t.Errorf("the waiter's memory changed: %v", out)
		}
		// An add without an agent is the key's own agent's, as if it
		// named it (not a memory of no agent, which every agent reads).
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/add/", chef, `{"messages": "the chef's knife is Japanese", "user_id": "u2"}`)
		if st != 200 {
			t.Fatalf("add without an agent: %d %v", st, out)
		}
		id := asList(t, out)[0]["id"].(string)
		if _, out := e.mem0Call(t, "GET", "/mem0/v1/memories/"+id+"/", admin, ""); asObj(t, out)["agent_id"] != "chef" {
			t.Errorf("an add without an agent, with the chef's key: %v, want the chef's memory", out)
		}
		st, out = e.mem0Call(t, "POST", "/mem0/v3/memories/", chef, `{"filters": {"user_id": "u2"}}`)
		if page := asObj(t, out); st != 200 || page["count"] != float64(1) {
			t.Errorf("get all of u2 with the chef's key: %d %v, want the memory it added", st, out)
		}
	})
}
