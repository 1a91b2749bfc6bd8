package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// modelServer is a model server of the test's own, on a free port: it
// lists its models as Ollama (GET /api/tags) or an OpenAI-compatible
// server (GET /v1/models) does, and embeds through /v1/embeddings with
// small semantic vectors (conceptVector). It records every request, can
// hold its model list until released, answer it with any body, and
// refuse embedding requests.
type modelServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string // "METHOD PATH", in order

	list     atomic.Pointer[string] // the model list's body
	hold     chan struct{}          // when set, the model list waits until it is closed
	failEmbd atomic.Bool            // /v1/embeddings answers 503
	// refuse, when it returns true for an embedding request's inputs,
	// has it answered 503.
	refuse atomic.Pointer[func(inputs []string) bool]
}

// openAIList and ollamaList are model lists as the servers answer them.
func openAIList(ids ...string) string {
	type m struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	var data []m
	for _, id := range ids {
		data = append(data, m{id, "model"})
	}
	b, _ := json.Marshal(map[string]any{"object": "list", "data": data})
	return string(b)
}

func ollamaList(models ...[2]string) string { // name, family
	var list []map[string]any
	for _, m := range models {
		list = append(list, map[string]any{"name": m[0], "model": m[0], "details": map[string]any{"family": m[1], "families": []string{m[1]}}})
	}
	b, _ := json.Marshal(map[string]any{"models": list})
	return string(b)
}

func newModelServer(t *testing.T, list string) *modelServer {
	t.Helper()
	s := &modelServer{}
	s.list.Store(&list)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		if s.hold != nil {
			select {
			case <-s.hold:
			default:
				close(s.hold)
			}
		}
		s.Close()
	})
	return s
}

func (s *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/api/tags" || r.URL.Path == "/v1/models"):
		if s.hold != nil {
			select {
			case <-s.hold:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(*s.list.Load()))
	case r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings":
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Input) == 0 {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		if f := s.refuse.Load(); s.failEmbd.Load() || f != nil && (*f)(req.Input) {
			http.Error(w, `{"error":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			data[i] = item{i, conceptVector(req.Model, text)}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	default:
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	}
}

// requests returns the requests the server has had.
func (s *modelServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// modelConcepts are the dimensions of conceptVector: a text's vector
// counts its words of each concept, and one more dimension the others, so
// "dinner" is near "roasted chicken" though they share no word.
var modelConcepts = [][]string{
	{"meat", "chicken", "roasted", "steak", "dinner", "grill", "food", "cook", "vegetarian", "diet", "dietary", "nuts", "allergic", "allergies", "eat"},
	{"guitar", "song", "music", "concert", "chords"},
	{"flight", "paris", "trip", "travel", "booked"},
}

// conceptVector is text's vector by model: the concepts' counts, in the
// reverse order for a model whose name ends in "2", so that its vectors
// are not another model's.
func conceptVector(model, text string) []float64 {
	v := make([]float64, len(modelConcepts)+1)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		d := len(modelConcepts)
		for c, words := range modelConcepts {
			for _, cw := range words {
				if w == cw {
					d = c
				}
			}
		}
		if strings.HasSuffix(model, "2") {
			d = len(v) - 1 - d
		}
		v[d]++
	}
	return v
}

// closedPort returns a probe (LOCI_EMBED_PROBE) of a port nothing listens
// on: an OpenAI-compatible server's place, closed.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "openai=http://" + addr
}
