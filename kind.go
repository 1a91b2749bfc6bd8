package loci

// Kind names a memory kind: a policy over the one record shape.
type Kind string

// The eight kinds (docs/records.md, "The kinds").
const (
	KindNote       Kind = "note"
	KindBlock      Kind = "block"
	KindPassage    Kind = "passage"
	KindWorking    Kind = "working"
	KindEpisode    Kind = "episode"
	KindFact       Kind = "fact"
	KindPreference Kind = "preference"
	KindSession    Kind = "session"
)

// Kinds lists every kind in a stable order.
var Kinds = []Kind{KindNote, KindBlock, KindPassage, KindWorking, KindEpisode, KindFact, KindPreference, KindSession}

// Valid reports whether k is one of the eight kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// ParseKind returns the kind named s, or an EINVALID error.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if !k.Valid() {
		return "", Errorf(EINVALID, "unknown kind %q", s)
	}
	return k, nil
}
