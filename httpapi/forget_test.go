package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestForgetEveryText: "forget that I said peanuts" reaches the word where
// it is only in a session's context and a fact's evidence; afterwards
// neither the user's memories nor the user's export show it.
func TestForgetEveryText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "", []scenario{
			{name: "Session", method: "PUT", path: "/v1/sessions/s1",
				body: `{"user_id":"u","summary":"Planning the trip","context":{"constraints":["no peanuts"]}}`, wantStatus: 201},
			{name: "Fact", method: "POST", path: "/v1/facts",
				body: `{"user_id":"u","category":"general_fact","fact":"Has a food allergy","evidence":{"said":"I cannot eat peanuts"}}`, wantStatus: 201},
			{name: "Other", method: "POST", path: "/v1/facts",
				body: `{"user_id":"u","category":"general_fact","fact":"Likes trains"}`, wantStatus: 201},
			{name: "Forget", method: "POST", path: "/v1/users/u/forget", body: `{"query":"peanuts"}`, wantStatus: 200,
				want: map[string]any{"count": 2}},
		})
		for _, path := range []string{"/v1/users/u/memories?include_history=true", "/v1/export?user_id=u"} {
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s %v", path, resp.StatusCode, body, err)
			}
			if strings.Contains(string(body), "peanuts") {
				t.Errorf("GET %s still shows the word: %s", path, body)
			}
			if !strings.Contains(string(body), "Likes trains") {
				t.Errorf("GET %s lost the fact that does not name the word: %s", path, body)
			}
		}
	})
}

// TestForgetKeyedFactVersion: forgetting an old version of a keyed fact
// (by query or by id) leaves the current one current, and the versions
// left name no deleted record.
func TestForgetKeyedFactVersion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		post := func(body string) string {
			t.Helper()
			status, b := do(t, srv, "POST", "/v1/facts", body)
			if status != http.StatusCreated {
				t.Fatalf("store fact: %d %s", status, b)
			}
			var f struct{ ID string }
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		post(`{"user_id":"u","category":"general_fact","key":"home","fact":"I live in Paris","valid_at":"2020-01-01T00:00:00Z"}`)
		berlin := post(`{"user_id":"u","category":"general_fact","key":"home","fact":"I live in Berlin","valid_at":"2023-01-01T00:00:00Z"}`)
		paris := post(`{"user_id":"u","category":"general_fact","key":"work","fact":"I work in Paris","valid_at":"2018-01-01T00:00:00Z"}`)
		lyon := post(`{"user_id":"u","category":"general_fact","key":"work","fact":"I work in Lyon","valid_at":"2020-01-01T00:00:00Z"}`)
		nantes := post(`{"user_id":"u","category":"general_fact","key":"work","fact":"I work in Nantes","valid_at":"2022-01-01T00:00:00Z"}`)
		runScenarios(t, srv, clock, "", []scenario{
			{name: "ForgetOldHome", method: "POST", path: "/v1/users/u/forget", body: `{"query":"Paris live"}`, wantStatus: 200,
				want: map[string]any{"count": 1}},
			{name: "BerlinCurrent", method: "GET", path: "/v1/facts/" + berlin, wantStatus: 200,
				want: map[string]any{"status": "current", "fact": "I live in Berlin"}},
			{name: "ForgetLyonByID", method: "POST", path: "/v1/users/u/forget", body: `{"ids":["` + lyon + `"]}`, wantStatus: 200,
				want: map[string]any{"count": 1}},
			{name: "NantesCurrent", method: "GET", path: "/v1/facts/" + nantes, wantStatus: 200,
				want: map[string]any{"status": "current", "fact": "I work in Nantes"}},
			{name: "OldParisNamesNoDeleted", method: "GET", path: "/v1/facts/" + paris, wantStatus: 200,
				want: map[string]any{"status": "invalidated", "superseded_by": nil}},
			{name: "LyonGone", method: "GET", path: "/v1/facts/" + lyon, wantStatus: 404},
			{name: "ForgetCurrent", method: "POST", path: "/v1/users/u/forget", body: `{"ids":["` + nantes + `"]}`, wantStatus: 200,
				want: map[string]any{"count": 1}},
		})
		status, b := do(t, srv, "GET", "/v1/facts/"+paris+"/history", "")
		if status != http.StatusOK {
			t.Fatalf("history: %d %s", status, b)
		}
		var h struct {
			Facts []map[string]any `json:"facts"`
		}
		if err := json.Unmarshal(b, &h); err != nil {
			t.Fatal(err)
		}
		if len(h.Facts) != 1 || h.Facts[0]["status"] != "invalidated" || h.Facts[0]["superseded_by"] != nil {
			t.Errorf("work's history after its later versions were forgotten: %s; want the Paris version only, invalidated, naming nothing", b)
		}
	})
}
