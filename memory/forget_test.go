package memory_test

import (
	"testing"

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
