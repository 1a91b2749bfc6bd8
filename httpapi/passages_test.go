package httpapi_test

import (
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

func TestPassages(t *testing.T) {
	steps := []coreStep{
		{name: "AddPassage", method: "POST", path: "/v1/agents/michael/passages",
			body:       `{"content":"That time Michael grilled his foot on a George Foreman grill","tags":["episode","injury"]}`,
			wantStatus: 201, want: `{"id":"*","created_at":"2025-07-08T09:00:00Z","tags":["episode","injury"]}`,
			capture: map[string]string{"foot": "id"}},
		{name: "AddPassageImplicitAgent", method: "GET", path: "/v1/agents/michael", wantStatus: 200, want: `{"id":"michael"}`},
		{name: "AddPassageLore", method: "POST", path: "/v1/agents/michael/passages",
			body:       `{"content":"Dwight's beet farm hosts agritourism guests","tags":["lore"," lore "]}`,
			wantStatus: 201, want: `{"tags":["lore"]}`, capture: map[string]string{"beets": "id"}},
		{name: "AddPassageNoTags", method: "POST", path: "/v1/agents/michael/passages",
			body:       `{"content":"Michael runs the Scranton branch of Dunder Mifflin"}`,
			wantStatus: 201, want: `{"tags":[]}`, capture: map[string]string{"branch": "id"}},
		{name: "AddPassageOtherAgent", method: "POST", path: "/v1/agents/dwight/passages",
			body: `{"content":"Michael owes me a grill","tags":["lore"]}`, wantStatus: 201, capture: map[string]string{"dwight": "id"}},
		{name: "ErrAddPassageEmpty", method: "POST", path: "/v1/agents/michael/passages", body: `{"content":"   "}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrAddPassageEmptyTag", method: "POST", path: "/v1/agents/michael/passages", body: `{"content":"x","tags":[""]}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrAddPassageTooLarge", method: "POST", path: "/v1/agents/michael/passages",
			body: `{"content":"` + strings.Repeat("a", loci.MaxPassageBytes+1) + `"}`, wantStatus: 413, want: `{"code":"too_large"}`},
		{name: "ErrAddPassageMalformed", method: "POST", path: "/v1/agents/michael/passages", body: `{"content":1}`,
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ListNewestFirst", method: "GET", path: "/v1/agents/michael/passages",
			wantStatus: 200, want: `{"count":3,"passages":[
				{"id":"{{branch}}","content":"Michael runs the Scranton branch of Dunder Mifflin","tags":[],"created_at":"*"},
				{"id":"{{beets}}","tags":["lore"]},
				{"id":"{{foot}}","tags":["episode","injury"]}]}`},
		{name: "ListByTag", method: "GET", path: "/v1/agents/michael/passages?tag=lore",
			wantStatus: 200, want: `{"count":1,"passages":[{"id":"{{beets}}"}]}`},
		{name: "ListPage", method: "GET", path: "/v1/agents/michael/passages?limit=1&offset=1",
			wantStatus: 200, want: `{"count":3,"passages":[{"id":"{{beets}}"}]}`},
		{name: "ListPagePastEnd", method: "GET", path: "/v1/agents/michael/passages?offset=10",
			wantStatus: 200, want: `{"count":3,"passages":[]}`},
		{name: "ListAgentWithNone", method: "GET", path: "/v1/agents/nobody/passages",
			wantStatus: 200, want: `{"count":0,"passages":[]}`},
		{name: "ErrListBadLimit", method: "GET", path: "/v1/agents/michael/passages?limit=ten",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "Search", method: "GET", path: "/v1/agents/michael/passages/search?q=grilled+foot",
			wantStatus: 200, want: `{"count":1,"results":[{"id":"{{foot}}","content":"*","tags":["episode","injury"],"score":"*","created_at":"*"}]}`},
		{name: "SearchRanked", method: "GET", path: "/v1/agents/michael/passages/search?q=michael+scranton+branch",
			wantStatus: 200, want: `{"count":2,"results":[{"id":"{{branch}}"},{"id":"{{foot}}"}]}`},
		{name: "SearchByTag", method: "GET", path: "/v1/agents/michael/passages/search?q=michael+beet&tag=lore",
			wantStatus: 200, want: `{"count":1,"results":[{"id":"{{beets}}"}]}`},
		{name: "SearchLimit", method: "GET", path: "/v1/agents/michael/passages/search?q=michael&limit=1",
			wantStatus: 200, want: `{"count":1}`},
		{name: "SearchIsolated", method: "GET", path: "/v1/agents/dwight/passages/search?q=grill",
			wantStatus: 200, want: `{"count":1,"results":[{"id":"{{dwight}}"}]}`},
		{name: "SearchNoMatch", method: "GET", path: "/v1/agents/michael/passages/search?q=toby",
			wantStatus: 200, want: `{"count":0,"results":[]}`},
		{name: "ErrSearchEmpty", method: "GET", path: "/v1/agents/michael/passages/search?q=",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrSearchMissing", method: "GET", path: "/v1/agents/michael/passages/search",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrSearchBlank", method: "GET", path: "/v1/agents/michael/passages/search?q=%20%09",
			wantStatus: 400, want: `{"code":"invalid"}`},
		{name: "ErrSearchBadLimit", method: "GET", path: "/v1/agents/michael/passages/search?q=x&limit=-2",
			wantStatus: 400, want: `{"code":"invalid"}`},
	}
	// Hostile queries: text, never syntax.
	for i, q := range []string{
		`%22unbalanced`, `grilled%22%20OR%20%22`, `foot%20AND%20(grill%20OR`, `*`, `grill*`, `NEAR(foot%20grill)`,
		`foot%20NEAR%2F2%20grill`, `-foot`, `%5Efoot`, `foot:grill`, `%F0%9F%94%A5`, `%27%3B%20DROP%20TABLE%20records%3B--`,
		`AND`, `OR%20NOT`, `{foot}`, `%5Bgrill%5D`,
	} {
		steps = append(steps, coreStep{name: "HostileQuery" + string(rune('A'+i)), method: "GET",
			path: "/v1/agents/michael/passages/search?q=" + q, wantStatus: 200, want: `{"results":"*"}`})
	}
	steps = append(steps,
		// Invalid UTF-8 and NUL bytes are not text: a clear 400, never a 500.
		coreStep{name: "ErrQueryInvalidUTF8", method: "GET", path: "/v1/agents/michael/passages/search?q=%FF%FE",
			wantStatus: 400, want: `{"code":"invalid"}`},
		coreStep{name: "ErrQueryNUL", method: "GET", path: "/v1/agents/michael/passages/search?q=%00foot",
			wantStatus: 400, want: `{"code":"invalid"}`},
		coreStep{name: "HostileQueryStillFinds", method: "GET", path: "/v1/agents/michael/passages/search?q=%22foot%22%20AND%20(grill*",
			wantStatus: 200, want: `{"count":1,"results":[{"id":"{{foot}}"}]}`},
		coreStep{name: "DeletePassage", method: "DELETE", path: "/v1/agents/michael/passages/{{foot}}", wantStatus: 200, want: `{}`},
		coreStep{name: "ErrDeletePassageAgain", method: "DELETE", path: "/v1/agents/michael/passages/{{foot}}",
			wantStatus: 404, want: `{"code":"not_found"}`},
		coreStep{name: "ErrDeleteOtherAgentsPassage", method: "DELETE", path: "/v1/agents/michael/passages/{{dwight}}",
			wantStatus: 404, want: `{"code":"not_found"}`},
		coreStep{name: "ErrDeletePassageUnknownID", method: "DELETE", path: "/v1/agents/michael/passages/no-such-id",
			wantStatus: 404, want: `{"code":"not_found"}`},
		coreStep{name: "DeletedNotFound", method: "GET", path: "/v1/agents/michael/passages/search?q=grilled",
			wantStatus: 200, want: `{"count":0,"results":[]}`},
		coreStep{name: "DeletedNotListed", method: "GET", path: "/v1/agents/michael/passages",
			wantStatus: 200, want: `{"count":2}`},
		coreStep{name: "OtherAgentUntouched", method: "GET", path: "/v1/agents/dwight/passages",
			wantStatus: 200, want: `{"count":1,"passages":[{"id":"{{dwight}}"}]}`},
	)
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		h, clock := newCoreServer(t, open(t))
		runCoreSteps(t, h, clock, steps)
	})
}
