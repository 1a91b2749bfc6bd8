package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

const notes = "/v1/agents/writer/notes"

// valueBody returns a remember body whose value is raw JSON.
func valueBody(raw string) string { return `{"value": ` + raw + `}` }

// stringBody returns a remember body whose value is the string s.
func stringBody(s string) string { return `{"value": "` + s + `"}` }

// objectOfSize returns a compact JSON object of exactly n bytes.
func objectOfSize(n int) string {
	return `{"a":"` + strings.Repeat("x", n-len(`{"a":""}`)) + `"}`
}

func invalid(msg string) map[string]any {
	return map[string]any{"success": false, "code": loci.EINVALID, "error": msg}
}

func notFound() map[string]any {
	return map[string]any{"success": false, "code": loci.ENOTFOUND, "error": "Memory not found"}
}

func tooLarge() map[string]any {
	return map[string]any{"success": false, "code": loci.ETOOLARGE}
}

// TestNotes walks the notes routes through each answer they document
// (created, updated, found, listed, history, deleted, not found, refused),
// in order, on one server. Request n is made at t0 + n seconds.
func TestNotes(t *testing.T) {
	scenarios := []scenario{
		{name: "ListEmpty", method: "GET", path: notes, wantStatus: 200,
			want: map[string]any{"success": true, "count": 0, "memories": []any{}}, golden: true},
		{name: "RememberCreated", method: "PUT", path: notes + "/best_posting_time",
			body: stringBody("Thursday 9am EST - 2x avg engagement"), wantStatus: 201,
			want: map[string]any{"success": true, "action": "created", "key": "best_posting_time",
				"message": "Remembered: best_posting_time", "updated_at": ts(2)}, golden: true},
		{name: "Recall", method: "GET", path: notes + "/best_posting_time", wantStatus: 200,
			want: map[string]any{"success": true, "key": "best_posting_time",
				"value": "Thursday 9am EST - 2x avg engagement", "updated_at": ts(2)}, golden: true},
		{name: "RememberUpdated", method: "PUT", path: notes + "/best_posting_time",
			body: stringBody("Friday 10am EST"), wantStatus: 200,
			want: map[string]any{"success": true, "action": "updated", "key": "best_posting_time",
				"message": "Remembered: best_posting_time", "updated_at": ts(4)}, golden: true},
		{name: "RecallUpdated", method: "GET", path: notes + "/best_posting_time", wantStatus: 200,
			want: map[string]any{"value": "Friday 10am EST", "updated_at": ts(4)}, golden: true},
		{name: "RememberJSON", method: "PUT", path: notes + "/limits",
			body: valueBody(`{"posts_per_day": 3, "platforms": ["x", "linkedin"]}`), wantStatus: 201,
			want: map[string]any{"action": "created", "key": "limits"}, golden: true},
		{name: "RecallJSON", method: "GET", path: notes + "/limits", wantStatus: 200,
			want: map[string]any{"value": map[string]any{"posts_per_day": 3, "platforms": []any{"x", "linkedin"}}}, golden: true},
		{name: "RememberOtherKey", method: "PUT", path: notes + "/audience_preference",
			body: stringBody("Educational content performs 3x better"), wantStatus: 201,
			want: map[string]any{"action": "created"}},
		{name: "ListAll", method: "GET", path: notes, wantStatus: 200,
			want: map[string]any{"success": true, "count": 3}, golden: true},
		{name: "History", method: "GET", path: notes + "/best_posting_time/history", wantStatus: 200,
			want: map[string]any{"success": true, "count": 2, "versions": []any{
				map[string]any{"value": "Friday 10am EST", "version": 2, "updated_at": ts(4)},
				map[string]any{"value": "Thursday 9am EST - 2x avg engagement", "version": 1, "updated_at": ts(2)},
			}}, golden: true},
		{name: "HistoryOneVersion", method: "GET", path: notes + "/limits/history", wantStatus: 200,
			want: map[string]any{"count": 1}, golden: true},
		{name: "Forget", method: "DELETE", path: notes + "/best_posting_time", wantStatus: 200,
			want: map[string]any{"success": true}, golden: true},
		{name: "RecallForgotten", method: "GET", path: notes + "/best_posting_time", wantStatus: 404,
			want: notFound(), golden: true},
		{name: "HistoryForgotten", method: "GET", path: notes + "/best_posting_time/history", wantStatus: 404,
			want: notFound(), golden: true},
		{name: "ForgetForgotten", method: "DELETE", path: notes + "/best_posting_time", wantStatus: 404,
			want: notFound(), golden: true},
		{name: "ListAfterForget", method: "GET", path: notes, wantStatus: 200,
			want: map[string]any{"count": 2}, golden: true},
		{name: "RememberAfterForget", method: "PUT", path: notes + "/best_posting_time",
			body: stringBody("Monday 8am EST"), wantStatus: 201,
			want: map[string]any{"action": "created"}},
		{name: "HistoryAfterForget", method: "GET", path: notes + "/best_posting_time/history", wantStatus: 200,
			want: map[string]any{"count": 1, "versions": []any{
				map[string]any{"value": "Monday 8am EST", "version": 1, "updated_at": ts(17)},
			}}},
		{name: "KeyEscaped", method: "PUT", path: notes + "/team%2Fq1%20plan", body: stringBody("v"), wantStatus: 201,
			want: map[string]any{"key": "team/q1 plan"}},
		{name: "RecallKeyEscaped", method: "GET", path: notes + "/team%2Fq1%20plan", wantStatus: 200,
			want: map[string]any{"key": "team/q1 plan", "value": "v"}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "TestNotes", scenarios)
	})
}

// TestNotesErrors sends every kind of bad request; none of them stores
// anything.
func TestNotesErrors(t *testing.T) {
	big := strings.Repeat("v", loci.MaxNoteValueBytes)
	scenarios := []scenario{
		{name: "ErrEmptyKey", method: "PUT", path: notes + "/", body: stringBody("v"), wantStatus: 400,
			want: invalid("key must not be empty"), golden: true},
		{name: "ErrWhitespaceKey", method: "PUT", path: notes + "/%20%09", body: stringBody("v"), wantStatus: 400,
			want: invalid("key must not be empty")},
		{name: "ErrWhitespaceAgent", method: "PUT", path: "/v1/agents/%20/notes/k", body: stringBody("v"), wantStatus: 400,
			want: invalid("agent_id must not be empty")},
		{name: "ErrKeyTooLong", method: "PUT", path: notes + "/" + strings.Repeat("k", loci.MaxNoteKeyBytes+1),
			body: stringBody("v"), wantStatus: 400, want: invalid("key must be at most 256 bytes"), golden: true},
		{name: "ErrKeyInvalidUTF8", method: "PUT", path: notes + "/k%FF", body: stringBody("v"), wantStatus: 400,
			want: invalid("key must be valid UTF-8")},
		{name: "ErrKeyNUL", method: "PUT", path: notes + "/k%00", body: stringBody("v"), wantStatus: 400,
			want: invalid("key must not contain NUL bytes")},
		{name: "ErrEmptyValue", method: "PUT", path: notes + "/k", body: stringBody(""), wantStatus: 400,
			want: invalid("value must not be empty"), golden: true},
		{name: "ErrWhitespaceValue", method: "PUT", path: notes + "/k", body: stringBody(` \t\n `), wantStatus: 400,
			want: invalid("value must not be empty")},
		{name: "ErrMissingValue", method: "PUT", path: notes + "/k", body: `{}`, wantStatus: 400,
			want: invalid("value is required"), golden: true},
		{name: "ErrNullValue", method: "PUT", path: notes + "/k", body: `{"value": null}`, wantStatus: 400,
			want: invalid("value is required")},
		{name: "ErrEmptyBody", method: "PUT", path: notes + "/k", wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}},
		{name: "ErrMalformedJSON", method: "PUT", path: notes + "/k", body: `{"value": "v"`, wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}, golden: true},
		{name: "ErrMalformedJSONSyntax", method: "PUT", path: notes + "/k", body: `{"value": v}`, wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}},
		{name: "ErrTrailingData", method: "PUT", path: notes + "/k", body: `{"value": "v"} {}`, wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}},
		{name: "ErrBodyNotObject", method: "PUT", path: notes + "/k", body: `"v"`, wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}},
		{name: "ErrUnknownField", method: "PUT", path: notes + "/k", body: `{"value": "v", "ttl": 5}`, wantStatus: 400,
			want: map[string]any{"success": false, "code": loci.EINVALID}, golden: true},
		{name: "ErrValueTooLarge", method: "PUT", path: notes + "/k", body: stringBody(big + "v"), wantStatus: 413,
			want: tooLarge(), golden: true},
		{name: "ErrObjectValueTooLarge", method: "PUT", path: notes + "/k", body: valueBody(objectOfSize(loci.MaxNoteValueBytes + 1)),
			wantStatus: 413, want: tooLarge()},
		{name: "ErrBodyTooLarge", method: "PUT", path: notes + "/k", body: stringBody(strings.Repeat("v", 2<<20)),
			wantStatus: 413, want: tooLarge()},
		{name: "ErrRecallMissing", method: "GET", path: notes + "/missing", wantStatus: 404, want: notFound(), golden: true},
		{name: "ErrForgetMissing", method: "DELETE", path: notes + "/missing", wantStatus: 404, want: notFound()},
		{name: "ErrHistoryMissing", method: "GET", path: notes + "/missing/history", wantStatus: 404, want: notFound()},
		{name: "ErrRecallEmptyKey", method: "GET", path: notes + "/", wantStatus: 400, want: invalid("key must not be empty")},
		{name: "ErrRecallWhitespaceKey", method: "GET", path: notes + "/%20", wantStatus: 400, want: invalid("key must not be empty")},
		{name: "ErrForgetEmptyKey", method: "DELETE", path: notes + "/", wantStatus: 400, want: invalid("key must not be empty")},
		{name: "ErrHistoryWhitespaceKey", method: "GET", path: notes + "/%20/history", wantStatus: 400, want: invalid("key must not be empty")},
		{name: "ErrListWhitespaceAgent", method: "GET", path: "/v1/agents/%20/notes", wantStatus: 400, want: invalid("agent_id must not be empty")},
		// Nothing above was stored.
		{name: "NothingStored", method: "GET", path: notes, wantStatus: 200,
			want: map[string]any{"count": 0, "memories": []any{}}},
		// The limits themselves are allowed.
		{name: "KeyMaxBytes", method: "PUT", path: notes + "/" + strings.Repeat("k", loci.MaxNoteKeyBytes),
			body: stringBody("v"), wantStatus: 201, want: map[string]any{"action": "created"}},
		{name: "ValueMaxBytes", method: "PUT", path: notes + "/big", body: stringBody(big), wantStatus: 201,
			want: map[string]any{"action": "created"}},
		{name: "ObjectValueMaxBytes", method: "PUT", path: notes + "/bigobject", body: valueBody(objectOfSize(loci.MaxNoteValueBytes)),
			wantStatus: 201, want: map[string]any{"action": "created"}},
		{name: "LimitsStored", method: "GET", path: notes, wantStatus: 200, want: map[string]any{"count": 3}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "TestNotesErrors", scenarios)
	})
}

// TestNotesAgentIsolation checks every notes endpoint: agent B never sees,
// changes or deletes agent A's notes.
func TestNotesAgentIsolation(t *testing.T) {
	const a, b = "/v1/agents/agent-a/notes", "/v1/agents/agent-b/notes"
	scenarios := []scenario{
		{name: "ARemembersShared", method: "PUT", path: a + "/shared_key", body: stringBody("A's value"), wantStatus: 201},
		{name: "ARemembersOnlyA", method: "PUT", path: a + "/only_a", body: stringBody("A's secret"), wantStatus: 201},
		{name: "AUpdatesOnlyA", method: "PUT", path: a + "/only_a", body: stringBody("A's new secret"), wantStatus: 200},

		{name: "BRecall", method: "GET", path: b + "/only_a", wantStatus: 404, want: notFound()},
		{name: "BList", method: "GET", path: b, wantStatus: 200,
			want: map[string]any{"count": 0, "memories": []any{}}},
		{name: "BHistory", method: "GET", path: b + "/only_a/history", wantStatus: 404, want: notFound()},
		{name: "BForget", method: "DELETE", path: b + "/only_a", wantStatus: 404, want: notFound()},
		{name: "BRememberSameKey", method: "PUT", path: b + "/shared_key", body: stringBody("B's value"), wantStatus: 201,
			want: map[string]any{"action": "created"}},
		{name: "BRecallSameKey", method: "GET", path: b + "/shared_key", wantStatus: 200,
			want: map[string]any{"value": "B's value"}},
		{name: "BListOwn", method: "GET", path: b, wantStatus: 200,
			want: map[string]any{"count": 1, "memories": []any{
				map[string]any{"key": "shared_key", "value": "B's value", "updated_at": ts(8)}}}},
		{name: "BHistorySameKey", method: "GET", path: b + "/shared_key/history", wantStatus: 200,
			want: map[string]any{"count": 1}},
		{name: "BForgetSameKey", method: "DELETE", path: b + "/shared_key", wantStatus: 200},
		{name: "OtherCaseRecall", method: "GET", path: "/v1/agents/AGENT-A/notes/only_a", wantStatus: 404, want: notFound()},

		{name: "AList", method: "GET", path: a, wantStatus: 200, want: map[string]any{"count": 2}},
		{name: "ARecallShared", method: "GET", path: a + "/shared_key", wantStatus: 200,
			want: map[string]any{"value": "A's value", "updated_at": ts(1)}},
		{name: "ARecallOnlyA", method: "GET", path: a + "/only_a", wantStatus: 200,
			want: map[string]any{"value": "A's new secret"}},
		{name: "AHistory", method: "GET", path: a + "/only_a/history", wantStatus: 200,
			want: map[string]any{"count": 2}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "TestNotesAgentIsolation", scenarios)
	})
}

// TestRecallAllPages: the notes listing takes limit and offset like every
// list (docs/api.md, "REST conventions"); count is the total.
func TestRecallAllPages(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(open(t)), nil))
		defer srv.Close()
		for _, k := range []string{"a", "b", "c"} {
			req, _ := http.NewRequest("PUT", srv.URL+"/v1/agents/x/notes/"+k, strings.NewReader(`{"value":"v"}`))
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
				t.Fatalf("remember %s: %v %v", k, resp, err)
			}
		}
		for _, tc := range []struct {
			query  string
			status int
			keys   []string
		}{
			{"", 200, []string{"a", "b", "c"}},
			{"?limit=2", 200, []string{"a", "b"}},
			{"?limit=2&offset=2", 200, []string{"c"}},
			{"?offset=5", 200, []string{}},
			{"?limit=0", 400, nil},
			{"?limit=1001", 400, nil},
		} {
			resp, err := http.Get(srv.URL + "/v1/agents/x/notes" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Count    int `json:"count"`
				Memories []struct {
					Key string `json:"key"`
				} `json:"memories"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("%s: status %d, want %d", tc.query, resp.StatusCode, tc.status)
			}
			if tc.status != 200 {
				continue
			}
			keys := []string{}
			for _, m := range body.Memories {
				keys = append(keys, m.Key)
			}
			if body.Count != 3 || strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
				t.Fatalf("%s: count %d keys %v, want 3 and %v", tc.query, body.Count, keys, tc.keys)
			}
		}
	})
}
