package analysis

import (
	"testing"
	"unsafe"

	"github.com/kljensen/snowball/english"
)

// TestStemCache: a cached stem is the analyzer's (the stemmer's, with
// spellings folded), whatever the order of calls, and the cache stays
// bounded.
func TestStemCache(t *testing.T) {
	words := []string{"expenses", "running", "databases", "analyses", "courses", "licenses"}
	for range 2 {
		for _, w := range words {
			if got, want := Stem(w), FoldStem(english.Stem(Fold(w), false)); got != want {
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
	for i := range 3*stemGeneration + 10 {
		w := letters(i)
		if got, want := Stem(w), FoldStem(english.Stem(Fold(w), false)); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
	stems.mu.RLock()
	n := len(stems.cur) + len(stems.old)
	stems.mu.RUnlock()
	if n == 0 || n > 2*stemGeneration {
		t.Errorf("the cache holds %d stems, want 1 to %d", n, 2*stemGeneration)
	}
	// A word of a long text is cached by copy: the text is not kept.
	text := "courses " + letters(1<<20)
	w := text[:len("courses")]
	if got := Stem(w); got != english.Stem("courses", false) {
		t.Errorf("Stem(%q) = %q", w, got)
	}
	stems.mu.RLock()
	for _, m := range []map[string]string{stems.cur, stems.old} {
		for k, v := range m {
			if k == w && (unsafe.StringData(k) == unsafe.StringData(text) || unsafe.StringData(v) == unsafe.StringData(text)) {
				t.Errorf("the cache keeps a slice of the text for %q", w)
			}
		}
	}
	stems.mu.RUnlock()
}
