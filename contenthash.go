package loci

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// NormalizeContent is content as a repeat is compared (docs/rules.md, "A
// repeat changes nothing (NOOP)"): the same words, case and spacing aside.
func NormalizeContent(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// ContentHash is the hash a backend stores beside a record's content so
// that a repeat is found by an index: 16 bytes of the SHA-256 of the
// normalized content, in hex. Every record written is hashed, so ASCII
// content (the most) is normalized into one buffer, on the stack when
// short, rather than through NormalizeContent's three strings.
func ContentHash(content string) string {
	var sum [sha256.Size]byte
	if norm, ok := normalizeASCII(content, make([]byte, 0, 1024)); ok {
		sum = sha256.Sum256(norm)
	} else {
		sum = sha256.Sum256([]byte(NormalizeContent(content)))
	}
	return hex.EncodeToString(sum[:16])
}

// ContentKey is what a backend indexes of a content hash (ContentHash,
// hex) to find a repeat's candidates: its first 64 bits, a signed
// big-endian integer. A hash that is not hex keys on what its first digits
// decode to; the backend checks each candidate's whole hash.
func ContentKey(h string) int64 {
	var b [8]byte
	hex.Decode(b[:], []byte(h[:min(16, len(h))]))
	return int64(binary.BigEndian.Uint64(b[:]))
}

// normalizeASCII appends NormalizeContent(s) to buf when s is ASCII (false
// otherwise): its words, lowered, one space between them.
func normalizeASCII(s string, buf []byte) ([]byte, bool) {
	word := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		switch c {
		case '\t', '\n', '\v', '\f', '\r', ' ':
			word = false
			continue
		}
		if !word && len(buf) > 0 {
			buf = append(buf, ' ')
		}
		word = true
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, true
}
