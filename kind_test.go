package loci

import (
	"slices"
	"testing"
)

// TestEveryKindDeclared: each of Kinds declares its traits in its own
// file, so that no list of kinds sharing a trait misses one.
func TestEveryKindDeclared(t *testing.T) {
	for _, k := range Kinds {
		if _, ok := kindTraits[k]; !ok {
			t.Errorf("kind %s declares no traits (declareKind in its file)", k)
		}
	}
	if len(kindTraits) != len(Kinds) {
		t.Errorf("%d kinds declared, %d listed in Kinds", len(kindTraits), len(Kinds))
	}
}

// TestKindsWhere: the derived lists are in the order of Kinds.
func TestKindsWhere(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want []Kind
	}{
		{"AgentScoped", AgentScopedKinds(), []Kind{KindNote, KindBlock, KindPassage}},
		{"Added", AddedKinds(), []Kind{KindNote, KindPassage, KindFact}},
		{"Reviewed", ReviewedKinds(), []Kind{KindFact, KindPreference}},
		{"NotConversation", KindsWhere(func(t KindTraits) bool { return !t.Conversation }),
			[]Kind{KindNote, KindBlock, KindPassage, KindWorking, KindEpisode, KindFact, KindPreference}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
