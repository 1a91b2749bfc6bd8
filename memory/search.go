package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/index"
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
	// ContextHits, ContextWeight and ContextWindow: conversational
	// context. Each of the best ContextHits lexical hits lends
	// ContextWeight × its (scaled) score to the records written just
	// before and just after it — the same kind, scope and category,
	// within ContextWindow — so a turn that answers the turn a query
	// matches is found though it shares no word with the query (see
	// retrieval.Propagate). ContextWeight 0: off.
	ContextHits   int
	ContextWeight float64
	ContextWindow time.Duration
	// QueryEmbedTimeout bounds embedding the query; past it the search
	// is lexical only.
	QueryEmbedTimeout time.Duration
}

// DefaultRanking returns the default ranking parameters.
func DefaultRanking() RankingParams {
	return RankingParams{
		Candidates: 50, LexicalWeight: 1, VectorWeight: 1, LexicalVectorWeight: 0.1, K: 10,
		MinSimilarity: 0.15, RecencyWeight: 0.1, HalfLife: 30 * 24 * time.Hour, ConfidenceWeight: 0.2,
		ContextHits: 5, ContextWeight: 0.5, ContextWindow: time.Hour,
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
	hits, pending, err := s.rankFilters(ctx, tx, q.Text, []loci.RecordFilter{q.Filter}, qvec, q.Limit, q.Explain)
	if err != nil {
		return nil, err
	}
	return &Ranked{Hits: hits, PendingEmbeddings: pending}, nil
}

// rankFilters ranks the records of one or more disjoint filters as one set
// in tx: the index (package index) proposes each signal's candidates over
// their union, with BM25 statistics of the union, and conversational
// context lends score to the neighbours of the best lexical hits; the
// candidates are fused and re-scored once, and the best limit are read in
// full from tx. A candidate gone from tx's snapshot, or no longer selected
// by its filter, is left out.
func (s *Service) rankFilters(ctx context.Context, tx loci.Tx, text string, filters []loci.RecordFilter, qvec []float32, limit int, explain bool) ([]Hit, int, error) {
	if limit <= 0 {
		limit = loci.DefaultSearchLimit
	}
	now := s.now()
	p := s.ranking
	iq := index.Query{
		Terms: analysis.QueryTerms(text), N: max(p.Candidates, 3*limit),
		Window: p.ContextWindow, Vectors: p.MMRLambda > 0,
	}
	if p.ContextWeight > 0 {
		iq.Lenders = p.ContextHits
	}
	if s.embedder != nil && qvec != nil && !zero(qvec) {
		iq.Vector = qvec
	}
	for _, f := range filters {
		f.Order, f.Limit, f.Offset = loci.OrderCreatedDesc, 0, 0
		if f.LiveAt.IsZero() {
			f.LiveAt = now
		}
		iq.Filters = append(iq.Filters, f)
	}
	res, err := s.index.Search(ctx, tx, iq)
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	docs := map[string]*index.Doc{}
	lists := map[string][]retrieval.Hit{}
	for _, h := range res.Lexical {
		lists[retrieval.Lexical] = append(lists[retrieval.Lexical], retrieval.Hit{ID: h.Doc.Meta.ID, Score: h.Score})
		docs[h.Doc.Meta.ID] = h.Doc
	}
	if len(res.Context) > 0 {
		nbs := map[string][]string{}
		for id, ds := range res.Context {
			for _, d := range ds {
				nbs[id] = append(nbs[id], d.Meta.ID)
				if docs[d.Meta.ID] == nil {
					docs[d.Meta.ID] = d
				}
			}
		}
		lists[retrieval.Lexical] = retrieval.Propagate(lists[retrieval.Lexical], nbs, p.ContextWeight)
	}
	for _, h := range res.Vector {
		if h.Score < p.MinSimilarity {
			break
		}
		lists[retrieval.Vector] = append(lists[retrieval.Vector], retrieval.Hit{ID: h.Doc.Meta.ID, Score: h.Score})
		docs[h.Doc.Meta.ID] = h.Doc
	}
	ranked := s.fuse(lists, docs, res.Vectors, now, limit, explain)
	hits, err := s.readHits(ctx, tx, filters, ranked)
	return hits, res.Pending, err
}

// readHits reads the ranked records in full, in order, leaving out those
// gone from tx's snapshot or no longer selected by any of filters.
func (s *Service) readHits(ctx context.Context, tx loci.Tx, filters []loci.RecordFilter, ranked []retrieval.Result) ([]Hit, error) {
	if len(ranked) == 0 {
		return []Hit{}, nil
	}
	ids := make([]string, len(ranked))
	for i, r := range ranked {
		ids[i] = r.ID
	}
	byID := make(map[string]*loci.Record, len(ids))
	err := tx.ScanRecords(ctx, loci.RecordFilter{Workspace: filters[0].Workspace, IDs: ids, Order: loci.OrderNone}, func(r *loci.Record) error {
		byID[r.ID] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: read results: %w", err)
	}
	now := s.now()
	hits := make([]Hit, 0, len(ranked))
	for _, res := range ranked {
		r := byID[res.ID]
		if r == nil || !selected(r, filters, now) {
			continue
		}
		h := Hit{Record: r, Score: res.Score}
		if res.Explain.Signals != nil {
			h.Explain = explanation(res.Explain)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// selected reports whether one of filters selects r at now.
func selected(r *loci.Record, filters []loci.RecordFilter, now time.Time) bool {
	for _, f := range filters {
		if f.LiveAt.IsZero() {
			f.LiveAt = now
		}
		if f.Match(r) {
			return true
		}
	}
	return false
}

// fuse ranks the candidates: reciprocal rank fusion of the signals, then
// recency and the kind's confidence (and MMR when on), best limit first.
func (s *Service) fuse(lists map[string][]retrieval.Hit, docs map[string]*index.Doc, vecs map[string][]float32, now time.Time, limit int, explain bool) []retrieval.Result {
	p := s.ranking
	cands := make(map[string]retrieval.Candidate, len(docs))
	for id, d := range docs {
		cands[id] = retrieval.Candidate{ID: id, At: d.Meta.UpdatedAt, Confidence: d.Conf, HasConfidence: d.HasConf, Vector: vecs[id]}
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
	if !explain {
		for i := range results {
			results[i].Explain = retrieval.Explanation{}
		}
	}
	return results
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
// An episode recorded without a confidence_score, and a conversation
// message, have none: they are neither helped nor penalised.
func confidence01(r *loci.Record) (float64, bool) {
	switch r.Kind {
	case loci.KindFact:
		return r.Confidence, true
	case loci.KindEpisode:
		var d struct {
			ConfidenceScore *float64 `json:"confidence_score"`
		}
		if json.Unmarshal(r.Data, &d) != nil || d.ConfidenceScore == nil {
			return 0, false
		}
		return *d.ConfidenceScore, true
	case loci.KindSession:
		if isMessage(r) {
			return 0, false
		}
		return r.Confidence / 100, true
	case loci.KindPreference:
		return r.Confidence / 100, true
	}
	return 0, false
}

// isMessage reports whether r is a conversation message: only messages
// lend context to their neighbours, since a turn's answer is often the
// next message; a passage or fact written a minute after another is not
// its context.
func isMessage(r *loci.Record) bool {
	return r.Kind == loci.KindSession && r.Category == messageCategory
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
