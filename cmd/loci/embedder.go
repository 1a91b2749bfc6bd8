package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/memory"
)

// newEmbedder returns the embedder the environment names:
//
//	LOCI_EMBEDDER            hash (default) or openai
//	LOCI_EMBED_DIMENSIONS    vector length (hash: default 256; openai: optional)
//	LOCI_EMBED_URL           openai: API root, default https://api.openai.com/v1
//	LOCI_EMBED_MODEL         openai: model, default text-embedding-3-small
//	LOCI_EMBED_API_KEY       openai: key (default $OPENAI_API_KEY)
func newEmbedder() (loci.Embedder, error) {
	dims := 0
	if v := os.Getenv("LOCI_EMBED_DIMENSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, loci.Errorf(loci.EINVALID, "LOCI_EMBED_DIMENSIONS must be a positive number")
		}
		dims = n
	}
	switch kind := strings.ToLower(os.Getenv("LOCI_EMBEDDER")); kind {
	case "", "hash":
		return embed.NewHash(dims), nil
	case "openai":
		key := os.Getenv("LOCI_EMBED_API_KEY")
		if key == "" {
			key = os.Getenv("OPENAI_API_KEY")
		}
		return embed.NewOpenAI(embed.OpenAIConfig{
			BaseURL:    envOr("LOCI_EMBED_URL", "https://api.openai.com/v1"),
			Model:      envOr("LOCI_EMBED_MODEL", "text-embedding-3-small"),
			APIKey:     key,
			Dimensions: dims,
			Timeout:    30 * time.Second,
		})
	default:
		return nil, loci.Errorf(loci.EINVALID, "LOCI_EMBEDDER must be hash or openai, not %q", kind)
	}
}

// rankingOptions returns the search ranking the environment sets:
//
//	LOCI_VECTOR_WEIGHT   the fusion weight of a semantic embedder's
//	                     similarity beside BM25's (default 1; the hash
//	                     embedder, lexical only, keeps its own 0.1)
func rankingOptions() ([]memory.Option, error) {
	v := os.Getenv("LOCI_VECTOR_WEIGHT")
	if v == "" {
		return nil, nil
	}
	w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
		return nil, loci.Errorf(loci.EINVALID, "LOCI_VECTOR_WEIGHT must be a number, 0 or more, not %q", v)
	}
	p := memory.DefaultRanking()
	p.VectorWeight = w
	return []memory.Option{memory.WithRanking(p)}, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// progressBar draws done/total on w (a terminal's stderr) in place.
type progressBar struct {
	w     interface{ Write([]byte) (int, error) }
	label string
}

func (p *progressBar) update(done, total int) {
	const width = 30
	filled := width
	pct := 100.0
	if total > 0 {
		filled = min(width, width*done/total)
		pct = 100 * float64(done) / float64(total)
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d (%.0f%%)", p.label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, pct)
}

func (p *progressBar) finish() { fmt.Fprintln(p.w) }
