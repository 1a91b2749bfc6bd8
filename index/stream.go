package index

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// streamed is a scope too large for the budget, read once for one search:
// its statistics, the docs that hold a query term (with their term
// frequencies, scored once every part's statistics are known), the best
// vector hits and the pending count. Its memory is bounded by the docs that
// match, not by the scope.
type streamed struct {
	st      Stats
	cands   []streamCand
	vec     *topK
	vectors map[string][]float32 // of the vector hits, when asked
	pending int
	// The scope's conversations, by conversationKey, and each lexical
	// candidate's.
	convs       map[string]*streamConv
	convOf      map[string]*streamConv
	convsScored bool
}

type streamCand struct {
	d      *Doc
	length int32
	tfs    []uint16 // by query term
}

// streamConv is a conversation of a streamed scope: its length and how
// often it holds each query term (see convScratch).
type streamConv struct {
	length int64
	tfs    []float64
	score  float64
}

// stream reads f's scope from tx in one pass.
func (c *Cache) stream(ctx context.Context, tx loci.Tx, f loci.RecordFilter, terms []string, q []float32, n int, min float64) (*streamed, error) {
	s := &streamed{st: Stats{DF: map[string]int{}}, vec: newTopK(n), vectors: map[string][]float32{}, convs: map[string]*streamConv{}, convOf: map[string]*streamConv{}}
	at := make(map[string]int, len(terms))
	for i, t := range terms {
		at[t] = i
	}
	scope := scopeOf(f)
	scope.Order = loci.OrderNone
	scan := tx.ScanRecords
	// With a store that answers the vector side from an index of its own
	// (nearest.go), the scope is read without its embeddings.
	var indexed, exhausted bool
	withVec := 0 // the records of f that hold a vector, then
	if nt, ok := tx.StoreTx.(loci.NearestTx); ok && q != nil && c.cfg.model != "" && n > 0 {
		var err error
		if indexed, exhausted, err = c.nearest(ctx, nt, f, q, n, min, s); err != nil {
			return nil, err
		}
		if indexed {
			scan = nt.ScanRecordsWithoutEmbeddings
		}
	}
	err := scan(ctx, scope, func(r *loci.Record) error {
		tfs, length := c.termFreqs(r, at, len(terms))
		s.st.N++
		s.st.TotalLen += int64(length)
		for i, tf := range tfs {
			if tf > 0 {
				s.st.DF[terms[i]]++
			}
		}
		var conv *streamConv
		if c.cfg.conversational != nil && c.cfg.conversational(r) {
			k := conversationKey(r)
			if conv = s.convs[k]; conv == nil {
				conv = &streamConv{tfs: make([]float64, len(terms))}
				s.convs[k] = conv
			}
			conv.length += int64(length)
			for i, tf := range tfs {
				conv.tfs[i] += float64(tf)
			}
		}
		meta := strip(r)
		if !f.Match(meta) {
			return nil
		}
		var d *Doc
		doc := func() *Doc {
			if d == nil {
				d = c.newDoc(r, meta)
			}
			return d
		}
		if tfs != nil {
			s.cands = append(s.cands, streamCand{d: doc(), length: length, tfs: tfs})
			if conv != nil {
				s.convOf[r.ID] = conv
			}
		}
		hasVec := c.cfg.model != "" && (r.Embedding != nil || indexed) && r.EmbeddingModel == c.cfg.model
		if hasVec {
			withVec++
		}
		if !hasVec {
			if c.cfg.model != "" {
				s.pending++
			}
		} else if q != nil && len(r.Embedding) == len(q) {
			s.scoreVector(r, q, min, doc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("stream scope: %w", err)
	}
	if indexed && exhausted && len(s.vec.h) < n && len(s.vec.h) < withVec {
		// The store's index gave fewer than the scope holds (a graph
		// its scan did not reach through): the scope is streamed whole.
		return c.stream(ctx, loci.Tx{StoreTx: nonNearest{tx.StoreTx}}, f, terms, q, n, min)
	}
	return s, nil
}

// termFreqs counts, in r's search text, each of the query's terms (their
// positions in at) and every word (the record's length for BM25); tfs is
// nil when r holds none of them.
func (c *Cache) termFreqs(r *loci.Record, at map[string]int, nterms int) (tfs []uint16, length int32) {
	text := r.SearchText
	if text == "" {
		text = r.Content
	}
	for _, t := range strings.Fields(text) {
		length++
		if c.cfg.fold != nil {
			t = c.cfg.fold(t)
		}
		if i, ok := at[t]; ok {
			if tfs == nil {
				tfs = make([]uint16, nterms)
			}
			if tfs[i] < maxTF {
				tfs[i]++
			}
		}
	}
	return tfs, length
}

// scoreVector offers r to the vector side by its exact dot product with q,
// when it reaches min; doc makes r's doc once.
func (s *streamed) scoreVector(r *loci.Record, q []float32, min float64, doc func() *Doc) {
	var dot float32
	for i, x := range q {
		dot += x * r.Embedding[i]
	}
	if float64(dot) >= min && s.vec.wants(float64(dot), r.ID) {
		s.vec.push(cand{score: float64(dot), id: r.ID, doc: doc()})
		s.vectors[r.ID] = r.Embedding
	}
}

// lexical scores the candidates by BM25 with the statistics st: the best
// limit, and, when during is set, the best limit of those written at a
// time during accepts.
func (s *streamed) lexical(terms []string, st Stats, limit int, during func(time.Time) bool) (all, within []Hit) {
	if st.N == 0 {
		return nil, nil
	}
	bm := newScorer(&st)
	ws := make([]float64, len(terms))
	for i, t := range terms {
		ws[i] = weight(st.idf(st.DF[t]))
	}
	s.scoreConversations(len(terms))
	top, in := newTopK(limit), newTopK(limit)
	for _, c := range s.cands {
		var score float64
		for i, tf := range c.tfs {
			if tf > 0 {
				score += bm.bm25(ws[i], float64(tf), c.length)
			}
		}
		top.offer(cand{score: score, id: c.d.Meta.ID, doc: c.d})
		if during != nil && in.wants(score, c.d.Meta.ID) && during(c.d.Meta.CreatedAt) {
			in.push(cand{score: score, id: c.d.Meta.ID, doc: c.d})
		}
	}
	if during == nil {
		return s.withConversations(top.hits()), nil
	}
	return s.withConversations(top.hits()), s.withConversations(in.hits())
}

// scoreConversations scores each conversation of the scope as one
// document (see convScratch), once.
func (s *streamed) scoreConversations(nterms int) {
	if len(s.convs) == 0 || s.convsScored {
		return
	}
	s.convsScored = true
	var total int64
	for _, cv := range s.convs {
		total += cv.length
	}
	st := newConvStats(len(s.convs), total)
	for i := range nterms {
		df := 0
		for _, cv := range s.convs {
			if cv.tfs[i] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		w := weight(idf(st.n, df))
		for _, cv := range s.convs {
			if cv.tfs[i] > 0 {
				cv.score += convBM25(w, cv.tfs[i], float64(cv.length), st.avg)
			}
		}
	}
}

// withConversations sets each hit's conversation score.
func (s *streamed) withConversations(hits []Hit) []Hit {
	for i := range hits {
		if cv := s.convOf[hits[i].Doc.Meta.ID]; cv != nil {
			hits[i].Conversation = cv.score
		}
	}
	return hits
}

// newDoc returns r as a Doc whose Meta is meta (r stripped), as an entry
// would make it.
func (c *Cache) newDoc(r, meta *loci.Record) *Doc {
	d := &Doc{Meta: meta}
	if c.cfg.confidence != nil {
		d.Conf, d.HasConf = c.cfg.confidence(r)
	}
	d.Question = c.cfg.question != nil && c.cfg.question(r)
	if c.cfg.speaker != nil {
		d.Speaker = c.cfg.speaker(r)
	}
	return d
}
