package rules_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

func (e *lcEnv) lcObserve(t *testing.T, user, typ, value, source, session string) *loci.Preference {
	t.Helper()
	p, _, err := e.svc.ObservePreference(e.ctx, loci.PreferenceInput{UserID: user, Type: typ, Value: json.RawMessage(value), Source: source, SessionID: session})
	if err != nil {
		t.Fatalf("observe %s: %v", typ, err)
	}
	return p
}

func TestPreferenceDecay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		tests := []struct {
			name     string
			source   string
			unused   time.Duration
			want     int
			wantTier string
		}{
			{"ExplicitDay0", loci.SourceExplicit, 0, 100, loci.TierHigh},
			{"ExplicitDay29", loci.SourceExplicit, 29 * lcDay, 100, loci.TierHigh},
			{"ExplicitJustBeforeDay30", loci.SourceExplicit, 30*lcDay - time.Microsecond, 100, loci.TierHigh},
			{"ExplicitDay30", loci.SourceExplicit, 30 * lcDay, 90, loci.TierHigh},
			{"ExplicitDay89", loci.SourceExplicit, 89 * lcDay, 90, loci.TierHigh},
			{"ExplicitDay90", loci.SourceExplicit, 90 * lcDay, 75, loci.TierMedium},
			{"ExplicitDay400", loci.SourceExplicit, 400 * lcDay, 75, loci.TierMedium},
			{"ImplicitDay29", loci.SourceImplicit, 29 * lcDay, 40, loci.TierLow},
			{"ImplicitDay30", loci.SourceImplicit, 30 * lcDay, 30, loci.TierLow},
			{"ImplicitDay90", loci.SourceImplicit, 90 * lcDay, 15, loci.TierLow},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				e.lcObserve(t, "u", "vertical", `"Retail"`, tc.source, "")
				e.clock.Set(lcT0.Add(tc.unused))
				prefs, err := e.svc.ListPreferences(e.ctx, "u", "")
				if err != nil || len(prefs) != 1 {
					t.Fatalf("list: %d (%v)", len(prefs), err)
				}
				if p := prefs[0]; p.Confidence != tc.want || p.Tier != tc.wantTier {
					t.Fatalf("effective: got %d %s, want %d %s", p.Confidence, p.Tier, tc.want, tc.wantTier)
				}
				if stored := prefs[0].StoredConfidence; stored != map[string]int{loci.SourceExplicit: 100, loci.SourceImplicit: 40}[tc.source] {
					t.Fatalf("stored confidence changed by reading: %d", stored)
				}
			})
		}
	})
}

func TestPreferenceTiers(t *testing.T) {
	for _, tc := range []struct {
		confidence int
		want       string
	}{{100, loci.TierHigh}, {80, loci.TierHigh}, {79, loci.TierMedium}, {50, loci.TierMedium}, {49, loci.TierLow}, {0, loci.TierLow}} {
		if got := loci.Tier(tc.confidence); got != tc.want {
			t.Errorf("Tier(%d): got %s, want %s", tc.confidence, got, tc.want)
		}
	}
}

func TestPreferenceRules(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		type step struct {
			op     string // implicit, explicit, decision, use, confirm, contradict-implicit, contradict-explicit, wait
			value  string
			days   int
			want   int
			flags  string // "p" persistent, "f" flagged
			wantOb int    // observation_count, 0: unchecked
		}
		tests := []struct {
			name  string
			steps []step
		}{
			{"ImplicitRepeatsCapAt85", []step{
				{op: "implicit", value: `"Retail"`, want: 40, wantOb: 1},
				{op: "implicit", value: `"Retail"`, want: 55, wantOb: 2},
				{op: "implicit", value: `"Retail"`, want: 70},
				{op: "implicit", value: `"Retail"`, want: 85},
				{op: "implicit", value: `"Retail"`, want: 85, wantOb: 5},
			}},
			{"ImplicitNewValueRestarts", []step{
				{op: "implicit", value: `"Retail"`, want: 40},
				{op: "implicit", value: `"Retail"`, want: 55},
				{op: "implicit", value: `"CPG"`, want: 40, wantOb: 1},
			}},
			{"ExplicitSets100Persistent", []step{
				{op: "implicit", value: `"Retail"`, want: 40},
				{op: "explicit", value: `"Retail"`, want: 100, flags: "p"},
				{op: "implicit", value: `"Retail"`, want: 100, flags: "p"},
			}},
			{"UseUpToPeak", []step{
				{op: "implicit", value: `"Retail"`, want: 40},
				{op: "implicit", value: `"Retail"`, want: 55},
				{op: "contradict-implicit", want: 25},
				{op: "use", want: 30},
				{op: "use", want: 35},
				{op: "use", want: 40},
				{op: "use", want: 45},
				{op: "use", want: 50},
				{op: "use", want: 55},
				{op: "use", want: 55},
			}},
			{"UseAfterDisuseAddsToEffective", []step{
				{op: "explicit", value: `1`, want: 100, flags: "p"},
				{op: "wait", days: 90, want: 75, flags: "p"},
				{op: "use", want: 80, flags: "p"},
				{op: "wait", days: 29, want: 80, flags: "p"},
			}},
			{"ContradictImplicitTakes30", []step{
				{op: "explicit", value: `1`, want: 100, flags: "p"},
				{op: "contradict-implicit", want: 70, flags: "p"},
				{op: "contradict-implicit", want: 40, flags: "p"},
				{op: "contradict-implicit", want: 10, flags: "p"},
				{op: "contradict-implicit", want: 0, flags: "p"},
			}},
			{"ContradictImplicitAfterDisuse", []step{
				{op: "explicit", value: `1`, want: 100, flags: "p"},
				{op: "wait", days: 30, want: 90, flags: "p"},
				{op: "contradict-implicit", want: 60, flags: "p"},
			}},
			{"ContradictExplicitZeroAndFlag", []step{
				{op: "explicit", value: `1`, want: 100, flags: "p"},
				{op: "contradict-explicit", want: 0, flags: "pf"},
			}},
			{"ConfirmResetsTo100", []step{
				{op: "implicit", value: `1`, want: 40},
				{op: "contradict-explicit", want: 0, flags: "f"},
				{op: "confirm", want: 100, flags: "p"},
				{op: "wait", days: 30, want: 90, flags: "p"},
				{op: "confirm", want: 100, flags: "p"},
			}},
			{"DecisionConfirmedBecomesPersistent", []step{
				{op: "decision", value: `500000`, want: 100},
				{op: "confirm", want: 100, flags: "p"},
			}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				session := ""
				var p *loci.Preference
				var err error
				for i, s := range tc.steps {
					switch s.op {
					case "implicit", "explicit", "decision":
						if s.op == "decision" {
							session = "s1"
						}
						p = e.lcObserve(t, "u", "budget", s.value, s.op, session)
					case "use":
						p, err = e.svc.UsePreference(e.ctx, "u", "budget", session)
					case "confirm":
						p, err = e.svc.ConfirmPreference(e.ctx, "u", "budget", session)
					case "contradict-implicit":
						p, err = e.svc.ContradictPreference(e.ctx, "u", "budget", session, loci.SourceImplicit)
					case "contradict-explicit":
						p, err = e.svc.ContradictPreference(e.ctx, "u", "budget", session, loci.SourceExplicit)
					case "wait":
						e.clock.Add(time.Duration(s.days) * lcDay)
						prefs, lerr := e.svc.ListPreferences(e.ctx, "u", session)
						if lerr == nil && len(prefs) == 1 {
							p = prefs[0]
						}
						err = lerr
					}
					if err != nil {
						t.Fatalf("step %d %s: %v", i, s.op, err)
					}
					flags := ""
					if p.IsPersistent {
						flags += "p"
					}
					if p.FlaggedForRemoval {
						flags += "f"
					}
					if p.Confidence != s.want || flags != s.flags {
						t.Fatalf("step %d %s: got %d %q, want %d %q", i, s.op, p.Confidence, flags, s.want, s.flags)
					}
					if s.wantOb != 0 && p.ObservationCount != s.wantOb {
						t.Fatalf("step %d: observation_count %d, want %d", i, p.ObservationCount, s.wantOb)
					}
				}
				if p.Tier != loci.Tier(p.Confidence) || p.FirstObserved != lcT0.Format(time.DateOnly) || p.LearnedFrom == "" {
					t.Fatalf("preference shape: %+v", p)
				}
			})
		}
		t.Run("Errors", func(t *testing.T) {
			e := lcOpen(t, open)
			for _, tc := range []struct {
				name string
				in   loci.PreferenceInput
			}{
				{"ErrSource", loci.PreferenceInput{UserID: "u", Type: "t", Value: json.RawMessage(`1`), Source: "guess"}},
				{"ErrDecisionWithoutSession", loci.PreferenceInput{UserID: "u", Type: "t", Value: json.RawMessage(`1`), Source: loci.SourceDecision}},
				{"ErrNoValue", loci.PreferenceInput{UserID: "u", Type: "t", Source: loci.SourceExplicit}},
				{"ErrNoType", loci.PreferenceInput{UserID: "u", Value: json.RawMessage(`1`), Source: loci.SourceExplicit}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, _, err := e.svc.ObservePreference(e.ctx, tc.in)
					lcCode(t, err, loci.EINVALID)
				})
			}
			_, err := e.svc.UsePreference(e.ctx, "u", "missing", "")
			lcCode(t, err, loci.ENOTFOUND)
			e.lcObserve(t, "u", "t", `1`, loci.SourceExplicit, "")
			_, err = e.svc.ContradictPreference(e.ctx, "u", "t", "", loci.SourceDecision)
			lcCode(t, err, loci.EINVALID)
			_, err = e.svc.DeletePreference(e.ctx, "u", "missing")
			lcCode(t, err, loci.ENOTFOUND)
		})
	})
}

func TestUserContext(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		c, err := e.svc.UserContext(e.ctx, "u")
		if err != nil || !c.Created || string(c.User.Defaults) != "{}" || len(c.Preferences) != 0 || len(c.Sessions) != 0 {
			t.Fatalf("new user: %+v (%v)", c, err)
		}
		if c, _ := e.svc.UserContext(e.ctx, "u"); c.Created {
			t.Fatalf("second call created the user again")
		}
		e.lcObserve(t, "u", "vertical", `"Retail"`, loci.SourceExplicit, "")
		e.lcObserve(t, "u", "kpi", `"ROAS"`, loci.SourceImplicit, "")
		e.lcObserve(t, "u", "budget", `500000`, loci.SourceDecision, "s-old")
		e.lcObserve(t, "u", "tone", `"brief"`, loci.SourceExplicit, "")
		if _, err := e.svc.ContradictPreference(e.ctx, "u", "tone", "", loci.SourceExplicit); err != nil {
			t.Fatal(err)
		}
		// sessions as the session rules store them
		sess := func(id string, conf float64, persistent bool, expires time.Time, updated time.Duration) *loci.Record {
			data, _ := json.Marshal(map[string]any{"summary": "summary " + id, "is_persistent": persistent, "message_count": 2, "context": map[string]any{"vertical": "Retail"}})
			return &loci.Record{ID: "sess-" + id, Kind: loci.KindSession, Scope: loci.Scope{UserID: "u", SessionID: id}, Key: id,
				Category: "session", Confidence: conf, ExpiresAt: expires, Data: data, CreatedAt: lcT0, UpdatedAt: lcT0.Add(updated)}
		}
		future, past := lcT0.Add(lcDay), lcT0.Add(-time.Hour)
		e.lcInsert(t,
			sess("a", 50, false, future, 1*time.Minute),
			sess("b", 90, true, time.Time{}, 2*time.Minute),
			sess("c", 70, false, past, 3*time.Minute), // expired: left out
			sess("d", 60, true, past, 4*time.Minute),  // persistent: kept though past expiry
			sess("e", 10, false, time.Time{}, 5*time.Minute),
			sess("f", 80, false, future, 6*time.Minute),
			sess("g", 40, false, future, 7*time.Minute),
			&loci.Record{ID: "msg-1", Kind: loci.KindSession, Scope: loci.Scope{UserID: "u", SessionID: "g"}, Category: "message", Content: "hi", CreatedAt: lcT0},
			sess("x", 99, true, time.Time{}, 8*time.Minute),
		)
		// x belongs to another user
		e.lcInsert(t, &loci.Record{ID: "sess-v", Kind: loci.KindSession, Scope: loci.Scope{UserID: "v", SessionID: "v1"}, Key: "v1",
			Category: "session", Confidence: 100, Data: json.RawMessage(`{"is_persistent":true}`), CreatedAt: lcT0, UpdatedAt: lcT0.Add(time.Hour)})
		c, err = e.svc.UserContext(e.ctx, "u")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range c.Sessions {
			got = append(got, s.SessionID)
		}
		// the 5 most recent of a, b, d, e, f, g, x are x g f e d; by confidence
		want := []string{"x", "f", "d", "g", "e"}
		if len(got) != len(want) {
			t.Fatalf("sessions: got %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("sessions: got %v, want %v", got, want)
			}
		}
		var types []string
		for _, p := range c.Preferences {
			types = append(types, p.Type+":"+p.Tier)
		}
		if len(types) != 2 || types[0] != "vertical:high" || types[1] != "kpi:low" {
			t.Fatalf("preferences: got %v, want [vertical:high kpi:low] (no decision, no flagged)", types)
		}
	})
}

func TestForgetAndDeleteUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		e.lcObserve(t, "u", "channel", `["Paid Search","CTV"]`, loci.SourceExplicit, "")
		e.lcObserve(t, "u", "vertical", `"Retail"`, loci.SourceExplicit, "")
		e.lcObserve(t, "v", "channel", `["Paid Search"]`, loci.SourceExplicit, "")
		f, _ := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryCareerGoal, Fact: "wants to move into product management"})
		vf, _ := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "v", Category: loci.CategoryCareerGoal, Fact: "wants product management"})
		for _, tc := range []struct {
			name    string
			req     loci.ForgetRequest
			want    int
			wantErr string
		}{
			{"ErrEmpty", loci.ForgetRequest{}, 0, loci.EINVALID},
			{"DryRunQuery", loci.ForgetRequest{Query: "paid search", DryRun: true}, 1, ""},
			{"EveryWordMustMatch", loci.ForgetRequest{Query: "paid retail"}, 0, ""},
			{"OtherUsersIDIgnored", loci.ForgetRequest{IDs: []string{vf.ID}}, 0, ""},
			{"Query", loci.ForgetRequest{Query: "Paid Search"}, 1, ""},
			{"IDs", loci.ForgetRequest{IDs: []string{f.ID, "missing"}}, 1, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.svc.ForgetUserMemories(e.ctx, "u", tc.req)
				lcCode(t, err, tc.wantErr)
				if len(got) != tc.want {
					t.Fatalf("forgot %d, want %d: %+v", len(got), tc.want, got)
				}
			})
		}
		mems, _ := e.svc.UserMemories(e.ctx, "u", loci.UserMemoryQuery{})
		if len(mems) != 1 || mems[0].Key != "vertical" {
			t.Fatalf("left of u: %+v, want the vertical preference", mems)
		}
		if mems, _ := e.svc.UserMemories(e.ctx, "v", loci.UserMemoryQuery{}); len(mems) != 2 {
			t.Fatalf("v's memories: %d, want 2 (untouched)", len(mems))
		}
	})
}

// TestDeleteUserLeavesNoRow deletes a user and then looks into every table
// of the SQLite file for a trace of them.
func TestDeleteUserLeavesNoRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	store, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	clock := loci.NewFakeClock(lcT0)
	e := &lcEnv{store: store, clock: clock, svc: rules.New(store, rules.WithClock(clock)), ctx: t.Context()}
	for _, user := range []string{"U", "V"} {
		if _, err := e.svc.UserContext(e.ctx, user); err != nil {
			t.Fatal(err)
		}
		e.lcObserve(t, user, "channel", `"zebrafjord `+user+`"`, loci.SourceExplicit, "")
		e.lcObserve(t, user, "channel", `"zebrafjord changed `+user+`"`, loci.SourceExplicit, "")
		if _, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: user, Category: loci.CategoryGeneralFact, Fact: "zebrafjord fact"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.RecordEpisode(e.ctx, lcEpisode(user, "a", "t", "zebrafjord episode", loci.OutcomeSuccess, 0.9)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "task-" + user, AgentID: "a", UserID: user, Key: "k", Value: json.RawMessage(`"zebrafjord"`)}); err != nil {
			t.Fatal(err)
		}
		// a record with a version and an embedding, and a session with a
		// message that carries no user
		rec := &loci.Record{ID: "emb-" + user, Kind: loci.KindSession, Scope: loci.Scope{UserID: user, SessionID: "s-" + user}, Key: "s-" + user,
			Category: "session", Content: "zebrafjord session", Embedding: []float32{1, 2, 3}, EmbeddingModel: "hash", CreatedAt: lcT0,
			Data: json.RawMessage(`{"is_persistent":true}`)}
		msg := &loci.Record{ID: "msg-" + user, Kind: loci.KindSession, Scope: loci.Scope{SessionID: "s-" + user}, Category: "message",
			Content: "zebrafjord message", CreatedAt: lcT0}
		e.lcInsert(t, rec, msg)
		if err := store.Update(e.ctx, func(tx loci.Tx) error {
			return tx.InsertVersion(e.ctx, loci.RecordVersion{RecordID: rec.ID, Version: 1, Content: "zebrafjord old", UpdatedAt: lcT0})
		}); err != nil {
			t.Fatal(err)
		}
	}

	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	seqsOf := func(user string) []int64 {
		rows, err := db.Query(`SELECT seq FROM records WHERE user_id = ? OR id = ?`, user, "msg-"+user)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var s int64
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	useqs := seqsOf("U")
	if len(useqs) != 6 {
		t.Fatalf("U's rows before: %d, want 6", len(useqs))
	}
	vBefore := count(`SELECT count(*) FROM records WHERE user_id = 'V'`)

	// Search the word both users' records hold, so the service holds an
	// index of the workspace that must lose U's records.
	found := func() []loci.SearchResult {
		t.Helper()
		res, err := e.svc.Search(e.ctx, loci.SearchQuery{Query: "zebrafjord", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return res.Results
	}
	if got := len(found()); got != vBefore+1+6 {
		t.Fatalf("search before: %d results, want %d", got, vBefore+7)
	}
	n, err := e.svc.DeleteUser(e.ctx, "U")
	if err != nil || n != 6 {
		t.Fatalf("delete U: %d (%v), want 6 records", n, err)
	}
	checks := []struct {
		name string
		q    string
		args []any
		want int
	}{
		{"records", `SELECT count(*) FROM records WHERE user_id = 'U' OR id = 'msg-U' OR content LIKE '%zebrafjord%U%'`, nil, 0},
		{"record_versions", `SELECT count(*) FROM record_versions WHERE record_id = 'emb-U'`, nil, 0},
		{"users", `SELECT count(*) FROM users WHERE id = 'U'`, nil, 0},
		{"tombstones", `SELECT count(*) FROM record_tombstones WHERE user_id = 'U' OR id = 'msg-U'`, nil, 6},
		{"V_records", `SELECT count(*) FROM records WHERE user_id = 'V'`, nil, vBefore},
		{"V_message", `SELECT count(*) FROM records WHERE id = 'msg-V'`, nil, 1},
		{"V_versions", `SELECT count(*) FROM record_versions WHERE record_id = 'emb-V'`, nil, 1},
		{"V_user", `SELECT count(*) FROM users WHERE id = 'V'`, nil, 1},
		{"V_embedding", `SELECT count(*) FROM records WHERE id = 'emb-V' AND embedding IS NOT NULL`, nil, 1},
	}
	t.Run("search", func(t *testing.T) {
		res := found()
		if len(res) != vBefore+1 {
			t.Fatalf("search after: %d results, want V's %d", len(res), vBefore+1)
		}
		for _, r := range res {
			if r.Scope.UserID != "V" && r.ID != "msg-V" {
				t.Errorf("found %s of user %q after deleting U", r.ID, r.Scope.UserID)
			}
		}
	})
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := count(c.q, c.args...); got != c.want {
				t.Fatalf("got %d, want %d", got, c.want)
			}
		})
	}
}

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ",")
}

// TestPreferenceNewValueIsEmbeddedAgain: a preference whose value changes
// drops the embedding of the value it replaced (a search by meaning would
// still find the old value, and an export would carry it): it is embedded
// again; an observation that keeps the value keeps its embedding.
func TestPreferenceNewValueIsEmbeddedAgain(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t), rules.WithEmbedder(embed.NewHash(32)))
		observe := func(value, source string) {
			t.Helper()
			in := loci.PreferenceInput{UserID: "u", Type: "diet", Value: json.RawMessage(value), Source: source}
			if _, _, err := svc.ObservePreference(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		observe(`"vegan"`, loci.SourceExplicit)
		if n, err := svc.Reindex(ctx, nil); err != nil || n != 1 {
			t.Fatalf("reindex = %d, %v; want the preference embedded", n, err)
		}
		observe(`"vegan"`, loci.SourceImplicit)
		if n, err := svc.Reindex(ctx, nil); err != nil || n != 0 {
			t.Errorf("the same value observed again: reindex = %d, %v; want 0 (its embedding kept)", n, err)
		}
		observe(`"omnivore"`, loci.SourceExplicit)
		if n, err := svc.Reindex(ctx, nil); err != nil || n != 1 {
			t.Errorf("a new value: reindex = %d, %v; want it embedded again", n, err)
		}
	})
}
