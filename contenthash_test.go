package loci

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"strings"
	"testing"
)

// TestContentHashIsNormalizedSHA256 checks that ContentHash is the
// SHA-256 of NormalizeContent, whichever way it is computed: the stored
// hashes of every record depend on it.
func TestContentHashIsNormalizedSHA256(t *testing.T) {
	want := func(s string) string {
		sum := sha256.Sum256([]byte(NormalizeContent(s)))
		return hex.EncodeToString(sum[:16])
	}
	cases := []string{"", " ", "a", "Prefers  EMAIL\n", "\t x\v\fy\r z ", "Ünïcode  Straße", "a\u00a0b", "a\u0085b",
		"tab\tand\nnewline", strings.Repeat("Long Words ", 300), "x\xffy", "İstanbul", "ǅ", "\x00nul\x7f"}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "B", " ", "\t", "\n", "\r", "\v", "\f", "Z", "é", "\u00a0", "\u2003", "1", ".", "\xc3"}
	for range 2000 {
		var b strings.Builder
		for range rng.Intn(40) {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got := ContentHash(s); got != want(s) {
			t.Fatalf("ContentHash(%q) = %s, want %s", s, got, want(s))
		}
	}
	if ContentHash("Hello  World") != ContentHash("hello world") {
		t.Fatal("case and spacing change the hash")
	}
}

func BenchmarkContentHash(b *testing.B) {
	s := strings.Repeat("The quick brown Fox jumps over the lazy dog. ", 8)
	for b.Loop() {
		ContentHash(s)
	}
}

// TestContentKey: a content hash's key is its first 64 bits as a signed
// big-endian integer; a short or non-hex hash keys on what it decodes to.
func TestContentKey(t *testing.T) {
	for h, want := range map[string]int64{
		"0123456789abcdef00000000000000ff": 0x0123456789abcdef,
		"ffffffffffffffff0123":             -1,
		"8000000000000000":                 -1 << 63,
		"":                                 0,
		"zz":                               0,
	} {
		if got := ContentKey(h); got != want {
			t.Errorf("ContentKey(%q) = %d, want %d", h, got, want)
		}
	}
}
