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

// KindTraits are the facts about a kind that more than one layer asks, the
// transports (which never import the rules) as much as the rules: each
// kind declares them once, beside its type, with declareKind
// (var _ = declareKind(KindNote, KindTraits{…}) in note.go), and every
// list of kinds that share a trait is derived from the declarations
// (KindsWhere), never written out.
type KindTraits struct {
	// AgentScoped: the kind is an agent's own memory, which carries no
	// user (notes, blocks, passages): a forget reaches it (as every record
	// of an agent and no user) only with ForgetRequest.IncludeAgents, and
	// deleting a user leaves it (unless it is of the user's sessions).
	AgentScoped bool
	// Added: the memories API adds a memory of the kind (POST
	// /v1/memories, add_memory); the other kinds are written through
	// their own routes.
	Added bool
	// Reviewed: the review queue holds the kind's records, disputed or
	// flagged for removal, to ask the user about.
	Reviewed bool
	// Conversation: the kind's records are what was said (sessions and
	// their messages), not memories learnt from it; an API that reads
	// only learnt memories (mem0's) leaves the kind out.
	Conversation bool
}

// kindTraits holds each kind's traits, declared by its file.
var kindTraits = map[Kind]KindTraits{}

// declareKind records the traits of kind k and returns k; each kind's
// file calls it once, in a package-level declaration. It panics on a kind
// declared twice or not one of Kinds.
func declareKind(k Kind, t KindTraits) Kind {
	if !k.Valid() {
		panic("loci: kind " + string(k) + " is declared but not listed in Kinds")
	}
	if _, dup := kindTraits[k]; dup {
		panic("loci: kind " + string(k) + " declared twice")
	}
	kindTraits[k] = t
	return k
}

// Traits returns what kind k declares of itself (the zero KindTraits for
// an unknown kind).
func (k Kind) Traits() KindTraits { return kindTraits[k] }

// KindsWhere returns the kinds whose traits satisfy f, in the order of
// Kinds.
func KindsWhere(f func(KindTraits) bool) []Kind {
	var out []Kind
	for _, k := range Kinds {
		if f(k.Traits()) {
			out = append(out, k)
		}
	}
	return out
}

// AgentScopedKinds returns the kinds of an agent's own memory, which carry
// no user (KindTraits.AgentScoped): a forget reaches them only with
// ForgetRequest.IncludeAgents.
func AgentScopedKinds() []Kind { return KindsWhere(func(t KindTraits) bool { return t.AgentScoped }) }

// AddedKinds returns the kinds the memories API adds (KindTraits.Added).
func AddedKinds() []Kind { return KindsWhere(func(t KindTraits) bool { return t.Added }) }

// ReviewedKinds returns the kinds the review queue holds
// (KindTraits.Reviewed).
func ReviewedKinds() []Kind { return KindsWhere(func(t KindTraits) bool { return t.Reviewed }) }
