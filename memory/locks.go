package memory

import "strings"

// lockName names the lock that serializes read-modify-write on one thing.
func lockName(parts ...string) string {
	return strings.Join(parts, "\x1f")
}
