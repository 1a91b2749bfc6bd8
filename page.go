package loci

// Limits of a listing's page: a listing answers DefaultListLimit items
// unless told otherwise, at most MaxListLimit, from an offset of at most
// MaxOffset.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
	MaxOffset        = 1 << 30
)
