package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// The audit entries of preferences, sessions, user memory, keys, export,
// import and reindex: each operation, called through the service with a
// principal in its context, leaves one entry naming the operation, its scope
// and kind, its outcome and the exact ids it touched.

// auditCEnv is one case's fresh store and service.
type auditCEnv struct {
	store loci.Store
	svc   *rules.Service
	// bg is a trusted context (no principal): what the case sets up is
	// audited under no key, apart from the call under test.
	bg context.Context
}

// ids returns the ids of the records f selects in the default workspace.
func (e *auditCEnv) ids(t *testing.T, f loci.RecordFilter) []string {
	t.Helper()
	f.Workspace = loci.DefaultWorkspace
	var out []string
	err := e.store.View(e.bg, func(tx loci.Tx) error {
		recs, err := tx.FindRecords(e.bg, f)
		out = out[:0]
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *auditCEnv) must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// observe stores a preference (explicit unless source says otherwise).
func (e *auditCEnv) observe(t *testing.T, user, typ, session, source string) {
	t.Helper()
	if source == "" {
		source = loci.SourceExplicit
	}
	_, _, err := e.svc.ObservePreference(e.bg, loci.PreferenceInput{UserID: user, Type: typ, Value: json.RawMessage(`"v"`), Source: source, SessionID: session})
	e.must(t, err)
}

// putSession stores a session of user with messages.
func (e *auditCEnv) putSession(t *testing.T, id, user string, persistent bool, msgs ...string) {
	t.Helper()
	p := loci.SessionPut{UserID: user, Summary: "a chat", IsPersistent: persistent}
	for _, m := range msgs {
		p.Messages = append(p.Messages, loci.Message{Role: "user", Content: m})
	}
	_, _, err := e.svc.PutSession(e.bg, id, p)
	e.must(t, err)
}

func (e *auditCEnv) prefIDs(t *testing.T, user string) []string {
	return e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}, UserID: &user})
}

func (e *auditCEnv) sessionIDs(t *testing.T, session string) []string {
	return e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindSession}, SessionID: &session})
}

// auditCEntry returns the one entry audited under key keyID.
func auditCEntry(t *testing.T, e *auditCEnv, keyID string) *loci.AuditEntry {
	t.Helper()
	entries, _, err := e.svc.FindAudit(e.bg, loci.AuditFilter{KeyID: keyID})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		ops := []string{}
		for _, x := range entries {
			ops = append(ops, x.Operation)
		}
		t.Fatalf("%d entries under key %s (%v), want 1", len(entries), keyID, ops)
	}
	return entries[0]
}

func auditCSorted(ids []string) []string {
	out := append([]string{}, ids...)
	slices.Sort(out)
	return out
}

// auditCFailWriter takes n writes, then fails.
type auditCFailWriter struct{ n int }

func (w *auditCFailWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("the client went away")
	}
	w.n--
	return len(p), nil
}

func TestAuditGroupC(t *testing.T) {
	sess := func(id string) loci.Scope { return loci.Scope{SessionID: id} }
	user := func(id string) loci.Scope { return loci.Scope{UserID: id} }
	tests := []struct {
		name   string
		op     string
		kind   loci.Kind
		scope  loci.Scope
		status int
		dry    bool
		opts   []rules.Option
		// run sets up with e.bg, calls the operation with ctx and returns
		// the ids its entry must hold and its count (-1: as many as ids).
		run func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int)
	}{
		{"ObserveCreates", "preference.observe", loci.KindPreference, user("u1"), 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				_, created, err := e.svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u1", Type: "tone", Value: json.RawMessage(`"dry"`), Source: loci.SourceImplicit})
				e.must(t, err)
				if !created {
					t.Error("not created")
				}
				return e.prefIDs(t, "u1"), -1
			}},
		{"ObserveUpdates", "preference.observe", loci.KindPreference, loci.Scope{UserID: "u1", SessionID: "s1"}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "s1", loci.SourceDecision)
				e.observe(t, "u1", "other", "", "")
				_, _, err := e.svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u1", Type: "tone", Value: json.RawMessage(`"v"`), Source: loci.SourceDecision, SessionID: "s1"})
				e.must(t, err)
				s1 := "s1"
				return e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}, SessionID: &s1}), -1
			}},
		{"List", "preference.list", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "lang", "", "")
				e.observe(t, "u2", "tone", "", "")
				prefs, err := e.svc.ListPreferences(ctx, "u1", "")
				e.must(t, err)
				if len(prefs) != 2 {
					t.Errorf("%d preferences, want 2", len(prefs))
				}
				return e.prefIDs(t, "u1"), -1
			}},
		{"Use", "preference.use", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", loci.SourceImplicit)
				e.observe(t, "u1", "lang", "", "")
				_, err := e.svc.UsePreference(ctx, "u1", "tone", "")
				e.must(t, err)
				typ := "tone"
				return e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}, Key: &typ}), -1
			}},
		{"Confirm", "preference.confirm", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", loci.SourceImplicit)
				_, err := e.svc.ConfirmPreference(ctx, "u1", "tone", "")
				e.must(t, err)
				return e.prefIDs(t, "u1"), -1
			}},
		{"Contradict", "preference.contradict", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				_, err := e.svc.ContradictPreference(ctx, "u1", "tone", "", loci.SourceExplicit)
				e.must(t, err)
				return e.prefIDs(t, "u1"), -1
			}},
		{"ResolveKeep", "preference.resolve", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				_, err := e.svc.ContradictPreference(e.bg, "u1", "tone", "", loci.SourceExplicit)
				e.must(t, err)
				_, err = e.svc.ResolvePreference(ctx, "u1", "tone", "", true)
				e.must(t, err)
				return e.prefIDs(t, "u1"), -1
			}},
		{"ResolveForget", "preference.resolve", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				_, err := e.svc.ContradictPreference(e.bg, "u1", "tone", "", loci.SourceExplicit)
				e.must(t, err)
				want := e.prefIDs(t, "u1")
				_, err = e.svc.ResolvePreference(ctx, "u1", "tone", "", false)
				e.must(t, err)
				if left := e.prefIDs(t, "u1"); len(left) != 0 {
					t.Errorf("left %v", left)
				}
				return want, -1
			}},
		{"Clear", "preference.clear", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "lang", "", "")
				e.observe(t, "u2", "lang", "", "")
				want := e.prefIDs(t, "u1")
				n, err := e.svc.ClearPreferences(ctx, "u1")
				e.must(t, err)
				if n != 2 {
					t.Errorf("deleted %d, want 2", n)
				}
				return want, 2
			}},
		{"DeleteType", "preference.forget", loci.KindPreference, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "tone", "s1", loci.SourceDecision)
				e.observe(t, "u1", "lang", "", "")
				typ, u1 := "tone", "u1"
				want := e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}, UserID: &u1, Key: &typ})
				_, err := e.svc.DeletePreference(ctx, "u1", "tone")
				e.must(t, err)
				return want, 2
			}},
		{"PutSessionCreates", "session.put", loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s1"}, 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				_, created, err := e.svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u1", Messages: []loci.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}})
				e.must(t, err)
				if !created {
					t.Error("not created")
				}
				return e.sessionIDs(t, "s1"), 3
			}},
		{"PutSessionReplaces", "session.put", loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s1"}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "one", "two")
				old := e.sessionIDs(t, "s1")
				_, _, err := e.svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u1", Messages: []loci.Message{{Role: "user", Content: "three"}}})
				e.must(t, err)
				// The session, the two messages replaced, the new one.
				now := e.sessionIDs(t, "s1")
				want := old
				for _, id := range now {
					if !slices.Contains(old, id) {
						want = append(want, id)
					}
				}
				return want, 4
			}},
		{"Append", "session.append", loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s1"}, 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "one")
				before := e.sessionIDs(t, "s1")
				_, err := e.svc.AppendSessionMessage(ctx, "s1", loci.Message{Role: "user", Content: "two"})
				e.must(t, err)
				var want []string
				for _, id := range e.sessionIDs(t, "s1") {
					if !slices.Contains(before, id) {
						want = append(want, id) // the message
					}
				}
				cat, s1 := "session", "s1"
				return append(want, e.ids(t, loci.RecordFilter{Key: &s1, Category: &cat})...), 2
			}},
		{"GetSession", "session.get", loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s1"}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "one", "two")
				e.putSession(t, "s2", "u1", false, "three")
				got, err := e.svc.GetSession(ctx, "s1")
				e.must(t, err)
				if len(got.Messages) != 2 {
					t.Errorf("%d messages", len(got.Messages))
				}
				return e.sessionIDs(t, "s1"), 3
			}},
		{"DeleteSession", "session.delete", loci.KindSession, loci.Scope{UserID: "u1", SessionID: "s1"}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "one", "two")
				e.putSession(t, "s2", "u1", false, "three")
				want := e.sessionIDs(t, "s1")
				existed, err := e.svc.DeleteSession(ctx, "s1")
				e.must(t, err)
				if !existed {
					t.Error("not deleted")
				}
				return want, 3
			}},
		{"DeleteSessionAbsent", "session.delete", loci.KindSession, sess("s9"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				existed, err := e.svc.DeleteSession(ctx, "s9")
				e.must(t, err)
				if existed {
					t.Error("deleted what was not there")
				}
				return nil, 0
			}},
		{"ListSessions", "session.list", loci.KindSession, user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "one")
				e.putSession(t, "s2", "u1", false)
				got, total, err := e.svc.ListUserSessions(ctx, "u1", 1, 0)
				e.must(t, err)
				if len(got) != 1 || total != 2 {
					t.Fatalf("%d sessions of %d", len(got), total)
				}
				// One page of one; the count is the total.
				cat, key := "session", got[0].SessionID
				return e.ids(t, loci.RecordFilter{Key: &key, Category: &cat}), 2
			}},
		{"UserContext", "user.context", "", user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "pick", "s1", loci.SourceDecision) // a session's, not applied
				e.putSession(t, "s1", "u1", true, "one")
				got, err := e.svc.UserContext(ctx, "u1")
				e.must(t, err)
				if len(got.Preferences) != 1 || len(got.Sessions) != 1 || !got.Created {
					t.Fatalf("context %+v", got)
				}
				tone, cat, s1 := "tone", "session", "s1"
				want := e.ids(t, loci.RecordFilter{Kinds: []loci.Kind{loci.KindPreference}, Key: &tone})
				return append(want, e.ids(t, loci.RecordFilter{Key: &s1, Category: &cat})...), -1
			}},
		{"UserMemories", "user.memories", "", user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.putSession(t, "s1", "u1", false, "one")
				e.observe(t, "u2", "tone", "", "")
				got, err := e.svc.UserMemories(ctx, "u1", loci.UserMemoryQuery{})
				e.must(t, err)
				if len(got) != 3 {
					t.Errorf("%d memories, want 3", len(got))
				}
				u1 := "u1"
				return e.ids(t, loci.RecordFilter{UserID: &u1}), -1
			}},
		{"ForgetDryRun", "user.forget", "", user("u1"), 200, true, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "golang rocks", "see you")
				before := e.sessionIDs(t, "s1")
				got, err := e.svc.ForgetUserMemories(ctx, "u1", loci.ForgetRequest{Query: "golang", DryRun: true})
				e.must(t, err)
				if len(got) != 1 {
					t.Fatalf("%d would be forgotten, want 1", len(got))
				}
				if after := e.sessionIDs(t, "s1"); len(after) != len(before) {
					t.Error("a dry run deleted")
				}
				return []string{got[0].ID}, -1
			}},
		{"Forget", "user.forget", "", user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.putSession(t, "s1", "u1", false, "golang rocks", "see you")
				got, err := e.svc.ForgetUserMemories(ctx, "u1", loci.ForgetRequest{Query: "golang"})
				e.must(t, err)
				if len(got) != 1 {
					t.Fatalf("%d forgotten, want 1", len(got))
				}
				// The message forgotten, and its session, recounted.
				cat, s1 := "session", "s1"
				return append([]string{got[0].ID}, e.ids(t, loci.RecordFilter{Key: &s1, Category: &cat})...), -1
			}},
		{"DeleteUser", "user.delete", "", user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.putSession(t, "s1", "u1", false, "one", "two")
				e.observe(t, "u2", "tone", "", "")
				u1 := "u1"
				want := e.ids(t, loci.RecordFilter{UserID: &u1})
				n, err := e.svc.DeleteUser(ctx, "u1")
				e.must(t, err)
				if n != 4 {
					t.Errorf("deleted %d, want 4", n)
				}
				return want, 4
			}},
		{"CreateKey", "key.create", "", loci.Scope{AgentID: "a1"}, 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				k, secret, err := e.svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleViewer, AgentID: "a1"})
				e.must(t, err)
				if secret == "" {
					t.Error("no secret")
				}
				return []string{k.ID}, -1
			}},
		{"ListKeys", "key.list", "", loci.Scope{}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				var want []string
				for range 2 {
					k, _, err := e.svc.CreateKey(e.bg, loci.KeySpec{Role: loci.RoleViewer})
					e.must(t, err)
					want = append(want, k.ID)
				}
				keys, err := e.svc.ListKeys(ctx, false)
				e.must(t, err)
				if len(keys) != 2 {
					t.Errorf("%d keys", len(keys))
				}
				return want, -1
			}},
		{"RevokeKey", "key.revoke", "", loci.Scope{}, 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				k, _, err := e.svc.CreateKey(e.bg, loci.KeySpec{Role: loci.RoleViewer})
				e.must(t, err)
				e.must(t, e.svc.RevokeKey(ctx, k.ID))
				return []string{k.ID}, -1
			}},
		{"Export", "export", "", user("u1"), 200, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.putSession(t, "s1", "u1", false, "one")
				e.observe(t, "u2", "tone", "", "")
				var buf bytes.Buffer
				n, err := e.svc.Export(ctx, loci.ExportFilter{UserID: "u1"}, &buf)
				e.must(t, err)
				if n != 3 {
					t.Errorf("exported %d, want 3", n)
				}
				u1 := "u1"
				return e.ids(t, loci.RecordFilter{UserID: &u1}), 3
			}},
		{"ExportFailsMidway", "export", "", user("u1"), 500, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "lang", "", "")
				u1 := "u1"
				all := e.ids(t, loci.RecordFilter{UserID: &u1, Order: loci.OrderCreatedAsc})
				// No user row: the first line is the first record's; the
				// second write fails. The entry keeps what was sent.
				n, err := e.svc.Export(ctx, loci.ExportFilter{UserID: "u1"}, &auditCFailWriter{n: 1})
				if err == nil || n != 1 {
					t.Fatalf("export = %d, %v; want 1 and an error", n, err)
				}
				return all[:1], 1
			}},
		{"Import", "import", "", loci.Scope{}, 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.putSession(t, "s1", "u1", false, "one")
				var buf bytes.Buffer
				_, err := e.svc.Export(e.bg, loci.ExportFilter{UserID: "u1"}, &buf)
				e.must(t, err)
				u1 := "u1"
				want := e.ids(t, loci.RecordFilter{UserID: &u1})
				_, err = e.svc.DeleteUser(e.bg, "u1")
				e.must(t, err)
				res, err := e.svc.Import(ctx, strings.NewReader(buf.String()))
				e.must(t, err)
				if res.Records != 3 || res.Skipped != 0 {
					t.Errorf("import %+v", res)
				}
				return want, 3
			}},
		{"ImportSkips", "import", "", loci.Scope{}, 201, false, nil,
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.observe(t, "u1", "lang", "", "")
				var buf bytes.Buffer
				_, err := e.svc.Export(e.bg, loci.ExportFilter{UserID: "u1"}, &buf)
				e.must(t, err)
				res, err := e.svc.Import(ctx, strings.NewReader(buf.String()))
				e.must(t, err)
				if res.Records != 0 || res.Skipped != 2 {
					t.Errorf("import %+v", res)
				}
				return e.prefIDs(t, "u1"), 2
			}},
		{"Reindex", "embedding.reindex", "", loci.Scope{}, 200, false, []rules.Option{rules.WithEmbedder(embed.NewHash(8))},
			func(t *testing.T, e *auditCEnv, ctx context.Context) ([]string, int) {
				e.observe(t, "u1", "tone", "", "")
				e.putSession(t, "s1", "u1", false, "one")
				u1 := "u1"
				want := e.ids(t, loci.RecordFilter{UserID: &u1})
				n, err := e.svc.Reindex(ctx, nil)
				e.must(t, err)
				if n != 3 {
					t.Errorf("reindexed %d, want 3", n)
				}
				return want, 3
			}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				store := open(t)
				e := &auditCEnv{store: store, svc: rules.New(store, tt.opts...), bg: context.Background()}
				keyID := "key-c-" + string(rune('a'+i))
				ctx := loci.WithPrincipal(e.bg, &loci.Principal{KeyID: keyID, Role: loci.RoleAdmin, Workspace: loci.DefaultWorkspace})
				wantIDs, wantCount := tt.run(t, e, ctx)
				if wantCount < 0 {
					wantCount = len(wantIDs)
				}
				got := auditCEntry(t, e, keyID)
				if got.Operation != tt.op || got.Kind != tt.kind || got.Scope != tt.scope {
					t.Errorf("entry %s %q %+v, want %s %q %+v", got.Operation, got.Kind, got.Scope, tt.op, tt.kind, tt.scope)
				}
				if got.Status != tt.status || got.DryRun != tt.dry {
					t.Errorf("status %d dry_run %v, want %d %v", got.Status, got.DryRun, tt.status, tt.dry)
				}
				if !slices.Equal(auditCSorted(got.RecordIDs), auditCSorted(wantIDs)) || got.Count != wantCount {
					t.Errorf("ids %v count %d, want %v count %d", got.RecordIDs, got.Count, wantIDs, wantCount)
				}
				if got.Role != loci.RoleAdmin || got.Via != loci.ViaLibrary || got.Workspace != loci.DefaultWorkspace {
					t.Errorf("role %q via %q workspace %q", got.Role, got.Via, got.Workspace)
				}
			})
		}
	})
}

// TestAuditGroupCErrors: a failing call is audited with its status and no
// ids.
func TestAuditGroupCErrors(t *testing.T) {
	importLine := `{"type":"record","id":"x"}` + "\n"
	longUser := strings.Repeat("u", loci.MaxNoteKeyBytes+1)
	tests := []struct {
		name   string
		op     string
		scope  loci.Scope
		status int
		role   loci.Role
		call   func(ctx context.Context, svc *rules.Service) error
	}{
		{"ObserveNoUser", "preference.observe", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, _, err := svc.ObservePreference(ctx, loci.PreferenceInput{Type: "tone", Value: json.RawMessage(`1`), Source: loci.SourceExplicit})
			return err
		}},
		{"ListNoUser", "preference.list", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ListPreferences(ctx, "", "")
			return err
		}},
		{"UseAbsent", "preference.use", loci.Scope{UserID: "u1"}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.UsePreference(ctx, "u1", "tone", "")
			return err
		}},
		{"ConfirmAbsent", "preference.confirm", loci.Scope{UserID: "u1", SessionID: "s1"}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ConfirmPreference(ctx, "u1", "tone", "s1")
			return err
		}},
		{"ContradictBadSource", "preference.contradict", loci.Scope{UserID: "u1"}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ContradictPreference(ctx, "u1", "tone", "", "rumour")
			return err
		}},
		{"ResolveNotFlagged", "preference.resolve", loci.Scope{UserID: "u0"}, 409, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ResolvePreference(ctx, "u0", "tone", "", true)
			return err
		}},
		{"ClearNoUser", "preference.clear", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ClearPreferences(ctx, "")
			return err
		}},
		{"DeleteTypeAbsent", "preference.forget", loci.Scope{UserID: "u1"}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.DeletePreference(ctx, "u1", "nothing")
			return err
		}},
		{"PutSessionNoUser", "session.put", loci.Scope{SessionID: "s1"}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{})
			return err
		}},
		{"PutSessionReplaceNeedsEditor", "session.put", loci.Scope{UserID: "u0", SessionID: "s0"}, 403, loci.RoleCreator, func(ctx context.Context, svc *rules.Service) error {
			_, _, err := svc.PutSession(ctx, "s0", loci.SessionPut{UserID: "u0"})
			return err
		}},
		{"AppendAbsent", "session.append", loci.Scope{SessionID: "s9"}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.AppendSessionMessage(ctx, "s9", loci.Message{Role: "user", Content: "hi"})
			return err
		}},
		{"GetSessionAbsent", "session.get", loci.Scope{SessionID: "s9"}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.GetSession(ctx, "s9")
			return err
		}},
		{"DeleteSessionNoID", "session.delete", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.DeleteSession(ctx, "")
			return err
		}},
		{"ListSessionsNoUser", "session.list", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, _, err := svc.ListUserSessions(ctx, "", 0, 0)
			return err
		}},
		{"UserContextNoUser", "user.context", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.UserContext(ctx, "")
			return err
		}},
		{"UserMemoriesNoUser", "user.memories", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.UserMemories(ctx, "", loci.UserMemoryQuery{})
			return err
		}},
		{"ForgetNothing", "user.forget", loci.Scope{UserID: "u0"}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ForgetUserMemories(ctx, "u0", loci.ForgetRequest{})
			return err
		}},
		{"DeleteUserNoUser", "user.delete", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.DeleteUser(ctx, "")
			return err
		}},
		{"CreateKeyBadRole", "key.create", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, _, err := svc.CreateKey(ctx, loci.KeySpec{Role: "root"})
			return err
		}},
		{"ListKeysNotAdmin", "key.list", loci.Scope{}, 403, loci.RoleEditor, func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ListKeys(ctx, false)
			return err
		}},
		{"RevokeAbsent", "key.revoke", loci.Scope{}, 404, "", func(ctx context.Context, svc *rules.Service) error {
			return svc.RevokeKey(ctx, "no-such-key")
		}},
		{"ExportLongUser", "export", loci.Scope{UserID: longUser}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Export(ctx, loci.ExportFilter{UserID: longUser}, &bytes.Buffer{})
			return err
		}},
		{"ImportBadLine", "import", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Import(ctx, strings.NewReader(importLine))
			return err
		}},
		{"ReindexNoEmbedder", "embedding.reindex", loci.Scope{}, 400, "", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Reindex(ctx, nil)
			return err
		}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		e := &auditCEnv{store: store, svc: rules.New(store), bg: context.Background()}
		// What the failures need: a session s0 of u0 to replace, a
		// preference of u0 not flagged for removal.
		e.putSession(t, "s0", "u0", false)
		e.observe(t, "u0", "tone", "", "")
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				role := tt.role
				if role == "" {
					role = loci.RoleAdmin
				}
				keyID := "key-c-err-" + string(rune('a'+i))
				ctx := loci.WithPrincipal(e.bg, &loci.Principal{KeyID: keyID, Role: role, Workspace: loci.DefaultWorkspace})
				err := tt.call(ctx, e.svc)
				if err == nil {
					t.Fatal("no error")
				}
				got := auditCEntry(t, e, keyID)
				if got.Operation != tt.op || got.Scope != tt.scope || got.Status != tt.status {
					t.Errorf("entry %s %+v %d, want %s %+v %d (err %v)", got.Operation, got.Scope, got.Status, tt.op, tt.scope, tt.status, err)
				}
				if got.Status != loci.StatusOf(loci.ErrorCode(err)) {
					t.Errorf("status %d for %v", got.Status, err)
				}
				if len(got.RecordIDs) != 0 || got.Count != 0 {
					t.Errorf("ids %v count %d, want none", got.RecordIDs, got.Count)
				}
			})
		}
	})
}

// TestAuditGroupCBinding: a key bound to an agent is refused every
// operation that spans agents or names none it could own (loci.AgentDeny), and
// the refusal is audited; the operations on a user's preferences and
// sessions (loci.AgentFree: they hold no agent's memory and name no agent)
// take it.
func TestAuditGroupCBinding(t *testing.T) {
	denied := []struct {
		op   string
		call func(ctx context.Context, svc *rules.Service) error
	}{
		{"user.memories", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.UserMemories(ctx, "u1", loci.UserMemoryQuery{})
			return err
		}},
		{"user.forget", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ForgetUserMemories(ctx, "u1", loci.ForgetRequest{Query: "x", DryRun: true})
			return err
		}},
		{"user.delete", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.DeleteUser(ctx, "u1")
			return err
		}},
		{"key.create", func(ctx context.Context, svc *rules.Service) error {
			// Even a key bound to the caller's own agent.
			_, _, err := svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleViewer, AgentID: "a1"})
			return err
		}},
		{"key.list", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.ListKeys(ctx, false)
			return err
		}},
		{"key.revoke", func(ctx context.Context, svc *rules.Service) error {
			return svc.RevokeKey(ctx, "k")
		}},
		{"export", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Export(ctx, loci.ExportFilter{}, &bytes.Buffer{})
			return err
		}},
		{"import", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Import(ctx, strings.NewReader(""))
			return err
		}},
		{"embedding.reindex", func(ctx context.Context, svc *rules.Service) error {
			_, err := svc.Reindex(ctx, nil)
			return err
		}},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		e := &auditCEnv{store: store, svc: rules.New(store, rules.WithEmbedder(embed.NewHash(8))), bg: context.Background()}
		e.observe(t, "u1", "tone", "", "")
		for i, tt := range denied {
			t.Run("Deny/"+tt.op, func(t *testing.T) {
				keyID := "key-c-bound-" + string(rune('a'+i))
				ctx := loci.WithPrincipal(e.bg, &loci.Principal{KeyID: keyID, Role: loci.RoleAdmin, AgentID: "a1", Workspace: loci.DefaultWorkspace})
				wantCode(t, tt.call(ctx, e.svc), loci.EFORBIDDEN)
				got := auditCEntry(t, e, keyID)
				if got.Operation != tt.op || got.Status != 403 || len(got.RecordIDs) != 0 {
					t.Errorf("entry %s %d %v, want %s 403 and no ids", got.Operation, got.Status, got.RecordIDs, tt.op)
				}
			})
		}
		t.Run("Free/preference.list", func(t *testing.T) {
			ctx := loci.WithPrincipal(e.bg, &loci.Principal{KeyID: "key-c-free", Role: loci.RoleViewer, AgentID: "a1", Workspace: loci.DefaultWorkspace})
			prefs, err := e.svc.ListPreferences(ctx, "u1", "")
			if err != nil || len(prefs) != 1 {
				t.Fatalf("ListPreferences = %d, %v", len(prefs), err)
			}
			got := auditCEntry(t, e, "key-c-free")
			if got.Operation != "preference.list" || got.Status != 200 || !slices.Equal(got.RecordIDs, e.prefIDs(t, "u1")) {
				t.Errorf("entry %s %d %v", got.Operation, got.Status, got.RecordIDs)
			}
		})
	})
}
