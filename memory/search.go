package memory

import (
	"context"
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
	// matches is found though it shares no word with the query.
	// AnswerWeight replaces ContextWeight for the record right after a
	// hit that asks a question (its content holds a '?'): most often its
	// answer. Both 0: off (see retrieval.Converse).
	ContextHits   int
	ContextWeight float64
	AnswerWeight  float64
	ContextWindow time.Duration
	// SessionWeight and SessionHits: session aggregation. A conversation
	// message's lexical score gains SessionWeight × its conversation's
	// strength, the mean of the conversation's best SessionHits scaled
	// lexical scores, so that a turn of the session that talks about the
	// topic outranks a stray turn elsewhere. SessionWeight 0: off.
	SessionWeight float64
	SessionHits   int
	// DateWeight, DateBoost and DateGrace: the periods a query names (a
	// day, a month, a year, "last week": see retrieval.ParseDates). The
	// date signal ranks the records written in them (or within DateGrace
	// after one) that match the query's words, and is fused with weight
	// DateWeight; then each result's score is multiplied by 1 +
	// DateBoost × how close it was written to them (1 inside, falling to
	// 0 over DateGrace after). Both 0: off.
	DateWeight float64
	DateBoost  float64
	DateGrace  time.Duration
	// ParticipantBoost and MentionBoost: who a query is about. When the
	// query names a participant of the conversations it searches (a
	// message's speaker: its role or name, and the user's id for the
	// user's messages) or the user a record is about, the lexical score of
	// what that participant said, or what is about that user, is
	// multiplied by 1 + ParticipantBoost, and that of what others said
	// that names the participant (a turn addressed to them) by 1 +
	// MentionBoost. Nothing is taken from the others' scores, so a strong
	// match another participant said (the answer to a question whose
	// premise names the wrong person) still ranks. Both 0: off.
	ParticipantBoost float64
	MentionBoost     float64
	// QueryEmbedTimeout bounds embedding the query; past it the search
	// is lexical only.
	QueryEmbedTimeout time.Duration
}

// DefaultRanking returns the default ranking parameters.
func DefaultRanking() RankingParams {
	return RankingParams{
		Candidates: 50, LexicalWeight: 1, VectorWeight: 1, LexicalVectorWeight: 0.1, K: 10,
		MinSimilarity: 0.15, RecencyWeight: 0.1, HalfLife: 30 * 24 * time.Hour, ConfidenceWeight: 0.2,
		ContextHits: 10, ContextWeight: 0.3, AnswerWeight: 0.9, ContextWindow: time.Hour,
		SessionWeight: 0.6, SessionHits: 3,
		DateWeight: 0.5, DateBoost: 1, DateGrace: 7 * 24 * time.Hour,
		ParticipantBoost: 0.4, MentionBoost: 0.1,
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
// their union, with BM25 statistics of the union, and the neighbours of
// the best lexical hits in their conversations; conversational context
// and session strength re-score the lexical candidates; the periods the
// query names add the date signal. The candidates are fused and re-scored
// once, and the best limit are read in full from tx. A candidate gone
// from tx's snapshot, or no longer selected by its filter, is left out.
func (s *Service) rankFilters(ctx context.Context, tx loci.Tx, text string, filters []loci.RecordFilter, qvec []float32, limit int, explain bool) ([]Hit, int, error) {
	if limit <= 0 {
		limit = loci.DefaultSearchLimit
	}
	now := s.now()
	p := s.ranking
	iq := index.Query{
		Terms: analysis.QueryTerms(text), N: max(p.Candidates, 3*limit), MinSimilarity: p.MinSimilarity,
		Window: p.ContextWindow, Vectors: p.MMRLambda > 0,
	}
	if p.ContextWeight > 0 || p.AnswerWeight > 0 {
		iq.Lenders = p.ContextHits
	}
	if s.embedder != nil && qvec != nil && !zero(qvec) {
		iq.Vector = qvec
	}
	var spans []retrieval.Span
	if p.DateWeight > 0 || p.DateBoost > 0 {
		spans = retrieval.ParseDates(text, now)
	}
	if len(spans) > 0 && p.DateWeight > 0 {
		iq.During = func(t time.Time) bool { return retrieval.Closeness(spans, t, p.DateGrace) > 0 }
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
	var parts map[string]retrieval.Parts
	lists[retrieval.Lexical], parts = s.converse(lists[retrieval.Lexical], res.Context, docs)
	if p.ParticipantBoost > 0 || p.MentionBoost > 0 {
		lists[retrieval.Lexical] = preferParticipants(iq.Terms, lists[retrieval.Lexical], docs, res.Holds, p.ParticipantBoost, p.MentionBoost)
	}
	for _, h := range res.Vector {
		if h.Score < p.MinSimilarity {
			break
		}
		lists[retrieval.Vector] = append(lists[retrieval.Vector], retrieval.Hit{ID: h.Doc.Meta.ID, Score: h.Score})
		docs[h.Doc.Meta.ID] = h.Doc
	}
	if len(res.During) > 0 {
		written := make(map[string]time.Time, len(res.During))
		var in []retrieval.Hit
		for _, h := range res.During {
			in = append(in, retrieval.Hit{ID: h.Doc.Meta.ID, Score: h.Score})
			written[h.Doc.Meta.ID] = h.Doc.Meta.CreatedAt
			if docs[h.Doc.Meta.ID] == nil {
				docs[h.Doc.Meta.ID] = h.Doc
			}
		}
		lists[retrieval.Date] = retrieval.InSpans(in, written, spans, p.DateGrace)
	}
	ranked := s.fuse(lists, docs, res.Vectors, spans, now, limit, explain)
	if explain {
		for i, r := range ranked {
			ranked[i].Explain.Context, ranked[i].Explain.Session = parts[r.ID].Context, parts[r.ID].Session
		}
	}
	hits, err := s.readHits(ctx, tx, filters, ranked)
	return hits, res.Pending, err
}

// converse re-scores the lexical hits as conversation turns (see
// retrieval.Converse): context lent by the best hits to their neighbours
// (more to the turn after a question), and each message's session
// strength. The neighbours join docs.
func (s *Service) converse(lex []retrieval.Hit, context map[string][]*index.Doc, docs map[string]*index.Doc) ([]retrieval.Hit, map[string]retrieval.Parts) {
	p := s.ranking
	if len(lex) == 0 || len(context) == 0 && p.SessionWeight <= 0 {
		return lex, nil
	}
	links := map[string][]retrieval.Link{}
	questions := map[string]bool{}
	for id, nbs := range context {
		lender := docs[id]
		questions[id] = lender.Question
		for _, d := range nbs {
			links[id] = append(links[id], retrieval.Link{ID: d.Meta.ID, After: writtenAfter(d.Meta, lender.Meta)})
			if docs[d.Meta.ID] == nil {
				docs[d.Meta.ID] = d
			}
		}
	}
	sessionOf := map[string]string{}
	if p.SessionWeight > 0 {
		for id, d := range docs {
			if isMessage(d.Meta) {
				sessionOf[id] = conversationOf(d.Meta)
			}
		}
	}
	return retrieval.Converse(lex, links, questions, sessionOf, retrieval.ConverseParams{
		Context: p.ContextWeight, Answer: p.AnswerWeight, Session: p.SessionWeight, SessionHits: p.SessionHits,
	})
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
func (s *Service) fuse(lists map[string][]retrieval.Hit, docs map[string]*index.Doc, vecs map[string][]float32, spans []retrieval.Span, now time.Time, limit int, explain bool) []retrieval.Result {
	p := s.ranking
	cands := make(map[string]retrieval.Candidate, len(docs))
	for id, d := range docs {
		cands[id] = retrieval.Candidate{ID: id, At: d.Meta.UpdatedAt, Written: d.Meta.CreatedAt, Confidence: d.Conf, HasConfidence: d.HasConf, Vector: vecs[id]}
	}
	vw := p.VectorWeight
	if lo, ok := s.embedder.(interface{ LexicalOnly() bool }); ok && lo.LexicalOnly() {
		vw = p.LexicalVectorWeight
	}
	results := retrieval.Rank(lists, cands, retrieval.Params{
		K:       p.K,
		Weights: map[string]float64{retrieval.Lexical: p.LexicalWeight, retrieval.Vector: vw, retrieval.Date: p.DateWeight},
		Now:     now, RecencyWeight: p.RecencyWeight, HalfLife: p.HalfLife,
		ConfidenceWeight: p.ConfidenceWeight, MMRLambda: p.MMRLambda, Limit: limit,
		Spans: spans, DateBoost: p.DateBoost, DateGrace: p.DateGrace,
	})
	if !explain {
		for i := range results {
			results[i].Explain = retrieval.Explanation{}
		}
	}
	return results
}

// writtenAfter reports whether a was written after b in their
// conversation's order: by creation time, then id.
func writtenAfter(a, b *loci.Record) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// conversationOf names r's conversation: its kind, exact scope and
// category.
func conversationOf(r *loci.Record) string {
	return strings.Join([]string{string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Category}, "\x00")
}

// asksQuestion reports whether r's content asks a question.
func asksQuestion(r *loci.Record) bool {
	return strings.ContainsRune(r.Content, '?')
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func explanation(e retrieval.Explanation) *loci.Explanation {
	out := &loci.Explanation{
		Signals: map[string]loci.SignalScore{}, Fused: e.Fused, Recency: e.Recency,
		Confidence: e.Confidence, MMRRank: e.MMRRank, Score: e.Score,
		Context: e.Context, Session: e.Session, Date: e.Date,
	}
	for name, sig := range e.Signals {
		out.Signals[name] = loci.SignalScore{Rank: sig.Rank, Score: sig.Score}
	}
	return out
}

// Search is hybrid search across kinds (POST /v1/search).
func (s *Service) Search(ctx context.Context, q loci.SearchQuery) (_ *loci.SearchResults, err error) {
	a, err := s.begin(ctx, loci.OpSearch, loci.Scope{AgentID: q.AgentID, UserID: q.UserID, SessionID: q.SessionID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	where, err := loci.ParseMemoryFilter(q.Filters)
	if err != nil {
		return nil, err
	}
	// What is true now: a fact superseded or invalidated is history,
	// searched through the fact routes with include_history.
	f := loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Tags: q.Tags, Kinds: append([]loci.Kind(nil), q.Kinds...), Where: where, AsOf: s.now()}
	if q.AgentID != "" {
		f.AgentID = &q.AgentID
	}
	if q.UserID != "" {
		f.UserID = &q.UserID
	}
	if q.SessionID != "" {
		f.SessionID = &q.SessionID
	}
	qvec := s.embedQuery(ctx, q.Query)
	var ranked *Ranked
	err = a.view(func(tx loci.Tx) (err error) {
		ranked, err = s.rankTx(ctx, tx, Query{Text: q.Query, Filter: f, Limit: q.Limit, Explain: q.Explain}, qvec)
		if err == nil {
			for _, h := range ranked.Hits {
				a.touch(h.Record.ID)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return searchResults(ranked.Hits, ranked.PendingEmbeddings), nil
}
