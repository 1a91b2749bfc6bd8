// Package textgen makes synthetic English-like text from a fixed seed, for
// benchmarks (`loci bench` and the packages' Go benchmarks): words drawn
// from a Zipf distribution over a vocabulary of made-up words, so that, as
// in real text, a few words are everywhere and most are rare.
package textgen

import (
	"math/rand"
	"strings"

	"github.com/loci-memory/loci/analysis"
)

// Gen makes texts. It is not safe for concurrent use.
type Gen struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

// New returns a generator; the same seed makes the same texts.
func New(seed int64) *Gen {
	rng := rand.New(rand.NewSource(seed))
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "bar", "con", "tel", "mor", "ist"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 30000 {
		var b strings.Builder
		for range 2 + rng.Intn(3) {
			b.WriteString(syl[rng.Intn(len(syl))])
		}
		w := b.String()
		if !seen[w] && !analysis.IsStopWord(w) {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &Gen{rng: rng, vocab: vocab, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))}
}

// Word returns a word.
func (g *Gen) Word() string { return g.vocab[g.zipf.Uint64()] }

// Passage returns a passage of 12 to 41 words.
func (g *Gen) Passage() string {
	w := make([]string, 12+g.rng.Intn(30))
	for i := range w {
		w[i] = g.Word()
	}
	return strings.Join(w, " ")
}

// Query returns a query of three words.
func (g *Gen) Query() string {
	return g.Word() + " " + g.Word() + " " + g.Word()
}
