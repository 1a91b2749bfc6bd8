package rules

import "strings"

// lockName names the lock that serializes read-modify-write on one thing.
func lockName(parts ...string) string {
	return strings.Join(parts, "\x1f")
}

// recordLock names the lock of one record by id, which every edit and
// delete of the record by id takes (whichever way: the memories API, a
// fact's, a block's, an episode's), before it reads the record it changes:
// the edits of one record take turns, and each is numbered and timed
// under the lock, in the order they commit.
func recordLock(ws, id string) string {
	return lockName(ws, "record", id)
}
