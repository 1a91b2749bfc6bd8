package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// scriptedChat is an OpenAI-compatible /v1/chat/completions that answers
// each request with the next scripted content, and 503 when none is left.
type scriptedChat struct {
	*httptest.Server
	mu      sync.Mutex
	replies []string
	asked   int
}

func newScriptedChat(t *testing.T) *scriptedChat {
	c := &scriptedChat{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		io.Copy(io.Discard, r.Body)
		c.mu.Lock()
		c.asked++
		if len(c.replies) == 0 {
			c.mu.Unlock()
			http.Error(w, `{"error": "model loading"}`, http.StatusServiceUnavailable)
			return
		}
		content := c.replies[0]
		c.replies = c.replies[1:]
		c.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *scriptedChat) script(replies ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies = append(c.replies, replies...)
}

// postJSON posts body and decodes the answer.
func postJSON(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: decode: %v", url, err)
	}
	return resp.StatusCode, out
}

// TestE2EConversations: `loci serve --llm-url --llm-model` reads a
// conversation with the chat model (the key from LOCI_LLM_API_KEY), says
// which model in its log; an add queued with async while the model is
// down waits, survives the server's kill -9, and is run by the next
// server on the same database once the model answers.
func TestE2EConversations(t *testing.T) {
	chat := newScriptedChat(t)
	db := filepath.Join(t.TempDir(), "loci.db")
	env := []string{"LOCI_LLM_API_KEY=sk-test", "LOCI_LLM_MODEL=scripted"}
	s := startServer(t, env, "--db", db, "--llm-url", chat.URL+"/v1", "--llm-timeout", "5s")
	chat.script(`{"memories": [{"text": "Is vegetarian"}, {"text": "Is allergic to nuts"}]}`)
	st, out := postJSON(t, s.url+"/v1/memories", `{"messages": [{"role": "user", "content": "Hi, I'm Alex. I'm a vegetarian and I'm allergic to nuts."},
		{"role": "assistant", "content": "Noted!"}], "user_id": "alex"}`)
	if st != 201 || len(out["results"].([]any)) != 2 || out["inference"].(map[string]any)["model"] != "scripted" {
		t.Fatalf("add with the model: %d %v", st, out)
	}
	if !strings.Contains(s.stderr.String(), "chat_model=scripted") {
		t.Errorf("the log does not name the chat model:\n%s", s.stderr)
	}

	// Queued while the model is down: tried, and pending again.
	st, out = postJSON(t, s.url+"/v1/memories", `{"messages": [{"role": "user", "content": "I love hiking"}], "user_id": "alex", "async": true}`)
	if st != 202 {
		t.Fatalf("async add: %d %v", st, out)
	}
	id := out["event_id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ev map[string]any
		getJSON(t, http.DefaultClient, s.url+"/v1/events/"+id, &ev)
		if msg, _ := ev["error"].(string); ev["status"] == "PENDING" && strings.Contains(msg, "status 503") {
			break
		}
		if ev["status"] != "PENDING" || time.Now().After(deadline) {
			t.Fatalf("the event while the model is down: %v", ev)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.signal(t, syscall.SIGKILL)

	chat.script(`{"memories": [{"text": "Loves hiking"}]}`)
	s = startServer(t, env, "--db", db, "--llm-url", chat.URL+"/v1")
	deadline = time.Now().Add(60 * time.Second)
	for {
		var ev map[string]any
		getJSON(t, http.DefaultClient, s.url+"/v1/events/"+id, &ev)
		if ev["status"] == "SUCCEEDED" {
			res := ev["results"].([]any)
			if len(res) != 1 || res[0].(map[string]any)["content"] != "Loves hiking" {
				t.Errorf("the event's results: %v", ev)
			}
			break
		}
		if ev["status"] != "PENDING" || time.Now().After(deadline) {
			t.Fatalf("the event after the restart: %v\n%s", ev, s.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
