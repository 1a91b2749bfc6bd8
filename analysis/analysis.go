// Package analysis is loci's text analyzer: it turns text into the terms the
// lexical index holds and a query is matched with. The same analysis runs on
// what is indexed and what is queried: Unicode-aware word splitting,
// lower-casing, English stop-word removal and Snowball (Porter2) stemming.
//
// A query is text, never query syntax: quotes, operators, '*', NEAR,
// parentheses, emoji, invalid UTF-8 and NUL bytes are separators or ignored,
// so no input can produce an index syntax error.
package analysis

import (
	"hash/maphash"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// MaxTermBytes bounds one term; longer runs of letters are cut.
const MaxTermBytes = 64

// MaxQueryTerms bounds the distinct terms of one query.
const MaxQueryTerms = 64

// Words splits text into lower-cased words: maximal runs of letters and digits,
// with the combining marks that follow them. Invalid UTF-8 and NUL bytes separate words. Nothing
// is stemmed or removed.
func Words(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			w := strings.ToLower(text[start:end])
			if len(w) > MaxTermBytes {
				w = truncate(w, MaxTermBytes)
			}
			out = append(out, w)
			start = -1
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size <= 1 {
			flush(i)
			i += max(size, 1)
			continue
		}
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 && unicode.Is(unicode.Mn, r) {
			// A combining mark continues a word; it never starts one.
		} else {
			flush(i)
		}
		i += size
	}
	flush(len(text))
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Terms analyzes text into index terms, in order, repeats kept: words that
// are not stop words, stemmed.
func Terms(text string) []string {
	words := Words(text)
	out := words[:0]
	for _, w := range words {
		if IsStopWord(w) {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}

// QueryTerms analyzes a query into its distinct terms, in first-seen order,
// at most MaxQueryTerms of them. Words that frame a question ("how many",
// "what would", see questionWords) are left out unless nothing else is
// left; what is indexed keeps them. When every word of the query is a stop
// word, those words are kept (stemmed), so that "who" still finds "who".
func QueryTerms(query string) []string {
	terms := dedupe(Terms(query))
	kept := terms[:0:0]
	for _, t := range terms {
		if !questionStems[t] {
			kept = append(kept, t)
		}
	}
	if len(kept) > 0 {
		terms = kept
	}
	if len(terms) == 0 {
		for _, w := range Words(query) {
			terms = append(terms, Stem(w))
		}
		terms = dedupe(terms)
	}
	if len(terms) > MaxQueryTerms {
		terms = terms[:MaxQueryTerms]
	}
	return terms
}

func dedupe(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// SearchText is the analyzed form of content that the lexical index holds:
// its terms joined by spaces. Stop words are kept in the index only when the
// content has nothing else, so a query of stop words can still find it.
func SearchText(content string) string {
	terms := Terms(content)
	if len(terms) == 0 {
		for _, w := range Words(content) {
			terms = append(terms, Stem(w))
		}
	}
	return strings.Join(terms, " ")
}

// Stem returns the English stem of a lower-cased word, its British
// spelling folded to the American one first (see Fold), and a stem that
// a British spelling has mapped to the American one's (see FoldStem: a
// word Fold leaves, such as the noun "emphasis", may stem like a British
// verb, "emphasise"). Words with letters outside ASCII, and words of
// digits, are returned as they are.
func Stem(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || c < 'a' && c != '\'' || c > 'z' {
			return w
		}
	}
	if st, ok := stems.get(w); ok {
		return st
	}
	st := FoldStem(english.Stem(Fold(w), false))
	stems.put(w, st)
	return st
}

// stems caches Stem's answers. Snowball costs about 2 µs a word, and text
// repeats its words (a bulk import spent a fifth of its time stemming).
// The cache is a fixed table of stemSets sets of stemWays words each, a
// word's set chosen by its hash: a new word takes the place of the set's
// oldest, so words in use stay cached. It holds 16,384 words in about
// 700 KB when full; a map of as many words, in two generations, held
// twice that, and missed more (a simulated Zipf stream of 1M words over a
// vocabulary of 30,000: 89k misses, the two generations 97k). What a
// process keeps in memory is bounded by what it searches, never by what
// is stored.
var stems stemCache

// stemSets (a power of two) and stemWays size the stem cache.
const (
	stemSets = 1 << 12
	stemWays = 4
)

type stemCache struct {
	mu   sync.RWMutex
	sets [stemSets][stemWays]stemEntry // newest first
}

// stemSeed hashes words to their sets of the stem cache.
var stemSeed = maphash.MakeSeed()

// stemEntry is a cached word and its stem in one string (or only the
// word, when stemming leaves it as it is): kv[:n] is the word.
type stemEntry struct {
	kv string
	n  uint8
}

func (e *stemEntry) word() string { return e.kv[:e.n] }
func (e *stemEntry) stem() string {
	if int(e.n) == len(e.kv) {
		return e.kv
	}
	return e.kv[e.n:]
}

// set returns the index of w's set.
func (c *stemCache) set(w string) int {
	return int(maphash.String(stemSeed, w) & (stemSets - 1))
}

// get returns the cached stem of w.
func (c *stemCache) get(w string) (string, bool) {
	i := c.set(w)
	c.mu.RLock()
	defer c.mu.RUnlock()
	for j := range c.sets[i] {
		if e := &c.sets[i][j]; e.kv != "" && e.word() == w {
			return e.stem(), true
		}
	}
	return "", false
}

// put caches st as the stem of w, in the place of its set's oldest word.
// The entry is a copy: w may be a slice of a long text. An empty word or
// stem, or a word longer than 255 bytes, is not cached.
func (c *stemCache) put(w, st string) {
	if w == "" || st == "" || len(w) > 255 {
		return
	}
	e := stemEntry{kv: strings.Clone(w), n: uint8(len(w))}
	if st != w {
		e.kv = w + st
	}
	i := c.set(w)
	c.mu.Lock()
	set := &c.sets[i]
	copy(set[1:], set[:stemWays-1])
	set[0] = e
	c.mu.Unlock()
}

// IsStopWord reports whether a lower-cased word is an English stop word:
// Snowball's list plus the fragments that contractions leave ("m", "ll",
// "re", "ve", "d").
func IsStopWord(w string) bool {
	switch w {
	case "m", "ll", "re", "ve", "d", "y", "o":
		return true
	}
	return english.IsStopWord(w)
}

// questionWords frame a question and never match as its content: "how
// many", "what would", "what kind of thing", "how would you describe".
// Chosen from evidence, LoCoMo's dev questions: none of the turns that
// answer the questions holding "would", "might", "many", "describe" or
// "consider" holds it, while turns wrongly ranked in the top ten do; left
// out of the query, each listed word raised recall@10 ("would" by 0.002,
// "many" and "thing" a little) or left it as it was. "view" left it as
// it was, "feel", "use" and "mention" lowered it: they stay.
var questionWords = []string{"would", "could", "might", "many", "thing", "things", "describe", "consider"}

// askingWords ask about memory itself rather than name what to find: in
// "what do you know about me?" or "tell me everything you remember",
// every word is a stop word, a question word or one of these, and no
// word is left to search.
var askingWords = []string{
	"know", "knows", "knew", "known", "remember", "remembers", "remembered", "recall", "tell", "say", "said",
	"anything", "everything", "something", "stuff", "info", "information", "memory", "memories", "please",
	"user", "yourself", "hi", "hello", "hey",
}

// askingStems are the stems of askingWords.
var askingStems = func() map[string]bool {
	m := make(map[string]bool, len(askingWords))
	for _, w := range askingWords {
		m[english.Stem(w, false)] = true
	}
	return m
}()

// Wordless reports whether a query has no word left to search: each of
// its words is a stop word (pronouns, "what", "do"), a word that frames a
// question (see questionWords) or one that asks about memory itself
// ("know", "remember", "tell", "anything": see askingWords). "What do you
// know about me?" is wordless; "what do I eat?" is not.
func Wordless(query string) bool {
	for _, t := range Terms(query) {
		if !questionStems[t] && !askingStems[t] {
			return false
		}
	}
	return true
}

// questionStems are the stems of questionWords.
var questionStems = func() map[string]bool {
	m := make(map[string]bool, len(questionWords))
	for _, w := range questionWords {
		m[english.Stem(w, false)] = true
	}
	return m
}()
