package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/httpclient"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/storetest"
)

type searchResponse struct {
	Success           bool   `json:"success"`
	Code              string `json:"code"`
	Count             int    `json:"count"`
	PendingEmbeddings *int   `json:"pending_embeddings"`
	Results           []struct {
		ID        string         `json:"id"`
		Kind      string         `json:"kind"`
		Content   string         `json:"content"`
		Scope     map[string]any `json:"scope"`
		CreatedAt string         `json:"created_at"`
		Score     *float64       `json:"score"`
		Explain   *struct {
			Signals map[string]struct {
				Rank  int     `json:"rank"`
				Score float64 `json:"score"`
			} `json:"signals"`
			Score float64 `json:"score"`
		} `json:"explain"`
	} `json:"results"`
}

func TestSearchAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		var recs []*loci.Record
		for _, r := range []struct {
			scope   loci.Scope
			kind    loci.Kind
			content string
		}{
			{loci.Scope{AgentID: "a"}, loci.KindPassage, "The deploy key rotates every Friday"},
			{loci.Scope{AgentID: "a"}, loci.KindNote, "Friday standup moved to 10am"},
			{loci.Scope{AgentID: "b"}, loci.KindPassage, "Agent b's deploy key is hunter2"},
			{loci.Scope{UserID: "u"}, loci.KindFact, "User u deploys on Fridays"},
		} {
			x := storetest.NewRecord(r.kind, r.scope, "", r.content)
			x.SearchText = analysis.SearchText(r.content)
			recs = append(recs, x)
		}
		storetest.MustInsert(t, store, recs...)
		svc := rules.New(store, rules.WithEmbedder(embed.NewHash(0)))
		if _, err := svc.Reindex(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(httpapi.NewServer(svc, nil))
		defer srv.Close()

		tests := []struct {
			name       string
			body       string
			wantStatus int
			wantCode   string
			wantIDs    []string // in order, when set
			check      func(t *testing.T, res searchResponse)
		}{
			{name: "OK", body: `{"query": "deploy key", "agent_id": "a"}`, wantStatus: 200, wantIDs: []string{recs[0].ID}},
			{name: "AgentIsolation", body: `{"query": "deploy key hunter2", "agent_id": "a", "limit": 50}`, wantStatus: 200, wantIDs: []string{recs[0].ID}},
			{name: "OtherAgent", body: `{"query": "deploy key", "agent_id": "b"}`, wantStatus: 200, wantIDs: []string{recs[2].ID}},
			{name: "UserScope", body: `{"query": "deploy friday", "user_id": "u"}`, wantStatus: 200, wantIDs: []string{recs[3].ID}},
			{name: "Kinds", body: `{"query": "friday", "agent_id": "a", "kinds": ["note"]}`, wantStatus: 200, wantIDs: []string{recs[1].ID}},
			{name: "NoMatch", body: `{"query": "zebra", "agent_id": "a"}`, wantStatus: 200, wantIDs: []string{}},
			{name: "Explain", body: `{"query": "deploy key", "agent_id": "a", "explain": true}`, wantStatus: 200,
				check: func(t *testing.T, res searchResponse) {
					r := res.Results[0]
					if r.Explain == nil || r.Explain.Signals["lexical"].Rank != 1 || r.Explain.Signals["vector"].Rank != 1 {
						t.Fatalf("explain = %+v, want lexical and vector rank 1", r.Explain)
					}
					if r.Score == nil || *r.Score != r.Explain.Score {
						t.Errorf("score %v != explain score %v", r.Score, r.Explain.Score)
					}
					if r.Kind != "passage" || r.Content == "" || r.Scope["agent_id"] != "a" || r.CreatedAt == "" {
						t.Errorf("result fields: %+v", r)
					}
					if res.PendingEmbeddings == nil || *res.PendingEmbeddings != 0 {
						t.Errorf("pending_embeddings = %v, want 0", res.PendingEmbeddings)
					}
				}},
			{name: "NoExplainByDefault", body: `{"query": "deploy", "agent_id": "a"}`, wantStatus: 200,
				check: func(t *testing.T, res searchResponse) {
					if res.Results[0].Explain != nil {
						t.Errorf("explain given unasked")
					}
				}},
			{name: "HostileQuery", body: `{"query": "\"deploy\" AND (key OR NEAR(* -x:y ^z 🔥", "agent_id": "a"}`, wantStatus: 200},
			{name: "ErrQueryNUL", body: `{"query": "deploy \u0000", "agent_id": "a"}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrEmptyQuery", body: `{"query": "   "}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrMissingQuery", body: `{"agent_id": "a"}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrUnknownKind", body: `{"query": "x", "kinds": ["nope"]}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrUnknownField", body: `{"query": "x", "bogus": 1}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrMalformedJSON", body: `{"query": `, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrBadLimit", body: `{"query": "x", "limit": 5000}`, wantStatus: 400, wantCode: "invalid"},
			{name: "ErrQueryTooLarge", body: `{"query": "` + strings.Repeat("a", loci.MaxQueryBytes+1) + `"}`, wantStatus: 413, wantCode: "too_large"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resp, err := http.Post(srv.URL+"/v1/search", "application/json", strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var res searchResponse
				if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tt.wantStatus || res.Code != tt.wantCode {
					t.Fatalf("status %d code %q, want %d %q", resp.StatusCode, res.Code, tt.wantStatus, tt.wantCode)
				}
				if tt.wantStatus != 200 {
					if res.Success {
						t.Errorf("success true on error")
					}
					return
				}
				if !res.Success || res.Count != len(res.Results) {
					t.Fatalf("success %v count %d results %d", res.Success, res.Count, len(res.Results))
				}
				if tt.wantIDs != nil {
					var got []string
					for _, r := range res.Results {
						got = append(got, r.ID)
					}
					if strings.Join(got, ",") != strings.Join(tt.wantIDs, ",") {
						t.Fatalf("ids = %v, want %v", got, tt.wantIDs)
					}
				}
				if tt.check != nil {
					tt.check(t, res)
				}
			})
		}
		t.Run("Client", func(t *testing.T) {
			res, err := httpclient.NewClient(srv.URL, "").Search(context.Background(), loci.SearchQuery{Query: "deploy key", AgentID: "b"})
			if err != nil || len(res.Results) != 1 || res.Results[0].ID != recs[2].ID {
				t.Fatalf("client search = %+v, %v", res, err)
			}
			if _, err := httpclient.NewClient(srv.URL, "").Search(context.Background(), loci.SearchQuery{}); loci.ErrorCode(err) != loci.EINVALID {
				t.Fatalf("client empty query err = %v, want invalid", err)
			}
		})
	})
}
