package rules_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestForgetMatchesStemmedWords forgets by words whose stem changes when
// it is stemmed a second time ("expenses" → "expens" → "expen"): the
// matcher must compare query terms with the indexed terms, not re-analyze
// what the index already analyzed.
func TestForgetMatchesStemmedWords(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tc := range []struct{ name, fact, query string }{
			{"Expenses", "Files travel expenses every Friday", "expenses"},
			{"Responses", "Wants short responses", "responses"},
			{"Licenses", "Renews software licenses in March", "licenses"},
			{"Purchases", "Approves purchases over 1000 EUR", "purchases"},
			{"Databases", "Runs two databases in production", "databases"},
			{"Analyses", "Reads the quarterly analyses first", "analyses"},
			{"Courses", "Takes evening courses in Spanish", "Courses"},
			{"OtherForm", "Files travel expenses every Friday", "expense"},
			{"EveryWord", "Files travel expenses every Friday", "travel expenses"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := lcOpen(t, open)
				f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: tc.fact})
				if err != nil {
					t.Fatal(err)
				}
				other, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "Prefers tea to coffee"})
				if err != nil {
					t.Fatal(err)
				}
				got, err := e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: tc.query})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || got[0].ID != f.ID {
					t.Fatalf("forget %q: got %+v, want the fact %q only", tc.query, got, tc.fact)
				}
				left, err := e.svc.UserMemories(e.ctx, "u", loci.UserMemoryQuery{})
				if err != nil {
					t.Fatal(err)
				}
				if len(left) != 1 || left[0].ID != other.ID {
					t.Errorf("left: %+v, want the other fact only", left)
				}
			})
		}
	})
}

// TestForgetMessageUpdatesSession forgets one message of a session: the
// session's message_count (in the session and in the user's listing)
// counts what is left, and the next message is appended after the last.
func TestForgetMessageUpdatesSession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		_, _, err := e.svc.PutSession(e.ctx, "s1", loci.SessionPut{UserID: "u", Messages: []loci.Message{
			{Role: "user", Content: "My budget is 500K"},
			{Role: "user", Content: "I file travel expenses every Friday"},
			{Role: "assistant", Content: "Noted"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.svc.ForgetUserMemories(e.ctx, "u", loci.ForgetRequest{Query: "travel expenses"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Content != "I file travel expenses every Friday" {
			t.Fatalf("forgot %+v, want the one message", got)
		}
		sess, err := e.svc.GetSession(e.ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if sess.MessageCount != 2 || len(sess.Messages) != 2 {
			t.Errorf("after forgetting: message_count %d with %d messages, want 2 and 2", sess.MessageCount, len(sess.Messages))
		}
		list, _, err := e.svc.ListUserSessions(e.ctx, "u", 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].MessageCount != 2 {
			t.Errorf("listing: %+v, want one session with message_count 2", list)
		}
		sum, err := e.svc.AppendSessionMessage(e.ctx, "s1", loci.Message{Role: "user", Content: "And a last one"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.MessageCount != 3 {
			t.Errorf("after appending: message_count %d, want 3", sum.MessageCount)
		}
		sess, err = e.svc.GetSession(e.ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		var contents []string
		for _, m := range sess.Messages {
			contents = append(contents, m.Content)
		}
		want := []string{"My budget is 500K", "Noted", "And a last one"}
		if len(contents) != len(want) || contents[0] != want[0] || contents[1] != want[1] || contents[2] != want[2] {
			t.Errorf("messages: got %q, want %q", contents, want)
		}
		if sess.MessageCount != 3 {
			t.Errorf("message_count %d, want 3", sess.MessageCount)
		}
	})
}

// TestForgetMatchesEveryText forgets a word that appears only in text a
// record keeps beside its content (a session's context, a fact's evidence,
// an episode's context and feedback, a preference's context, a working
// value's nested JSON): every such record goes, and neither the user's
// memories nor the user's export show the word afterwards. Words loci
// writes itself (a message's role, a preference's source) match nothing.
func TestForgetMatchesEveryText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		ctx := e.ctx
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := e.svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u", Summary: "Planning the trip",
			Context:  json.RawMessage(`{"constraints": ["no peanuts"]}`),
			Messages: []loci.Message{{Role: "user", Content: "Book the train"}}})
		must(err)
		_, err = e.svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "Has a food allergy",
			Evidence: json.RawMessage(`{"said": "I cannot eat peanuts"}`)})
		must(err)
		ep, err := e.svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "order_food",
			ActionDescription: "Ordered lunch", Outcome: loci.Outcomes[0], Context: json.RawMessage(`{"menu": {"peanuts": 2}}`)})
		must(err)
		ep2, err := e.svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "order_food",
			ActionDescription: "Ordered dinner", Outcome: loci.Outcomes[0]})
		must(err)
		_, err = e.svc.AddEpisodeFeedback(ctx, ep2.ID, loci.EpisodeFeedback{Comment: "it had peanuts in it"})
		must(err)
		_, _, err = e.svc.ObservePreference(ctx, loci.PreferenceInput{UserID: "u", Type: "snacks", Value: json.RawMessage(`"crisps"`),
			Source: loci.SourceExplicit, Context: "said while refusing peanuts"})
		must(err)
		_, _, err = e.svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t", AgentID: "a", UserID: "u", Key: "cart",
			Value: json.RawMessage(`{"items": [{"name": "peanuts", "qty": 1}]}`)})
		must(err)
		keep, err := e.svc.StoreFact(ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Fact: "Likes trains",
			Evidence: json.RawMessage(`{"said": "trains are great"}`)})
		must(err)
		_ = ep

		// Words loci writes itself are not the user's.
		for _, q := range []string{"user", "explicit"} {
			got, err := e.svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Query: q, DryRun: true})
			must(err)
			if len(got) != 0 {
				t.Errorf("forget %q matched %d records (%+v), want none: loci's own words are not the user's", q, len(got), got[0])
			}
		}

		got, err := e.svc.ForgetUserMemories(ctx, "u", loci.ForgetRequest{Query: "peanuts"})
		must(err)
		if len(got) != 6 {
			t.Errorf("forgot %d records, want 6 (session, fact, two episodes, preference, working entry)", len(got))
		}
		left, err := e.svc.UserMemories(ctx, "u", loci.UserMemoryQuery{IncludeHistory: true})
		must(err)
		b, err := json.Marshal(left)
		must(err)
		if strings.Contains(strings.ToLower(string(b)), "peanut") {
			t.Errorf("the user's memories still show the word:\n%s", b)
		}
		found := false
		for _, m := range left {
			found = found || m.ID == keep.ID
		}
		if !found {
			t.Errorf("the fact that does not name the word was forgotten too")
		}
		var exp bytes.Buffer
		_, err = e.svc.Export(ctx, loci.ExportFilter{UserID: "u"}, &exp)
		must(err)
		if strings.Contains(strings.ToLower(exp.String()), "peanut") {
			t.Errorf("the user's export still shows the word:\n%s", exp.String())
		}
	})
}

// TestForgetKeyedFactVersion forgets one version of a keyed fact: exactly
// that version goes, the others stay, and none names the forgotten one.
// Forgetting the current version leaves the key with no current fact.
func TestForgetKeyedFactVersion(t *testing.T) {
	year := func(y int) time.Time { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC) }
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		store := func(key, text string, y int) *loci.Fact {
			t.Helper()
			f, err := e.svc.StoreFact(e.ctx, loci.FactInput{UserID: "u", Category: loci.CategoryGeneralFact, Key: key, Fact: text, ValidAt: year(y)})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		history := func(id string) map[string]*loci.Fact {
			t.Helper()
			h, err := e.svc.FactHistory(e.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]*loci.Fact{}
			for _, f := range h {
				out[f.Fact] = f
			}
			return out
		}
		forget := func(req loci.ForgetRequest) []string {
			t.Helper()
			got, err := e.svc.ForgetUserMemories(e.ctx, "u", req)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range got {
				out = append(out, m.Content)
			}
			return out
		}

		// By query: the old home goes, the current one stays current.
		paris := store("home", "I live in Paris", 2020)
		berlin := store("home", "I live in Berlin", 2023)
		if got := forget(loci.ForgetRequest{Query: "Paris"}); len(got) != 1 || got[0] != "I live in Paris" {
			t.Fatalf("forget Paris: forgot %q, want the Paris version only", got)
		}
		h := history(berlin.ID)
		if len(h) != 1 || h["I live in Berlin"] == nil {
			t.Fatalf("home's history after forgetting Paris: %v, want Berlin only", h)
		}
		if b := h["I live in Berlin"]; b.Status != loci.FactCurrent || b.Supersedes != "" {
			t.Errorf("Berlin: status %s, supersedes %q; want current, naming nothing", b.Status, b.Supersedes)
		}
		_ = paris

		// By id: the middle version goes; the versions left stop naming it.
		p := store("work", "I work in Paris", 2018)
		lyon := store("work", "I work in Lyon", 2020)
		nantes := store("work", "I work in Nantes", 2022)
		if got := forget(loci.ForgetRequest{IDs: []string{lyon.ID}}); len(got) != 1 || got[0] != "I work in Lyon" {
			t.Fatalf("forget the Lyon version: forgot %q, want it only", got)
		}
		h = history(nantes.ID)
		if len(h) != 2 || h["I work in Paris"] == nil || h["I work in Nantes"] == nil {
			t.Fatalf("work's history: %v, want Paris and Nantes", h)
		}
		if n := h["I work in Nantes"]; n.Status != loci.FactCurrent || n.Supersedes != "" {
			t.Errorf("Nantes: status %s, supersedes %q; want current, naming nothing", n.Status, n.Supersedes)
		}
		if o := h["I work in Paris"]; o.SupersededBy != "" || o.Status == loci.FactCurrent {
			t.Errorf("old Paris: status %s, superseded_by %q; want ended, naming nothing", o.Status, o.SupersededBy)
		}

		// The current version: the key has no current fact.
		if got := forget(loci.ForgetRequest{Query: "Nantes"}); len(got) != 1 {
			t.Fatalf("forget Nantes: forgot %q, want one version", got)
		}
		h = history(p.ID)
		if len(h) != 1 {
			t.Fatalf("work's history: %v, want the Paris version only", h)
		}
		if o := h["I work in Paris"]; o.Status != loci.FactInvalidated || o.SupersededBy != "" {
			t.Errorf("old Paris after its successors went: status %s, superseded_by %q; want invalidated, naming nothing", o.Status, o.SupersededBy)
		}
		facts, _, err := e.svc.FactsByKeyword(e.ctx, loci.FactQuery{UserID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range facts {
			if f.Key == "work" {
				t.Errorf("a current fact of key work is listed: %+v", f)
			}
		}
	})
}

// TestForgetIncludeAgents: agents' own memory that names the user (a
// block, a passage, a note: they carry no user) is left by a forget unless
// include_agents asks for it; then a dry run previews it and a forget
// deletes it, of every agent, and nothing that does not hold the words.
// It needs the editor role and a query.
func TestForgetIncludeAgents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		ctx := e.ctx
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := e.svc.CreateAgent(ctx, loci.AgentCreate{ID: "a"})
		must(err)
		_, _, err = e.svc.SetBlock(ctx, "a", "relationships", loci.BlockWrite{Content: "Alice: power user"})
		must(err)
		_, err = e.svc.AddPassage(ctx, "a", "Alice reported a failed deploy", nil)
		must(err)
		_, err = e.svc.AddPassage(ctx, "b", "Alice asked for dark mode", nil)
		must(err)
		_, err = e.svc.Remember(ctx, "b", "contact", json.RawMessage(`{"name": "Alice", "plan": "pro"}`))
		must(err)
		keep, err := e.svc.AddPassage(ctx, "a", "Bob reported nothing", nil)
		must(err)
		_, err = e.svc.StoreFact(ctx, loci.FactInput{UserID: "alice", Category: loci.CategoryGeneralFact, Fact: "Alice is a power user"})
		must(err)
		count := func() int {
			t.Helper()
			return e.lcCount(t, loci.RecordFilter{Kinds: loci.AgentScopedKinds()})
		}
		before := count()

		got, err := e.svc.ForgetUserMemories(ctx, "alice", loci.ForgetRequest{Query: "Alice"})
		must(err)
		if len(got) != 1 || got[0].Kind != loci.KindFact {
			t.Fatalf("forget without include_agents: %d records, want the user's fact only", len(got))
		}
		if n := count(); n != before {
			t.Fatalf("agents' records: %d after a forget without include_agents, want %d", n, before)
		}

		creator := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k", Role: loci.RoleCreator})
		if _, err := e.svc.ForgetUserMemories(creator, "alice", loci.ForgetRequest{Query: "Alice", IncludeAgents: true, DryRun: true}); loci.ErrorCode(err) != loci.EFORBIDDEN {
			t.Errorf("creator with include_agents: %v, want forbidden", err)
		}
		if _, err := e.svc.ForgetUserMemories(ctx, "alice", loci.ForgetRequest{IDs: []string{keep.ID}, IncludeAgents: true}); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("include_agents without a query: %v, want invalid", err)
		}
		bound := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k", Role: loci.RoleEditor, AgentID: "a"})
		if _, err := e.svc.ForgetUserMemories(bound, "alice", loci.ForgetRequest{Query: "Alice", IncludeAgents: true, DryRun: true}); loci.ErrorCode(err) != loci.EFORBIDDEN {
			t.Errorf("key bound to an agent: %v, want forbidden (forget spans agents)", err)
		}

		editor := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "k", Role: loci.RoleEditor})
		got, err = e.svc.ForgetUserMemories(editor, "alice", loci.ForgetRequest{Query: "Alice", IncludeAgents: true, DryRun: true})
		must(err)
		kinds := map[loci.Kind]int{}
		for _, m := range got {
			kinds[m.Kind]++
		}
		if len(got) != 4 || kinds[loci.KindBlock] != 1 || kinds[loci.KindPassage] != 2 || kinds[loci.KindNote] != 1 {
			t.Fatalf("dry run with include_agents: %v, want a block, two passages and a note", kinds)
		}
		if n := count(); n != before {
			t.Fatalf("a dry run deleted: %d agents' records, want %d", n, before)
		}
		got, err = e.svc.ForgetUserMemories(editor, "alice", loci.ForgetRequest{Query: "Alice", IncludeAgents: true})
		must(err)
		if len(got) != 4 {
			t.Fatalf("forget with include_agents: %d records, want 4", len(got))
		}
		if n := count(); n != before-4 {
			t.Fatalf("agents' records left: %d, want %d", n, before-4)
		}
		ps, _, err := e.svc.ListPassages(ctx, "a", loci.PassageFilter{})
		must(err)
		if len(ps) != 1 || ps[0].ID != keep.ID {
			t.Errorf("agent a's passages: %+v, want Bob's only", ps)
		}
		if _, err := e.svc.GetBlock(ctx, "a", "relationships"); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("the block naming Alice: %v, want not found", err)
		}
	})
}
