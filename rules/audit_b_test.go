package rules_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// auditWant is what an operation's audit entry must say.
type auditWant struct {
	scope  loci.Scope
	kind   loci.Kind
	status int
	ids    []string
	count  int
	dryRun bool
}

// lastAudit returns the newest audit entry of op.
func lastAudit(t *testing.T, svc *rules.Service, ctx context.Context, op string) *loci.AuditEntry {
	t.Helper()
	entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{Operation: op, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatalf("no audit entry for %s", op)
	}
	return entries[0]
}

// checkAudit checks the newest entry of op against want, and that the key
// of keyID made the call through the library.
func checkAudit(t *testing.T, svc *rules.Service, ctx context.Context, op, keyID string, want auditWant) {
	t.Helper()
	e := lastAudit(t, svc, ctx, op)
	ids := slices.Sorted(slices.Values(e.RecordIDs))
	wantIDs := slices.Sorted(slices.Values(want.ids))
	if wantIDs == nil {
		wantIDs = []string{}
	}
	if e.Operation != op || e.Scope != want.scope || e.Kind != want.kind || e.Status != want.status ||
		!slices.Equal(ids, wantIDs) || e.Count != want.count || e.DryRun != want.dryRun ||
		e.KeyID != keyID || e.Via != loci.ViaLibrary {
		t.Errorf("audit entry of %s:\n got  op=%s scope=%+v kind=%q status=%d ids=%v count=%d dry_run=%v key=%s via=%s\n want scope=%+v kind=%q status=%d ids=%v count=%d dry_run=%v key=%s via=%s",
			op, e.Operation, e.Scope, e.Kind, e.Status, ids, e.Count, e.DryRun, e.KeyID, e.Via,
			want.scope, want.kind, want.status, wantIDs, want.count, want.dryRun, keyID, loci.ViaLibrary)
	}
}

// TestAuditOpsB: each operation of episodes, facts, the review queue and
// maintenance audits itself: its name, the scope it names, its kind, the
// ids of the records it touched and their count; a failing call is
// audited with its status and no ids; a key bound to an agent is refused
// (and audited) by each binding.
func TestAuditOpsB(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		clock := loci.NewFakeClock(t0)
		svc := rules.New(open(t), rules.WithClock(clock), rules.WithEpisodeCap(2), rules.WithEpisodeTTL(24*time.Hour))
		t.Cleanup(func() { svc.FlushAudit(context.Background()) }) // before the store closes
		ctx := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "kb", Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace})
		conf := 0.9
		episode := func(desc string) *loci.Episode {
			t.Helper()
			ep, err := svc.RecordEpisode(ctx, loci.EpisodeInput{
				UserID: "u1", AgentID: "a1", ActionType: "deploy", ActionDescription: desc,
				Outcome: loci.OutcomeSuccess, ConfidenceScore: &conf,
			})
			if err != nil {
				t.Fatal(err)
			}
			return ep
		}
		e1 := episode("deployed the billing service")
		clock.Add(time.Minute)
		e2 := episode("deployed the search service")
		clock.Add(time.Minute)
		ua := loci.Scope{UserID: "u1", AgentID: "a1"}
		var e3 *loci.Episode
		var f0, f1, f2 *loci.Fact
		storeFact := func(text string, validAt time.Time) (*loci.Fact, error) {
			return svc.StoreFact(ctx, loci.FactInput{
				UserID: "u1", AgentID: "a1", Category: loci.CategoryGeneralFact, Fact: text, Key: "city", ValidAt: validAt,
			})
		}

		cases := []struct {
			op   string
			run  func(t *testing.T) auditWant // a call that succeeds
			fail func() error                 // a call that fails
			code string                       // fail's error code
		}{
			{
				op: "episode.record",
				run: func(t *testing.T) auditWant {
					var err error
					// The cap is 2: the oldest is evicted.
					if e3, err = svc.RecordEpisode(ctx, loci.EpisodeInput{
						UserID: "u1", AgentID: "a1", ActionType: "deploy", ActionDescription: "deployed the mail service",
						Outcome: loci.OutcomeSuccess, ConfidenceScore: &conf,
					}); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 201, ids: []string{e3.ID, e1.ID}, count: 2}
				},
				fail: func() error {
					_, err := svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u1", AgentID: "a1", ActionType: "x", ActionDescription: "y", Outcome: "bogus"})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "episode.search",
				run: func(t *testing.T) auditWant {
					res, err := svc.SearchEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a1", Query: "deployed service"})
					if err != nil {
						t.Fatal(err)
					}
					var ids []string
					for _, r := range res.Results {
						ids = append(ids, r.ID)
					}
					if len(ids) != 2 {
						t.Fatalf("search found %d episodes, want 2", len(ids))
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 200, ids: ids, count: 2}
				},
				fail: func() error {
					_, err := svc.SearchEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a1", Query: "  "})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "episode.list",
				run: func(t *testing.T) auditWant {
					eps, total, err := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a1", Limit: 1})
					if err != nil || len(eps) != 1 || total != 2 || eps[0].ID != e3.ID {
						t.Fatalf("recent = %v, %d, %v; want e3 of 2", eps, total, err)
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 200, ids: []string{e3.ID}, count: 2}
				},
				fail: func() error {
					_, _, err := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: "u1", AgentID: "a1", Outcome: "bogus"})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "episode.feedback",
				run: func(t *testing.T) auditWant {
					if _, err := svc.AddEpisodeFeedback(ctx, e3.ID, loci.EpisodeFeedback{Comment: "good"}); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 200, ids: []string{e3.ID}, count: 1}
				},
				fail: func() error {
					_, err := svc.AddEpisodeFeedback(ctx, e1.ID, loci.EpisodeFeedback{Comment: "gone"})
					return err
				},
				code: loci.ENOTFOUND,
			},
			{
				op: "episode.get",
				run: func(t *testing.T) auditWant {
					if _, err := svc.GetEpisode(ctx, e3.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 200, ids: []string{e3.ID}, count: 1}
				},
				fail: func() error { _, err := svc.GetEpisode(ctx, e1.ID); return err },
				code: loci.ENOTFOUND,
			},
			{
				op: "episode.delete",
				run: func(t *testing.T) auditWant {
					if err := svc.DeleteEpisode(ctx, e2.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindEpisode, status: 200, ids: []string{e2.ID}, count: 1}
				},
				fail: func() error { return svc.DeleteEpisode(ctx, e2.ID) },
				code: loci.ENOTFOUND,
			},
			{
				op: "fact.add",
				run: func(t *testing.T) auditWant {
					var err error
					if f1, err = storeFact("lives in Paris", time.Time{}); err != nil {
						t.Fatal(err)
					}
					clock.Add(time.Hour)
					// A new version supersedes f1.
					if f2, err = storeFact("lives in Lyon", time.Time{}); err != nil {
						t.Fatal(err)
					}
					if f2.Supersedes != f1.ID {
						t.Fatalf("f2 supersedes %q, want f1", f2.Supersedes)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 201, ids: []string{f2.ID, f1.ID}, count: 2}
				},
				fail: func() error {
					_, err := svc.StoreFact(ctx, loci.FactInput{UserID: "u1", Category: "Bogus!", Fact: "x"})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "fact.add",
				run: func(t *testing.T) auditWant {
					// An older version ends where f1 begins: f1 changes too.
					var err error
					if f0, err = storeFact("lives in Rome", t0.Add(-24*time.Hour)); err != nil {
						t.Fatal(err)
					}
					if f0.SupersededBy != f1.ID {
						t.Fatalf("f0 superseded by %q, want f1", f0.SupersededBy)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 201, ids: []string{f0.ID, f1.ID}, count: 2}
				},
				fail: func() error { _, err := storeFact("", time.Time{}); return err },
				code: loci.EINVALID,
			},
			{
				op: "fact.search",
				run: func(t *testing.T) auditWant {
					res, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "u1", Query: "Lyon"})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Results) != 1 || res.Results[0].ID != f2.ID || res.Results[0].AccessCount != 1 {
						t.Fatalf("search = %+v; want f2, accessed once", res.Results)
					}
					return auditWant{scope: loci.Scope{UserID: "u1"}, kind: loci.KindFact, status: 200, ids: []string{f2.ID}, count: 1}
				},
				fail: func() error {
					_, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "u1", Query: "Lyon", Status: "bogus"})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "fact.list",
				run: func(t *testing.T) auditWant {
					facts, total, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u1", IncludeHistory: true, Limit: 1})
					if err != nil || len(facts) != 1 || total != 3 {
						t.Fatalf("list = %v, %d, %v; want 1 of 3", facts, total, err)
					}
					return auditWant{scope: loci.Scope{UserID: "u1"}, kind: loci.KindFact, status: 200, ids: []string{facts[0].ID}, count: 3}
				},
				fail: func() error {
					_, _, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u1", Limit: -1})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "fact.validate",
				run: func(t *testing.T) auditWant {
					if _, err := svc.ValidateFact(ctx, f2.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f2.ID}, count: 1}
				},
				fail: func() error { _, err := svc.ValidateFact(ctx, "no-such-fact"); return err },
				code: loci.ENOTFOUND,
			},
			{
				op: "fact.contradict",
				run: func(t *testing.T) auditWant {
					if _, err := svc.ContradictFact(ctx, f2.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f2.ID}, count: 1}
				},
				// History does not change.
				fail: func() error { _, err := svc.ContradictFact(ctx, f1.ID); return err },
				code: loci.ECONFLICT,
			},
			{
				op: "user.review",
				run: func(t *testing.T) auditWant {
					items, total, err := svc.ReviewQueue(ctx, loci.ReviewQuery{UserID: "u1"})
					if err != nil || total != 1 || len(items) != 1 || items[0].Fact == nil || items[0].Fact.ID != f2.ID {
						t.Fatalf("review = %v, %d, %v; want f2", items, total, err)
					}
					return auditWant{scope: loci.Scope{UserID: "u1"}, status: 200, ids: []string{f2.ID}, count: 1}
				},
				fail: func() error { _, _, err := svc.ReviewQueue(ctx, loci.ReviewQuery{}); return err },
				code: loci.EINVALID,
			},
			{
				op: "fact.resolve",
				run: func(t *testing.T) auditWant {
					if _, err := svc.ResolveFact(ctx, f2.ID, true); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f2.ID}, count: 1}
				},
				fail: func() error { _, err := svc.ResolveFact(ctx, f2.ID, true); return err },
				code: loci.ECONFLICT,
			},
			{
				op: "fact.get",
				run: func(t *testing.T) auditWant {
					if _, err := svc.GetFact(ctx, f1.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f1.ID}, count: 1}
				},
				fail: func() error { _, err := svc.GetFact(ctx, e3.ID); return err }, // an episode
				code: loci.ENOTFOUND,
			},
			{
				op: "fact.history",
				run: func(t *testing.T) auditWant {
					if _, err := svc.FactHistory(ctx, f2.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f0.ID, f1.ID, f2.ID}, count: 3}
				},
				fail: func() error { _, err := svc.FactHistory(ctx, ""); return err },
				code: loci.EINVALID,
			},
			{
				op: "fact.invalidate",
				run: func(t *testing.T) auditWant {
					if _, err := svc.InvalidateFact(ctx, f2.ID, time.Time{}); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f2.ID}, count: 1}
				},
				fail: func() error { _, err := svc.InvalidateFact(ctx, f2.ID, time.Time{}); return err },
				code: loci.ECONFLICT,
			},
			{
				op: "fact.delete",
				run: func(t *testing.T) auditWant {
					// Its neighbours stop naming it: both change.
					if err := svc.DeleteFact(ctx, f1.ID); err != nil {
						t.Fatal(err)
					}
					return auditWant{scope: ua, kind: loci.KindFact, status: 200, ids: []string{f1.ID, f0.ID, f2.ID}, count: 3}
				},
				fail: func() error { return svc.DeleteFact(ctx, f1.ID) },
				code: loci.ENOTFOUND,
			},
			{
				op: "maintenance",
				run: func(t *testing.T) auditWant {
					clock.Add(48 * time.Hour) // e3 expires
					rep, err := svc.Maintain(ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainExpire}, DryRun: true})
					if err != nil {
						t.Fatal(err)
					}
					if ids := rep.Tasks[loci.MaintainExpire].IDs; !slices.Equal(ids, []string{e3.ID}) {
						t.Fatalf("dry run would expire %v, want e3", ids)
					}
					return auditWant{status: 200, ids: []string{e3.ID}, count: 1, dryRun: true}
				},
				fail: func() error {
					_, err := svc.Maintain(ctx, loci.MaintenanceRequest{Tasks: []string{"bogus"}})
					return err
				},
				code: loci.EINVALID,
			},
			{
				op: "maintenance",
				run: func(t *testing.T) auditWant {
					// The dry run changed nothing: the run expires e3.
					rep, err := svc.Maintain(ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainExpire}})
					if err != nil {
						t.Fatal(err)
					}
					if ids := rep.Tasks[loci.MaintainExpire].IDs; !slices.Equal(ids, []string{e3.ID}) {
						t.Fatalf("run expired %v, want e3", ids)
					}
					return auditWant{status: 200, ids: []string{e3.ID}, count: 1}
				},
				fail: func() error {
					_, err := svc.Maintain(ctx, loci.MaintenanceRequest{Tasks: []string{loci.MaintainExpire, ""}})
					return err
				},
				code: loci.EINVALID,
			},
		}
		for _, c := range cases {
			want := c.run(t)
			checkAudit(t, svc, ctx, c.op, "kb", want)
			err := c.fail()
			if loci.ErrorCode(err) != c.code {
				t.Fatalf("%s: failing call: %v, want %s", c.op, err, c.code)
			}
			e := lastAudit(t, svc, ctx, c.op)
			if e.Status != loci.StatusOf(c.code) || len(e.RecordIDs) != 0 || e.Count != 0 || e.KeyID != "kb" {
				t.Errorf("%s: failure audited as status %d ids %v count %d key %s; want %d, none",
					c.op, e.Status, e.RecordIDs, e.Count, e.KeyID, loci.StatusOf(c.code))
			}
		}
	})
}

// TestAuditBindingB: a key bound to agent a1 is refused, and the refusal
// audited with no ids, what each binding forbids; nothing changes.
func TestAuditBindingB(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		svc := rules.New(open(t))
		t.Cleanup(func() { svc.FlushAudit(context.Background()) })
		admin := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "ka", Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace})
		bound := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "kbound", Role: loci.RoleAdmin, AgentID: "a1", Workspace: loci.DefaultWorkspace})
		ep, err := svc.RecordEpisode(admin, loci.EpisodeInput{UserID: "u1", AgentID: "a1", ActionType: "x", ActionDescription: "y", Outcome: loci.OutcomeSuccess})
		if err != nil {
			t.Fatal(err)
		}
		// Allowed: a bound key names its own agent (loci.AgentNamed), or none
		// where the operation holds no agent's memory (loci.AgentFree).
		if _, err := svc.RecordEpisode(bound, loci.EpisodeInput{UserID: "u1", AgentID: "a1", ActionType: "x", ActionDescription: "z", Outcome: loci.OutcomeSuccess}); err != nil {
			t.Fatalf("a bound key records its own agent's episode: %v", err)
		}
		if _, err := svc.StoreFact(bound, loci.FactInput{UserID: "u1", Category: loci.CategoryGeneralFact, Fact: "global enough"}); err != nil {
			t.Fatalf("a bound key stores a fact naming no agent: %v", err)
		}
		refusals := []struct {
			op   string
			call func() error
		}{
			{"episode.record", func() error { // loci.AgentNamed: another agent
				_, err := svc.RecordEpisode(bound, loci.EpisodeInput{UserID: "u1", AgentID: "a2", ActionType: "x", ActionDescription: "y", Outcome: loci.OutcomeSuccess})
				return err
			}},
			{"episode.list", func() error { // loci.AgentNamed: no agent
				_, _, err := svc.RecentEpisodes(bound, loci.EpisodeQuery{UserID: "u1"})
				return err
			}},
			{"fact.add", func() error { // loci.AgentFree: another agent
				_, err := svc.StoreFact(bound, loci.FactInput{UserID: "u1", AgentID: "a2", Category: loci.CategoryGeneralFact, Fact: "f"})
				return err
			}},
			{"episode.delete", func() error { return svc.DeleteEpisode(bound, ep.ID) }}, // loci.AgentDeny
			{"maintenance", func() error { // loci.AgentDeny
				_, err := svc.Maintain(bound, loci.MaintenanceRequest{DryRun: true})
				return err
			}},
		}
		for _, r := range refusals {
			if err := r.call(); loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Fatalf("%s with a bound key: %v, want EFORBIDDEN", r.op, err)
			}
			e := lastAudit(t, svc, admin, r.op)
			// A refused dry run is still a dry run.
			if e.Status != 403 || len(e.RecordIDs) != 0 || e.Count != 0 || e.KeyID != "kbound" || e.DryRun != (r.op == "maintenance") {
				t.Errorf("%s refusal audited as %+v", r.op, e)
			}
		}
		// Nothing changed: a2 has no episode, u1 no fact of a2, ep is there.
		if eps, n, err := svc.RecentEpisodes(admin, loci.EpisodeQuery{UserID: "u1", AgentID: "a2"}); err != nil || n != 0 {
			t.Errorf("a2's episodes = %v, %d, %v; want none", eps, n, err)
		}
		facts, n, err := svc.FactsByKeyword(admin, loci.FactQuery{UserID: "u1"})
		if err != nil || n != 1 || facts[0].AgentID != "" {
			t.Errorf("u1's facts = %v, %d, %v; want the one naming no agent", facts, n, err)
		}
		if _, err := svc.GetEpisode(admin, ep.ID); err != nil {
			t.Errorf("the episode a bound key could not delete: %v", err)
		}
	})
}

// updateCounter counts a store's read-write transactions.
type updateCounter struct {
	loci.Store
	updates int
}

func (s *updateCounter) Update(ctx context.Context, fn func(loci.Tx) error) error {
	s.updates++
	return s.Store.Update(ctx, fn)
}

// TestAuditInTransactionB: a write of episodes, facts or maintenance
// (SearchFacts and FactsByKeyword write: they bump access counts) runs one
// read-write transaction, its audit entry included: nothing is left
// queued to write afterwards.
func TestAuditInTransactionB(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		st := &updateCounter{Store: open(t)}
		svc := rules.New(st)
		t.Cleanup(func() { svc.FlushAudit(ctx) })
		var ep *loci.Episode
		var fact *loci.Fact
		writes := []struct {
			op string
			do func() error
		}{
			{"episode.record", func() (err error) {
				ep, err = svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "x", ActionDescription: "y", Outcome: loci.OutcomeSuccess})
				return err
			}},
			{"episode.feedback", func() error {
				_, err := svc.AddEpisodeFeedback(ctx, ep.ID, loci.EpisodeFeedback{Comment: "ok"})
				return err
			}},
			{"fact.add", func() (err error) {
				fact, err = svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "likes tea", Key: "drink"})
				return err
			}},
			{"fact.search", func() error {
				_, err := svc.SearchFacts(ctx, loci.FactQuery{UserID: "u", Query: "tea"})
				return err
			}},
			{"fact.list", func() error { _, _, err := svc.FactsByKeyword(ctx, loci.FactQuery{UserID: "u"}); return err }},
			{"fact.contradict", func() error { _, err := svc.ContradictFact(ctx, fact.ID); return err }},
			{"fact.delete", func() error { return svc.DeleteFact(ctx, fact.ID) }},
			{"maintenance", func() error { _, err := svc.Maintain(ctx, loci.MaintenanceRequest{}); return err }},
			{"episode.delete", func() error { return svc.DeleteEpisode(ctx, ep.ID) }},
		}
		for _, w := range writes {
			if err := svc.FlushAudit(ctx); err != nil {
				t.Fatal(err)
			}
			before := st.updates
			if err := w.do(); err != nil {
				t.Fatalf("%s: %v", w.op, err)
			}
			if err := svc.FlushAudit(ctx); err != nil {
				t.Fatal(err)
			}
			if n := st.updates - before; n != 1 {
				t.Errorf("%s ran %d read-write transactions with its audit entry, want 1", w.op, n)
			}
			if e := lastAudit(t, svc, ctx, w.op); e.Status >= 300 || e.Count == 0 && w.op != "maintenance" {
				t.Errorf("%s audited as %+v", w.op, e)
			}
		}
	})
}
