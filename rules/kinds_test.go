package rules

import (
	"slices"
	"testing"

	"github.com/loci-memory/loci"
)

// TestKindRegistry: every kind of the domain registers its kind file, and
// nothing else is registered; an unknown kind is not registered.
func TestKindRegistry(t *testing.T) {
	for _, k := range loci.Kinds {
		t.Run(string(k), func(t *testing.T) {
			if _, err := writesOf(k); err != nil {
				t.Fatalf("writesOf(%s) = %v, want its writes", k, err)
			}
			if _, ok := importOf(k); !ok {
				t.Errorf("importOf(%s): not registered", k)
			}
			if _, ok := rulesOf(k); !ok {
				t.Errorf("rulesOf(%s): not registered", k)
			}
		})
	}
	if got, want := len(kindsByName), len(loci.Kinds); got != want {
		t.Errorf("registered kinds = %d, want %d", got, want)
	}
	if _, err := writesOf("nope"); loci.ErrorCode(err) != loci.EINVALID {
		t.Errorf("writesOf(nope) = %v, want invalid", err)
	}
}

// TestKindAnswers: the questions cross-kind code asks of a record are
// answered by its kind: only a conversation message is a message, only a
// block takes a block link, only a session is read once expired, a fact's
// key is unique per user whichever agent wrote it.
func TestKindAnswers(t *testing.T) {
	msg := &loci.Record{Kind: loci.KindSession, Category: messageCategory}
	sess := &loci.Record{Kind: loci.KindSession, Category: sessionCategory}
	for _, tt := range []struct {
		name string
		got  bool
		want bool
	}{
		{"MessageIsMessage", isMessage(msg), true},
		{"SessionIsNotMessage", isMessage(sess), false},
		{"PassageIsNotMessage", isMessage(&loci.Record{Kind: loci.KindPassage, Category: messageCategory}), false},
		{"BlockLinkable", linkable(&loci.Record{Kind: loci.KindBlock}), true},
		{"NoteNotLinkable", linkable(&loci.Record{Kind: loci.KindNote}), false},
		{"SessionReadExpired", readExpired(sess), true},
		{"FactNotReadExpired", readExpired(&loci.Record{Kind: loci.KindFact}), false},
		{"UnknownNotMessage", isMessage(&loci.Record{Kind: "nope", Category: messageCategory}), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
	f1 := &loci.Record{Kind: loci.KindFact, Scope: loci.Scope{UserID: "u", AgentID: "a1"}, Key: "k"}
	f2 := &loci.Record{Kind: loci.KindFact, Scope: loci.Scope{UserID: "u", AgentID: "a2"}, Key: "k"}
	if keyOf(f1) != keyOf(f2) {
		t.Errorf("facts of one user and key from two agents: keys %q and %q differ", keyOf(f1), keyOf(f2))
	}
	n1 := &loci.Record{Kind: loci.KindNote, Scope: loci.Scope{AgentID: "a1"}, Key: "k"}
	n2 := &loci.Record{Kind: loci.KindNote, Scope: loci.Scope{AgentID: "a2"}, Key: "k"}
	if keyOf(n1) == keyOf(n2) {
		t.Errorf("notes of two agents share key %q", keyOf(n1))
	}
	if _, ok := kindsByName[loci.KindFact].historyOf(f1); !ok {
		t.Errorf("a keyed fact's history is not its slot's")
	}
	if _, ok := kindsByName[loci.KindNote].historyOf(n1); ok {
		t.Errorf("a note's history is not its own")
	}
}

// TestExpiredByDeleteKinds: expire deletes as they are the records of
// working memory, episodes, notes and passages past their expiry, each
// kind saying so in its kind file; facts and sessions expire by rules of
// their own, blocks and preferences never.
func TestExpiredByDeleteKinds(t *testing.T) {
	got := expiredByDeleteKinds()
	want := []loci.Kind{loci.KindNote, loci.KindPassage, loci.KindWorking, loci.KindEpisode}
	if !slices.Equal(got, want) {
		t.Errorf("expiredByDeleteKinds() = %v, want %v", got, want)
	}
}
