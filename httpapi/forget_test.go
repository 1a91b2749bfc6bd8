package httpapi_test

import (
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
