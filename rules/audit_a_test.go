package rules_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/retry"
	"github.com/loci-memory/loci/rules"
)

// auditAEntry returns the newest audit entry of operation op.
func auditAEntry(t *testing.T, svc *rules.Service, op string) *loci.AuditEntry {
	t.Helper()
	entries, _, err := svc.FindAudit(context.Background(), loci.AuditFilter{Operation: op, Limit: 1})
	if err != nil {
		t.Fatalf("FindAudit(%s): %v", op, err)
	}
	if len(entries) == 0 {
		t.Fatalf("no audit entry for %s", op)
	}
	return entries[0]
}

// auditACheck checks the newest entry of op: its scope, kind, status,
// record ids (in any order) and count, and who made the call.
func auditACheck(t *testing.T, svc *rules.Service, op string, kind loci.Kind, sc loci.Scope, status int, ids []string, count int, keyID string) {
	t.Helper()
	e := auditAEntry(t, svc, op)
	got, want := slices.Clone(e.RecordIDs), slices.Clone(ids)
	if want == nil {
		want = []string{}
	}
	slices.Sort(got)
	slices.Sort(want)
	if e.Operation != op || e.Kind != kind || e.Scope != sc || e.Status != status || !slices.Equal(got, want) || e.Count != count {
		t.Errorf("%s: entry {op %s kind %q scope %+v status %d ids %v count %d}, want {kind %q scope %+v status %d ids %v count %d}",
			op, e.Operation, e.Kind, e.Scope, e.Status, e.RecordIDs, e.Count, kind, sc, status, want, count)
	}
	if e.KeyID != keyID || e.Via != loci.ViaLibrary || e.Workspace != loci.DefaultWorkspace {
		t.Errorf("%s: key %q via %q workspace %q, want key %q via library in the default workspace", op, e.KeyID, e.Via, e.Workspace, keyID)
	}
}

func auditAMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuditOpsA: each operation of agents, blocks, passages, working
// memory, search and the overview audits itself: a successful call with
// the operation's name, scope, kind, status, the exact ids of the records
// it touched and its count; a failing call with its status and no ids.
func TestAuditOpsA(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, clock := newService(t, open)
		ctx := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "k-admin", Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace})
		a1 := loci.Scope{AgentID: "a1"}
		a2 := loci.Scope{AgentID: "a2"}
		var (
			personaID, teamID, xID, passageID, workingID string
			a1Blocks, a2Std                              []string
		)
		// recordIDs lists the ids of the records of a scope (as the
		// unbound library would see them).
		recordIDs := func(t *testing.T, sc loci.Scope) []string {
			t.Helper()
			mems, _, err := svc.ListMemories(context.Background(), loci.MemoryQuery{Scope: sc, Limit: 1000})
			auditAMust(t, err)
			var ids []string
			for _, m := range mems {
				ids = append(ids, m.ID)
			}
			return ids
		}
		steps := []struct {
			op    string
			kind  loci.Kind
			scope loci.Scope
			// run makes a successful call and returns the ids, count and
			// status its entry must have.
			run func(t *testing.T) ([]string, int, int)
			// fail makes a call that fails with failStatus.
			fail       func() error
			failStatus int
		}{
			{"agent.create", "", a1, func(t *testing.T) ([]string, int, int) {
				_, blocks, err := svc.CreateAgent(ctx, loci.AgentCreate{ID: "a1", Blocks: []loci.BlockSpec{{Label: "persona", Content: "helpful"}, {Label: "human"}}})
				auditAMust(t, err)
				for _, b := range blocks {
					a1Blocks = append(a1Blocks, b.ID)
				}
				personaID = blocks[0].ID
				return a1Blocks, 2, 201
			}, func() error {
				_, _, err := svc.CreateAgent(ctx, loci.AgentCreate{ID: "a1"})
				return err
			}, 409},
			{"agent.get", "", a1, func(t *testing.T) ([]string, int, int) {
				_, err := svc.GetAgent(ctx, "a1")
				auditAMust(t, err)
				return []string{"a1"}, 1, 200
			}, func() error {
				_, err := svc.GetAgent(ctx, "nobody")
				return err
			}, 404},
			{"block.create", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				b, err := svc.CreateBlock(ctx, "a1", loci.BlockSpec{Label: "team", Content: "we ship on fridays"}, true)
				auditAMust(t, err)
				teamID = b.ID
				a1Blocks = append(a1Blocks, teamID)
				return []string{teamID}, 1, 201
			}, func() error {
				_, err := svc.CreateBlock(ctx, "a1", loci.BlockSpec{Label: "team"}, false)
				return err
			}, 409},
			{"block.put", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				_, created, err := svc.SetBlock(ctx, "a1", "persona", loci.BlockWrite{Content: "very helpful"})
				auditAMust(t, err)
				if created {
					t.Error("SetBlock of an existing block: created")
				}
				return []string{personaID}, 1, 200
			}, func() error {
				_, _, err := svc.SetBlock(ctx, "a1", "persona", loci.BlockWrite{Content: "x", ExpectedVersion: loci.Ptr(7)})
				return err
			}, 409},
			{"block.put", loci.KindBlock, a2, func(t *testing.T) ([]string, int, int) {
				// A first write creates the agent and its standard blocks:
				// the entry names them all, the written block first.
				b, created, err := svc.SetBlock(ctx, "a2", "x", loci.BlockWrite{Content: "new"})
				auditAMust(t, err)
				if !created {
					t.Error("SetBlock of a new block: not created")
				}
				xID = b.ID
				a2Std = recordIDs(t, a2)
				if len(a2Std) != len(loci.StandardBlockLabels)+1 {
					t.Fatalf("agent a2 holds %d records, want its %d standard blocks and x", len(a2Std), len(loci.StandardBlockLabels))
				}
				if e := auditAEntry(t, svc, "block.put"); len(e.RecordIDs) == 0 || e.RecordIDs[0] != xID {
					t.Errorf("block.put ids %v: want the written block %s first", e.RecordIDs, xID)
				}
				return a2Std, len(a2Std), 201
			}, func() error {
				_, _, err := svc.SetBlock(ctx, "a2", "", loci.BlockWrite{Content: "x"})
				return err
			}, 400},
			{"block.get", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				_, err := svc.GetBlock(ctx, "a1", "persona")
				auditAMust(t, err)
				return []string{personaID}, 1, 200
			}, func() error {
				_, err := svc.GetBlock(ctx, "a1", "missing")
				return err
			}, 404},
			{"block.list", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				blocks, err := svc.ListBlocks(ctx, "a1")
				auditAMust(t, err)
				if len(blocks) != len(a1Blocks) {
					t.Errorf("ListBlocks: %d blocks, want %d", len(blocks), len(a1Blocks))
				}
				return a1Blocks, len(a1Blocks), 200
			}, func() error {
				_, err := svc.ListBlocks(ctx, "nobody")
				return err
			}, 404},
			{"block.history", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				_, err := svc.BlockHistory(ctx, "a1", "persona")
				auditAMust(t, err)
				return []string{personaID}, 1, 200
			}, func() error {
				_, err := svc.BlockHistory(ctx, "a1", "missing")
				return err
			}, 404},
			{"agent.prompt", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				_, err := svc.Prompt(ctx, "a1")
				auditAMust(t, err)
				return a1Blocks, len(a1Blocks), 200
			}, func() error {
				_, err := svc.Prompt(ctx, "nobody")
				return err
			}, 404},
			{"block.attach", loci.KindBlock, a2, func(t *testing.T) ([]string, int, int) {
				auditAMust(t, svc.AttachBlock(ctx, teamID, "a2"))
				return []string{teamID}, 1, 200
			}, func() error {
				return svc.AttachBlock(ctx, personaID, "a2") // not shared
			}, 400},
			// By the block's id: the entry names the block's owner.
			{"block.consumers", loci.KindBlock, a1, func(t *testing.T) ([]string, int, int) {
				links, err := svc.ListBlockConsumers(ctx, teamID)
				auditAMust(t, err)
				if len(links) != 1 {
					t.Fatalf("%d consumers, want 1", len(links))
				}
				return []string{teamID}, 1, 200
			}, func() error {
				_, err := svc.ListBlockConsumers(ctx, "no-such-block")
				return err
			}, 404},
			{"block.detach", loci.KindBlock, a2, func(t *testing.T) ([]string, int, int) {
				auditAMust(t, svc.DetachBlock(ctx, teamID, "a2"))
				return []string{teamID}, 1, 200
			}, func() error {
				return svc.DetachBlock(ctx, teamID, "a2") // no longer attached
			}, 404},
			{"passage.add", loci.KindPassage, a1, func(t *testing.T) ([]string, int, int) {
				p, err := svc.AddPassage(ctx, "a1", "golang tips for the team", []string{"go"})
				auditAMust(t, err)
				passageID = p.ID
				return []string{passageID}, 1, 201
			}, func() error {
				_, err := svc.AddPassage(ctx, "a1", "", nil)
				return err
			}, 400},
			{"passage.list", loci.KindPassage, a1, func(t *testing.T) ([]string, int, int) {
				_, total, err := svc.ListPassages(ctx, "a1", loci.PassageFilter{})
				auditAMust(t, err)
				return []string{passageID}, total, 200
			}, func() error {
				_, _, err := svc.ListPassages(ctx, "", loci.PassageFilter{})
				return err
			}, 400},
			{"passage.search", loci.KindPassage, a1, func(t *testing.T) ([]string, int, int) {
				res, err := svc.SearchPassages(ctx, "a1", "golang", loci.PassageFilter{})
				auditAMust(t, err)
				if len(res.Results) != 1 {
					t.Fatalf("%d results, want 1", len(res.Results))
				}
				return []string{passageID}, 1, 200
			}, func() error {
				_, err := svc.SearchPassages(ctx, "a1", " ", loci.PassageFilter{})
				return err
			}, 400},
			{"search", "", a1, func(t *testing.T) ([]string, int, int) {
				res, err := svc.Search(ctx, loci.SearchQuery{Query: "golang", AgentID: "a1"})
				auditAMust(t, err)
				if len(res.Results) != 1 || res.Results[0].ID != passageID {
					t.Fatalf("results %+v, want the passage", res.Results)
				}
				return []string{passageID}, 1, 200
			}, func() error {
				_, err := svc.Search(ctx, loci.SearchQuery{AgentID: "a1"})
				return err
			}, 400},
			{"memory.search", "", loci.Scope{AgentID: "a1", UserID: "u1"}, func(t *testing.T) ([]string, int, int) {
				res, err := svc.SearchAgentMemory(ctx, loci.AgentSearchQuery{Query: "golang", AgentID: "a1", UserID: "u1"})
				auditAMust(t, err)
				if len(res.Results) != 1 || res.Results[0].ID != passageID {
					t.Fatalf("results %+v, want the passage", res.Results)
				}
				return []string{passageID}, 1, 200
			}, func() error {
				_, err := svc.SearchAgentMemory(ctx, loci.AgentSearchQuery{Query: "golang", AgentID: "a1", Kinds: []loci.Kind{"bogus"}})
				return err
			}, 400},
			{"working.set", loci.KindWorking, loci.Scope{TaskID: "t1", AgentID: "a1", UserID: "u1"}, func(t *testing.T) ([]string, int, int) {
				_, created, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: "a1", UserID: "u1", Key: "step", Value: json.RawMessage(`1`)})
				auditAMust(t, err)
				if !created {
					t.Error("SetWorking of a new key: not created")
				}
				ids := recordIDs(t, loci.Scope{TaskID: "t1"})
				if len(ids) != 1 {
					t.Fatalf("task t1 holds %d records, want 1", len(ids))
				}
				workingID = ids[0]
				return ids, 1, 201
			}, func() error {
				_, _, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: "a1", Value: json.RawMessage(`1`)})
				return err
			}, 400},
			{"working.set", loci.KindWorking, loci.Scope{TaskID: "t1", AgentID: "a1", UserID: "u1"}, func(t *testing.T) ([]string, int, int) {
				_, created, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: "a1", UserID: "u1", Key: "step", Value: json.RawMessage(`2`)})
				auditAMust(t, err)
				if created {
					t.Error("SetWorking of a live key: created")
				}
				return []string{workingID}, 1, 200
			}, func() error {
				_, _, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t1", AgentID: "a1", Key: "step", Value: json.RawMessage(`{`)})
				return err
			}, 400},
			{"working.get", loci.KindWorking, loci.Scope{TaskID: "t1", AgentID: "a1"}, func(t *testing.T) ([]string, int, int) {
				_, err := svc.GetWorking(ctx, "t1", "step", loci.WorkingFilter{AgentID: "a1"})
				auditAMust(t, err)
				return []string{workingID}, 1, 200
			}, func() error {
				_, err := svc.GetWorking(ctx, "t1", "missing", loci.WorkingFilter{AgentID: "a1"})
				return err
			}, 404},
			{"working.get_all", loci.KindWorking, loci.Scope{TaskID: "t1", AgentID: "a1"}, func(t *testing.T) ([]string, int, int) {
				_, err := svc.ListWorking(ctx, "t1", loci.WorkingFilter{AgentID: "a1"})
				auditAMust(t, err)
				return []string{workingID}, 1, 200
			}, func() error {
				_, err := svc.ListWorking(ctx, "", loci.WorkingFilter{AgentID: "a1"})
				return err
			}, 400},
			{"user.list", "", loci.Scope{}, func(t *testing.T) ([]string, int, int) {
				_, total, err := svc.ListUsers(ctx, loci.UserFilter{})
				auditAMust(t, err)
				if total == 0 {
					t.Error("no users listed")
				}
				return nil, total, 200
			}, func() error {
				_, _, err := svc.ListUsers(ctx, loci.UserFilter{Limit: -1})
				return err
			}, 400},
			{"stats", "", a1, func(t *testing.T) ([]string, int, int) {
				st, err := svc.Stats(ctx, loci.StatsQuery{AgentID: "a1"})
				auditAMust(t, err)
				var ids []string
				for _, m := range st.Newest {
					ids = append(ids, m.ID)
				}
				if len(ids) == 0 || st.Total != len(a1Blocks)+2 {
					t.Errorf("stats: %d newest, total %d; want a1's %d records", len(ids), st.Total, len(a1Blocks)+2)
				}
				return ids, st.Total, 200
			}, func() error {
				_, err := svc.Stats(ctx, loci.StatsQuery{AgentID: "a1", Top: -1})
				return err
			}, 400},
			{"memory.list", "", a1, func(t *testing.T) ([]string, int, int) {
				mems, total, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: a1, Limit: 2})
				auditAMust(t, err)
				var ids []string
				for _, m := range mems {
					ids = append(ids, m.ID)
				}
				if len(ids) != 2 || total != len(a1Blocks)+2 {
					t.Errorf("memories: %d, total %d; want 2 of %d", len(ids), total, len(a1Blocks)+2)
				}
				return ids, total, 200
			}, func() error {
				_, _, err := svc.ListMemories(ctx, loci.MemoryQuery{Scope: a1, Kinds: []loci.Kind{"bogus"}})
				return err
			}, 400},
			{"working.clear", loci.KindWorking, loci.Scope{TaskID: "t1", AgentID: "a1"}, func(t *testing.T) ([]string, int, int) {
				n, err := svc.ClearWorking(ctx, "t1", loci.WorkingFilter{AgentID: "a1"})
				auditAMust(t, err)
				if n != 1 {
					t.Errorf("cleared %d, want 1", n)
				}
				return []string{workingID}, 1, 200
			}, func() error {
				_, err := svc.ClearWorking(ctx, "", loci.WorkingFilter{AgentID: "a1"})
				return err
			}, 400},
			{"passage.delete", loci.KindPassage, a1, func(t *testing.T) ([]string, int, int) {
				auditAMust(t, svc.DeletePassage(ctx, "a1", passageID))
				return []string{passageID}, 1, 200
			}, func() error {
				return svc.DeletePassage(ctx, "a1", passageID)
			}, 404},
			{"agent.list", "", loci.Scope{}, func(t *testing.T) ([]string, int, int) {
				_, total, err := svc.ListAgents(ctx, 1, 0)
				auditAMust(t, err)
				if total != 2 {
					t.Errorf("%d agents, want 2", total)
				}
				return []string{"a1"}, total, 200
			}, func() error {
				// It cannot fail on its arguments: a key bound to an agent.
				bound := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k-bound", Role: loci.RoleAdmin, AgentID: "a1", Workspace: loci.DefaultWorkspace})
				_, _, err := svc.ListAgents(bound, 0, 0)
				return err
			}, 403},
			{"agent.delete", "", a2, func(t *testing.T) ([]string, int, int) {
				auditAMust(t, svc.DeleteAgent(ctx, "a2"))
				if ids := recordIDs(t, a2); len(ids) != 0 {
					t.Errorf("a2 still holds %v", ids)
				}
				return a2Std, len(a2Std), 200
			}, func() error {
				return svc.DeleteAgent(ctx, "a2")
			}, 404},
		}
		for _, st := range steps {
			clock.Add(time.Second)
			ids, count, status := st.run(t)
			auditACheck(t, svc, st.op, st.kind, st.scope, status, ids, count, "k-admin")
			clock.Add(time.Second)
			err := st.fail()
			if got := loci.StatusOf(loci.ErrorCode(err)); err == nil || got != st.failStatus {
				t.Errorf("%s: failing call returned %v (status %d), want status %d", st.op, err, got, st.failStatus)
				continue
			}
			e := auditAEntry(t, svc, st.op)
			if e.Status != st.failStatus || len(e.RecordIDs) != 0 || e.Count != 0 {
				t.Errorf("%s: failure entry status %d ids %v count %d, want status %d and no ids", st.op, e.Status, e.RecordIDs, e.Count, st.failStatus)
			}
		}
	})
}

// TestAuditBindingA: a key bound to an agent is refused, and the refusal
// audited with its status and no ids, by each binding: an operation that
// names an agent must name the key's; the block consumers name a block,
// whose owner the rule checks; an operation that spans agents refuses
// every bound key.
func TestAuditBindingA(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc, clock := newService(t, open)
		ctx := context.Background()
		bound := func(agent string) context.Context {
			return loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k-" + agent, Role: loci.RoleAdmin, AgentID: agent, Workspace: loci.DefaultWorkspace})
		}
		team, err := svc.CreateBlock(ctx, "a1", loci.BlockSpec{Label: "team", Content: "shared"}, true)
		auditAMust(t, err)
		auditAMust(t, svc.AttachBlock(ctx, team.ID, "a2"))

		tests := []struct {
			name  string
			op    string
			kind  loci.Kind
			scope loci.Scope
			key   string
			call  func() error
			want  int // the status; 200: allowed
			ids   []string
			count int
		}{
			{"NamedOwn", "block.get", loci.KindBlock, loci.Scope{AgentID: "a1"}, "k-a1", func() error {
				_, err := svc.GetBlock(bound("a1"), "a1", "team")
				return err
			}, 200, []string{team.ID}, 1},
			{"ErrNamedOther", "block.get", loci.KindBlock, loci.Scope{AgentID: "a1"}, "k-a2", func() error {
				_, err := svc.GetBlock(bound("a2"), "a1", "team")
				return err
			}, 403, nil, 0},
			{"ErrNamedNone", "working.get_all", loci.KindWorking, loci.Scope{TaskID: "t1"}, "k-a1", func() error {
				_, err := svc.ListWorking(bound("a1"), "t1", loci.WorkingFilter{})
				return err
			}, 403, nil, 0},
			{"ErrSearchNamedNone", "search", "", loci.Scope{}, "k-a1", func() error {
				_, err := svc.Search(bound("a1"), loci.SearchQuery{Query: "shared"})
				return err
			}, 403, nil, 0},
			{"ErrStatsOther", "stats", "", loci.Scope{AgentID: "a2"}, "k-a1", func() error {
				_, err := svc.Stats(bound("a1"), loci.StatsQuery{AgentID: "a2"})
				return err
			}, 403, nil, 0},
			{"FreeOwner", "block.consumers", loci.KindBlock, loci.Scope{AgentID: "a1"}, "k-a1", func() error {
				_, err := svc.ListBlockConsumers(bound("a1"), team.ID)
				return err
			}, 200, []string{team.ID}, 1},
			{"ErrFreeNotOwner", "block.consumers", loci.KindBlock, loci.Scope{}, "k-a2", func() error {
				_, err := svc.ListBlockConsumers(bound("a2"), team.ID)
				return err
			}, 403, nil, 0},
			{"ErrDenyAttach", "block.attach", loci.KindBlock, loci.Scope{AgentID: "a1"}, "k-a1", func() error {
				return svc.AttachBlock(bound("a1"), team.ID, "a1")
			}, 403, nil, 0},
			{"ErrDenyCreateAgent", "agent.create", "", loci.Scope{AgentID: "a1"}, "k-a1", func() error {
				_, _, err := svc.CreateAgent(bound("a1"), loci.AgentCreate{ID: "a1"})
				return err
			}, 403, nil, 0},
			{"ErrDenyUsers", "user.list", "", loci.Scope{}, "k-a1", func() error {
				_, _, err := svc.ListUsers(bound("a1"), loci.UserFilter{})
				return err
			}, 403, nil, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clock.Add(time.Second)
				err := tt.call()
				if got := loci.StatusOf(loci.ErrorCode(err)); got != tt.want {
					t.Fatalf("status %d (%v), want %d", got, err, tt.want)
				}
				auditACheck(t, svc, tt.op, tt.kind, tt.scope, tt.want, tt.ids, tt.count, tt.key)
			})
		}
		// Nothing was changed by the refusals.
		links, err := svc.ListBlockConsumers(ctx, team.ID)
		if err != nil || len(links) != 1 || links[0].AgentID != "a2" {
			t.Errorf("consumers %v, %v; want a2 alone", links, err)
		}
	})
}

// TestAuditRetried: a write run twice by the retry policy (its first
// attempt rolled back) leaves one entry, with the ids and status of the
// attempt that committed.
func TestAuditRetried(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		raw := open(t)
		plain := rules.New(raw)
		rs := &replayStore{Store: raw}
		svc := rules.New(retry.New(rs, 0, retry.WithLogger(quiet),
			retry.WithSleep(func(context.Context, time.Duration) error { return nil })))
		count := func(op string) int {
			t.Helper()
			_, n, err := plain.FindAudit(ctx, loci.AuditFilter{Operation: op})
			auditAMust(t, err)
			return n
		}

		// Each attempt makes a new id: the entry has the stored one.
		p, err := svc.AddPassage(replayed(ctx), "a1", "retried passage", nil)
		auditAMust(t, err)
		if n := count("passage.add"); n != 1 {
			t.Fatalf("%d passage.add entries, want 1", n)
		}
		auditACheck(t, plain, "passage.add", loci.KindPassage, loci.Scope{AgentID: "a1"}, 201, append([]string{p.ID}, blockIDsA(t, plain, "a1", p.ID)...), len(loci.StandardBlockLabels)+1, "")

		// Another writer creates the block between the attempts: the
		// retry updates it, and the entry says so (200, not 201).
		rs.between = func() {
			if _, _, err := plain.SetBlock(ctx, "a1", "notes", loci.BlockWrite{Content: "first"}); err != nil {
				t.Error(err)
			}
		}
		b, created, err := svc.SetBlock(replayed(ctx), "a1", "notes", loci.BlockWrite{Content: "second"})
		auditAMust(t, err)
		if created {
			t.Error("created kept from the rolled back attempt")
		}
		auditACheck(t, plain, "block.put", loci.KindBlock, loci.Scope{AgentID: "a1"}, 200, []string{b.ID}, 1, "")
		if n := count("block.put"); n != 2 { // the other writer's and this one
			t.Errorf("%d block.put entries, want 2", n)
		}
	})
}

// blockIDsA returns the ids of the agent's records other than skip.
func blockIDsA(t *testing.T, svc *rules.Service, agent, skip string) []string {
	t.Helper()
	mems, _, err := svc.ListMemories(context.Background(), loci.MemoryQuery{Scope: loci.Scope{AgentID: agent}})
	auditAMust(t, err)
	var ids []string
	for _, m := range mems {
		if m.ID != skip {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
