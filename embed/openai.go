package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-memory/loci"
)

var _ loci.Embedder = (*OpenAI)(nil)

// OpenAIConfig configures an OpenAI-compatible embedder.
type OpenAIConfig struct {
	// BaseURL is the API root that /embeddings is appended to, e.g.
	// https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama).
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Dimensions, when set, is sent as "dimensions" and checked against
	// every returned vector; when 0 it is learned from the first response.
	Dimensions int
	// BatchSize is the most texts per request (default 64).
	BatchSize int
	// Timeout bounds one request (default 30s).
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried (default 3),
	// after Backoff, doubling each time (default 500ms).
	MaxRetries int
	Backoff    time.Duration
	// HTTP is the client to use (default: a new one).
	HTTP *http.Client
}

// OpenAI embeds through any OpenAI-compatible /v1/embeddings endpoint.
// Vectors are normalised to unit length.
type OpenAI struct {
	cfg  OpenAIConfig
	dims atomic.Int64
}

// NewOpenAI returns an embedder for cfg. EINVALID without a base URL or
// model.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" || strings.TrimSpace(cfg.Model) == "" {
		return nil, loci.Errorf(loci.EINVALID, "openai embedder: base URL and model are required")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	} else if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{}
	}
	o := &OpenAI{cfg: cfg}
	o.dims.Store(int64(cfg.Dimensions))
	return o, nil
}

// Model is "openai:" and the model name.
func (o *OpenAI) Model() string { return "openai:" + o.cfg.Model }

// Dimensions is the vectors' length: the configured one, or the one the
// endpoint answered with (0 before the first answer).
func (o *OpenAI) Dimensions() int { return int(o.dims.Load()) }

type embeddingsRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one vector per text, in order, requesting at most
// BatchSize texts at a time.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.cfg.BatchSize {
		batch := texts[start:min(start+o.cfg.BatchSize, len(texts))]
		vecs, err := o.embedWithRetry(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// errPermanent marks an answer that retrying cannot fix.
type errPermanent struct{ error }

func (o *OpenAI) embedWithRetry(ctx context.Context, batch []string) ([][]float32, error) {
	wait := o.cfg.Backoff
	var err error
	for attempt := 0; ; attempt++ {
		var vecs [][]float32
		vecs, err = o.embedOnce(ctx, batch)
		if err == nil {
			return vecs, nil
		}
		var perm errPermanent
		if errors.As(err, &perm) || attempt >= o.cfg.MaxRetries || ctx.Err() != nil {
			return nil, fmt.Errorf("openai embedder: %w", err)
		}
		select {
		case <-time.After(nextWait(wait, err)):
		case <-ctx.Done():
			return nil, fmt.Errorf("openai embedder: %w", ctx.Err())
		}
		wait *= 2
	}
}

// maxRetryAfter caps how long a server's Retry-After may make a retry wait.
const maxRetryAfter = time.Minute

// errRetryAfter is a retryable answer (429, 5xx) that said how long to wait.
type errRetryAfter struct {
	error
	after time.Duration
}

// nextWait is the wait before the next try: the backoff, or longer when the
// server asked for it with Retry-After.
func nextWait(backoff time.Duration, err error) time.Duration {
	var ra errRetryAfter
	if errors.As(err, &ra) && ra.after > backoff {
		return ra.after
	}
	return backoff
}

// retryAfter reads a Retry-After header (seconds, or an HTTP date) as a
// wait from now, at most maxRetryAfter; 0 when absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.Atoi(h); err == nil {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

func (o *OpenAI) embedOnce(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: o.cfg.Model, Input: batch, Dimensions: o.cfg.Dimensions})
	if err != nil {
		return nil, errPermanent{err}
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.BaseURL+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, errPermanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.cfg.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("status %d: %s", resp.StatusCode, snippet(raw))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			if after := retryAfter(resp.Header.Get("Retry-After"), time.Now()); after > 0 {
				return nil, errRetryAfter{err, after}
			}
			return nil, err
		}
		return nil, errPermanent{err}
	}
	var res embeddingsResponse
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if len(res.Data) != len(batch) {
		return nil, fmt.Errorf("got %d embeddings for %d inputs", len(res.Data), len(batch))
	}
	out := make([][]float32, len(batch))
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= len(batch) || out[d.Index] != nil {
			return nil, fmt.Errorf("bad embedding index %d", d.Index)
		}
		o.dims.CompareAndSwap(0, int64(len(d.Embedding)))
		if want := o.Dimensions(); len(d.Embedding) != want || want == 0 {
			return nil, errPermanent{fmt.Errorf("embedding has %d dimensions, want %d", len(d.Embedding), want)}
		}
		out[d.Index] = normalize(d.Embedding)
	}
	return out, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Name is the model's name as the server knows it (Model without the
// "openai:" that marks whose vectors they are).
func (o *OpenAI) Name() string { return o.cfg.Model }
