package loci

import "slices"

// Cursor is a position in a store's change feed. The changes stamped below
// At are behind it, except those stamped by the transactions in Open,
// which were still running when the position was taken: those, and every
// change stamped At or later, are read from it next time.
type Cursor struct {
	At   int64
	Open []int64
}

// Low is the lowest stamp not behind c: the oldest of its open
// transactions, else At.
func (c Cursor) Low() int64 {
	low := c.At
	for _, x := range c.Open {
		low = min(low, x)
	}
	return low
}

// Before reports whether c is an earlier position than d: it misses a
// change that d has behind it (a later At, or a transaction that is open
// at c and finished at d).
func (c Cursor) Before(d Cursor) bool {
	if c.At != d.At {
		return c.At < d.At
	}
	for _, x := range c.Open {
		if !slices.Contains(d.Open, x) {
			return true
		}
	}
	return false
}

// ChangeSet is what Tx.Changes reports: the records of one workspace that
// changed after a cursor.
type ChangeSet struct {
	// Cursor is the position to read from next time.
	Cursor Cursor
	// Reset says changes after the cursor asked for may be missing: what
	// was derived from the workspace must be dropped.
	Reset bool
	// Dirty says the transaction has written records: it sees its own
	// uncommitted changes, which must not reach a shared index.
	Dirty bool
	// Removed are records that left a scope: deleted, or moved to
	// another scope (the new scope is then in Changed). Each names the
	// scope and kind the record had.
	Removed []Change
	// Changed are records inserted or changed (content, searchable
	// fields, embedding), with their current scope and kind. A record
	// named here may be gone by the time it is read: then it was
	// removed.
	Changed []Change
}

// Change names one changed record and the scope and kind it had (removed)
// or has (changed).
type Change struct {
	ID    string
	Kind  Kind
	Scope Scope
}
