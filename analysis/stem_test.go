package analysis

import (
	"testing"

	"github.com/kljensen/snowball/english"
)

// TestStemCache: a cached stem is the stemmer's, whatever the order of
// calls, and the cache stays bounded.
func TestStemCache(t *testing.T) {
	words := []string{"expenses", "running", "databases", "analyses", "courses", "licenses"}
	for range 2 {
		for _, w := range words {
			if got, want := Stem(w), english.Stem(w, false); got != want {
				t.Errorf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
	letters := func(i int) string {
		b := []byte("word")
		for ; i > 0; i /= 26 {
			b = append(b, byte('a'+i%26))
		}
		return string(b)
	}
	for i := range maxCachedStems + 10 {
		Stem(letters(i))
	}
	stems.mu.RLock()
	n := len(stems.m)
	stems.mu.RUnlock()
	if n == 0 || n > maxCachedStems {
		t.Errorf("the cache holds %d stems, want 1 to %d", n, maxCachedStems)
	}
}
