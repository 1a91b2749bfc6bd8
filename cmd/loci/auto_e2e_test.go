//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// autoSearchAnswer is what the e2e tests read of a POST /v1/search answer.
type autoSearchAnswer struct {
	PendingEmbeddings int `json:"pending_embeddings"`
	Retrieval         struct {
		Mode  string  `json:"mode"`
		Model *string `json:"model"`
	} `json:"retrieval"`
	Results []struct {
		Content string  `json:"content"`
		Score   float64 `json:"score"`
	} `json:"results"`
}

func postAnswer(t *testing.T, c *http.Client, url, body string, out any) int {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("POST %s: decode: %v", url, err)
		}
	}
	return resp.StatusCode
}

// waitFor polls cond until it holds or 30 s pass (a deadline for the
// server's background work, not a timed assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

// firstLogLine stops s and returns the first line it logged.
func firstLogLine(t *testing.T, s *server) string {
	t.Helper()
	s.signal(t, syscall.SIGTERM)
	line, _, _ := strings.Cut(s.stderr.String(), "\n")
	return line
}

// TestE2EEmbedderAuto runs loci serve with its default embedder against
// a model server the test scripts, where LOCI_EMBED_PROBE points: it is
// found at start (the first log line and /readyz say so), memories are
// embedded in the background and found by meaning; when the server stops
// answering, writes go on and searches are lexical, and say so; restarted
// with another model, the old model's vectors are never compared with
// the new one's.
func TestE2EEmbedderAuto(t *testing.T) {
	c := &http.Client{Timeout: 30 * time.Second}
	db := filepath.Join(t.TempDir(), "loci.db")
	m1 := newModelServer(t, openAIList("llama-3.2-3b-instruct", "nomic-embed-text-v1"))
	s := startServer(t, []string{"LOCI_EMBEDDER=", "LOCI_EMBED_PROBE=openai=" + m1.URL}, "--db", db)

	var ready struct {
		Retrieval struct {
			Mode  string  `json:"mode"`
			Model *string `json:"model"`
		} `json:"retrieval"`
	}
	if st := getJSON(t, c, s.url+"/readyz", &ready); st != 200 || ready.Retrieval.Mode != "hybrid" || ready.Retrieval.Model == nil || *ready.Retrieval.Model != "nomic-embed-text-v1" {
		t.Fatalf("readyz: %d %+v, want hybrid with nomic-embed-text-v1", st, ready)
	}
	for _, content := range []string{"Roasted chicken with rosemary", "Learning a new song on the guitar"} {
		if st := postAnswer(t, c, s.url+"/v1/memories", `{"content": "`+content+`", "user_id": "u"}`, nil); st != 201 {
			t.Fatalf("add: %d", st)
		}
	}
	const dinner = `{"query": "what is for dinner", "user_id": "u"}`
	waitFor(t, "the memories are embedded and found by meaning", func() bool {
		var a autoSearchAnswer
		postAnswer(t, c, s.url+"/v1/search", dinner, &a)
		return a.PendingEmbeddings == 0 && a.Retrieval.Mode == "hybrid" && len(a.Results) > 0 && a.Results[0].Content == "Roasted chicken with rosemary"
	})

	// The server stops answering: writes go on, searches are lexical.
	m1.failEmbd.Store(true)
	if st := postAnswer(t, c, s.url+"/v1/memories", `{"content": "Booked a flight to Paris", "user_id": "u"}`, nil); st != 201 {
		t.Fatalf("add while the model server fails: %d", st)
	}
	var a autoSearchAnswer
	postAnswer(t, c, s.url+"/v1/search", `{"query": "flight to Paris", "user_id": "u"}`, &a)
	if a.Retrieval.Mode != "lexical" || a.Retrieval.Model != nil || len(a.Results) != 1 || a.PendingEmbeddings != 1 {
		t.Fatalf("while the model server fails: %+v, want the flight found by its words, lexical, one pending", a)
	}
	if line := firstLogLine(t, s); !strings.Contains(line, "retrieval: hybrid, by meaning and by words") || !strings.Contains(line, "model=nomic-embed-text-v1") {
		t.Errorf("first log line: %q", line)
	}
	for _, r := range m1.requests() {
		if r != "GET /v1/models" && r != "POST /v1/embeddings" {
			t.Errorf("loci sent the model server %q", r)
		}
	}

	// Restarted where another model is served: the records wait for its
	// vectors, and m1's are never compared with its queries.
	m2 := newModelServer(t, openAIList("nomic-embed-text-v2"))
	query := "what is for dinner"
	onlyQueries := func(inputs []string) bool { return len(inputs) != 1 || inputs[0] != query }
	m2.refuse.Store(&onlyQueries)
	s = startServer(t, []string{"LOCI_EMBEDDER=", "LOCI_EMBED_PROBE=openai=" + m2.URL}, "--db", db)
	a = autoSearchAnswer{}
	postAnswer(t, c, s.url+"/v1/search", dinner, &a)
	if a.Retrieval.Mode != "hybrid" || *a.Retrieval.Model != "nomic-embed-text-v2" || a.PendingEmbeddings != 3 || len(a.Results) != 0 {
		t.Fatalf("after the model change: %+v, want hybrid by v2, the 3 memories pending, none found by v1's vectors", a)
	}
	m2.refuse.Store(nil)
	waitFor(t, "the memories are embedded by the new model", func() bool {
		var a autoSearchAnswer
		postAnswer(t, c, s.url+"/v1/search", dinner, &a)
		return a.PendingEmbeddings == 0 && len(a.Results) > 0 && a.Results[0].Content == "Roasted chicken with rosemary"
	})
}

// TestE2EEmbedderLexical: with no model server where it looks, or with
// --embedder lexical, loci serve searches by words and says so in its
// first log line, /readyz and every search; lexical never looks.
func TestE2EEmbedderLexical(t *testing.T) {
	c := &http.Client{Timeout: 30 * time.Second}
	m := newModelServer(t, openAIList("nomic-embed-text"))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		says string
	}{
		{"NoneFound", []string{"LOCI_EMBEDDER=", "LOCI_EMBED_PROBE=" + closedPort(t)}, nil, "no model server"},
		{"Slow", []string{"LOCI_EMBEDDER=", "LOCI_EMBED_PROBE=openai=" + slowServer(t)}, nil, "no model server"},
		{"Lexical", []string{"LOCI_EMBEDDER=", "LOCI_EMBED_PROBE=openai=" + m.URL}, []string{"--embedder", "lexical"}, "embedder=lexical"},
		{"Hash", []string{"LOCI_EMBEDDER=hash", "LOCI_EMBED_PROBE=openai=" + m.URL}, nil, "embedder=hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env, append([]string{"--db", ":memory:"}, tc.args...)...)
			var ready struct {
				Retrieval map[string]any `json:"retrieval"`
			}
			getJSON(t, c, s.url+"/readyz", &ready)
			if ready.Retrieval["mode"] != "lexical" || ready.Retrieval["model"] != nil {
				t.Errorf("readyz: %+v", ready)
			}
			var a autoSearchAnswer
			postAnswer(t, c, s.url+"/v1/search", `{"query": "anything", "user_id": "u"}`, &a)
			if a.Retrieval.Mode != "lexical" {
				t.Errorf("search: %+v", a)
			}
			if line := firstLogLine(t, s); !strings.Contains(line, "retrieval: lexical, by words only") || !strings.Contains(line, tc.says) {
				t.Errorf("first log line: %q, want lexical saying %q", line, tc.says)
			}
		})
	}
	if reqs := m.requests(); len(reqs) != 0 {
		t.Errorf("lexical looked for a model server: %v", reqs)
	}
}

// slowServer returns the URL of a model server that answers its list only
// after the test: past the half second the probe waits.
func slowServer(t *testing.T) string {
	s := newModelServer(t, openAIList("nomic-embed-text"))
	s.hold = make(chan struct{})
	return s.URL
}
