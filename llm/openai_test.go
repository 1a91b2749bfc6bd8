package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/llm"
)

// TestChat: the request is an OpenAI chat completion (the model, the
// messages, a JSON object asked for, the key as a bearer token) sent to
// the API root's /chat/completions, and the first choice's content is
// the answer.
func TestChat(t *testing.T) {
	var got struct {
		Model          string             `json:"model"`
		Messages       []loci.ChatMessage `json:"messages"`
		Temperature    *float64           `json:"temperature"`
		ResponseFormat map[string]string  `json:"response_format"`
	}
	var path, auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&got)
		io.WriteString(w, `{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"memories\": []}"}}]}`)
	}))
	defer srv.Close()
	for _, url := range []string{srv.URL + "/v1", srv.URL + "/v1/", srv.URL + "/v1/chat/completions"} {
		m, err := llm.NewOpenAI(llm.Config{URL: url, Model: "llama3.2", APIKey: "sk-1"})
		if err != nil {
			t.Fatal(err)
		}
		reply, err := m.Chat(context.Background(), []loci.ChatMessage{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi", Name: "alex"}})
		if err != nil || reply != `{"memories": []}` {
			t.Errorf("%s: Chat = %q, %v", url, reply, err)
		}
		if path != "/v1/chat/completions" || auth != "Bearer sk-1" || got.Model != "llama3.2" || len(got.Messages) != 2 ||
			got.Messages[1].Name != "alex" || got.ResponseFormat["type"] != "json_object" || got.Temperature == nil || *got.Temperature != 0 {
			t.Errorf("%s: request to %s (auth %q): %+v", url, path, auth, got)
		}
		if m.Model() != "llama3.2" {
			t.Errorf("Model = %q", m.Model())
		}
	}
}

// TestChatErrors: every way the model fails is unavailable, saying how.
func TestChatErrors(t *testing.T) {
	slow := make(chan struct{})
	defer close(slow)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read to its end, the server notices when the client goes
		switch r.URL.Path {
		case "/status/v1/chat/completions":
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error": "rate limited"}`)
		case "/html/v1/chat/completions":
			io.WriteString(w, `<html>not an API</html>`)
		case "/empty/v1/chat/completions":
			io.WriteString(w, `{"choices": []}`)
		case "/slow/v1/chat/completions":
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, tc := range []struct {
		name, url, says string
	}{
		{"ErrStatus", srv.URL + "/status/v1", "answered status 429"},
		{"ErrNotCompletion", srv.URL + "/html/v1", "not a chat completion"},
		{"ErrNoChoice", srv.URL + "/empty/v1", "answered no message"},
		{"ErrSlow", srv.URL + "/slow/v1", "did not answer within 100ms"},
		{"ErrDown", down.URL + "/v1", "cannot be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llm.NewOpenAI(llm.Config{URL: tc.url, Model: "m", Timeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Chat(context.Background(), []loci.ChatMessage{{Role: "user", Content: "hi"}})
			if loci.ErrorCode(err) != loci.EUNAVAILABLE || !strings.Contains(loci.ErrorMessage(err), tc.says) {
				t.Errorf("Chat: %v, want unavailable saying %q", err, tc.says)
			}
		})
	}
	for _, cfg := range []llm.Config{{URL: "", Model: "m"}, {URL: "http://x/v1"}, {URL: "localhost:11434", Model: "m"}} {
		if _, err := llm.NewOpenAI(cfg); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("NewOpenAI(%+v) = %v, want invalid", cfg, err)
		}
	}
}
