package httpapi_test

import (
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestOverview: the user list, block history, stats, the timeline and
// who-am-I, with their bad input, on every backend.
func TestOverview(t *testing.T) {
	steps := []coreStep{
		// Users: one registered by a session start, two named by records.
		{name: "ObservePreference", method: "POST", path: "/v1/users/ann/preferences",
			body: `{"type":"tone","value":"dry","source":"explicit"}`, wantStatus: 201},
		{name: "StoreFact", method: "POST", path: "/v1/facts", body: `{"user_id":"bo","category":"general_fact","fact":"bo rides a bike"}`, wantStatus: 201},
		{name: "GlobalFact", method: "POST", path: "/v1/facts", body: `{"category":"general_fact","fact":"water is wet"}`, wantStatus: 201},
		{name: "RegisterUser", method: "GET", path: "/v1/users/cy/context", wantStatus: 200},
		{name: "ListUsers", method: "GET", path: "/v1/users", wantStatus: 200, want: `{"count":3,"users":[
			{"user_id":"cy","memories":0,"created_at":"2025-07-08T09:00:03Z","updated_at":"2025-07-08T09:00:03Z"},
			{"user_id":"bo","memories":1,"created_at":"2025-07-08T09:00:01Z"},
			{"user_id":"ann","memories":1,"created_at":"2025-07-08T09:00:00Z"}]}`},
		{name: "ListUsersMatch", method: "GET", path: "/v1/users?q=A", wantStatus: 200, want: `{"count":1,"users":[{"user_id":"ann"}]}`},
		{name: "ListUsersPage", method: "GET", path: "/v1/users?limit=1&offset=2", wantStatus: 200, want: `{"count":3,"users":[{"user_id":"ann"}]}`},
		{name: "ListUsersPastEnd", method: "GET", path: "/v1/users?offset=9", wantStatus: 200, want: `{"count":3,"users":[]}`},
		{name: "ErrListUsersLimitZero", method: "GET", path: "/v1/users?limit=0", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrListUsersLimitTooLarge", method: "GET", path: "/v1/users?limit=1001", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrListUsersNegativeOffset", method: "GET", path: "/v1/users?offset=-1", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrListUsersBadUTF8", method: "GET", path: "/v1/users?q=%FF", wantStatus: 400, want: `{"code":"invalid"}`},

		// Block history.
		{name: "SetBlock", method: "PUT", path: "/v1/agents/writer/blocks/bio", body: `{"content":"first"}`, wantStatus: 201},
		{name: "SetBlockAgain", method: "PUT", path: "/v1/agents/writer/blocks/bio", body: `{"content":"second","limit":50}`, wantStatus: 200},
		{name: "ErrSetBlockStale", method: "PUT", path: "/v1/agents/writer/blocks/bio", body: `{"content":"stale","expected_version":1}`, wantStatus: 409},
		{name: "BlockHistory", method: "GET", path: "/v1/agents/writer/blocks/bio/history", wantStatus: 200, want: `{"label":"bio","count":2,"versions":[
			{"version":2,"content":"second","limit":50,"updated_at":"2025-07-08T09:00:13Z"},
			{"version":1,"content":"first","limit":5000,"updated_at":"2025-07-08T09:00:12Z"}]}`},
		{name: "ErrBlockHistoryNoBlock", method: "GET", path: "/v1/agents/writer/blocks/nope/history", wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrBlockHistoryNoAgent", method: "GET", path: "/v1/agents/nobody/blocks/bio/history", wantStatus: 404, want: `{"code":"not_found"}`},
		{name: "ErrBlockHistoryBadLabel", method: "GET", path: "/v1/agents/writer/blocks/two%0Alines/history", wantStatus: 400, want: `{"code":"invalid"}`},

		// Stats: writer has its three standard blocks and bio.
		{name: "Stats", method: "GET", path: "/v1/stats", wantStatus: 200, want: `{"total":7,
			"kinds":{"note":0,"block":4,"passage":0,"working":0,"episode":0,"fact":2,"preference":1,"session":0},
			"agents":1,"users":2,"top_agents":[{"id":"writer","count":4}],"top_users":[{"id":"ann","count":1},{"id":"bo","count":1}],
			"embeddings":{"model":"","pending":0},"at":"*","newest":"*","growth":"*"}`},
		{name: "StatsAgent", method: "GET", path: "/v1/stats?agent_id=writer&days=1&top=1", wantStatus: 200, want: `{"agent_id":"writer","total":4,
			"users":0,"top_users":[],"growth":[{"date":"2025-07-08","count":4,"total":4}]}`},
		{name: "StatsUser", method: "GET", path: "/v1/stats?user_id=bo", wantStatus: 200, want: `{"user_id":"bo","total":1,"kinds":{"fact":1},
			"newest":[{"kind":"fact","user_id":"bo","content":"bo rides a bike"}]}`},
		{name: "ErrStatsDaysZero", method: "GET", path: "/v1/stats?days=0", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrStatsDaysTooMany", method: "GET", path: "/v1/stats?days=367", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrStatsTopTooMany", method: "GET", path: "/v1/stats?top=101", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrStatsTopNotNumber", method: "GET", path: "/v1/stats?top=ten", wantStatus: 400, want: `{"code":"invalid"}`},

		// The timeline.
		{name: "MemoriesOfUser", method: "GET", path: "/v1/memories?user_id=ann", wantStatus: 200,
			want: `{"count":1,"memories":[{"kind":"preference","user_id":"ann","key":"tone"}]}`},
		{name: "MemoriesOfKinds", method: "GET", path: "/v1/memories?kind=fact,preference", wantStatus: 200,
			want: `{"count":3,"memories":[{"kind":"fact","content":"water is wet","user_id":"!absent"},{"kind":"fact","user_id":"bo"},{"kind":"preference"}]}`},
		{name: "MemoriesOfAgentKind", method: "GET", path: "/v1/memories?agent_id=writer&kind=block&limit=1", wantStatus: 200,
			want: `{"count":4,"memories":[{"kind":"block","key":"bio","content":"second"}]}`},
		{name: "MemoriesBefore", method: "GET", path: "/v1/memories?before=2025-07-08T09:00:01Z", wantStatus: 200,
			want: `{"count":1,"memories":[{"kind":"preference"}]}`},
		{name: "MemoriesAfter", method: "GET", path: "/v1/memories?after=2025-07-08T09:00:01Z&kind=fact", wantStatus: 200,
			want: `{"count":1,"memories":[{"content":"water is wet"}]}`},
		{name: "ErrMemoriesUnknownKind", method: "GET", path: "/v1/memories?kind=memo", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrMemoriesEmptyKind", method: "GET", path: "/v1/memories?kind=fact,", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrMemoriesBadBefore", method: "GET", path: "/v1/memories?before=yesterday", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrMemoriesBadAfter", method: "GET", path: "/v1/memories?after=2025-07-08", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrMemoriesEmptyRange", method: "GET", path: "/v1/memories?after=2025-07-08T09:00:01Z&before=2025-07-08T09:00:01Z", wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrMemoriesLimit", method: "GET", path: "/v1/memories?limit=5000", wantStatus: 400, want: `{"code":"invalid"}`},

		// Who am I, with authentication off: trusted.
		{name: "Whoami", method: "GET", path: "/v1/whoami", wantStatus: 200, want: `{"auth":false,"role":"admin","key_id":"","agent_id":"","workspace":"default"}`},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		h, clock := newCoreServer(t, open(t))
		runCoreSteps(t, h, clock, steps)
	})
}
