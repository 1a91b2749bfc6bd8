package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	n := max(s.ranking.Candidates, 3*limit)
	c, err := s.candidates(ctx, tx, q.Text, f, qvec, n)
	if err != nil {
		return nil, err
	}
	return &Ranked{Hits: s.fuse(c, now, limit, q.Explain), PendingEmbeddings: c.pending}, nil
}

// candidateSet is what each signal proposes for a query: its ranked list
// of ids with the signal's own scores (BM25, cosine), the records, and how
// many records under the filter wait for their embedding.
type candidateSet struct {
	lists   map[string][]retrieval.Hit
	records map[string]*loci.Record
	pending int
}

// candidates asks each signal for up to n candidates among the records of
// f: BM25 (with conversational context lent to neighbouring messages) and,
// when there is a query vector, cosine similarity.
func (s *Service) candidates(ctx context.Context, tx loci.Tx, text string, f loci.RecordFilter, qvec []float32, n int) (*candidateSet, error) {
	p := s.ranking
	c := &candidateSet{lists: map[string][]retrieval.Hit{}, records: map[string]*loci.Record{}}
	lex, err := tx.SearchLexical(ctx, f, analysis.QueryTerms(text), n)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for _, r := range lex {
		c.lists[retrieval.Lexical] = append(c.lists[retrieval.Lexical], retrieval.Hit{ID: r.Record.ID, Score: r.Score})
		c.records[r.Record.ID] = r.Record
	}
	if lenders := conversational(lex[:min(len(lex), p.ContextHits)]); p.ContextWeight > 0 && len(lenders) > 0 {
		nbs, err := neighbours(ctx, tx, f, lenders, p.ContextWindow)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		ids := map[string][]string{}
		for id, rs := range nbs {
			for _, r := range rs {
				ids[id] = append(ids[id], r.ID)
				if c.records[r.ID] == nil {
					c.records[r.ID] = r
				}
			}
		}
		c.lists[retrieval.Lexical] = retrieval.Propagate(c.lists[retrieval.Lexical], ids, p.ContextWeight)
	}
	if s.embedder == nil {
		return c, nil
	}
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
			c.lists[retrieval.Vector] = append(c.lists[retrieval.Vector], retrieval.Hit{ID: r.Record.ID, Score: r.Score})
			c.records[r.Record.ID] = r.Record
		}
	}
	if c.pending, err = tx.CountPendingEmbeddings(ctx, f, model); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return c, nil
}

// fuse ranks the candidates: reciprocal rank fusion of the signals, then
// recency and the kind's confidence (and MMR when on), best limit first.
func (s *Service) fuse(c *candidateSet, now time.Time, limit int, explain bool) []Hit {
	p := s.ranking
	cands := make(map[string]retrieval.Candidate, len(c.records))
	for id, r := range c.records {
		cand := retrieval.Candidate{ID: id, At: r.UpdatedAt}
		cand.Confidence, cand.HasConfidence = confidence01(r)
		if p.MMRLambda > 0 {
			cand.Vector = r.Embedding
		}
		cands[id] = cand
	}
	vw := p.VectorWeight
	if lo, ok := s.embedder.(interface{ LexicalOnly() bool }); ok && lo.LexicalOnly() {
		vw = p.LexicalVectorWeight
	}
	results := retrieval.Rank(c.lists, cands, retrieval.Params{
		K:       p.K,
		Weights: map[string]float64{retrieval.Lexical: p.LexicalWeight, retrieval.Vector: vw},
		Now:     now, RecencyWeight: p.RecencyWeight, HalfLife: p.HalfLife,
		ConfidenceWeight: p.ConfidenceWeight, MMRLambda: p.MMRLambda, Limit: limit,
	})
	hits := make([]Hit, 0, len(results))
	for _, r := range results {
		h := Hit{Record: c.records[r.ID], Score: r.Score}
		if explain {
			h.Explain = explanation(r.Explain)
		}
		hits = append(hits, h)
	}
	return hits
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
		if r.Category == messageCategory {
			return 0, false
		}
		return r.Confidence / 100, true
	case loci.KindPreference:
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

// conversational returns the hits that are conversation messages: only
// they lend score to their neighbours, since a turn's answer is often the
// next message; a passage or fact written a minute after another is not
// its context.
func conversational(hits []loci.ScoredRecord) []loci.ScoredRecord {
	var out []loci.ScoredRecord
	for _, h := range hits {
		if h.Record.Kind == loci.KindSession && h.Record.Category == messageCategory {
			out = append(out, h)
		}
	}
	return out
}

// maxContextGroup bounds the records read that share one timestamp (a
// batch of messages written at once) when looking for a record's
// neighbours; a record further into a larger batch gets none.
const maxContextGroup = 256

// neighbours returns, for each of hits, the records written just before
// and just after it in its conversation: the same kind, scope and
// category, within window of its time, ordered by creation time and then
// id (ids are time-ordered, so a batch written at one time keeps its
// order), and selected by f, so that context never brings in a record
// the query's filter excludes.
func neighbours(ctx context.Context, tx loci.Tx, f loci.RecordFilter, hits []loci.ScoredRecord, window time.Duration) (map[string][]*loci.Record, error) {
	out := map[string][]*loci.Record{}
	groups := map[string][]*loci.Record{} // records sharing a time, by conversation and time
	for _, h := range hits {
		r := h.Record
		g := f
		g.Kinds = []loci.Kind{r.Kind}
		g.AgentID, g.UserID, g.SessionID, g.TaskID = &r.AgentID, &r.UserID, &r.SessionID, &r.TaskID
		g.OrGlobalUser = false
		g.Category = &r.Category
		g.Order, g.Limit, g.Offset = loci.OrderCreatedAsc, 0, 0
		t := r.CreatedAt
		// Usually r is the first record of its time (times differ): then
		// the next is the first record after it, read with r itself.
		next := within(g, t.Add(-time.Microsecond), t.Add(window))
		next.Limit = 2
		recs, err := tx.FindRecords(ctx, next)
		if err != nil {
			return nil, err
		}
		var nbs []*loci.Record
		i := slices.IndexFunc(recs, func(x *loci.Record) bool { return x.ID == r.ID })
		switch i {
		case 0:
			prev := within(g, t.Add(-window), t)
			prev.Order, prev.Limit = loci.OrderCreatedDesc, 1
			before, err := tx.FindRecords(ctx, prev)
			if err != nil {
				return nil, err
			}
			nbs = append(append(nbs, before...), recs[1:]...)
		default:
			// Records written before r at its time (a batch): read them.
			key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d", r.Kind, r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Category, t.UnixMicro())
			group, ok := groups[key]
			if !ok {
				same := within(g, t.Add(-time.Microsecond), t.Add(time.Microsecond))
				same.Limit = maxContextGroup
				if group, err = tx.FindRecords(ctx, same); err != nil {
					return nil, err
				}
				groups[key] = group
			}
			i := slices.IndexFunc(group, func(x *loci.Record) bool { return x.ID == r.ID })
			if i < 0 {
				continue
			}
			if i > 0 {
				nbs = append(nbs, group[i-1])
			}
			if i+1 < len(group) {
				nbs = append(nbs, group[i+1])
			} else if len(group) < maxContextGroup {
				after := within(g, t, t.Add(window))
				after.Limit = 1
				recs, err := tx.FindRecords(ctx, after)
				if err != nil {
					return nil, err
				}
				nbs = append(nbs, recs...)
			}
		}
		out[r.ID] = nbs
	}
	return out, nil
}

// within narrows f to records created strictly between after and before.
func within(f loci.RecordFilter, after, before time.Time) loci.RecordFilter {
	if f.CreatedAfter.IsZero() || after.After(f.CreatedAfter) {
		f.CreatedAfter = after
	}
	if f.CreatedBefore.IsZero() || before.Before(f.CreatedBefore) {
		f.CreatedBefore = before
	}
	return f
}
