package rules_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// conceptServer is an OpenAI-compatible /v1/embeddings server of the
// test's own. Its vectors are deterministic and semantic in a small way:
// each dimension is a concept, and a text's vector counts the words of
// each concept it holds, so "meat" is near "roasted chicken" though they
// share no word. Model "m2" lays the concepts out in the reverse order,
// so its vectors are not m1's. It can be down (it drops every
// connection) or fail a number of requests with 503.
type conceptServer struct {
	*httptest.Server
	down  atomic.Bool
	fail  atomic.Int32 // requests still to answer 503
	mu    sync.Mutex
	calls []call // the requests answered with vectors
	tries atomic.Int32
}

type call struct {
	model string
	input []string
}

var concepts = [][]string{
	{"meat", "chicken", "roasted", "steak", "dinner", "grill", "food"},
	{"guitar", "song", "music", "concert", "chords"},
	{"flight", "paris", "trip", "travel", "booked"},
	{"bill", "electricity", "paid", "money", "rent"},
}

const conceptDims = 5 // the concepts and one for any other word

func newConceptServer(t *testing.T) *conceptServer {
	s := &conceptServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.tries.Add(1)
		if s.down.Load() {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		if s.fail.Add(-1) >= 0 {
			http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Input) == 0 {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			v := make([]float64, conceptDims)
			for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
				d := conceptDims - 1
				for c, words := range concepts {
					for _, cw := range words {
						if w == cw {
							d = c
						}
					}
				}
				if req.Model == "m2" {
					d = conceptDims - 1 - d
				}
				v[d]++
			}
			data = append(data, item{Index: i, Embedding: v})
		}
		s.mu.Lock()
		s.calls = append(s.calls, call{req.Model, req.Input})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(s.Close)
	return s
}

// embedded returns how many distinct texts other than queries the server
// embedded with model, and its largest request.
func (s *conceptServer) embedded(model string, queries ...string) (texts, largest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, c := range s.calls {
		if c.model != model {
			continue
		}
		largest = max(largest, len(c.input))
		for _, in := range c.input {
			if !slices.Contains(queries, in) && !seen[in] {
				seen[in] = true
				texts++
			}
		}
	}
	return texts, largest
}

// TestOpenAIEmbedderPath drives the OpenAI-compatible embedder
// (embed.OpenAI) and the embedding queue against a server of the test's
// own: writes made while the server is down are found lexically at once
// and embedded once it is back, in batches of the embedder's size, past a
// failed request (retried); then a query that shares no word with a
// record finds it by its vector. A model change makes every record
// pending (the old model's vectors are not compared with the new one's),
// and a reindex embeds them all with the new model.
func TestOpenAIEmbedderPath(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		srv := newConceptServer(t)
		store := open(t)
		newEmbedder := func(model string) *embed.OpenAI {
			e, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: model, BatchSize: 2,
				MaxRetries: 2, Backoff: time.Millisecond, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		svc := rules.New(store, rules.WithEmbedder(newEmbedder("m1")), fastQueue())
		stop := svc.StartEmbedding(ctx)
		defer stop()

		srv.down.Store(true)
		texts := []string{"Roasted chicken with rosemary for dinner", "Learning a new song on the guitar",
			"Booked a flight to Paris", "Paid the electricity bill", "Walked along the river at dawn"}
		for _, text := range texts {
			if _, err := svc.AddPassage(ctx, "a", text, nil); err != nil {
				t.Fatalf("a write while the embedder is down: %v", err)
			}
		}
		// The agent's own records (its core memory blocks) wait too.
		res := mustSearch(t, svc, loci.SearchQuery{Query: "guitar", AgentID: "a"})
		total := res.PendingEmbeddings
		if len(res.Results) != 1 || res.Results[0].Content != texts[1] || total < len(texts) {
			t.Fatalf("while down: %d results, pending %d; want the guitar passage found lexically, every passage pending", len(res.Results), total)
		}
		if res.Retrieval.Mode != loci.RetrievalLexical || res.Retrieval.Model != nil || svc.Retrieval().Mode != loci.RetrievalHybrid {
			t.Errorf("while down: retrieval %+v (service %+v), want this search lexical, the service hybrid", res.Retrieval, svc.Retrieval())
		}
		eventually(t, "the queue has tried the server again", func() bool { return srv.tries.Load() >= 6 })

		srv.fail.Store(1) // back, but its first answer is a 503: retried
		srv.down.Store(false)
		eventually(t, "every record is embedded", func() bool {
			return mustSearch(t, svc, loci.SearchQuery{Query: "guitar", AgentID: "a"}).PendingEmbeddings == 0
		})
		if n, largest := srv.embedded("m1", "guitar"); n != total || largest != 2 {
			t.Errorf("m1: %d records' texts embedded, largest request %d; want %d, in batches of 2", n, largest, total)
		}
		if srv.fail.Load() >= 0 {
			t.Errorf("the 503 was never answered")
		}

		semantic := func(svc *rules.Service) *loci.SearchResults {
			t.Helper()
			return mustSearch(t, svc, loci.SearchQuery{Query: "meat", AgentID: "a", Explain: true})
		}
		res = semantic(svc)
		if len(res.Results) == 0 || res.Results[0].Content != texts[0] {
			t.Fatalf("search \"meat\" after embedding: %+v, want the roasted chicken first, by its vector", res.Results)
		}
		if sig := res.Results[0].Explain.Signals; sig["vector"].Rank != 1 || sig["lexical"].Rank != 0 {
			t.Errorf("signals %+v: want vector rank 1 and no lexical match", sig)
		}
		if r := res.Retrieval; r.Mode != loci.RetrievalHybrid || r.Model == nil || *r.Model != "m1" {
			t.Errorf("retrieval %+v, want hybrid by m1", r)
		}
		// Its score is its similarity: it holds no word of the query.
		if e := res.Results[0].Explain; e.Meaning == nil || e.Words != 0 || res.Results[0].Score != *e.Meaning || *e.Meaning <= 0.5 || *e.Meaning > 1 {
			t.Errorf("score %v, explain %+v: want the cosine similarity", res.Results[0].Score, e)
		}

		// The model changes: the records wait for the new model's
		// vectors, found lexically meanwhile, until a reindex.
		stop()
		svc2 := rules.New(store, rules.WithEmbedder(newEmbedder("m2")), rules.WithEmbedQueue(rules.QueueParams{Batch: 3}))
		res = semantic(svc2)
		if res.PendingEmbeddings != total || len(res.Results) != 0 {
			t.Fatalf("after the model change: pending %d, %d results; want %d pending and no vector match", res.PendingEmbeddings, len(res.Results), total)
		}
		if r := res.Retrieval; r.Mode != loci.RetrievalHybrid || *r.Model != "m2" {
			t.Errorf("after the model change: retrieval %+v, want hybrid by m2 (its vectors only)", r)
		}
		n, err := svc2.Reindex(ctx, nil)
		if err != nil || n != total {
			t.Fatalf("reindex = %d, %v; want %d", n, err, total)
		}
		if n, largest := srv.embedded("m2", "meat"); n != total || largest != 2 {
			t.Errorf("m2: %d records' texts embedded, largest request %d; want %d, in batches of 2", n, largest, total)
		}
		res = semantic(svc2)
		if res.PendingEmbeddings != 0 || len(res.Results) == 0 || res.Results[0].Content != texts[0] {
			t.Fatalf("after reindex: pending %d, results %+v", res.PendingEmbeddings, res.Results)
		}
	})
}

// TestEmbedderDiesMidRun: when the embedding server stops answering,
// writes go on and searches answer lexically (retrieval says so); after
// one search found it down, the next ones do not wait for it (they leave
// it alone for a while) until the embedding worker finds it back.
func TestEmbedderDiesMidRun(t *testing.T) {
	ctx := context.Background()
	srv := newConceptServer(t)
	emb, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m1", MaxRetries: 1, Backoff: time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	svc := rules.New(testdb.OpenSQLite(t), rules.WithEmbedder(emb), fastQueue())
	stop := svc.StartEmbedding(ctx)
	defer stop()
	if _, err := svc.AddPassage(ctx, "a", "Roasted chicken with rosemary for dinner", nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the passage is embedded", func() bool {
		return mustSearch(t, svc, loci.SearchQuery{Query: "chicken", AgentID: "a"}).PendingEmbeddings == 0
	})
	if res := mustSearch(t, svc, loci.SearchQuery{Query: "meat", AgentID: "a"}); res.Retrieval.Mode != loci.RetrievalHybrid || len(res.Results) != 1 {
		t.Fatalf("while up: %+v", res)
	}

	stop() // the worker would find it back; here it stays down
	srv.down.Store(true)
	if _, err := svc.AddPassage(ctx, "a", "Learning a new song on the guitar", nil); err != nil {
		t.Fatalf("a write while the server is down: %v", err)
	}
	res := mustSearch(t, svc, loci.SearchQuery{Query: "guitar song", AgentID: "a"})
	if res.Retrieval.Mode != loci.RetrievalLexical || len(res.Results) != 1 || res.PendingEmbeddings != 1 {
		t.Fatalf("while down: %+v, want the guitar found by its words, lexical, one pending", res)
	}
	tries := srv.tries.Load()
	for range 3 {
		if res := mustSearch(t, svc, loci.SearchQuery{Query: "guitar", AgentID: "a"}); res.Retrieval.Mode != loci.RetrievalLexical {
			t.Fatalf("while down: %+v", res.Retrieval)
		}
	}
	if n := srv.tries.Load(); n != tries {
		t.Errorf("the searches after the first asked the server that is down %d times, want none", n-tries)
	}

	srv.down.Store(false)
	stop = svc.StartEmbedding(ctx)
	defer stop()
	eventually(t, "the worker finds the server back and searches are hybrid again", func() bool {
		r := mustSearch(t, svc, loci.SearchQuery{Query: "music", AgentID: "a"})
		return r.Retrieval.Mode == loci.RetrievalHybrid && r.PendingEmbeddings == 0 && len(r.Results) == 1
	})
}
