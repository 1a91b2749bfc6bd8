package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestFactStatusAsOf: GET /v1/facts?include_history=true&as_of=T marks
// each version's status as of T (the version true at T is current, not
// superseded), and so does the search.
func TestFactStatusAsOf(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "", []scenario{
			{name: "Paris", method: "POST", path: "/v1/facts", wantStatus: 201,
				body: `{"user_id":"u","category":"general_fact","key":"home","fact":"lives in Paris","valid_at":"2020-01-01T00:00:00Z"}`},
			{name: "Berlin", method: "POST", path: "/v1/facts", wantStatus: 201,
				body: `{"user_id":"u","category":"general_fact","key":"home","fact":"lives in Berlin","valid_at":"2023-01-01T00:00:00Z"}`},
			{name: "HistoryAsOf2021", method: "GET", path: "/v1/facts?user_id=u&include_history=true&as_of=2021-06-01T00:00:00Z", wantStatus: 200,
				want: map[string]any{"count": 2}},
		})
		for _, path := range []string{
			"/v1/facts?user_id=u&include_history=true&as_of=2021-06-01T00:00:00Z",
			"/v1/facts/search?user_id=u&q=lives&include_history=true&as_of=2021-06-01T00:00:00Z",
		} {
			status, body := do(t, srv, "GET", path, "")
			if status != 200 {
				t.Fatalf("GET %s: %d %s", path, status, body)
			}
			got := map[string]string{}
			for _, f := range listOf(t, body, "facts", "results") {
				got[f["fact"].(string)] = f["status"].(string)
			}
			if got["lives in Paris"] != "current" || got["lives in Berlin"] != "future" {
				t.Errorf("GET %s: statuses %v, want Paris current and Berlin future (as of 2021)", path, got)
			}
		}
	})
}

// listOf returns the objects of the first of fields that body holds as an
// array.
func listOf(t *testing.T, body []byte, fields ...string) []map[string]any {
	t.Helper()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if raw, ok := out[f]; ok {
			var list []map[string]any
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatal(err)
			}
			return list
		}
	}
	t.Fatalf("body has none of %v: %s", fields, body)
	return nil
}
