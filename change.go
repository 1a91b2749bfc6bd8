package loci

// NoCursor asks Tx.Changes for the current cursor only.
const NoCursor int64 = -1

// ChangeSet is what Tx.Changes reports: the records of one workspace that
// changed after a cursor.
type ChangeSet struct {
	// Cursor is the position to read from next time.
	Cursor int64
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
