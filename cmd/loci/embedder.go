package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
)

// embedder returns the embedder e names (see EmbedderConfig; Validate
// has checked it), auto decided (resolve): nil for lexical search without
// vectors (the hash embedder without HashVectors).
func (e EmbedderConfig) embedder(ctx context.Context) (loci.Embedder, error) {
	r, _ := e.resolve(ctx)
	if r.Kind == embedderOpenAI {
		return embed.NewOpenAI(embed.OpenAIConfig{
			BaseURL:    r.URL,
			Model:      r.Model,
			APIKey:     r.APIKey,
			Dimensions: r.Dimensions,
			Timeout:    30 * time.Second,
		})
	}
	if !r.HashVectors {
		return nil, nil
	}
	return embed.NewHash(r.Dimensions), nil
}

// open is embedder, saying on logger how searches will rank: the first
// thing loci serve logs.
func (e EmbedderConfig) open(ctx context.Context, logger *slog.Logger) (loci.Embedder, error) {
	r, found := e.resolve(ctx)
	emb, err := r.embedder(ctx)
	if err != nil {
		return nil, err
	}
	kind := e.Kind
	if kind == "" {
		kind = embedderAuto
	}
	switch {
	case r.Kind == embedderOpenAI:
		args := []any{"embedder", kind, "model", r.Model, "url", r.URL}
		if found != nil {
			args = append(args, "found", found.Kind+" at "+found.URL)
		}
		logger.Info("retrieval: hybrid, by meaning and by words", args...)
	case kind == embedderAuto && !e.HashVectors:
		logger.Info("retrieval: lexical, by words only", "embedder", kind,
			"why", "no model server listing an embedding model answered on this machine", "looked", probeList(e.Probe))
	default:
		logger.Info("retrieval: lexical, by words only", "embedder", kind)
	}
	return emb, nil
}

// resolve returns e with auto decided: openai on the first model server
// of e's probes that lists an embedding model (found: where), else
// lexical. auto with HashVectors is lexical without looking: the hash
// embedder's vectors were asked for. Other kinds are returned as they are.
func (e EmbedderConfig) resolve(ctx context.Context) (r EmbedderConfig, found *embed.Found) {
	switch e.Kind {
	case "", embedderAuto:
	case embedderHash:
		e.Kind = embedderLexical
		return e, nil
	default:
		return e, nil
	}
	e.Kind = embedderLexical
	if e.HashVectors {
		return e, nil
	}
	probes, _ := parseProbes(e.Probe) // Validate has checked them
	f, ok := embed.Discover(ctx, probes, embed.DefaultProbeTimeout, nil)
	if !ok {
		return e, nil
	}
	// A model server of this machine's: no key is sent to it, and the
	// model's own dimensions are used.
	e.Kind, e.URL, e.Model, e.APIKey, e.Dimensions = embedderOpenAI, f.BaseURL, f.Model, "", 0
	return e, &f
}

// parseProbes reads where auto looks ($LOCI_EMBED_PROBE): "" for
// embed.DefaultProbes, "none" for nowhere, else comma-separated KIND=URL,
// KIND ollama or openai and URL an http:// or https:// root. EINVALID
// naming the variable for anything else.
func parseProbes(s string) ([]embed.Probe, error) {
	switch strings.TrimSpace(s) {
	case "":
		return embed.DefaultProbes, nil
	case "none":
		return nil, nil
	}
	var out []embed.Probe
	for _, part := range strings.Split(s, ",") {
		kind, raw, ok := strings.Cut(strings.TrimSpace(part), "=")
		u, err := url.Parse(raw)
		if !ok || (kind != embed.ServerOllama && kind != embed.ServerOpenAI) || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, loci.Errorf(loci.EINVALID, "LOCI_EMBED_PROBE must be none or comma-separated KIND=URL (KIND ollama or openai, "+
				"URL such as http://127.0.0.1:11434), not %q", s)
		}
		out = append(out, embed.Probe{Kind: kind, URL: raw})
	}
	return out, nil
}

// probeList names where auto looks, for the log.
func probeList(s string) string {
	probes, _ := parseProbes(s)
	if len(probes) == 0 {
		return "nowhere"
	}
	names := make([]string, len(probes))
	for i, p := range probes {
		names[i] = p.Kind + " " + p.URL
	}
	return strings.Join(names, ", ")
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
