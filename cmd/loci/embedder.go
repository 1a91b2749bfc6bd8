package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
)

// embedder returns the embedder e names (see EmbedderConfig; Validate
// has checked it): nil for the hash embedder without HashVectors, for
// search without vectors.
func (e EmbedderConfig) embedder() (loci.Embedder, error) {
	if e.Kind == "openai" {
		return embed.NewOpenAI(embed.OpenAIConfig{
			BaseURL:    e.URL,
			Model:      e.Model,
			APIKey:     e.APIKey,
			Dimensions: e.Dimensions,
			Timeout:    30 * time.Second,
		})
	}
	if !e.HashVectors {
		return nil, nil
	}
	return embed.NewHash(e.Dimensions), nil
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
