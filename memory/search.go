package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/retrieval"
)

// RankingParams tunes hybrid retrieval (DESIGN §3).
type RankingParams struct {
	// Candidates is how many candidates each signal contributes, at least;
	// a search asks each for max(Candidates, 3×limit).
	Candidates int
	// LexicalWeight and VectorWeight weigh the signals in the fusion; K is
	// the reciprocal rank fusion constant. LexicalVectorWeight replaces
	// VectorWeight when the embedder's similarity is lexical only (it has
	// a LexicalOnly method that says so, like embed.Hash): such vectors
	// mostly repeat BM25 without its IDF, and measured, weighing them
	// fully lowered recall.
	LexicalWeight, VectorWeight, LexicalVectorWeight, K float64
	// RecencyWeight and HalfLife: how much, and how fast, age lowers a
	// score. ConfidenceWeight: how much the kind's confidence counts.
	RecencyWeight    float64
	HalfLife         time.Duration
	ConfidenceWeight float64
	// MinSimilarity drops vector candidates less similar to the query
	// than this (cosine), so unrelated records are not returned just
	// because they are nearest.
	MinSimilarity float64
	// MMRLambda turns diversity re-ranking on when in (0, 1).
	MMRLambda float64
	// QueryEmbedTimeout bounds embedding the query; past it the search
	// is lexical only.
	QueryEmbedTimeout time.Duration
}

// DefaultRanking returns the default ranking parameters.
func DefaultRanking() RankingParams {
	return RankingParams{
		Candidates: 50, LexicalWeight: 1, VectorWeight: 1, LexicalVectorWeight: 0.1, K: 10,
		MinSimilarity: 0.15, RecencyWeight: 0.1, HalfLife: 30 * 24 * time.Hour, ConfidenceWeight: 0.2,
		QueryEmbedTimeout: 5 * time.Second,
	}
}

// WithRanking sets the ranking parameters.
func WithRanking(p RankingParams) Option { return func(s *Service) { s.ranking = p } }

// Query is one ranked search over records: the generic entry point that
// every kind's search and the cross-kind search call.
type Query struct {
	// Text is the query, analyzed as text (never query syntax).
	Text string
	// Filter selects the records ranked (scope, kinds, tags, ...); it is
	// applied before ranking. Its Order, Limit and Offset are ignored.
	Filter loci.RecordFilter
	// Limit is the most hits returned (default loci.DefaultSearchLimit).
	Limit int
	// Explain asks for each hit's explanation.
	Explain bool
}

// Hit is one ranked record.
type Hit struct {
	Record  *loci.Record
	Score   float64
	Explain *loci.Explanation // set when the query asked
}

// Ranked is what rank returns: the hits, best first, and how many records
// under the filter still wait for their embedding.
type Ranked struct {
	Hits              []Hit
	PendingEmbeddings int
}

// rank runs hybrid retrieval for q in a read transaction. The query is
// embedded first, outside the transaction; when the embedder fails or
// there is none, the search is lexical only.
func (s *Service) rank(ctx context.Context, q Query) (*Ranked, error) {
	qvec := s.embedQuery(ctx, q.Text)
	var out *Ranked
	err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		out, err = s.rankTx(ctx, tx, q, qvec)
		return err
	})
	return out, err
}

// embedQuery embeds the query text, or returns nil.
func (s *Service) embedQuery(ctx context.Context, text string) []float32 {
	if s.embedder == nil || strings.TrimSpace(text) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.ranking.QueryEmbedTimeout)
	defer cancel()
	vecs, err := s.embedder.Embed(ctx, []string{text})
	if err != nil || len(vecs) != 1 {
		s.logger.Warn("embed query: searching lexically only", "err", err)
		return nil
	}
	return vecs[0]
}

// rankTx runs hybrid retrieval for q inside tx, with qvec the query's
// embedding (nil: lexical only).
func (s *Service) rankTx(ctx context.Context, tx loci.Tx, q Query, qvec []float32) (*Ranked, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = loci.DefaultSearchLimit
	}
	f := q.Filter
	f.Order, f.Limit, f.Offset = loci.OrderCreatedDesc, 0, 0
	now := s.now()
	if f.LiveAt.IsZero() {
		f.LiveAt = now
	}
	p := s.ranking
	n := max(p.Candidates, 3*limit)

	lists := map[string][]retrieval.Hit{}
	records := map[string]*loci.Record{}
	lex, err := tx.SearchLexical(ctx, f, analysis.QueryTerms(q.Text), n)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for _, r := range lex {
		lists[retrieval.Lexical] = append(lists[retrieval.Lexical], retrieval.Hit{ID: r.Record.ID, Score: r.Score})
		records[r.Record.ID] = r.Record
	}
	out := &Ranked{}
	if s.embedder != nil {
		model := s.embedder.Model()
		if qvec != nil && !zero(qvec) {
			vec, err := tx.SearchVector(ctx, f, model, qvec, n)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			for _, r := range vec {
				if r.Score < p.MinSimilarity {
					break
				}
				lists[retrieval.Vector] = append(lists[retrieval.Vector], retrieval.Hit{ID: r.Record.ID, Score: r.Score})
				records[r.Record.ID] = r.Record
			}
		}
		if out.PendingEmbeddings, err = tx.CountPendingEmbeddings(ctx, f, model); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}

	cands := make(map[string]retrieval.Candidate, len(records))
	for id, r := range records {
		c := retrieval.Candidate{ID: id, At: r.UpdatedAt}
		c.Confidence, c.HasConfidence = confidence01(r)
		if p.MMRLambda > 0 {
			c.Vector = r.Embedding
		}
		cands[id] = c
	}
	vw := p.VectorWeight
	if lo, ok := s.embedder.(interface{ LexicalOnly() bool }); ok && lo.LexicalOnly() {
		vw = p.LexicalVectorWeight
	}
	results := retrieval.Rank(lists, cands, retrieval.Params{
		K:       p.K,
		Weights: map[string]float64{retrieval.Lexical: p.LexicalWeight, retrieval.Vector: vw},
		Now:     now, RecencyWeight: p.RecencyWeight, HalfLife: p.HalfLife,
		ConfidenceWeight: p.ConfidenceWeight, MMRLambda: p.MMRLambda, Limit: limit,
	})
	for _, r := range results {
		h := Hit{Record: records[r.ID], Score: r.Score}
		if q.Explain {
			h.Explain = explanation(r.Explain)
		}
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// confidence01 returns the kind's confidence on 0..1, if the kind has one:
// facts and episodes keep 0..1, preferences and sessions 0..100.
func confidence01(r *loci.Record) (float64, bool) {
	switch r.Kind {
	case loci.KindFact, loci.KindEpisode:
		return r.Confidence, true
	case loci.KindPreference, loci.KindSession:
		return r.Confidence / 100, true
	}
	return 0, false
}

func explanation(e retrieval.Explanation) *loci.Explanation {
	out := &loci.Explanation{
		Signals: map[string]loci.SignalScore{}, Fused: e.Fused, Recency: e.Recency,
		Confidence: e.Confidence, MMRRank: e.MMRRank, Score: e.Score,
	}
	for name, sig := range e.Signals {
		out.Signals[name] = loci.SignalScore{Rank: sig.Rank, Score: sig.Score}
	}
	return out
}

// Search is hybrid search across kinds (POST /v1/search).
func (s *Service) Search(ctx context.Context, q loci.SearchQuery) (*loci.SearchResults, error) {
	if strings.TrimSpace(q.Query) == "" {
		return nil, loci.Errorf(loci.EINVALID, "query is required")
	}
	if len(q.Query) > loci.MaxQueryBytes {
		return nil, loci.Errorf(loci.ETOOLARGE, "query must be at most %d bytes", loci.MaxQueryBytes)
	}
	if q.Limit < 0 || q.Limit > loci.MaxSearchLimit {
		return nil, loci.Errorf(loci.EINVALID, "limit must be between 1 and %d", loci.MaxSearchLimit)
	}
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Tags: q.Tags}
	for _, k := range q.Kinds {
		if _, err := loci.ParseKind(string(k)); err != nil {
			return nil, err
		}
		f.Kinds = append(f.Kinds, k)
	}
	if q.AgentID != "" {
		f.AgentID = &q.AgentID
	}
	if q.UserID != "" {
		f.UserID = &q.UserID
	}
	if q.SessionID != "" {
		f.SessionID = &q.SessionID
	}
	ranked, err := s.rank(ctx, Query{Text: q.Query, Filter: f, Limit: q.Limit, Explain: q.Explain})
	if err != nil {
		return nil, err
	}
	out := &loci.SearchResults{Results: []loci.SearchResult{}, PendingEmbeddings: ranked.PendingEmbeddings}
	for _, h := range ranked.Hits {
		r := h.Record
		out.Results = append(out.Results, loci.SearchResult{
			ID: r.ID, Kind: r.Kind, Key: r.Key, Content: r.Content, Scope: r.Scope, Tags: r.Tags,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Score: h.Score, Explain: h.Explain,
		})
	}
	return out, nil
}
