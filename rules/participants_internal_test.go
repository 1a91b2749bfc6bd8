package rules

import (
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/retrieval"
)

// TestPreferParticipants: what the participant a query names said (or,
// for a record that is no message, what is about the user it names) is
// preferred, what names them a little; nothing changes when the query
// names no participant, or every one among the candidates.
func TestPreferParticipants(t *testing.T) {
	msg := func(id, speaker, user string) *index.Doc {
		return &index.Doc{Meta: &loci.Record{ID: id, Kind: loci.KindSession, Category: messageCategory, Scope: loci.Scope{UserID: user}}, Speaker: speaker}
	}
	docs := map[string]*index.Doc{
		"a1": msg("a1", "Ann", ""), "a2": msg("a2", "Ann", ""),
		"b1": msg("b1", "Bob", ""), "b2": msg("b2", "Bob", ""), // b2 names Ann
		"u1": msg("u1", "user", "maria"), "x1": msg("x1", "assistant", "maria"),
		"f1": {Meta: &loci.Record{ID: "f1", Kind: loci.KindFact, Scope: loci.Scope{UserID: "maria"}}},
		"f2": {Meta: &loci.Record{ID: "f2", Kind: loci.KindFact, Scope: loci.Scope{UserID: "tom"}}},
	}
	lex := func(ids ...string) []retrieval.Hit {
		out := make([]retrieval.Hit, len(ids))
		for i, id := range ids {
			out[i] = retrieval.Hit{ID: id, Score: 1 - float64(i)*0.05}
		}
		return out
	}
	ids := func(hs []retrieval.Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		terms []string
		lex   []retrieval.Hit
		holds map[string]uint64
		want  []string
		parts map[string]retrieval.Parts
	}{
		{"SpeakerNamed", []string{"ann", "trip"}, lex("b1", "b2", "a1", "a2"), nil, []string{"a1", "a2", "b1", "b2"}, nil},
		// b2 holds "ann" (bit 0): it names her, and gains a little.
		{"MentionGains", []string{"ann", "trip"}, lex("b1", "b2", "a1"), map[string]uint64{"b2": 1, "a1": 3}, []string{"a1", "b2", "b1"}, nil},
		// Far ahead, another's turn keeps its place: nothing is taken
		// from it (the answer to a question that names the wrong person).
		{"StrongOtherKept", []string{"ann", "violin"}, []retrieval.Hit{{ID: "b1", Score: 1}, {ID: "a1", Score: 0.5}}, nil, []string{"b1", "a1"}, nil},
		{"NoneNamed", []string{"trip", "plan"}, lex("b1", "a1"), nil, []string{"b1", "a1"}, nil},
		{"AllNamed", []string{"ann", "bob"}, lex("b1", "a1"), nil, []string{"b1", "a1"}, nil},
		{"OneTerm", []string{"ann"}, lex("b1", "a1"), nil, []string{"b1", "a1"}, nil},
		{"UserRole", []string{"user", "guitar"}, lex("x1", "u1"), nil, []string{"u1", "x1"}, nil},
		{"UserID", []string{"maria", "guitar"}, lex("x1", "u1"), nil, []string{"u1", "x1"}, nil},
		{"AboutUser", []string{"maria", "guitar"}, lex("f2", "f1"), nil, []string{"f1", "f2"}, nil},
		// What their session adds is not multiplied: a1's own 0.15 ×
		// 1.4 + 0.6 stays below b1's 1 (all of a1 × 1.4 would be 1.05).
		{"SessionNotBoosted", []string{"ann", "violin"}, []retrieval.Hit{{ID: "b1", Score: 1}, {ID: "a1", Score: 0.75}}, nil, []string{"b1", "a1"},
			map[string]retrieval.Parts{"b1": {Own: 0.4, Session: 0.6}, "a1": {Own: 0.15, Session: 0.6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := preferParticipants(tt.terms, tt.lex, tt.parts, docs, func() map[string]uint64 { return tt.holds }, 0.4, 0.1)
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("got %v, want %v", ids(got), tt.want)
			}
		})
	}
}

// TestSpeakerOf: a message's role is its speaker; other records have none.
func TestSpeakerOf(t *testing.T) {
	m := &loci.Record{Kind: loci.KindSession, Category: messageCategory, Data: []byte(`{"role":"assistant","index":3}`)}
	if got := speakerOf(m); got != "assistant" {
		t.Errorf("speakerOf(message) = %q", got)
	}
	for _, r := range []*loci.Record{
		{Kind: loci.KindSession, Category: sessionCategory, Data: []byte(`{"role":"x"}`)},
		{Kind: loci.KindNote, Data: []byte(`{"role":"x"}`)},
		{Kind: loci.KindSession, Category: messageCategory, Data: []byte(`not json`)},
	} {
		if got := speakerOf(r); got != "" {
			t.Errorf("speakerOf(%s/%s) = %q, want none", r.Kind, r.Category, got)
		}
	}
}

// TestRecallsAssistant: the phrases with which a query recalls what the
// assistant said, in any case; other queries that say "you" do not.
func TestRecallsAssistant(t *testing.T) {
	for q, want := range map[string]bool{
		"Can you remind me of the hiking trail?":          true,
		"What was the trail you recommended in Aragón?":   true,
		"How many eggs did you say we need?":              true,
		"In our previous chats about Netflix, which one?": true,
		"Our last conversation was about what?":           true,
		"YOU SAID something about tea tree oil":           true,
		"What did the assistant say about the guitar?":    true,
		"What did I cook last week?":                      false,
		"Can you suggest some evening activities?":        false,
		"Do you know where my keys are?":                  false,
		"our conversation":                                false,
		"":                                                false,
	} {
		if got := recallsAssistant(q); got != want {
			t.Errorf("recallsAssistant(%q) = %v, want %v", q, got, want)
		}
	}
}
