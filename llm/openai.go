// Package llm holds loci's chat model adapter (loci.ChatModel): any
// OpenAI-compatible /v1/chat/completions (OpenAI, Ollama, llama.cpp, LM
// Studio, vLLM). loci calls a chat model only to read conversations added
// as memories, and only when one is configured.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

var _ loci.ChatModel = (*OpenAI)(nil)

// Config configures an OpenAI-compatible chat model.
type Config struct {
	// URL is the API root that /chat/completions is appended to, e.g.
	// https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama); a
	// URL that already ends in /chat/completions is used as it is.
	URL string
	// Model is the model name sent with every request.
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Timeout bounds one request (default 30s); the caller's context may
	// bound it sooner.
	Timeout time.Duration
	// HTTP is the client to use (default: a new one).
	HTTP *http.Client
}

// OpenAI is a chat model behind an OpenAI-compatible /chat/completions.
// It asks for a JSON object (response_format json_object) at temperature
// 0, and does not retry: a caller that waits answers 503 at once, and the
// queue of adds tries again later.
type OpenAI struct {
	cfg      Config
	endpoint string
}

// maxReplyBytes bounds the answer read from the model.
const maxReplyBytes = 8 << 20

// NewOpenAI returns a chat model for cfg. EINVALID without a URL or model,
// or with a URL that is not http(s).
func NewOpenAI(cfg Config) (*OpenAI, error) {
	cfg.URL, cfg.Model = strings.TrimSpace(cfg.URL), strings.TrimSpace(cfg.Model)
	if cfg.URL == "" || cfg.Model == "" {
		return nil, loci.Errorf(loci.EINVALID, "chat model: a URL and a model are required")
	}
	if !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") {
		return nil, loci.Errorf(loci.EINVALID, "chat model: the URL must start with http:// or https://, not %q", cfg.URL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{}
	}
	endpoint := strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(endpoint, "/chat/completions") {
		endpoint += "/chat/completions"
	}
	return &OpenAI{cfg: cfg, endpoint: endpoint}, nil
}

// Model is the model's name.
func (o *OpenAI) Model() string { return o.cfg.Model }

type chatRequest struct {
	Model          string             `json:"model"`
	Messages       []loci.ChatMessage `json:"messages"`
	Temperature    float64            `json:"temperature"`
	ResponseFormat map[string]string  `json:"response_format"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// Chat sends messages and returns the text of the first choice's reply.
// Every failure is EUNAVAILABLE: the server cannot be reached, answers an
// error status or something that is not a chat completion, or does not
// answer within the timeout.
func (o *OpenAI) Chat(ctx context.Context, messages []loci.ChatMessage) (string, error) {
	body, err := json.Marshal(chatRequest{Model: o.cfg.Model, Messages: messages, ResponseFormat: map[string]string{"type": "json_object"}})
	if err != nil {
		return "", fmt.Errorf("chat model: encode the request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", loci.WrapError(err, loci.EUNAVAILABLE, "the chat model's URL is not usable")
	}
	req.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.cfg.HTTP.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", loci.WrapError(err, loci.EUNAVAILABLE, "the chat model %s did not answer within %s", o.cfg.Model, o.cfg.Timeout)
		}
		return "", loci.WrapError(err, loci.EUNAVAILABLE, "the chat model at %s cannot be reached", o.endpoint)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return "", loci.WrapError(err, loci.EUNAVAILABLE, "the chat model %s stopped answering", o.cfg.Model)
	}
	if resp.StatusCode != http.StatusOK {
		return "", loci.Errorf(loci.EUNAVAILABLE, "the chat model %s answered status %d: %s", o.cfg.Model, resp.StatusCode, snippet(raw))
	}
	var res chatResponse
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", loci.Errorf(loci.EUNAVAILABLE, "the chat model %s answered something that is not a chat completion: %s", o.cfg.Model, snippet(raw))
	}
	if len(res.Choices) == 0 || res.Choices[0].Message.Content == nil {
		return "", loci.Errorf(loci.EUNAVAILABLE, "the chat model %s answered no message", o.cfg.Model)
	}
	return *res.Choices[0].Message.Content, nil
}

// snippet is the start of an answer, for an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
