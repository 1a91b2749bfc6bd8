package postgres

import (
	"context"
	"fmt"
	"math"

	"github.com/loci-memory/loci"
)

// The lexical half of the cache (vectorcache.go): per workspace, an
// inverted index of every record's lexemes, as PostgreSQL's search_vector
// holds them, with each one's number of positions (the term frequency the
// SQL path reads with ts_rank_cd), and each record's search_len. It is
// kept up to date by the same change feed as the vectors, and ranks with
// the SQL path's BM25: N is the number of records of the workspace, the
// average length the mean of search_len, a term's document frequency the
// number of records holding it. Candidates are the records holding any
// term; the filter is applied before the cut; ties go by id.
//
// A search then reads the winners' rows in the caller's transaction and
// checks each: it must still match the filter and carry the change_xid
// the cache scored it at (every update of its text, length or filterable
// fields restamps it), so its terms and length are the ones scored.

// lexIndex is one workspace's inverted index. Slots are append-only; a
// removed record leaves a dead slot, compacted away when they pile up.
type lexIndex struct {
	docs     []*lexDoc // by slot; nil when dead
	slotOf   map[string]int32
	live     int
	totalLen int64

	termID   map[string]uint32
	postings [][]lexPosting // by term id
	df       []int32        // live records per term
}

type lexDoc struct {
	meta   *loci.Record // filterable fields
	xid    int64        // change_xid when read
	length int32        // search_len
	terms  []uint32     // distinct term ids
}

type lexPosting struct {
	slot int32
	tf   int32
}

func newLexIndex() *lexIndex {
	return &lexIndex{slotOf: map[string]int32{}, termID: map[string]uint32{}}
}

// put indexes a record (replacing the one with its id, if any).
func (ix *lexIndex) put(m *loci.Record, xid int64, length int32, lexemes []string, tfs []int32) {
	ix.remove(m.ID)
	slot := int32(len(ix.docs))
	d := &lexDoc{meta: m, xid: xid, length: length, terms: make([]uint32, 0, len(lexemes))}
	for i, lx := range lexemes {
		id, ok := ix.termID[lx]
		if !ok {
			id = uint32(len(ix.postings))
			ix.termID[lx] = id
			ix.postings = append(ix.postings, nil)
			ix.df = append(ix.df, 0)
		}
		tf := tfs[i]
		if tf <= 0 {
			tf = 1 // a lexeme without positions counts once, as in ts_rank_cd
		}
		ix.postings[id] = append(ix.postings[id], lexPosting{slot, tf})
		ix.df[id]++
		d.terms = append(d.terms, id)
	}
	ix.docs = append(ix.docs, d)
	ix.slotOf[m.ID] = slot
	ix.live++
	ix.totalLen += int64(length)
}

// remove drops the record with id, if indexed.
func (ix *lexIndex) remove(id string) {
	slot, ok := ix.slotOf[id]
	if !ok {
		return
	}
	d := ix.docs[slot]
	delete(ix.slotOf, id)
	ix.docs[slot] = nil
	ix.live--
	ix.totalLen -= int64(d.length)
	for _, t := range d.terms {
		ix.df[t]--
	}
	if dead := len(ix.docs) - ix.live; dead > 1024 && dead > ix.live {
		ix.compact()
	}
}

// compact rebuilds the slots without the dead ones.
func (ix *lexIndex) compact() {
	newSlot := make([]int32, len(ix.docs))
	docs := make([]*lexDoc, 0, ix.live)
	for s, d := range ix.docs {
		if d == nil {
			newSlot[s] = -1
			continue
		}
		newSlot[s] = int32(len(docs))
		ix.slotOf[d.meta.ID] = int32(len(docs))
		docs = append(docs, d)
	}
	for t, ps := range ix.postings {
		out := ps[:0]
		for _, p := range ps {
			if ns := newSlot[p.slot]; ns >= 0 {
				out = append(out, lexPosting{ns, p.tf})
			}
		}
		ix.postings[t] = out
	}
	ix.docs = docs
}

// lexHit is a cached record and its score.
type lexHit struct {
	doc   *lexDoc
	score float64
}

// lexBefore orders hits as ORDER BY score DESC, id does.
func lexBefore(a, b lexHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc.meta.ID < b.doc.meta.ID
}

// search returns the best limit records that match f and hold any of
// terms (distinct lexemes), by BM25, best first: the SQL path's ranking.
func (ix *lexIndex) search(f *loci.RecordFilter, terms []string, limit int) []lexHit {
	if ix.live == 0 || limit <= 0 {
		return nil
	}
	n := float64(ix.live)
	avg := float64(ix.totalLen) / n
	if avg == 0 {
		avg = 1
	}
	acc := make([]float64, len(ix.docs))
	hit := make([]bool, len(ix.docs))
	var touched []int32
	for _, term := range terms {
		id, ok := ix.termID[term]
		if !ok || ix.df[id] <= 0 {
			continue
		}
		df := float64(ix.df[id])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ix.postings[id] {
			d := ix.docs[p.slot]
			if d == nil {
				continue
			}
			tf := float64(p.tf)
			// The SQL expression, term by term, in the same order.
			acc[p.slot] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(d.length)/avg))
			if !hit[p.slot] {
				hit[p.slot] = true
				touched = append(touched, p.slot)
			}
		}
	}
	top := topK[lexHit]{k: limit, before: lexBefore}
	for _, slot := range touched {
		c := lexHit{ix.docs[slot], acc[slot]}
		if !top.wants(c) {
			continue
		}
		if !f.Match(c.doc.meta) {
			continue
		}
		top.push(c)
	}
	return top.sorted()
}

// searchLexicalCached answers SearchLexical from the cache for terms
// (cleaned, distinct lexemes), or reports ok false when the caller must
// search in SQL.
func (tx *Tx) searchLexicalCached(ctx context.Context, f loci.RecordFilter, terms []string, limit int) (out []loci.ScoredRecord, ok bool, err error) {
	const tries = 3
	for range tries {
		sp, ok, err := tx.db.cache.space(ctx, tx, f.Workspace)
		if err != nil || !ok {
			return nil, false, err
		}
		sp.mu.RLock()
		hits := sp.lex.search(&f, terms, limit)
		sp.mu.RUnlock()
		if len(hits) == 0 {
			tx.db.cache.lexAnswered.Add(1)
			return nil, true, nil
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.doc.meta.ID
		}
		rows, err := tx.tx.Query(ctx, `SELECT `+recordColumns+`, change_xid FROM records WHERE workspace = $1 AND id = ANY($2::text[])`, f.Workspace, ids)
		if err != nil {
			return nil, false, fmt.Errorf("search lexical: %w", err)
		}
		type row struct {
			r   *loci.Record
			xid int64
		}
		byID := make(map[string]row, len(hits))
		for rows.Next() {
			var xid int64
			r, err := scanRecord(rows, &xid)
			if err != nil {
				rows.Close()
				return nil, false, err
			}
			byID[r.ID] = row{r, xid}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, false, fmt.Errorf("search lexical: %w", err)
		}
		out = out[:0]
		for _, h := range hits {
			got, found := byID[h.doc.meta.ID]
			if !found || got.xid != h.doc.xid || !f.Match(got.r) {
				break
			}
			out = append(out, loci.ScoredRecord{Record: got.r, Score: h.score})
		}
		if len(out) == len(hits) {
			tx.db.cache.lexAnswered.Add(1)
			return out, true, nil
		}
		// A commit landed between the feed and the rows: again.
	}
	return nil, false, nil
}
