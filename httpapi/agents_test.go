package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestAgentsAndBlocks(t *testing.T) {
	long := strings.Repeat("é", 5001) // 5001 characters, 10002 bytes
	atLimit := strings.Repeat("é", 5000)
	steps := []coreStep{
		// Agents.
		{name: "CreateAgentStandardBlocks", method: "POST", path: "/v1/agents", body: `{"id":"michael","name":"Michael Scott"}`,
			wantStatus: 201, want: `{"id":"michael","name":"Michael Scott","created_at":"*","blocks":[
				{"label":"personality","content":"","is_shared":false,"owner_agent_id":"michael","version":1,"limit":5000,"id":"*","updated_at":"*"},
				{"label":"relationships","content":"","version":1},
				{"label":"current_state","content":"","version":1}]}`},
		{name: "ErrCreateAgentExists", method: "POST", path: "/v1/agents", body: `{"id":"michael"}`,
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "ErrCreateAgentEmptyID", method: "POST", path: "/v1/agents", body: `{"id":"  "}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrCreateAgentMalformed", method: "POST", path: "/v1/agents", body: `{"id":`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrCreateAgentUnknownField", method: "POST", path: "/v1/agents", body: `{"id":"x","colour":"red"}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrCreateAgentDuplicateLabel", method: "POST", path: "/v1/agents",
			body:       `{"id":"x","blocks":[{"label":"a","content":""},{"label":"a","content":""}]}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrCreateAgentOverLimit", method: "POST", path: "/v1/agents",
			body:       `{"id":"x","blocks":[{"label":"a","content":"four","limit":3}]}`,
			wantStatus: 413, want: `{"code":"too_large"}`},
		{name: "ErrCreateAgentNothingStored", method: "GET", path: "/v1/agents/x",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "CreateAgentOwnBlocks", method: "POST", path: "/v1/agents",
			body:       `{"id":"dwight","blocks":[{"label":"bio","content":"Assistant to the regional manager","limit":100}]}`,
			wantStatus: 201, want: `{"id":"dwight","name":"","blocks":[{"label":"bio","content":"Assistant to the regional manager","limit":100,"version":1}]}`},
		{name: "GetAgent", method: "GET", path: "/v1/agents/michael",
			wantStatus: 200, want: `{"id":"michael","name":"Michael Scott","created_at":"2025-07-08T09:00:00Z"}`},
		{name: "ErrGetAgentMissing", method: "GET", path: "/v1/agents/nobody",
			wantStatus: 404, want: `{"code":"not_found","error":"agent nobody not found"}`},
		{name: "ListAgents", method: "GET", path: "/v1/agents",
			wantStatus: 200, want: `{"count":2,"agents":[{"id":"dwight"},{"id":"michael"}]}`},
		{name: "ListAgentsPage", method: "GET", path: "/v1/agents?limit=1&offset=1",
			wantStatus: 200, want: `{"count":2,"agents":[{"id":"michael"}]}`},
		{name: "ErrListAgentsBadLimit", method: "GET", path: "/v1/agents?limit=-1",
			wantStatus: 400, want: `{"code":"invalid"}`},

		// Blocks.
		{name: "ListBlocksByLabel", method: "GET", path: "/v1/agents/michael/blocks",
			wantStatus: 200, want: `{"count":3,"blocks":[{"label":"current_state"},{"label":"personality"},{"label":"relationships"}]}`},
		{name: "ErrListBlocksAgentMissing", method: "GET", path: "/v1/agents/nobody/blocks",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "GetBlock", method: "GET", path: "/v1/agents/michael/blocks/personality",
			wantStatus: 200, want: `{"label":"personality","content":"","version":1,"is_shared":false,"owner_agent_id":"michael","id":"*","updated_at":"*"}`,
			capture: map[string]string{"personality": "id"}},
		{name: "ErrGetBlockMissing", method: "GET", path: "/v1/agents/michael/blocks/catchphrases",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrGetBlockAgentMissing", method: "GET", path: "/v1/agents/nobody/blocks/personality",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "SetBlockUpdate", method: "PUT", path: "/v1/agents/michael/blocks/personality", body: `{"content":"World's best boss"}`,
			wantStatus: 200, want: `{"action":"updated","label":"personality","content":"World's best boss","version":2,"id":"{{personality}}"}`},
		{name: "ErrSetBlockStaleVersion", method: "PUT", path: "/v1/agents/michael/blocks/personality",
			body:       `{"content":"Stale write","expected_version":1}`,
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "SetBlockExpectedVersion", method: "PUT", path: "/v1/agents/michael/blocks/personality",
			body:       `{"content":"Improv enthusiast","expected_version":2}`,
			wantStatus: 200, want: `{"content":"Improv enthusiast","version":3}`},
		{name: "SetBlockAtLimit", method: "PUT", path: "/v1/agents/michael/blocks/current_state",
			body:       `{"content":"` + atLimit + `"}`,
			wantStatus: 200, want: `{"version":2}`},
		{name: "ErrSetBlockOverLimit", method: "PUT", path: "/v1/agents/michael/blocks/personality",
			body:       `{"content":"` + long + `"}`,
			wantStatus: 413, want: `{"code":"too_large"}`},
		{name: "OverLimitChangedNothing", method: "GET", path: "/v1/agents/michael/blocks/personality",
			wantStatus: 200, want: `{"content":"Improv enthusiast","version":3}`},
		{name: "SetBlockRaiseLimit", method: "PUT", path: "/v1/agents/michael/blocks/personality",
			body:       `{"content":"` + long + `","limit":6000}`,
			wantStatus: 200, want: `{"version":4,"limit":6000}`},
		{name: "ErrSetBlockMissingContent", method: "PUT", path: "/v1/agents/michael/blocks/personality", body: `{}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrSetBlockBadLimit", method: "PUT", path: "/v1/agents/michael/blocks/personality", body: `{"content":"x","limit":-4}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "SetBlockCreate", method: "PUT", path: "/v1/agents/michael/blocks/catchphrases", body: `{"content":"That's what she said"}`,
			wantStatus: 201, want: `{"action":"created","label":"catchphrases","content":"That's what she said","version":1,"is_shared":false}`},
		{name: "ErrSetBlockCreateStale", method: "PUT", path: "/v1/agents/michael/blocks/quotes", body: `{"content":"x","expected_version":3}`,
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "ErrSetBlockCreateOnlyExists", method: "PUT", path: "/v1/agents/michael/blocks/catchphrases", body: `{"content":"x","expected_version":0}`,
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "SetBlockImplicitAgent", method: "PUT", path: "/v1/agents/pam/blocks/personality", body: `{"content":"Artist"}`,
			wantStatus: 201, want: `{"action":"created","version":1,"owner_agent_id":"pam"}`},
		{name: "ImplicitAgentExists", method: "GET", path: "/v1/agents/pam", wantStatus: 200, want: `{"id":"pam"}`},
		{name: "ImplicitAgentStandardBlocks", method: "GET", path: "/v1/agents/pam/blocks",
			wantStatus: 200, want: `{"count":3,"blocks":[{"label":"current_state","content":""},{"label":"personality","content":"Artist"},{"label":"relationships"}]}`},

		// Shared blocks.
		{name: "CreateSharedBlock", method: "POST", path: "/v1/agents/michael/blocks",
			body:       `{"label":"office_news","content":"Party on Friday","shared":true}`,
			wantStatus: 201, want: `{"id":"*","label":"office_news","content":"Party on Friday","is_shared":true,"owner_agent_id":"michael","version":1}`,
			capture: map[string]string{"news": "id"}},
		{name: "ErrCreateSharedBlockExists", method: "POST", path: "/v1/agents/michael/blocks",
			body: `{"label":"office_news","content":"again","shared":true}`, wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "ErrCreateSharedBlockOverLimit", method: "POST", path: "/v1/agents/michael/blocks",
			body: `{"label":"big","content":"` + long + `","shared":true}`, wantStatus: 413, want: `{"code":"too_large"}`},
		{name: "ErrCreateSharedBlockNoLabel", method: "POST", path: "/v1/agents/michael/blocks",
			body: `{"label":"","content":"x","shared":true}`, wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "AttachBlock", method: "PUT", path: "/v1/blocks/{{news}}/consumers/dwight",
			wantStatus: 200, want: `{"block_id":"{{news}}","agent_id":"dwight"}`},
		{name: "AttachBlockIdempotent", method: "PUT", path: "/v1/blocks/{{news}}/consumers/dwight",
			wantStatus: 200, want: `{"block_id":"{{news}}","agent_id":"dwight"}`},
		{name: "ErrAttachBlockMissing", method: "PUT", path: "/v1/blocks/no-such-block/consumers/dwight",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrAttachBlockToOwner", method: "PUT", path: "/v1/blocks/{{news}}/consumers/michael",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrAttachBlockNotShared", method: "PUT", path: "/v1/blocks/{{personality}}/consumers/dwight",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ListConsumers", method: "GET", path: "/v1/blocks/{{news}}/consumers",
			wantStatus: 200, want: `{"count":1,"consumers":[{"agent_id":"dwight","block_id":"{{news}}","created_at":"*"}]}`},
		{name: "ErrListConsumersMissing", method: "GET", path: "/v1/blocks/no-such-block/consumers",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ConsumerListsSharedBlock", method: "GET", path: "/v1/agents/dwight/blocks",
			wantStatus: 200, want: `{"count":2,"blocks":[{"label":"bio","is_shared":false,"owner_agent_id":"dwight"},{"label":"office_news","is_shared":true,"owner_agent_id":"michael","id":"{{news}}"}]}`},
		{name: "ConsumerGetsSharedBlock", method: "GET", path: "/v1/agents/dwight/blocks/office_news",
			wantStatus: 200, want: `{"id":"{{news}}","content":"Party on Friday"}`},
		{name: "ConsumerWritesSharedBlock", method: "PUT", path: "/v1/agents/dwight/blocks/office_news",
			body:       `{"content":"Party moved to Saturday","expected_version":1}`,
			wantStatus: 200, want: `{"id":"{{news}}","action":"updated","version":2,"owner_agent_id":"michael"}`},
		{name: "OwnerSeesConsumerWrite", method: "GET", path: "/v1/agents/michael/blocks/office_news",
			wantStatus: 200, want: `{"content":"Party moved to Saturday","version":2}`},
		{name: "ErrConsumerStaleWrite", method: "PUT", path: "/v1/agents/dwight/blocks/office_news",
			body: `{"content":"x","expected_version":1}`, wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "Prompt", method: "GET", path: "/v1/agents/dwight/prompt",
			wantStatus: 200, wantText: textBody("### bio\nAssistant to the regional manager\n\n### office_news\nParty moved to Saturday")},
		{name: "PromptOwnedBeforeShared", method: "PUT", path: "/v1/agents/dwight/blocks/zzz_notes", body: `{"content":"Bears. Beets."}`,
			wantStatus: 201},
		{name: "PromptOrder", method: "GET", path: "/v1/agents/dwight/prompt",
			wantStatus: 200, wantText: textBody("### bio\nAssistant to the regional manager\n\n### zzz_notes\nBears. Beets.\n\n### office_news\nParty moved to Saturday")},
		{name: "ErrPromptAgentMissing", method: "GET", path: "/v1/agents/nobody/prompt",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "SharedBlockSameLabel", method: "POST", path: "/v1/agents/pam/blocks",
			body: `{"label":"bio","content":"Receptionist","shared":true}`, wantStatus: 201, capture: map[string]string{"pambio": "id"}},
		{name: "ErrAttachLabelClash", method: "PUT", path: "/v1/blocks/{{pambio}}/consumers/dwight",
			wantStatus: 409, want: `{"code":"conflict"}`},
		{name: "AttachImplicitAgent", method: "PUT", path: "/v1/blocks/{{news}}/consumers/jim", wantStatus: 200},
		{name: "DetachBlock", method: "DELETE", path: "/v1/blocks/{{news}}/consumers/dwight",
			wantStatus: 200, want: `{}`},
		{name: "ErrDetachBlockNotAttached", method: "DELETE", path: "/v1/blocks/{{news}}/consumers/dwight",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrDetachBlockMissing", method: "DELETE", path: "/v1/blocks/no-such-block/consumers/dwight",
			wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "DetachedGone", method: "GET", path: "/v1/agents/dwight/blocks",
			wantStatus: 200, want: `{"count":2,"blocks":[{"label":"bio"},{"label":"zzz_notes"}]}`},
		{name: "ConsumersAfterDetach", method: "GET", path: "/v1/blocks/{{news}}/consumers",
			wantStatus: 200, want: `{"count":1,"consumers":[{"agent_id":"jim"}]}`},

		// Deleting the owner cascades to its shared blocks and their links.
		{name: "Reattach", method: "PUT", path: "/v1/blocks/{{news}}/consumers/dwight", wantStatus: 200},
		{name: "DeleteAgent", method: "DELETE", path: "/v1/agents/michael", wantStatus: 200, want: `{}`},
		{name: "DeletedAgentMissing", method: "GET", path: "/v1/agents/michael", wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "DeletedAgentBlocksMissing", method: "GET", path: "/v1/agents/michael/blocks/personality", wantStatus: 404},
		{name: "DeletedSharedBlockMissing", method: "GET", path: "/v1/blocks/{{news}}/consumers", wantStatus: 404},
		{name: "ConsumerLostSharedBlock", method: "GET", path: "/v1/agents/dwight/blocks",
			wantStatus: 200, want: `{"count":2,"blocks":[{"label":"bio"},{"label":"zzz_notes"}]}`},
		{name: "ErrDeleteAgentMissing", method: "DELETE", path: "/v1/agents/michael", wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ListAgentsAfterDelete", method: "GET", path: "/v1/agents",
			wantStatus: 200, want: `{"count":3,"agents":[{"id":"dwight"},{"id":"jim"},{"id":"pam"}]}`},
	}
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		h, clock := newCoreServer(t, open(t))
		runCoreSteps(t, h, clock, steps)
	})
}

// TestSharedBlockConcurrentCAS runs 8 writers doing compare-and-set
// increments on one shared block, through its owner and consumers: no
// update may be lost.
func TestSharedBlockConcurrentCAS(t *testing.T) {
	const writers, increments = 8, 10
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		h, _ := newCoreServer(t, open(t))
		srv := newHTTPTestServer(t, h)
		var created struct{ ID string }
		coreMustDo(t, srv, "POST", "/v1/agents/owner/blocks", `{"label":"counter","content":"0","shared":true}`, 201, &created)
		for i := 1; i < writers; i++ {
			coreMustDo(t, srv, "PUT", fmt.Sprintf("/v1/blocks/%s/consumers/c%d", created.ID, i), "", 200, nil)
		}
		type result struct {
			ok, conflicts int
			err           error
		}
		results := make(chan result, writers)
		for w := 0; w < writers; w++ {
			agent := "owner"
			if w > 0 {
				agent = fmt.Sprintf("c%d", w)
			}
			go func() {
				var r result
				path := "/v1/agents/" + agent + "/blocks/counter"
				for r.ok < increments {
					var b struct {
						Content string
						Version int
					}
					if status, err := coreDo(srv, "GET", path, "", &b); err != nil || status != 200 {
						r.err = fmt.Errorf("GET: %d %v", status, err)
						break
					}
					var n int
					fmt.Sscan(b.Content, &n)
					body, _ := json.Marshal(map[string]any{"content": fmt.Sprint(n + 1), "expected_version": b.Version})
					status, err := coreDo(srv, "PUT", path, string(body), nil)
					if err != nil {
						r.err = err
						break
					}
					switch status {
					case 200:
						r.ok++
					case 409:
						r.conflicts++
					default:
						r.err = fmt.Errorf("PUT: status %d", status)
					}
					if r.err != nil {
						break
					}
				}
				results <- r
			}()
		}
		total, conflicts := 0, 0
		for w := 0; w < writers; w++ {
			r := <-results
			if r.err != nil {
				t.Fatal(r.err)
			}
			total, conflicts = total+r.ok, conflicts+r.conflicts
		}
		var b struct {
			Content string
			Version int
		}
		coreMustDo(t, srv, "GET", "/v1/agents/owner/blocks/counter", "", 200, &b)
		if total != writers*increments {
			t.Fatalf("successful writes = %d, want %d", total, writers*increments)
		}
		if b.Version != 1+total {
			t.Errorf("version = %d, want %d (1 + successful writes)", b.Version, 1+total)
		}
		if b.Content != fmt.Sprint(total) {
			t.Errorf("content = %q, want %d: an update was lost", b.Content, total)
		}
		t.Logf("%d writes, %d conflicts retried", total, conflicts)
	})
}

func newHTTPTestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptestServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func coreDo(base, method, path, body string, out any) (int, error) {
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode < 300 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}

func coreMustDo(t *testing.T, base, method, path, body string, want int, out any) {
	t.Helper()
	status, err := coreDo(base, method, path, body, out)
	if err != nil || status != want {
		t.Fatalf("%s %s: status %d, err %v; want %d", method, path, status, err, want)
	}
}
