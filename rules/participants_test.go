package rules_test

import (
	"context"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestSearchParticipants: a query that names a participant of the
// conversation (the user by role or id, the assistant) prefers what that
// participant said, and still finds what the other said when only that
// answers it (a question whose premise names the wrong participant); with
// the signal off the stronger match of the other comes first. In an index
// held in memory and in a scope streamed.
func TestSearchParticipants(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		off := rules.DefaultRanking()
		off.ParticipantBoost, off.MentionBoost = 0, 0
		off.AssistantWeight = 0 // the prior alone would prefer the user's turn too
		for _, tt := range []struct {
			name string
			opts []rules.Option
		}{
			{"Held", nil},
			{"Streamed", []rules.Option{rules.WithIndexBudget(1)}},
			{"Off", []rules.Option{rules.WithRanking(off)}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := lcOpen(t, open, tt.opts...)
				ctx := context.Background()
				sess, _, err := e.svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "maria", Messages: []loci.Message{
					{Role: "assistant", Content: "A guitar is fun, a guitar"},
					{Role: "user", Content: "The guitar is fun"},
					{Role: "assistant", Content: "I can recommend a violin teacher"},
				}})
				if err != nil {
					t.Fatal(err)
				}
				if len(sess.Messages) != 3 {
					t.Fatalf("session: %+v", sess)
				}
				first := func(q string) string {
					res := mustSearch(t, e.svc, loci.SearchQuery{Query: q, UserID: "maria", Kinds: []loci.Kind{loci.KindSession}})
					if len(res.Results) == 0 {
						t.Fatalf("search %q found nothing", q)
					}
					return res.Results[0].Content
				}
				user, assistant := "The guitar is fun", "A guitar is fun, a guitar"
				if tt.name == "Off" {
					user = assistant // the stronger match
				}
				for _, q := range []string{"What did the user say about the guitar?", "What does maria find fun about guitar?"} {
					if got := first(q); got != user {
						t.Errorf("search %q: %q first, want %q", q, got, user)
					}
				}
				if got := first("What did the assistant say about the guitar?"); got != assistant {
					t.Errorf("search naming the assistant: %q first, want %q", got, assistant)
				}
				// The premise names the user; only the assistant answers.
				if got := first("What violin teacher did the user recommend?"); got != "I can recommend a violin teacher" {
					t.Errorf("false premise: %q first, want the assistant's answer", got)
				}
			})
		}
	})
}
