package embed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func mustEmbed(t *testing.T, e loci.Embedder, texts ...string) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if len(v) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(v), len(texts))
	}
	return v
}

func TestHash(t *testing.T) {
	h := embed.NewHash(0)
	t.Run("Shape", func(t *testing.T) {
		if got, want := h.Dimensions(), embed.DefaultHashDimensions; got != want {
			t.Errorf("Dimensions = %d, want %d", got, want)
		}
		if got, want := h.Model(), "hash-v1-256"; got != want {
			t.Errorf("Model = %q, want %q", got, want)
		}
	})
	t.Run("UnitAndDeterministic", func(t *testing.T) {
		a := mustEmbed(t, h, "the quick brown fox")[0]
		b := mustEmbed(t, embed.NewHash(0), "the quick brown fox")[0]
		if n := dot(a, a); math.Abs(n-1) > 1e-5 {
			t.Errorf("norm² = %v, want 1", n)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("not deterministic at %d: %v != %v", i, a[i], b[i])
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		v := mustEmbed(t, h, "", "!!!")
		if dot(v[0], v[0]) != 0 || dot(v[1], v[1]) != 0 {
			t.Errorf("want zero vectors for texts without words")
		}
	})
	t.Run("LexicalSimilarity", func(t *testing.T) {
		v := mustEmbed(t, h, "she loves painting sunsets", "painted a sunset", "quarterly tax filing deadline")
		near, far := dot(v[0], v[1]), dot(v[0], v[2])
		if near <= far || near < 0.2 {
			t.Errorf("sim(painting sunsets, painted a sunset) = %.3f, sim(…, tax filing) = %.3f; want the first clearly higher", near, far)
		}
	})
	t.Run("Dimensions", func(t *testing.T) {
		if got := len(mustEmbed(t, embed.NewHash(64), "x y z")[0]); got != 64 {
			t.Errorf("len = %d, want 64", got)
		}
	})
}

// fakeOpenAI is an OpenAI-compatible /v1/embeddings server that checks the
// request shape and fails the first `failures` requests with 503.
type fakeOpenAI struct {
	t        *testing.T
	dims     int
	failures atomic.Int32
	requests atomic.Int32
	status   int // answer every request with this status when set
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		f.t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		f.t.Errorf("Authorization = %q, want Bearer sk-test", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		f.t.Errorf("Content-Type = %q", got)
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("decode request: %v", err)
	}
	if req.Model != "text-embedding-3-small" {
		f.t.Errorf("model = %q", req.Model)
	}
	if len(req.Input) == 0 || len(req.Input) > 2 {
		f.t.Errorf("batch of %d inputs, want 1..2", len(req.Input))
	}
	if f.status != 0 {
		http.Error(w, `{"error":{"message":"nope"}}`, f.status)
		return
	}
	if f.failures.Add(-1) >= 0 {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	var data []item
	// Answer in reverse order: the client must place by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float64, f.dims)
		v[len(req.Input[i])%f.dims] = 3 // not unit: the client normalises
		data = append(data, item{Index: i, Embedding: v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func newOpenAI(t *testing.T, f *fakeOpenAI) *embed.OpenAI {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	e, err := embed.NewOpenAI(embed.OpenAIConfig{
		BaseURL: srv.URL + "/v1/", Model: "text-embedding-3-small", APIKey: "sk-test",
		BatchSize: 2, MaxRetries: 2, Backoff: time.Millisecond, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenAI(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := &fakeOpenAI{t: t, dims: 8}
		e := newOpenAI(t, f)
		texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
		v := mustEmbed(t, e, texts...)
		if got := f.requests.Load(); got != 3 {
			t.Errorf("requests = %d, want 3 (batches of 2)", got)
		}
		for i, s := range texts {
			if v[i][len(s)%8] != 1 {
				t.Errorf("vector %d = %v, want unit at %d", i, v[i], len(s)%8)
			}
		}
		if got := e.Dimensions(); got != 8 {
			t.Errorf("Dimensions = %d, want 8", got)
		}
		if got := e.Model(); got != "openai:text-embedding-3-small" {
			t.Errorf("Model = %q", got)
		}
	})
	t.Run("RetriesThenSucceeds", func(t *testing.T) {
		f := &fakeOpenAI{t: t, dims: 4}
		f.failures.Store(2)
		mustEmbed(t, newOpenAI(t, f), "x")
		if got := f.requests.Load(); got != 3 {
			t.Errorf("requests = %d, want 3", got)
		}
	})
	t.Run("ErrGivesUpAfterRetries", func(t *testing.T) {
		f := &fakeOpenAI{t: t, dims: 4}
		f.failures.Store(100)
		if _, err := newOpenAI(t, f).Embed(context.Background(), []string{"x"}); err == nil {
			t.Fatal("want an error")
		}
		if got := f.requests.Load(); got != 3 {
			t.Errorf("requests = %d, want 3 (1 + 2 retries)", got)
		}
	})
	t.Run("ErrClientErrorNotRetried", func(t *testing.T) {
		f := &fakeOpenAI{t: t, dims: 4, status: http.StatusUnauthorized}
		if _, err := newOpenAI(t, f).Embed(context.Background(), []string{"x"}); err == nil {
			t.Fatal("want an error")
		}
		if got := f.requests.Load(); got != 1 {
			t.Errorf("requests = %d, want 1", got)
		}
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
		}))
		t.Cleanup(srv.Close)
		e, _ := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL, Model: "m", Timeout: 20 * time.Millisecond, MaxRetries: -1})
		if _, err := e.Embed(context.Background(), []string{"x"}); err == nil {
			t.Fatal("want a timeout error")
		}
	})
	t.Run("ErrConfig", func(t *testing.T) {
		for _, cfg := range []embed.OpenAIConfig{{Model: "m"}, {BaseURL: "http://x"}} {
			if _, err := embed.NewOpenAI(cfg); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("NewOpenAI(%+v) = %v, want invalid", cfg, err)
			}
		}
	})
}

func ExampleHash() {
	v, _ := embed.NewHash(32).Embed(context.Background(), []string{"hello world"})
	fmt.Println(len(v[0]))
	// Output: 32
}
