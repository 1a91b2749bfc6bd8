package analysis

import (
	"fmt"
	"math/rand"
	"strings"
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
	// More words than the cache holds: each answer is still right, and
	// the words stemmed last are cached.
	for i := range 3*stemWays*stemSets + 10 {
		w := letters(i)
		if got, want := Stem(w), FoldStem(english.Stem(Fold(w), false)); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
	for _, w := range []string{letters(3*stemWays*stemSets + 9), "expenses"} {
		Stem(w)
		if st, ok := stems.get(w); !ok || st != FoldStem(english.Stem(Fold(w), false)) {
			t.Errorf("cache: %q -> %q, %v; want its stem, cached", w, st, ok)
		}
	}
	// A word the stemmer leaves as it is is its own stem.
	Stem("kamilo")
	if st, ok := stems.get("kamilo"); !ok || st != english.Stem("kamilo", false) {
		t.Errorf("cache: kamilo -> %q, %v", st, ok)
	}
	// A word of a long text is cached by copy: the text is not kept.
	text := "courses " + letters(1<<20)
	w := text[:len("courses")]
	if got := Stem(w); got != english.Stem("courses", false) {
		t.Errorf("Stem(%q) = %q", w, got)
	}
	stems.mu.RLock()
	for _, set := range stems.sets {
		for _, e := range set {
			if unsafe.StringData(e.kv) == unsafe.StringData(text) {
				t.Errorf("the cache keeps a slice of the text for %q", e.word())
			}
		}
	}
	stems.mu.RUnlock()
}

// BenchmarkStem stems the words of synthetic text (Zipf over 30,000
// words), as an import does: most from the cache.
func BenchmarkStem(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rng, 1.1, 2, 29999)
	words := make([]string, 1<<20)
	for i := range words {
		words[i] = fmt.Sprintf("w%dord", zipf.Uint64())
		words[i] = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return 'a' + r - '0'
			}
			return r
		}, words[i])
	}
	b.ResetTimer()
	for i := range b.N {
		Stem(words[i&(len(words)-1)])
	}
}
