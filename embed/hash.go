// Package embed holds loci's embedders (loci.Embedder): Hash, the offline
// default, and OpenAI, a client for any OpenAI-compatible /v1/embeddings
// endpoint (OpenAI, Ollama, vLLM, llama.cpp, TEI).
package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sort"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
)

var _ loci.Embedder = (*Hash)(nil)

// DefaultHashDimensions is the length of Hash's vectors unless told.
const DefaultHashDimensions = 256

// Hash is the built-in offline embedder: deterministic feature hashing of a
// text's analyzed words (stemmed, stop words dropped) and of the character
// n-grams of its words, each hashed to a signed bucket, weighted by
// sublinear term frequency, and normalised to unit length.
//
// It captures lexical similarity only — shared words, shared stems and
// shared word fragments (so "paint" is near "painting" and "paintings", and
// a typo is near its word) — not meaning: "car" is not near "automobile".
// Use an OpenAI-compatible embedder for semantic similarity.
type Hash struct {
	dims int
	// NGrams are the character n-gram lengths hashed, with '<' and '>'
	// marking the start and end of each word.
	ngrams []int
	// Weight of one word feature relative to one n-gram feature.
	wordWeight float64
}

// NewHash returns a hash embedder of dims dimensions (DefaultHashDimensions
// when dims <= 0).
func NewHash(dims int) *Hash {
	if dims <= 0 {
		dims = DefaultHashDimensions
	}
	return &Hash{dims: dims, ngrams: []int{3, 4}, wordWeight: 2}
}

// Model names the embedder with its parameters, so that a change of them
// is a change of model and stored vectors are re-embedded.
func (h *Hash) Model() string { return fmt.Sprintf("hash-v1-%d", h.dims) }

// LexicalOnly reports that Hash's similarity is lexical, not semantic: a
// ranking weighs it lower beside BM25, which it mostly repeats.
func (h *Hash) LexicalOnly() bool { return true }

// Dimensions is the length of every vector.
func (h *Hash) Dimensions() int { return h.dims }

// Embed returns one unit vector per text (the zero vector for a text with
// no words). It never fails.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h *Hash) vector(text string) []float32 {
	counts := map[string]float64{}
	for _, w := range analysis.Terms(text) {
		counts["w:"+w] += h.wordWeight
	}
	for _, w := range analysis.Words(text) {
		if analysis.IsStopWord(w) {
			continue
		}
		r := []rune("<" + w + ">")
		for _, n := range h.ngrams {
			for i := 0; i+n <= len(r); i++ {
				counts[string(r[i:i+n])]++
			}
		}
	}
	// In a fixed order, so that sums, and so vectors, are bit-identical.
	feats := make([]string, 0, len(counts))
	for f := range counts {
		feats = append(feats, f)
	}
	sort.Strings(feats)
	acc := make([]float64, h.dims)
	for _, f := range feats {
		c := counts[f]
		hf := fnv.New64a()
		hf.Write([]byte(f))
		sum := hf.Sum64()
		bucket := int(sum % uint64(h.dims))
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		acc[bucket] += sign * (1 + math.Log(c))
	}
	return normalize(acc)
}

// normalize returns v scaled to unit length as float32s (v itself when it
// is zero).
func normalize(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, len(v))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}
