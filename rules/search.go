package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/retrieval"
)

// RankingParams tunes hybrid retrieval (docs/retrieval.md).
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
	// SessionWeight: session aggregation. A conversation message's
	// lexical score gains SessionWeight × its conversation's strength:
	// the conversation's BM25 as one document among the scope's
	// conversations (index.Hit.Conversation), scaled to the strongest
	// one's, so that a turn of the session that talks about the topic
	// outranks a stray turn elsewhere, and a session that holds the
	// query's words in different turns ("how many bikes did I service?":
	// "bike" here, "service" there) is found whole. 0: off.
	SessionWeight float64
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
	// AssistantWeight is the prior of what the assistant said: an
	// assistant message's own lexical score, and what it lends its
	// neighbours as context, are multiplied by it. A user's memory is
	// mostly what the user said (in LongMemEval 94% of the turns that
	// hold an answer are the user's), while the assistant's replies are
	// long, repeat the user's words and match many queries weakly; at
	// full weight they crowd the top. 0 or 1: off (no prior).
	AssistantWeight float64
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
		SessionWeight: 0.6,
		DateWeight:    0.5, DateBoost: 1, DateGrace: 7 * 24 * time.Hour,
		ParticipantBoost: 0.4, MentionBoost: 0.1, AssistantWeight: 0.4,
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
	// Filters select the records ranked (scope, kinds, tags, ...), ranked
	// as one set: one filter, or disjoint ones (an agent's records and
	// its user's). They apply before ranking; their Order, Limit and
	// Offset are ignored.
	Filters []loci.RecordFilter
	// Limit is the most hits returned (default loci.DefaultSearchLimit).
	Limit int
	// Explain asks for each hit's explanation.
	Explain bool
	// At is the moment the question is asked (a search's reference
	// date): the periods the query names are read relative to it, and
	// recency is measured from it. Zero: now.
	At time.Time
	// Threshold drops the hits whose score (relevance, 0..1) is below it.
	Threshold float64
}

// Hit is one ranked record, read in full: what a kind's own search turns
// into its answer (a scored fact, a passage), and the cross-kind search
// into a loci.SearchResult (Ranked.results). Score is its relevance to
// the query, 0..1 (retrieval.Relevance); the hits are in rank order.
// Match is loci.MatchScope when the query had no word left to search.
type Hit struct {
	Record  *loci.Record
	Score   float64
	Match   string
	Explain *loci.Explanation // set when the query asked
}

// Ranked is what rank returns: the hits, best first, how many records
// under the filters still wait for their embedding, and how it ranked.
type Ranked struct {
	Hits              []Hit
	PendingEmbeddings int
	Retrieval         loci.Retrieval
}

// results is the answer of a search across kinds: each hit as a
// loci.SearchResult, its metadata included. Every search across kinds
// (Search, SearchAgentMemory) answers through it.
func (r *Ranked) results() *loci.SearchResults {
	out := &loci.SearchResults{Results: make([]loci.SearchResult, 0, len(r.Hits)), PendingEmbeddings: r.PendingEmbeddings, Retrieval: r.Retrieval}
	for _, h := range r.Hits {
		rec := h.Record
		out.Results = append(out.Results, loci.SearchResult{
			ID: rec.ID, Kind: rec.Kind, Key: rec.Key, Content: rec.Content, Scope: rec.Scope, Tags: rec.Tags, Metadata: metadataOf(rec),
			CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, Score: h.Score, Match: h.Match, Explain: h.Explain,
		})
	}
	out.Count = len(out.Results)
	return out
}

// metadataOf is a record's metadata as a search answers it: the object,
// {} when it has none.
func metadataOf(r *loci.Record) json.RawMessage {
	if len(r.Metadata) == 0 {
		return json.RawMessage("{}")
	}
	return r.Metadata
}

// ownMetadata is r's metadata as its kind's own answers carry it: none
// (absent) when it has none.
func ownMetadata(r *loci.Record) json.RawMessage {
	if m := bytes.TrimSpace(r.Metadata); len(m) > 0 && string(m) != "{}" && string(m) != "null" {
		return r.Metadata
	}
	return nil
}

// searchScopes is a search across kinds once its audit entry is open and
// its query checked: q ranked (rankRead), answered as loci.SearchResults.
func (s *Service) searchScopes(ctx context.Context, a *audited, q Query) (*loci.SearchResults, error) {
	ranked, err := s.rankRead(ctx, a, q)
	if err != nil {
		return nil, err
	}
	return ranked.results(), nil
}

// rankRead ranks q for a search whose audit entry a is open: the query is
// embedded (outside the transaction), q.Filters are ranked as one set in
// a read transaction, and each hit is noted as read by a.
func (s *Service) rankRead(ctx context.Context, a *audited, q Query) (*Ranked, error) {
	qvec := s.embedQuery(ctx, q.Text)
	var ranked *Ranked
	err := a.view(func(tx loci.Tx) (err error) {
		ranked, err = s.rank(ctx, tx, q, qvec)
		if err == nil {
			for _, h := range ranked.Hits {
				a.touch(h.Record.ID)
			}
		}
		return err
	})
	return ranked, err
}

// queryEmbedPause is how long searches leave the embedder alone after it
// failed to embed a query: it is most likely down, and each search would
// wait for it (and its retries) to search lexically in the end. The
// embedding worker's next success, or a query's after the pause, ends it.
const queryEmbedPause = 30 * time.Second

// embedQuery embeds the query text, or returns nil: without an embedder,
// when it fails (the search is then lexical, and says so), and for
// queryEmbedPause after it failed.
func (s *Service) embedQuery(ctx context.Context, text string) []float32 {
	if s.embedder == nil || strings.TrimSpace(text) == "" {
		return nil
	}
	if until := s.queryEmbedDown.Load(); until != 0 && time.Now().UnixNano() < until {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.ranking.QueryEmbedTimeout)
	defer cancel()
	vecs, err := s.embedder.Embed(ctx, []string{text})
	if err != nil || len(vecs) != 1 {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.queryEmbedDown.Store(time.Now().Add(queryEmbedPause).UnixNano())
		}
		s.logger.Warn("embed query: searching lexically only", "err", err, "pause", queryEmbedPause)
		return nil
	}
	s.queryEmbedDown.Store(0)
	return vecs[0]
}

// rank runs hybrid retrieval for q in tx, with qvec the query's
// embedding (nil: lexical only; embedQuery makes it, before the
// transaction). It ranks the records of q.Filters as one set: the index
// (package index) proposes each signal's candidates over their union,
// with BM25 statistics of the union, and the neighbours of
// the best lexical hits in their conversations; conversational context
// and session strength re-score the lexical candidates; the periods the
// query names add the date signal. The candidates are fused and re-scored
// once, each of the best is scored by its relevance (see relevance), and
// the best q.Limit whose relevance reaches q.Threshold are read in full
// from tx. A candidate gone from tx's snapshot, or no longer selected by
// its filter, is left out. A query with no word left to search, in a
// user's or an agent's scope, is answered with the scope's memories
// (scopeAnswer).
func (s *Service) rank(ctx context.Context, tx loci.Tx, q Query, qvec []float32) (*Ranked, error) {
	filters := q.Filters
	limit := q.Limit
	if limit <= 0 {
		limit = loci.DefaultSearchLimit
	}
	now := s.now()
	at := now
	if !q.At.IsZero() {
		at = q.At.UTC().Truncate(time.Microsecond)
	}
	if scoped(filters) && analysis.Wordless(q.Text) {
		hits, err := s.scopeAnswer(ctx, tx, filters, limit, now, at, q.Explain)
		return &Ranked{Hits: hits, Retrieval: s.retrieval(false)}, err
	}
	p := s.ranking
	iq := index.Query{
		Terms: analysis.QueryTerms(q.Text), N: max(p.Candidates, 3*limit), MinSimilarity: p.MinSimilarity,
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
		spans = retrieval.ParseDates(q.Text, at)
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
		return nil, fmt.Errorf("search: %w", err)
	}
	// No doc of res outlives the ranking: the hits are read from tx.
	defer res.Release()
	docs := make(map[string]*index.Doc, len(res.Lexical)+len(res.Vector))
	lists := map[string][]retrieval.Hit{}
	lex := make([]retrieval.Hit, len(res.Lexical))
	for i, h := range res.Lexical {
		lex[i] = retrieval.Hit{ID: h.Doc.Meta.ID, Score: h.Score}
		docs[h.Doc.Meta.ID] = h.Doc
	}
	lists[retrieval.Lexical] = lex
	links, questions := s.links(res.Context, docs)
	var parts map[string]retrieval.Parts
	lists[retrieval.Lexical], parts = s.converse(lists[retrieval.Lexical], res.Lexical, links, questions, docs, !recallsAssistant(q.Text))
	if p.ParticipantBoost > 0 || p.MentionBoost > 0 {
		lists[retrieval.Lexical] = preferParticipants(iq.Terms, lists[retrieval.Lexical], parts, docs, res.Holds, p.ParticipantBoost, p.MentionBoost)
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
	// With a threshold, every candidate is ranked, so that the best
	// limit of those that reach it are found (diversity re-ranking keeps
	// its pool of the best limit).
	pool := limit
	if q.Threshold > 0 && p.MMRLambda <= 0 {
		pool = 0
	}
	ranked := s.fuse(lists, docs, res.Vectors, spans, at, pool, q.Explain)
	if q.Explain {
		for i, r := range ranked {
			ranked[i].Explain.Context, ranked[i].Explain.Session = parts[r.ID].Context, parts[r.ID].Session
		}
	}
	rel := s.relevance(res, ranked, links, questions, docs, spans)
	kept := ranked[:0] // filtered in place: each kept result moves down, never up
	for _, r := range ranked {
		if len(kept) == limit {
			break
		}
		if rel[r.ID].score >= q.Threshold {
			kept = append(kept, r)
		}
	}
	hits, err := s.readHits(ctx, tx, filters, kept, rel, q.Explain)
	return &Ranked{Hits: hits, PendingEmbeddings: res.Pending, Retrieval: s.retrieval(iq.Vector != nil)}, err
}

// scoped reports whether every one of filters narrows to a user or an
// agent: a search whose wordless query means "what do you know about
// this user (or agent)?".
func scoped(filters []loci.RecordFilter) bool {
	for _, f := range filters {
		if (f.UserID == nil || *f.UserID == "") && (f.AgentID == nil || *f.AgentID == "") {
			return false
		}
	}
	return len(filters) > 0
}

// scopePool is how many of a scope's most recently updated records a
// wordless query's answer (scopeAnswer) chooses from, per filter.
const scopePool = 1000

// errPoolFull stops a scan of a scope whose pool is full.
var errPoolFull = errors.New("search: the scope's pool is full")

// scopeAnswer answers a query with no word left to search in a user's
// or an agent's scope: the records filters select, most important first
// (the ranking's blend of recency, measured at at, and the kind's
// confidence, as if every record matched the query equally), at most
// limit of them, each of the scopePool most recently updated of each
// filter (its condition, f.Where, checked here: the backends do not read
// it), those with no content (an empty block) left out. Each is a
// complete match of what the query asks (none of its
// words is left unmatched): score 1, match "scope".
func (s *Service) scopeAnswer(ctx context.Context, tx loci.Tx, filters []loci.RecordFilter, limit int, now, at time.Time, explain bool) ([]Hit, error) {
	recs := map[string]*loci.Record{}
	cands := map[string]retrieval.Candidate{}
	var all []retrieval.Result
	for _, f := range filters {
		f.Order, f.Limit, f.Offset = loci.OrderUpdatedDesc, scopePool, 0
		where := f.Where
		if where != nil {
			// The pool is of the records the condition selects.
			f.Where, f.Limit = nil, 0
		}
		if f.LiveAt.IsZero() {
			f.LiveAt = now
		}
		kept := 0
		err := tx.ScanRecords(ctx, f, func(r *loci.Record) error {
			if kept == scopePool {
				return errPoolFull
			}
			if !where.Match(r) {
				return nil
			}
			kept++
			if recs[r.ID] != nil || strings.TrimSpace(r.Content) == "" {
				return nil // an empty core memory block says nothing
			}
			recs[r.ID] = r
			conf, has := confidence01(r)
			cands[r.ID] = retrieval.Candidate{ID: r.ID, At: r.UpdatedAt, Confidence: conf, HasConfidence: has}
			all = append(all, retrieval.Result{ID: r.ID, Score: 1, Explain: loci.Explanation{Fused: 1, Signals: map[string]loci.SignalScore{}}})
			return nil
		})
		if err != nil && !errors.Is(err, errPoolFull) {
			return nil, fmt.Errorf("search: read the scope: %w", err)
		}
	}
	p := s.ranking
	ranked := retrieval.Rescore(all, cands, retrieval.Params{Now: at, RecencyWeight: p.RecencyWeight, HalfLife: p.HalfLife, ConfidenceWeight: p.ConfidenceWeight})
	hits := make([]Hit, 0, min(limit, len(ranked)))
	for _, r := range ranked[:min(limit, len(ranked))] {
		h := Hit{Record: recs[r.ID], Score: 1, Match: loci.MatchScope}
		if explain {
			e := r.Explain
			e.Words, e.Score = 1, 1
			h.Explain = &e
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// links returns the conversational neighbours of the lexical hits that
// lend (index.Result.Context) as retrieval links, and which of those hits
// ask a question; the neighbours join docs.
func (s *Service) links(context map[string][]*index.Doc, docs map[string]*index.Doc) (map[string][]retrieval.Link, map[string]bool) {
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
	return links, questions
}

// converse re-scores the lexical hits as conversation turns (see
// retrieval.Converse): context lent by the best hits to their neighbours
// (links; more to the turn after a question), and each message's session
// strength (its score read whole, hits' index.Hit.Conversation).
func (s *Service) converse(lex []retrieval.Hit, hits []index.Hit, links map[string][]retrieval.Link, questions map[string]bool, docs map[string]*index.Doc, assistantPrior bool) ([]retrieval.Hit, map[string]retrieval.Parts) {
	p := s.ranking
	if !assistantPrior {
		p.AssistantWeight = 0
	}
	if len(lex) == 0 || len(links) == 0 && p.SessionWeight <= 0 && (p.AssistantWeight <= 0 || p.AssistantWeight == 1) {
		return lex, nil
	}
	sessionOf := map[string]string{}
	var prior map[string]float64
	for id, d := range docs {
		if !isMessage(d.Meta) {
			continue
		}
		if p.SessionWeight > 0 {
			sessionOf[id] = conversationOf(d.Meta)
		}
		if p.AssistantWeight > 0 && p.AssistantWeight != 1 && strings.EqualFold(d.Speaker, loci.MessageRoleAssistant) {
			if prior == nil {
				prior = map[string]float64{}
			}
			prior[id] = p.AssistantWeight
		}
	}
	// Each conversation's strength: its score read whole
	// (index.Hit.Conversation), scaled to the strongest's.
	var strength map[string]float64
	if p.SessionWeight > 0 {
		strength = map[string]float64{}
		var top float64
		for _, h := range hits {
			if c, ok := sessionOf[h.Doc.Meta.ID]; ok && h.Conversation > 0 {
				strength[c] = h.Conversation
				top = max(top, h.Conversation)
			}
		}
		for c, x := range strength {
			strength[c] = x / top
		}
	}
	return retrieval.Converse(lex, links, questions, sessionOf, retrieval.ConverseParams{
		Context: p.ContextWeight, Answer: p.AnswerWeight, Session: p.SessionWeight, Prior: prior, Strength: strength,
	})
}

// relevanceOf is a result's relevance and what it is made of.
type relevanceOf struct {
	score, words float64
	meaning      *float64
}

// relevance scores the ranked results by how well each matches the query
// (retrieval.Relevance), the same whatever the query and the scope: the
// share of the query's terms, weighted by their IDF, that the record
// holds, a term that names the record's participant (its speaker, or the
// user it is about) counting as held, and the terms of a period the query
// names as far as the record was written in it (Span.Closeness); or, when
// more, what a lexical hit next to it in its conversation lends it
// (retrieval.Lent: as the ranking lends); and in hybrid mode the greater
// of that and its similarity to the query.
func (s *Service) relevance(res *index.Result, ranked []retrieval.Result, links map[string][]retrieval.Link, questions map[string]bool, docs map[string]*index.Doc, spans []retrieval.Span) map[string]relevanceOf {
	out := make(map[string]relevanceOf, len(ranked))
	if len(ranked) == 0 {
		return out
	}
	p := s.ranking
	ids := make([]string, 0, len(ranked))
	want := make(map[string]bool, len(ranked))
	for _, r := range ranked {
		ids = append(ids, r.ID)
		want[r.ID] = true
	}
	// The hits that lend to a result are scored too.
	lenders := map[string][]retrieval.Link{}
	for id, nbs := range links {
		for _, l := range nbs {
			if want[l.ID] {
				lenders[id] = nbs
				ids = append(ids, id)
				break
			}
		}
	}
	terms, weights := res.TermWeights()
	held := res.HoldsOf(ids)
	// The terms each period the query names is written with.
	var dateTerms uint64
	if len(spans) > 0 {
		at := make(map[string]int, len(terms))
		for i, t := range terms {
			at[t] = i
		}
		for _, sp := range spans {
			for _, t := range analysis.Terms(sp.Text) {
				if i, ok := at[t]; ok {
					dateTerms |= 1 << i
				}
			}
		}
	}
	names := map[string][]string{}
	covered := make([]float64, len(terms))
	cover := make(map[string]float64, len(ids))
	for _, id := range ids {
		if _, done := cover[id]; done {
			continue
		}
		mask := held[id]
		d := docs[id]
		if d != nil {
			for _, t := range participantOf(d, names) {
				if i := slices.Index(terms, t); i >= 0 {
					mask |= 1 << i
				}
			}
		}
		var close float64
		if dateTerms != 0 && d != nil {
			close = retrieval.Closeness(spans, d.Meta.CreatedAt, p.DateGrace)
		}
		for i := range covered {
			switch {
			case mask&(1<<i) != 0:
				covered[i] = 1
			case dateTerms&(1<<i) != 0:
				covered[i] = close
			default:
				covered[i] = 0
			}
		}
		cover[id] = retrieval.Coverage(weights, covered)
	}
	lent := retrieval.Lent(cover, lenders, questions, retrieval.ConverseParams{Context: p.ContextWeight, Answer: p.AnswerWeight})
	var sims map[string]float64 // nil in lexical mode (hash vectors find words, not meaning)
	if s.semantic() {
		sims = res.Similarities(ids[:len(ranked)])
	}
	for _, r := range ranked {
		rel := relevanceOf{words: max(cover[r.ID], lent[r.ID])}
		if sims != nil {
			m := max(sims[r.ID], 0)
			rel.meaning = &m
		}
		rel.score = retrieval.Relevance(rel.words, rel.meaning)
		out[r.ID] = rel
	}
	return out
}

// retrieval says how a search ranked: hybrid when it had the query's
// vector by a semantic embedder, else lexical.
func (s *Service) retrieval(vector bool) loci.Retrieval {
	if !vector || !s.semantic() {
		return loci.Retrieval{Mode: loci.RetrievalLexical}
	}
	name := s.embedder.Model()
	if n, ok := s.embedder.(interface{ Name() string }); ok {
		name = n.Name()
	}
	return loci.Retrieval{Mode: loci.RetrievalHybrid, Model: &name}
}

// semantic reports whether the service's embedder finds meaning: there is
// one, and its similarity is not lexical only (see RankingParams).
func (s *Service) semantic() bool {
	if s.embedder == nil {
		return false
	}
	lo, ok := s.embedder.(interface{ LexicalOnly() bool })
	return !ok || !lo.LexicalOnly()
}

// Retrieval is how searches rank when the embedder answers: hybrid, by
// meaning and by words, with a semantic embedder; else lexical, by words.
func (s *Service) Retrieval() loci.Retrieval { return s.retrieval(true) }

// readHits reads the ranked records in full, in order, leaving out those
// gone from tx's snapshot or no longer selected by any of filters; each
// hit's score is its relevance (rel).
func (s *Service) readHits(ctx context.Context, tx loci.Tx, filters []loci.RecordFilter, ranked []retrieval.Result, rel map[string]relevanceOf, explain bool) ([]Hit, error) {
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
		rv := rel[res.ID]
		h := Hit{Record: r, Score: rv.score}
		if explain {
			e := res.Explain
			e.Words, e.Meaning, e.Score = rv.words, rv.meaning, rv.score
			h.Explain = &e
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

// candPool holds the maps of candidates fuse fills for retrieval.Rank,
// which keeps none of them: reused, as a search's garbage is its tail.
var candPool = sync.Pool{New: func() any { return map[string]retrieval.Candidate{} }}

// fuse ranks the candidates: reciprocal rank fusion of the signals, then
// recency and the kind's confidence (and MMR when on), best limit first.
func (s *Service) fuse(lists map[string][]retrieval.Hit, docs map[string]*index.Doc, vecs map[string][]float32, spans []retrieval.Span, now time.Time, limit int, explain bool) []retrieval.Result {
	p := s.ranking
	cands := candPool.Get().(map[string]retrieval.Candidate)
	defer func() { clear(cands); candPool.Put(cands) }()
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
		Spans: spans, DateBoost: p.DateBoost, DateGrace: p.DateGrace, Explain: explain,
	})
	if !explain {
		for i := range results {
			results[i].Explain = loci.Explanation{}
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
	return string(r.Kind) + "\x00" + r.AgentID + "\x00" + r.UserID + "\x00" + r.SessionID + "\x00" + r.TaskID + "\x00" + r.Category
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
	at, _ := loci.ParseReferenceDate(q.ReferenceDate) // Validate has checked it
	return s.searchScopes(ctx, a, Query{Text: q.Query, Filters: []loci.RecordFilter{f}, Limit: q.Limit, Explain: q.Explain, At: at, Threshold: q.Threshold})
}
