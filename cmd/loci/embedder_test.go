package main

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci/embed"
)

// TestEmbedderAuto: the default embedder asks each place a model server
// may listen for its model list (a GET, nothing else) and embeds with the
// first, in the order given, that lists an embedding model; a server that
// is not there, lists no embedding model, answers an error or malformed
// JSON, or does not answer within half a second counts as none, and
// searches are then lexical. lexical (and hash) never look.
func TestEmbedderAuto(t *testing.T) {
	resolve := func(t *testing.T, e EmbedderConfig) (EmbedderConfig, string) {
		t.Helper()
		c := configFromEnv(envOf(nil))
		c.Embedder.Kind, c.Embedder.Probe, c.Embedder.HashVectors = e.Kind, e.Probe, e.HashVectors
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		if _, err := c.Embedder.open(context.Background(), slog.New(slog.NewTextHandler(&log, nil))); err != nil {
			t.Fatal(err)
		}
		r, _ := c.Embedder.resolve(context.Background())
		return r, log.String()
	}
	onlyList := func(t *testing.T, s *modelServer, path string) {
		t.Helper()
		for _, r := range s.requests() {
			if r != "GET "+path {
				t.Errorf("the probe sent %q: it must only GET %s", r, path)
			}
		}
	}

	t.Run("OpenAIFound", func(t *testing.T) {
		s := newModelServer(t, openAIList("llama-3.2-3b-instruct", "text-embedding-nomic-embed-text-v1.5", "bge-m3"))
		r, log := resolve(t, EmbedderConfig{Probe: "openai=" + s.URL})
		if r.Kind != embedderOpenAI || r.URL != s.URL+"/v1" || r.Model != "text-embedding-nomic-embed-text-v1.5" || r.APIKey != "" {
			t.Errorf("resolved %+v, want openai on %s/v1 with the first embedding model", r, s.URL)
		}
		if !strings.Contains(log, "retrieval: hybrid, by meaning and by words") || !strings.Contains(log, "model=text-embedding-nomic-embed-text-v1.5") {
			t.Errorf("log: %s", log)
		}
		onlyList(t, s, "/v1/models")
	})
	t.Run("OllamaFound", func(t *testing.T) {
		s := newModelServer(t, ollamaList([2]string{"llama3.2:latest", "llama"}, [2]string{"nomic-embed-text:latest", "nomic-bert"}))
		r, _ := resolve(t, EmbedderConfig{Probe: "ollama=" + s.URL})
		if r.Kind != embedderOpenAI || r.URL != s.URL+"/v1" || r.Model != "nomic-embed-text:latest" {
			t.Errorf("resolved %+v, want openai on Ollama's /v1 with nomic-embed-text:latest", r)
		}
		onlyList(t, s, "/api/tags")
	})
	t.Run("FirstInOrder", func(t *testing.T) {
		// The first probe answers last, and still wins.
		first := newModelServer(t, openAIList("all-MiniLM-L6-v2"))
		first.hold = make(chan struct{})
		second := newModelServer(t, ollamaList([2]string{"mxbai-embed-large:latest", "bert"}))
		go func() {
			for len(second.requests()) == 0 {
				time.Sleep(time.Millisecond)
			}
			close(first.hold)
		}()
		r, _ := resolve(t, EmbedderConfig{Probe: "openai=" + first.URL + ",ollama=" + second.URL})
		if r.Model != "all-MiniLM-L6-v2" || r.URL != first.URL+"/v1" {
			t.Errorf("resolved %+v, want the first probe's model", r)
		}
	})
	t.Run("SkipsServersWithout", func(t *testing.T) {
		chat := newModelServer(t, openAIList("qwen2.5-7b-instruct", "llama-3.1-8b"))
		broken := newModelServer(t, `{"data": [{"id": "nomic-embed`)
		emb := newModelServer(t, openAIList("BAAI/bge-small-en-v1.5"))
		r, _ := resolve(t, EmbedderConfig{Probe: closedPort(t) + ",openai=" + chat.URL + ",openai=" + broken.URL + ",openai=" + emb.URL})
		if r.Kind != embedderOpenAI || r.Model != "BAAI/bge-small-en-v1.5" {
			t.Errorf("resolved %+v, want the only server with an embedding model", r)
		}
	})
	lexical := func(t *testing.T, r EmbedderConfig, log string) {
		t.Helper()
		if r.Kind != embedderLexical {
			t.Errorf("resolved %+v, want lexical", r)
		}
		if !strings.Contains(log, "retrieval: lexical, by words only") {
			t.Errorf("log: %s", log)
		}
	}
	t.Run("NoneThere", func(t *testing.T) {
		r, log := resolve(t, EmbedderConfig{Probe: closedPort(t)})
		lexical(t, r, log)
		if !strings.Contains(log, "no model server") {
			t.Errorf("log does not say why: %s", log)
		}
	})
	t.Run("NoEmbeddingModel", func(t *testing.T) {
		s := newModelServer(t, ollamaList([2]string{"llama3.2:latest", "llama"}, [2]string{"qwen2.5:7b", "qwen2"}))
		r, log := resolve(t, EmbedderConfig{Probe: "ollama=" + s.URL})
		lexical(t, r, log)
	})
	for name, body := range map[string]string{
		"Malformed": `{"data": [{"id": "nomic-embed-text"`, "NotAList": `"nomic-embed-text"`, "Empty": ``, "HTML": `<html>nomic-embed</html>`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newModelServer(t, body)
			r, log := resolve(t, EmbedderConfig{Probe: "openai=" + s.URL})
			lexical(t, r, log)
		})
	}
	t.Run("ErrorStatus", func(t *testing.T) {
		s := newModelServer(t, openAIList("nomic-embed-text"))
		r, log := resolve(t, EmbedderConfig{Probe: "openai=" + s.URL + "/not-here"})
		lexical(t, r, log)
	})
	t.Run("Slow", func(t *testing.T) {
		// It answers only once the test is over: the probe gives up at
		// its half second, and searches are lexical.
		s := newModelServer(t, openAIList("nomic-embed-text"))
		s.hold = make(chan struct{})
		r, log := resolve(t, EmbedderConfig{Probe: "openai=" + s.URL})
		lexical(t, r, log)
		if len(s.requests()) == 0 {
			t.Error("the slow server was not asked")
		}
	})
	for _, kind := range []string{"lexical", "hash", "LEXICAL"} {
		t.Run("NeverLooks/"+kind, func(t *testing.T) {
			s := newModelServer(t, openAIList("nomic-embed-text"))
			r, log := resolve(t, EmbedderConfig{Kind: kind, Probe: "openai=" + s.URL})
			lexical(t, r, log)
			if reqs := s.requests(); len(reqs) != 0 {
				t.Errorf("--embedder %s looked: %v", kind, reqs)
			}
		})
	}
	t.Run("HashVectorsNeverLook", func(t *testing.T) {
		s := newModelServer(t, openAIList("nomic-embed-text"))
		r, _ := resolve(t, EmbedderConfig{HashVectors: true, Probe: "openai=" + s.URL})
		if r.Kind != embedderLexical || len(s.requests()) != 0 {
			t.Errorf("auto with hash vectors: %+v, requests %v", r, s.requests())
		}
	})
	t.Run("None", func(t *testing.T) {
		r, log := resolve(t, EmbedderConfig{Probe: "none"})
		lexical(t, r, log)
	})
	t.Run("DefaultProbes", func(t *testing.T) {
		// Ollama's port, then llama.cpp's, LM Studio's and vLLM's, on
		// this machine only.
		probes, err := parseProbes("")
		want := []embed.Probe{{Kind: embed.ServerOllama, URL: "http://127.0.0.1:11434"}, {Kind: embed.ServerOpenAI, URL: "http://127.0.0.1:8080"},
			{Kind: embed.ServerOpenAI, URL: "http://127.0.0.1:1234"}, {Kind: embed.ServerOpenAI, URL: "http://127.0.0.1:8000"}}
		if err != nil || !slices.Equal(probes, want) {
			t.Errorf("default probes %v (%v), want %v", probes, err, want)
		}
	})
}

// TestEmbeddingModelNames: the names embedding models go by are
// recognised; chat models' are not.
func TestEmbeddingModelNames(t *testing.T) {
	for _, name := range []string{"nomic-embed-text:latest", "text-embedding-3-small", "mxbai-embed-large", "snowflake-arctic-embed:33m",
		"BAAI/bge-small-en-v1.5", "bge-m3", "intfloat/multilingual-e5-large", "thenlper/gte-base", "all-MiniLM-L6-v2", "sentence-transformers/all-mpnet-base-v2",
		"jina-embeddings-v2-base-en", "granite-embedding:30m"} {
		if !embed.EmbeddingModel(name) {
			t.Errorf("%s: not seen as an embedding model", name)
		}
	}
	for _, name := range []string{"llama3.2:latest", "qwen2.5-7b-instruct", "mistral-7b", "gpt-4o-mini", "gemma2:9b", "phi3:mini", "deepseek-r1:7b"} {
		if embed.EmbeddingModel(name) {
			t.Errorf("%s: seen as an embedding model", name)
		}
	}
}
