package rules_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestBlockHistory: every write of a block keeps the content it replaces,
// as a note keeps its values; a consumer of a shared block reads the
// shared block's history; a refused write keeps nothing.
func TestBlockHistory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		set := func(agent, label, content string, limit int, expected *int) error {
			t.Helper()
			e.clock.Add(time.Minute)
			_, _, err := e.svc.SetBlock(e.ctx, agent, label, loci.BlockWrite{Content: content, Limit: limit, ExpectedVersion: expected})
			return err
		}
		if err := set("a", "bio", "first", 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := set("a", "bio", "second", 100, nil); err != nil {
			t.Fatal(err)
		}
		if err := set("a", "bio", "third", 0, nil); err != nil {
			t.Fatal(err)
		}
		lcCode(t, set("a", "bio", "stale", 0, loci.Ptr(1)), loci.ECONFLICT)
		lcCode(t, set("a", "bio", "far too long for the limit of one hundred characters, which this sentence passes easily, yes", 10, nil), loci.ETOOLARGE)

		got, err := e.svc.BlockHistory(e.ctx, "a", "bio")
		if err != nil {
			t.Fatal(err)
		}
		want := []loci.BlockVersion{
			{Version: 3, Content: "third", Limit: 100, UpdatedAt: lcT0.Add(3 * time.Minute)},
			{Version: 2, Content: "second", Limit: 100, UpdatedAt: lcT0.Add(2 * time.Minute)},
			{Version: 1, Content: "first", Limit: loci.DefaultBlockLimit, UpdatedAt: lcT0.Add(time.Minute)},
		}
		if len(got) != len(want) {
			t.Fatalf("history = %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i].Version != want[i].Version || got[i].Content != want[i].Content || got[i].Limit != want[i].Limit || !got[i].UpdatedAt.Equal(want[i].UpdatedAt) {
				t.Errorf("version %d = %+v, want %+v", i, got[i], want[i])
			}
		}

		t.Run("Shared", func(t *testing.T) {
			b, err := e.svc.CreateBlock(e.ctx, "a", loci.BlockSpec{Label: "team", Content: "v1"}, true)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.AttachBlock(e.ctx, b.ID, "c"); err != nil {
				t.Fatal(err)
			}
			if err := set("c", "team", "v2 by a consumer", 0, nil); err != nil {
				t.Fatal(err)
			}
			for _, agent := range []string{"a", "c"} {
				h, err := e.svc.BlockHistory(e.ctx, agent, "team")
				if err != nil || len(h) != 2 || h[0].Content != "v2 by a consumer" || h[1].Content != "v1" {
					t.Errorf("%s's history of team = %+v, %v; want v2, v1", agent, h, err)
				}
			}
		})
		t.Run("Errors", func(t *testing.T) {
			_, err := e.svc.BlockHistory(e.ctx, "nobody", "bio")
			lcCode(t, err, loci.ENOTFOUND)
			_, err = e.svc.BlockHistory(e.ctx, "a", "nope")
			lcCode(t, err, loci.ENOTFOUND)
			_, err = e.svc.BlockHistory(e.ctx, "a", "two\nlines")
			lcCode(t, err, loci.EINVALID)
			_, err = e.svc.BlockHistory(e.ctx, " ", "bio")
			lcCode(t, err, loci.EINVALID)
		})
		t.Run("DeleteAgentDropsVersions", func(t *testing.T) {
			if err := e.svc.DeleteAgent(e.ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if err := set("a", "bio", "new life", 0, nil); err != nil {
				t.Fatal(err)
			}
			h, err := e.svc.BlockHistory(e.ctx, "a", "bio")
			if err != nil || len(h) != 1 || h[0].Version != 1 {
				t.Errorf("history after the agent was deleted and written again = %+v, %v; want one version", h, err)
			}
		})
	})
}

// overviewSeed writes, through the service, a few days of memory: two
// agents and two users, every write a minute apart, the days at
// lcT0-2d, lcT0-1d and lcT0.
func overviewSeed(t *testing.T, e *lcEnv) {
	t.Helper()
	e.clock.Set(lcT0.Add(-2 * lcDay))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step := func() { e.clock.Add(time.Minute) }
	_, err := e.svc.Remember(e.ctx, "writer", "tone", json.RawMessage(`"dry"`))
	must(err)
	step()
	_, err = e.svc.AddPassage(e.ctx, "writer", "archived draft", nil)
	must(err)
	e.clock.Set(lcT0.Add(-lcDay))
	_, err = e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "ann", AgentID: "writer", Category: "general_fact", Fact: "ann likes tea"})
	must(err)
	step()
	_, _, err = e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: "ann", Type: "tone", Value: json.RawMessage(`"casual"`), Source: loci.SourceExplicit})
	must(err)
	e.clock.Set(lcT0)
	_, err = e.svc.RecordEpisode(e.ctx, loci.EpisodeInput{UserID: "bo", AgentID: "seller", ActionType: "call", ActionDescription: "called bo", Outcome: "success"})
	must(err)
	step()
	_, err = e.svc.StoreFact(e.ctx, loci.FactInput{Category: "general_fact", Fact: "water is wet"}) // global
	must(err)
	step()
}

// TestStats: the overview's counts, groups, growth, newest records and
// embedding queue, of the workspace and narrowed to an agent or a user.
func TestStats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open, rules.WithEmbedder(embed.NewHash(16)))
		overviewSeed(t, e)
		// The passage created agent writer with its standard blocks (a
		// note does not create an agent).
		st, err := e.svc.Stats(e.ctx, loci.StatsQuery{Days: 4, Top: 1})
		if err != nil {
			t.Fatal(err)
		}
		blocks := st.Kinds[loci.KindBlock]
		wantKinds := map[loci.Kind]int{
			loci.KindNote: 1, loci.KindBlock: blocks, loci.KindPassage: 1, loci.KindWorking: 0,
			loci.KindEpisode: 1, loci.KindFact: 2, loci.KindPreference: 1, loci.KindSession: 0,
		}
		if blocks != len(loci.StandardBlockLabels) {
			t.Errorf("blocks = %d, want the %d standard blocks of the agent the passage created", blocks, len(loci.StandardBlockLabels))
		}
		if len(st.Kinds) != len(loci.Kinds) {
			t.Errorf("kinds = %v, want every kind", st.Kinds)
		}
		for k, n := range wantKinds {
			if st.Kinds[k] != n {
				t.Errorf("kinds[%s] = %d, want %d", k, st.Kinds[k], n)
			}
		}
		total := 6 + blocks
		if st.Total != total {
			t.Errorf("total = %d, want %d", st.Total, total)
		}
		// writer: note, passage, blocks, ann's fact; seller: bo's episode.
		if st.Agents != 2 || !slices.Equal(st.TopAgents, []loci.ScopeCount{{ID: "writer", Count: 3 + blocks}}) {
			t.Errorf("agents = %d, top %v; want 2, top writer with %d", st.Agents, st.TopAgents, 3+blocks)
		}
		if st.Users != 2 || !slices.Equal(st.TopUsers, []loci.ScopeCount{{ID: "ann", Count: 2}}) {
			t.Errorf("users = %d, top %v; want 2, top ann with 2", st.Users, st.TopUsers)
		}
		wantGrowth := []loci.DayCount{
			{Date: "2026-02-26", Count: 0, Total: 0},
			{Date: "2026-02-27", Count: 2 + blocks, Total: 2 + blocks},
			{Date: "2026-02-28", Count: 2, Total: 4 + blocks},
			{Date: "2026-03-01", Count: 2, Total: 6 + blocks},
		}
		if !slices.Equal(st.Growth, wantGrowth) {
			t.Errorf("growth = %v, want %v", st.Growth, wantGrowth)
		}
		if len(st.Newest) != loci.StatsNewest && len(st.Newest) != total {
			t.Fatalf("newest = %d records, want %d", len(st.Newest), min(total, loci.StatsNewest))
		}
		if st.Newest[0].Kind != loci.KindFact || st.Newest[0].UserID != "" || st.Newest[1].Kind != loci.KindEpisode || st.Newest[1].UserID != "bo" {
			t.Errorf("newest = %s (%q), %s (%q); want the global fact, then bo's episode",
				st.Newest[0].Kind, st.Newest[0].UserID, st.Newest[1].Kind, st.Newest[1].UserID)
		}
		for i := 1; i < len(st.Newest); i++ {
			if st.Newest[i].CreatedAt.After(st.Newest[i-1].CreatedAt) {
				t.Errorf("newest[%d] is newer than newest[%d]", i, i-1)
			}
		}
		if st.Embeddings.Model == "" || st.Embeddings.Pending != total {
			t.Errorf("embeddings = %+v, want the hash model with %d pending (no worker runs)", st.Embeddings, total)
		}
		if !st.At.Equal(e.clock.Now()) {
			t.Errorf("at = %v, want the clock's %v", st.At, e.clock.Now())
		}

		t.Run("Agent", func(t *testing.T) {
			st, err := e.svc.Stats(e.ctx, loci.StatsQuery{AgentID: "writer"})
			if err != nil {
				t.Fatal(err)
			}
			if st.AgentID != "writer" || st.Total != 3+blocks || st.Users != 1 || st.Kinds[loci.KindEpisode] != 0 || len(st.Growth) != loci.DefaultStatsDays {
				t.Errorf("writer's stats = total %d, users %d, kinds %v, %d days", st.Total, st.Users, st.Kinds, len(st.Growth))
			}
		})
		t.Run("User", func(t *testing.T) {
			st, err := e.svc.Stats(e.ctx, loci.StatsQuery{UserID: "ann"})
			if err != nil {
				t.Fatal(err)
			}
			if st.Total != 2 || st.Kinds[loci.KindFact] != 1 || st.Kinds[loci.KindPreference] != 1 || st.Agents != 1 || len(st.Newest) != 2 {
				t.Errorf("ann's stats = total %d, kinds %v, agents %d, newest %d", st.Total, st.Kinds, st.Agents, len(st.Newest))
			}
		})
		t.Run("Errors", func(t *testing.T) {
			for _, q := range []loci.StatsQuery{{Top: -1}, {Top: loci.MaxStatsTop + 1}, {Days: -1}, {Days: loci.MaxStatsDays + 1}, {AgentID: "a\x00"}} {
				_, err := e.svc.Stats(e.ctx, q)
				lcCode(t, err, loci.EINVALID)
			}
			bound := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "k", Role: loci.RoleViewer, AgentID: "writer", Workspace: loci.DefaultWorkspace})
			_, err := e.svc.Stats(bound, loci.StatsQuery{})
			lcCode(t, err, loci.EFORBIDDEN)
			_, err = e.svc.Stats(bound, loci.StatsQuery{AgentID: "seller"})
			lcCode(t, err, loci.EFORBIDDEN)
			if st, err := e.svc.Stats(bound, loci.StatsQuery{AgentID: "writer"}); err != nil || st.Total != 3+blocks {
				t.Errorf("a bound key's own stats = %v, %v", st, err)
			}
		})
	})
}

// TestListMemories: every kind of a scope, newest first, narrowed by
// kind and time, paged, with the total.
func TestListMemories(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		overviewSeed(t, e)
		list := func(q loci.MemoryQuery) ([]string, int) {
			t.Helper()
			mems, total, err := e.svc.ListMemories(e.ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for i, m := range mems {
				kinds = append(kinds, string(m.Kind))
				if i > 0 && m.CreatedAt.After(mems[i-1].CreatedAt) {
					t.Errorf("not newest first: %s after %s", m.CreatedAt, mems[i-1].CreatedAt)
				}
			}
			return kinds, total
		}
		tests := []struct {
			name      string
			q         loci.MemoryQuery
			want      []string
			wantTotal int
		}{
			{"User", loci.MemoryQuery{Scope: loci.Scope{UserID: "ann"}}, []string{"preference", "fact"}, 2},
			{"AgentKinds", loci.MemoryQuery{Scope: loci.Scope{AgentID: "writer"}, Kinds: []loci.Kind{loci.KindFact, loci.KindNote}}, []string{"fact", "note"}, 2},
			{"AgentAndUser", loci.MemoryQuery{Scope: loci.Scope{AgentID: "writer", UserID: "ann"}}, []string{"fact"}, 1},
			{"Page", loci.MemoryQuery{Kinds: []loci.Kind{loci.KindFact, loci.KindEpisode, loci.KindNote}, Limit: 2, Offset: 1}, []string{"episode", "fact"}, 4},
			{"Before", loci.MemoryQuery{Before: lcT0, Kinds: []loci.Kind{loci.KindFact, loci.KindEpisode}}, []string{"fact"}, 1},
			{"After", loci.MemoryQuery{After: lcT0.Add(-time.Second), Kinds: []loci.Kind{loci.KindFact, loci.KindEpisode}}, []string{"fact", "episode"}, 2},
			{"None", loci.MemoryQuery{Scope: loci.Scope{UserID: "nobody"}}, nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, total := list(tt.q)
				if !slices.Equal(got, tt.want) || total != tt.wantTotal {
					t.Errorf("got %v of %d, want %v of %d", got, total, tt.want, tt.wantTotal)
				}
			})
		}
		t.Run("Fields", func(t *testing.T) {
			mems, _, err := e.svc.ListMemories(e.ctx, loci.MemoryQuery{Scope: loci.Scope{UserID: "ann"}, Kinds: []loci.Kind{loci.KindFact}})
			if err != nil || len(mems) != 1 {
				t.Fatalf("ann's facts = %v, %v", mems, err)
			}
			if m := mems[0]; m.UserID != "ann" || m.AgentID != "writer" || m.Content != "ann likes tea" || m.Category != "general_fact" {
				t.Errorf("fact = %+v", m)
			}
		})
		t.Run("Errors", func(t *testing.T) {
			for name, q := range map[string]loci.MemoryQuery{
				"UnknownKind":     {Kinds: []loci.Kind{"memo"}},
				"LimitTooLarge":   {Limit: 1001},
				"NegativeOffset":  {Offset: -1},
				"BeforeNotAfter":  {Before: lcT0, After: lcT0},
				"InvalidUTF8User": {Scope: loci.Scope{UserID: "\xff"}},
			} {
				t.Run(name, func(t *testing.T) {
					_, _, err := e.svc.ListMemories(e.ctx, q)
					lcCode(t, err, loci.EINVALID)
				})
			}
			bound := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "k", Role: loci.RoleViewer, AgentID: "writer", Workspace: loci.DefaultWorkspace})
			_, _, err := e.svc.ListMemories(bound, loci.MemoryQuery{Scope: loci.Scope{UserID: "ann"}})
			lcCode(t, err, loci.EFORBIDDEN)
		})
	})
}

// TestListUsers: a user registered by a session start and users only
// records name are listed once each, newest first.
func TestListUsers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		overviewSeed(t, e)
		e.clock.Add(time.Hour)
		if _, err := e.svc.UserContext(e.ctx, "cy"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.UserContext(e.ctx, "ann"); err != nil {
			t.Fatal(err)
		}
		users, total, err := e.svc.ListUsers(e.ctx, loci.UserFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range users {
			got = append(got, u.UserID)
		}
		if total != 3 || !slices.Equal(got, []string{"cy", "bo", "ann"}) {
			t.Errorf("users = %v of %d, want [cy bo ann] of 3", got, total)
		}
		if ann := users[2]; ann.Memories != 2 || !ann.CreatedAt.Equal(lcT0.Add(-lcDay)) || !ann.UpdatedAt.After(lcT0) {
			t.Errorf("ann = %+v: want 2 memories, created with her first fact, updated by her session start", ann)
		}
		t.Run("Match", func(t *testing.T) {
			users, total, err := e.svc.ListUsers(e.ctx, loci.UserFilter{Match: "B"})
			if err != nil || total != 1 || len(users) != 1 || users[0].UserID != "bo" {
				t.Errorf("match B = %v of %d, %v; want bo", users, total, err)
			}
		})
		t.Run("Errors", func(t *testing.T) {
			_, _, err := e.svc.ListUsers(e.ctx, loci.UserFilter{Limit: 1001})
			lcCode(t, err, loci.EINVALID)
			_, _, err = e.svc.ListUsers(e.ctx, loci.UserFilter{Match: "\xff"})
			lcCode(t, err, loci.EINVALID)
			bound := loci.WithPrincipal(e.ctx, &loci.Principal{KeyID: "k", Role: loci.RoleAdmin, AgentID: "writer", Workspace: loci.DefaultWorkspace})
			_, _, err = e.svc.ListUsers(bound, loci.UserFilter{})
			lcCode(t, err, loci.EFORBIDDEN)
		})
	})
}
