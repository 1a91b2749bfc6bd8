package embed

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Finding a model server on this machine: loci's default embedder
// (auto) asks, once at start, each place a local model server listens by
// default for its list of models (one GET each, all at once, within half
// a second in all: nothing else is sent, and nothing is asked at search
// time), and embeds with the first one that lists an embedding model,
// through its OpenAI-compatible /v1/embeddings.

// Server kinds a probe asks.
const (
	// ServerOllama lists its models at GET /api/tags and serves the
	// OpenAI-compatible API under /v1.
	ServerOllama = "ollama"
	// ServerOpenAI is any OpenAI-compatible server (llama.cpp's
	// llama-server, LM Studio, vLLM): GET /v1/models.
	ServerOpenAI = "openai"
)

// Probe is a place a model server may listen: its kind and root URL
// (scheme, host and port).
type Probe struct {
	Kind string
	URL  string
}

// DefaultProbes are the places a local model server listens by default,
// in the order they are preferred: Ollama (11434), llama.cpp's server
// (8080), LM Studio (1234), vLLM (8000).
var DefaultProbes = []Probe{
	{ServerOllama, "http://127.0.0.1:11434"},
	{ServerOpenAI, "http://127.0.0.1:8080"},
	{ServerOpenAI, "http://127.0.0.1:1234"},
	{ServerOpenAI, "http://127.0.0.1:8000"},
}

// DefaultProbeTimeout bounds a discovery in all.
const DefaultProbeTimeout = 500 * time.Millisecond

// Found is a model server that lists an embedding model: the probe that
// found it, the model (as the server names it) and the root of its
// OpenAI-compatible API (the probe's URL and /v1).
type Found struct {
	Probe
	Model   string
	BaseURL string
}

// Discover asks every probe for its list of models at once (a GET of
// /api/tags for Ollama, of /v1/models for the others), within timeout in
// all, and returns the first probe, in the order given, whose list holds
// an embedding model (EmbeddingModel), with the first such model it
// lists. A server that does not answer in time, answers an error or
// something that is not a list of models counts as none. ok is false when
// none is found.
func Discover(ctx context.Context, probes []Probe, timeout time.Duration, client *http.Client) (found Found, ok bool) {
	if len(probes) == 0 {
		return Found{}, false
	}
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	models := make([]string, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Go(func() { models[i] = listEmbeddingModel(ctx, client, p) })
	}
	wg.Wait()
	for i, p := range probes {
		if models[i] != "" {
			return Found{Probe: p, Model: models[i], BaseURL: strings.TrimRight(p.URL, "/") + "/v1"}, true
		}
	}
	return Found{}, false
}

// listEmbeddingModel asks p for its models and returns the first
// embedding model it lists, or "".
func listEmbeddingModel(ctx context.Context, client *http.Client, p Probe) string {
	path := "/v1/models"
	if p.Kind == ServerOllama {
		path = "/api/tags"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(p.URL, "/")+path, nil)
	if err != nil {
		return ""
	}
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return ""
	}
	var list modelList
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	for _, m := range append(list.Data, list.Models...) {
		if m.embedding() {
			return m.name()
		}
	}
	return ""
}

// modelList is a list of models as Ollama (models) or an OpenAI-compatible
// server (data; llama.cpp's also models) answers it.
type modelList struct {
	Data   []listedModel `json:"data"`
	Models []listedModel `json:"models"`
}

// listedModel is one model of a list, with what servers say of its kind.
type listedModel struct {
	ID           string   `json:"id"`    // OpenAI
	Name         string   `json:"name"`  // Ollama
	Model        string   `json:"model"` // Ollama, llama.cpp
	Type         string   `json:"type"`  // LM Studio: "llm", "embeddings"
	Capabilities []string `json:"capabilities"`
	Details      struct {
		Family   string   `json:"family"`
		Families []string `json:"families"`
	} `json:"details"` // Ollama
}

// name is the model's name as the server's embeddings endpoint takes it.
func (m listedModel) name() string {
	for _, n := range []string{m.ID, m.Name, m.Model} {
		if strings.TrimSpace(n) != "" {
			return n
		}
	}
	return ""
}

// embedding reports whether the model is an embedding model, as its list
// says: its type or capabilities, its family (Ollama's embedding models
// are BERT-like), or its name (EmbeddingModel).
func (m listedModel) embedding() bool {
	if m.name() == "" {
		return false
	}
	switch strings.ToLower(m.Type) {
	case "embedding", "embeddings":
		return true
	case "llm", "vlm":
		return false
	}
	for _, c := range m.Capabilities {
		if c = strings.ToLower(c); c == "embedding" || c == "embeddings" || c == "embed" {
			return true
		}
	}
	for _, f := range append([]string{m.Details.Family}, m.Details.Families...) {
		if f = strings.ToLower(f); strings.Contains(f, "bert") {
			return true
		}
	}
	return EmbeddingModel(m.name())
}

// embeddingName matches the names embedding models go by: nomic-embed-text,
// text-embedding-3-small, mxbai-embed-large, snowflake-arctic-embed,
// BAAI/bge-small-en-v1.5, intfloat/e5-large-v2, thenlper/gte-base,
// all-MiniLM-L6-v2, all-mpnet-base-v2.
var embeddingName = regexp.MustCompile(`(?i)embed|(^|[-_/.])(bge|e5|gte)([-_/.]|$)|minilm|mpnet|sentence-t5`)

// EmbeddingModel reports whether a model's name says it is an embedding
// model.
func EmbeddingModel(name string) bool { return embeddingName.MatchString(name) }
