package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// Query is one search's questions to the index.
type Query struct {
	// Filters select the records ranked: disjoint scopes ranked as one
	// set (their statistics add up), each applied before the cut. Their
	// Order, Limit and Offset are ignored.
	Filters []loci.RecordFilter
	// Terms are the analyzed query terms (plain words, never syntax).
	Terms []string
	// Vector is the query's unit embedding, by the cache's model; nil:
	// lexical only.
	Vector []float32
	// N is how many candidates each signal returns.
	N int
	// MinSimilarity, when not zero, is the least similarity of a vector
	// candidate: a scan turns the others away before any other check.
	MinSimilarity float64
	// Lenders is how many of the best lexical hits lend context to their
	// neighbours, when they are conversational; Window bounds how far in
	// time a neighbour may be.
	Lenders int
	Window  time.Duration
	// Vectors asks for the candidates' vectors (diversity re-ranking).
	Vectors bool
	// During, when set, asks for Result.During: the best N lexical hits
	// written (created) at a time it accepts, such as the periods a query
	// names. It is called only on records that hold a query term.
	During func(written time.Time) bool
}

// minSimilarity is the least similarity of a vector candidate.
func (q *Query) minSimilarity() float64 {
	if q.MinSimilarity == 0 {
		return math.Inf(-1)
	}
	return q.MinSimilarity
}

// Result is what a search found: each signal's candidates, best first, with
// their own scores (BM25; cosine similarity), the neighbours of each
// lender, and how many records under the filters wait for an embedding by
// the cache's model.
type Result struct {
	Lexical []Hit
	Vector  []Hit
	// During holds the best lexical hits written when Query.During
	// accepts, by the same scores as Lexical.
	During []Hit
	// Context maps a lender's id to its neighbours.
	Context map[string][]*Doc
	Pending int
	// Vectors holds the candidates' vectors when the query asked.
	Vectors map[string][]float32

	// What Holds, HoldsOf, TermWeights and Similarities read: the part
	// each candidate came from, the terms, the statistics the search
	// scored by and the query's vector.
	owner map[string]*part
	terms []string
	stats Stats
	qvec  []float32
	// What the hits' docs, neighbours included, were made in (Release).
	arena *arena
}

// Release gives back what r's docs and their records were made in, for
// another search to reuse: after it, no Doc of r (nor its record) may be
// read. A caller that keeps none past its use of r calls it, sparing the
// collector a record per candidate; one that does not leaves them to it.
func (r *Result) Release() {
	if r.arena != nil {
		r.arena.release()
		r.arena = nil
	}
}

// Holds maps each lexical hit and neighbour to the query terms it holds:
// bit i for Query.Terms[i] (Terms without repeats, at most 64 of them; a
// doc holding none is absent). It reads the indexes the search read, as
// they are now, so that a search pays for it only when it asks.
func (r *Result) Holds() map[string]uint64 {
	if len(r.terms) == 0 {
		return nil
	}
	var ids []string
	for _, h := range r.Lexical {
		ids = append(ids, h.Doc.Meta.ID)
	}
	for _, nbs := range r.Context {
		for _, d := range nbs {
			ids = append(ids, d.Meta.ID)
		}
	}
	return holdsOf(ids, r.owner, r.terms)
}

// Search answers q in tx: each filter's scope is searched on its index
// (held, loaded, or private to tx when tx has written records) or, when
// too large for the budget, by a streaming pass over its records.
func (c *Cache) Search(ctx context.Context, tx loci.Tx, q Query) (*Result, error) {
	terms := distinct(q.Terms)
	parts, st, err := c.openParts(ctx, tx, q, terms)
	if err != nil {
		return nil, err
	}
	ar := arenas.Get().(*arena)
	res := &Result{Context: map[string][]*Doc{}, arena: ar}
	lex, vec, dur := newTopK(q.N), newTopK(q.N), newTopK(q.N)
	owner := make(map[string]*part, q.N)
	exact := map[string][]float32{} // the vectors rescored, as stored
	conv := map[string]float64{}    // lexical hits' conversation scores
	for _, p := range parts {
		h, err := c.searchPart(ctx, tx, p, q, terms, st, ar)
		if err != nil {
			ar.release()
			return nil, err
		}
		res.Pending += h.pending
		for id, x := range h.exact {
			exact[id] = x
		}
		for _, sig := range []struct {
			hits []Hit
			top  *topK
		}{{h.lexical, lex}, {h.vector, vec}, {h.during, dur}} {
			for _, x := range sig.hits {
				sig.top.offer(cand{score: x.Score, id: x.Doc.Meta.ID, doc: x.Doc})
				owner[x.Doc.Meta.ID] = p
				if x.Conversation != 0 {
					conv[x.Doc.Meta.ID] = x.Conversation
				}
			}
		}
	}
	res.Lexical, res.Vector = withConversation(lex.hits(), conv), vec.hits()
	if q.During != nil {
		res.During = withConversation(dur.hits(), conv)
	}
	if err := c.lend(ctx, tx, q, res, owner, ar); err != nil {
		ar.release()
		return nil, err
	}
	res.owner, res.terms, res.stats, res.qvec = owner, terms, st, q.Vector
	if q.Vectors {
		res.Vectors = vectorsOf(owner, exact)
	}
	return res, nil
}

// withConversation sets each of hits' conversation score from conv.
func withConversation(hits []Hit, conv map[string]float64) []Hit {
	if len(conv) == 0 {
		return hits
	}
	for i := range hits {
		hits[i].Conversation = conv[hits[i].Doc.Meta.ID]
	}
	return hits
}

// openParts finds each filter's index (or streams its scope) and adds up
// the statistics of all of them, which BM25 scores every part by.
func (c *Cache) openParts(ctx context.Context, tx loci.Tx, q Query, terms []string) ([]*part, Stats, error) {
	parts := make([]*part, len(q.Filters))
	var st Stats
	for i, f := range q.Filters {
		p := &part{f: f}
		parts[i] = p
		e, err := c.acquire(ctx, tx, f)
		if err != nil {
			return nil, st, err
		}
		if e != nil {
			p.e = e
			e.mu.RLock()
			st.add(e.stats(terms))
			e.mu.RUnlock()
			continue
		}
		c.streams.Add(1)
		if p.s, err = c.stream(ctx, tx, f, terms, q.Vector, q.N, q.minSimilarity()); err != nil {
			return nil, st, err
		}
		st.add(p.s.st)
	}
	return parts, st, nil
}

// partHits is what one part contributes to a search.
type partHits struct {
	lexical, vector, during []Hit
	pending                 int
	exact                   map[string][]float32 // vectors rescored, when asked
}

// searchPart searches one part: its index, whose vector hits are
// rescored from the store unless the index scored them exactly, or its
// streamed scope.
func (c *Cache) searchPart(ctx context.Context, tx loci.Tx, p *part, q Query, terms []string, st Stats, ar *arena) (partHits, error) {
	var h partHits
	if p.e == nil {
		h.lexical, h.during = p.s.lexical(terms, st, q.N, q.During)
		h.vector, h.pending = p.s.vec.hits(), p.s.pending
		return h, nil
	}
	p.e.mu.RLock()
	m := p.e.matcher(&p.f)
	h.lexical, h.during = p.e.lexical(m, terms, st, q.N, q.During, ar)
	exactly := false
	if q.Vector != nil {
		h.vector, exactly = p.e.vector(m, q.Vector, q.N, q.minSimilarity(), ar)
	}
	h.pending = p.e.countPending(m)
	p.e.mu.RUnlock()
	if len(h.vector) > 0 && !exactly {
		var err error
		if h.vector, h.exact, err = rescore(ctx, tx, c.cfg.model, q.Vector, h.vector, q.minSimilarity(), q.Vectors); err != nil {
			return h, err
		}
	}
	return h, nil
}

// lend gives the best q.Lenders conversational lexical hits of res their
// neighbours (res.Context), recording the part each neighbour came from.
func (c *Cache) lend(ctx context.Context, tx loci.Tx, q Query, res *Result, owner map[string]*part, ar *arena) error {
	lent := 0
	for _, h := range res.Lexical {
		if lent >= q.Lenders || c.cfg.conversational == nil {
			break
		}
		if !c.cfg.conversational(h.Doc.Meta) {
			continue
		}
		lent++
		p := owner[h.Doc.Meta.ID]
		var nbs []*Doc
		if p.e != nil {
			p.e.mu.RLock()
			nbs = p.e.neighbours(h.Doc.Meta.ID, p.f, q.Window, ar)
			p.e.mu.RUnlock()
		} else {
			var err error
			if nbs, err = c.streamNeighbours(ctx, tx, p.f, h.Doc, q.Window); err != nil {
				return err
			}
		}
		if len(nbs) > 0 {
			res.Context[h.Doc.Meta.ID] = nbs
			for _, d := range nbs {
				if owner[d.Meta.ID] == nil {
					owner[d.Meta.ID] = p
				}
			}
		}
	}
	return nil
}

// vectorsOf returns the vectors of the candidates in owner: as stored
// when rescored (exact), else as their part holds them.
func vectorsOf(owner map[string]*part, exact map[string][]float32) map[string][]float32 {
	out := map[string][]float32{}
	for id, p := range owner {
		v := exact[id]
		if v == nil && p.e != nil {
			p.e.mu.RLock()
			v = p.e.vectorOf(id)
			p.e.mu.RUnlock()
		} else if v == nil {
			v = p.s.vectors[id]
		}
		if v != nil {
			out[id] = v
		}
	}
	return out
}

// distinct returns terms without repeats, in order.
func distinct(terms []string) []string {
	var out []string
	for _, t := range terms {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// streamNeighbours finds a lender's neighbours in a scope that is streamed:
// it reads the lender's conversation within window of it.
func (c *Cache) streamNeighbours(ctx context.Context, tx loci.Tx, f loci.RecordFilter, lender *Doc, window time.Duration) ([]*Doc, error) {
	m := lender.Meta
	g := conversationFilter(f, m)
	if after := m.CreatedAt.Add(-window); g.CreatedAfter.IsZero() || after.After(g.CreatedAfter) {
		g.CreatedAfter = after
	}
	if before := m.CreatedAt.Add(window); g.CreatedBefore.IsZero() || before.Before(g.CreatedBefore) {
		g.CreatedBefore = before
	}
	g.Order, g.Limit, g.Offset = loci.OrderCreatedAsc, 0, 0
	var conv []*loci.Record
	err := tx.ScanRecords(ctx, g, func(r *loci.Record) error {
		conv = append(conv, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read conversation: %w", err)
	}
	slices.SortFunc(conv, func(a, b *loci.Record) int {
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Compare(b.CreatedAt)
		}
		return strings.Compare(a.ID, b.ID)
	})
	i := slices.IndexFunc(conv, func(r *loci.Record) bool { return r.ID == m.ID })
	if i < 0 {
		return nil, nil
	}
	var out []*Doc
	for _, j := range pickNeighbours(len(conv), i, func(j int) int64 { return conv[j].CreatedAt.UnixMicro() },
		func(j int) bool { return g.Match(conv[j]) }, window) {
		out = append(out, c.newDoc(conv[j], strip(conv[j])))
	}
	return out, nil
}

// strip returns a copy of r holding only what the index keeps (what a
// Doc's Meta holds).
func strip(r *loci.Record) *loci.Record {
	return &loci.Record{
		ID: r.ID, Workspace: r.Workspace, Kind: r.Kind, Scope: r.Scope, Key: r.Key, Tags: r.Tags,
		Category: r.Category, ActionType: r.ActionType, Outcome: r.Outcome, Confidence: r.Confidence,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt,
		ValidAt: r.ValidAt, InvalidAt: r.InvalidAt, Review: r.Review, Metadata: r.Metadata,
	}
}

// holdsOf says which of terms each of the candidates ids holds (see
// Result.Holds).
func holdsOf(ids []string, owner map[string]*part, terms []string) map[string]uint64 {
	var docs []string
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			docs = append(docs, id)
		}
	}
	byEntry := map[*entry][]string{}
	byStream := map[*streamed][]string{}
	for _, id := range docs {
		if p := owner[id]; p == nil {
			continue
		} else if p.e != nil {
			byEntry[p.e] = append(byEntry[p.e], id)
		} else {
			byStream[p.s] = append(byStream[p.s], id)
		}
	}
	out := map[string]uint64{}
	for e, ids := range byEntry {
		e.mu.RLock()
		tids := e.termIDs(terms)
		for _, id := range ids {
			if m := e.holds(id, tids); m != 0 {
				out[id] = m
			}
		}
		e.mu.RUnlock()
	}
	for s, ids := range byStream {
		// A streamed scope's candidates are the docs that hold a query
		// term, with their frequencies.
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		for _, c := range s.cands {
			if !want[c.d.Meta.ID] {
				continue
			}
			var m uint64
			for i, tf := range c.tfs[:min(len(c.tfs), 64)] {
				if tf > 0 {
					m |= 1 << i
				}
			}
			if m != 0 {
				out[c.d.Meta.ID] = m
			}
		}
	}
	return out
}
