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

// Syllables are the fragments New makes its words of.
var Syllables = []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "bar", "con", "tel", "mor", "ist"}

// New returns a generator of 30,000 words made of Syllables; the same
// seed makes the same texts.
func New(seed int64) *Gen { return NewVocab(seed, 30000, Syllables) }

// NewVocab returns a generator of vocab distinct words, each two to four
// of syllables, none a stop word; the same arguments make the same texts.
func NewVocab(seed int64, vocab int, syllables []string) *Gen {
	rng := rand.New(rand.NewSource(seed))
	seen := map[string]bool{}
	var words []string
	for len(words) < vocab {
		var b strings.Builder
		for range 2 + rng.Intn(3) {
			b.WriteString(syllables[rng.Intn(len(syllables))])
		}
		w := b.String()
		if !seen[w] && !analysis.IsStopWord(w) {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &Gen{rng: rng, vocab: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))}
}

// Word returns a word.
func (g *Gen) Word() string { return g.vocab[g.zipf.Uint64()] }

// Passage returns a passage of 12 to 41 words.
func (g *Gen) Passage() string { return g.Text(12, 41) }

// Text returns a text of minWords to maxWords words.
func (g *Gen) Text(minWords, maxWords int) string {
	w := make([]string, minWords+g.rng.Intn(maxWords-minWords+1))
	for i := range w {
		w[i] = g.Word()
	}
	return strings.Join(w, " ")
}

// Query returns a query of three words.
func (g *Gen) Query() string {
	return g.Word() + " " + g.Word() + " " + g.Word()
}
