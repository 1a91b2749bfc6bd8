package loci

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// NormalizeContent is content as a repeat is compared (API.md v1.2): the
// same words, case and spacing aside.
func NormalizeContent(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// ContentHash is the hash a backend stores beside a record's content so
// that a repeat is found by an index: 16 bytes of the SHA-256 of the
// normalized content, in hex.
func ContentHash(content string) string {
	sum := sha256.Sum256([]byte(NormalizeContent(content)))
	return hex.EncodeToString(sum[:16])
}
