package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/loci-memory/loci"
)

// The search index is an in-memory copy of what ranking needs, per
// workspace: each record's filterable fields, its analyzed terms (an
// inverted index scored with BM25) and its embedding (stored by dimension,
// so a query touches only the dimensions it uses). SQLite stays the source
// of truth: a workspace's index is loaded lazily from the records table,
// kept up to date by the transactions of this process as they commit, and
// dropped and reloaded when another process has written (the
// search_generation counter, bumped by every transaction that changes
// records, says so).
//
// Searching it is exact: every record that matches the filter is scored,
// and the filter is applied before the best are taken.

// BM25 parameters.
const (
	bm25K1 = 1.2
	// bm25B is lower than the usual 0.75: memories are short, and long
	// ones are not less relevant for being long (0.4 measured better on
	// LoCoMo turns than 0.75, 0.5 and 0.3 did).
	bm25B = 0.4
)

// searchIndex holds the loaded workspaces.
type searchIndex struct {
	mu     sync.Mutex
	gen    int64 // the search_generation the loaded spaces reflect; -1: none
	spaces map[string]*space
}

func newSearchIndex() *searchIndex {
	return &searchIndex{gen: -1, spaces: map[string]*space{}}
}

// indexOp is one change a transaction made, applied to the index when it
// commits.
type indexOp struct {
	upsert *loci.Record // a record inserted or updated (SearchText and Embedding set)
	delete string       // the id of a deleted record
	// an embedding set on record id (setID) by model
	setID, setModel string
	setVec          []float32
	setWorkspace    string
}

// readGen reads the store's search generation in tx.
func readGen(ctx context.Context, tx *sql.Tx) (int64, error) {
	var gen int64
	if err := tx.QueryRowContext(ctx, `SELECT gen FROM search_generation WHERE id = 1`).Scan(&gen); err != nil {
		return 0, fmt.Errorf("read search generation: %w", err)
	}
	return gen, nil
}

// acquire returns the workspace's space as of tx's snapshot, loading it
// if needed, read-locked; the caller calls release. dirty says tx has
// changed records: the shared space lacks those changes and must not get
// them before the commit, so tx gets a space of its own.
func (ix *searchIndex) acquire(ctx context.Context, tx *sql.Tx, workspace string, dirty bool) (*space, func(), error) {
	if dirty {
		sp, err := loadSpace(ctx, tx, workspace)
		if err != nil {
			return nil, nil, err
		}
		return sp, func() {}, nil
	}
	gen, err := readGen(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	ix.mu.Lock()
	if gen > ix.gen {
		// Another process wrote, or nothing is loaded: start over.
		ix.spaces, ix.gen = map[string]*space{}, gen
	}
	sp := ix.spaces[workspace]
	if sp == nil {
		sp, err = loadSpace(ctx, tx, workspace)
		if err != nil {
			ix.mu.Unlock()
			return nil, nil, err
		}
		if gen == ix.gen {
			ix.spaces[workspace] = sp
		}
		// else the snapshot is older than the index: use what was
		// loaded for this query only.
	}
	sp.mu.RLock()
	ix.mu.Unlock()
	return sp, sp.mu.RUnlock, nil
}

// commit commits tx and applies its ops to the index, so that the next
// search sees them. genBefore is the generation tx read before bumping it.
func (ix *searchIndex) commit(tx *sql.Tx, genBefore int64, ops []indexOp) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	if ix.gen != genBefore {
		ix.spaces, ix.gen = map[string]*space{}, -1
		return nil
	}
	ix.gen = genBefore + 1
	for _, op := range ops {
		ws := op.setWorkspace
		if op.upsert != nil {
			ws = op.upsert.Workspace
		}
		if op.delete != "" {
			for _, sp := range ix.spaces {
				sp.mu.Lock()
				sp.remove(op.delete)
				sp.mu.Unlock()
			}
			continue
		}
		sp := ix.spaces[ws]
		if sp == nil {
			continue
		}
		sp.mu.Lock()
		if op.upsert != nil {
			sp.add(op.upsert, op.upsert.SearchText)
		} else {
			sp.setVector(op.setID, op.setModel, op.setVec)
		}
		sp.mu.Unlock()
	}
	return nil
}

// space is one workspace's index. Slots are append-only; a removed or
// replaced record leaves a dead slot, compacted away when they pile up.
type space struct {
	mu sync.RWMutex

	metas  []*loci.Record // filterable fields per slot; nil when dead
	slotOf map[string]int32
	live   int

	// lexical
	termID    map[string]uint32
	postings  [][]posting // by term id
	df        []int32     // live documents per term
	slotTerms [][]uint32  // distinct term ids per slot
	docLen    []int32
	totalLen  int64

	// vectors of one model, by dimension: cols[d][slot]
	model  string
	cols   [][]float32
	hasVec []bool
}

type posting struct {
	slot int32
	tf   uint16
}

func newSpace() *space {
	return &space{slotOf: map[string]int32{}, termID: map[string]uint32{}}
}

// loadSpace reads a workspace's records into a new space, with the
// vectors of the model most of them have.
func loadSpace(ctx context.Context, tx *sql.Tx, workspace string) (*space, error) {
	return loadSpaceModel(ctx, tx, workspace, "")
}

// loadSpaceModel reads a workspace's records into a new space, with the
// vectors of model (when "", the model most records have).
func loadSpaceModel(ctx context.Context, tx *sql.Tx, workspace, model string) (*space, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+recordColumns+` FROM records WHERE workspace = ? ORDER BY seq`, workspace)
	if err != nil {
		return nil, fmt.Errorf("load search index: %w", err)
	}
	defer rows.Close()
	sp := newSpace()
	models := map[string]int{}
	var recs []*loci.Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		if r.Embedding != nil {
			models[r.EmbeddingModel]++
		}
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load search index: %w", err)
	}
	// Vectors of the model most records have; others count as pending.
	sp.model = model
	for m, n := range models {
		if model != "" {
			break
		}
		if sp.model == "" || n > models[sp.model] || n == models[sp.model] && m < sp.model {
			sp.model = m
		}
	}
	for _, r := range recs {
		sp.add(r, r.SearchText)
	}
	return sp, nil
}

// meta is r without what filters never read.
func meta(r *loci.Record) *loci.Record {
	m := *r
	m.Content, m.SearchText, m.Data, m.Embedding = "", "", nil, nil
	return &m
}

// add indexes r (replacing the record with its id, if any).
func (sp *space) add(r *loci.Record, searchText string) {
	sp.remove(r.ID)
	slot := int32(len(sp.metas))
	sp.metas = append(sp.metas, meta(r))
	sp.slotOf[r.ID] = slot
	sp.live++

	tf := map[uint32]uint16{}
	var n int32
	for _, term := range strings.Fields(searchText) {
		id, ok := sp.termID[term]
		if !ok {
			id = uint32(len(sp.postings))
			sp.termID[term] = id
			sp.postings = append(sp.postings, nil)
			sp.df = append(sp.df, 0)
		}
		if tf[id] < math.MaxUint16 {
			tf[id]++
		}
		n++
	}
	terms := make([]uint32, 0, len(tf))
	for id, c := range tf {
		sp.postings[id] = append(sp.postings[id], posting{slot: slot, tf: c})
		sp.df[id]++
		terms = append(terms, id)
	}
	sp.slotTerms = append(sp.slotTerms, terms)
	sp.docLen = append(sp.docLen, n)
	sp.totalLen += int64(n)

	sp.hasVec = append(sp.hasVec, false)
	for d := range sp.cols {
		sp.cols[d] = append(sp.cols[d], 0)
	}
	if r.Embedding != nil {
		sp.setSlotVector(slot, r.EmbeddingModel, r.Embedding)
	}
}

// remove drops the record with id, if indexed.
func (sp *space) remove(id string) {
	slot, ok := sp.slotOf[id]
	if !ok {
		return
	}
	delete(sp.slotOf, id)
	sp.metas[slot] = nil
	sp.live--
	for _, t := range sp.slotTerms[slot] {
		sp.df[t]--
	}
	sp.slotTerms[slot] = nil
	sp.totalLen -= int64(sp.docLen[slot])
	sp.docLen[slot] = 0
	if sp.hasVec[slot] {
		for d := range sp.cols {
			sp.cols[d][slot] = 0
		}
		sp.hasVec[slot] = false
	}
	if dead := len(sp.metas) - sp.live; dead > 1024 && dead > sp.live {
		sp.compact()
	}
}

// setVector stores the embedding of record id.
func (sp *space) setVector(id, model string, vec []float32) {
	if slot, ok := sp.slotOf[id]; ok {
		sp.metas[slot].EmbeddingModel = model
		sp.setSlotVector(slot, model, vec)
	}
}

func (sp *space) setSlotVector(slot int32, model string, vec []float32) {
	if sp.model == "" || sp.cols == nil && sp.model == model {
		sp.model = model
		sp.cols = make([][]float32, len(vec))
		for d := range sp.cols {
			sp.cols[d] = make([]float32, len(sp.metas), max(len(sp.metas), 64))
		}
	}
	if model != sp.model || len(vec) != len(sp.cols) {
		// Another model's vector: it counts as pending here.
		if sp.hasVec[slot] {
			for d := range sp.cols {
				sp.cols[d][slot] = 0
			}
			sp.hasVec[slot] = false
		}
		return
	}
	for d, x := range vec {
		sp.cols[d][slot] = x
	}
	sp.hasVec[slot] = true
}

// compact rebuilds the slots without the dead ones.
func (sp *space) compact() {
	newSlot := make([]int32, len(sp.metas))
	var metas []*loci.Record
	var slotTerms [][]uint32
	var docLen []int32
	var hasVec []bool
	for s, m := range sp.metas {
		if m == nil {
			newSlot[s] = -1
			continue
		}
		newSlot[s] = int32(len(metas))
		sp.slotOf[m.ID] = int32(len(metas))
		metas = append(metas, m)
		slotTerms = append(slotTerms, sp.slotTerms[s])
		docLen = append(docLen, sp.docLen[s])
		hasVec = append(hasVec, sp.hasVec[s])
	}
	for t, ps := range sp.postings {
		out := ps[:0]
		for _, p := range ps {
			if ns := newSlot[p.slot]; ns >= 0 {
				out = append(out, posting{slot: ns, tf: p.tf})
			}
		}
		sp.postings[t] = out
	}
	for d, col := range sp.cols {
		out := make([]float32, len(metas))
		for s, x := range col {
			if ns := newSlot[s]; ns >= 0 {
				out[ns] = x
			}
		}
		sp.cols[d] = out
	}
	sp.metas, sp.slotTerms, sp.docLen, sp.hasVec = metas, slotTerms, docLen, hasVec
}

// scored is a slot and its score.
type scored struct {
	slot  int32
	score float64
}

// topK keeps the k best matches, checking the filter only on slots good
// enough to enter, so the filter is cheap yet applied before the cut.
type topK struct {
	k  int
	h  minHeap
	f  *loci.RecordFilter
	sp *space
}

func (t *topK) offer(slot int32, score float64) {
	c := scored{slot, score}
	if len(t.h) >= t.k && !better(c, t.h[0]) {
		return
	}
	m := t.sp.metas[slot]
	if m == nil || !t.f.Match(m) {
		return
	}
	if len(t.h) < t.k {
		heap.Push(&t.h, c)
		return
	}
	t.h[0] = c
	heap.Fix(&t.h, 0)
}

// sorted returns the kept slots, best first.
func (t *topK) sorted() []scored {
	out := make([]scored, len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(scored)
	}
	return out
}

// better orders by score, then by slot (older first) for stable ties.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.slot < b.slot
}

// minHeap keeps the worst kept slot on top.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// lexical returns the best limit slots matching f by BM25 against terms
// (a slot matches when it holds any term).
func (sp *space) lexical(f *loci.RecordFilter, terms []string, limit int) []scored {
	if sp.live == 0 || limit <= 0 {
		return nil
	}
	n := float64(sp.live)
	avg := float64(sp.totalLen) / n
	if avg <= 0 {
		avg = 1
	}
	acc := make([]float64, len(sp.metas))
	var touched []int32
	seen := map[uint32]bool{}
	for _, term := range terms {
		id, ok := sp.termID[term]
		if !ok || seen[id] || sp.df[id] <= 0 {
			continue
		}
		seen[id] = true
		df := float64(sp.df[id])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range sp.postings[id] {
			if sp.metas[p.slot] == nil {
				continue
			}
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(sp.docLen[p.slot])/avg)
			if acc[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			acc[p.slot] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	t := &topK{k: limit, f: f, sp: sp}
	for _, slot := range touched {
		t.offer(slot, acc[slot])
	}
	return t.sorted()
}

// vector returns the best limit slots matching f with a vector of model,
// by dot product with query (cosine, both being unit vectors).
func (sp *space) vector(f *loci.RecordFilter, model string, query []float32, limit int) []scored {
	if model != sp.model || len(query) != len(sp.cols) || limit <= 0 {
		return nil
	}
	scores := make([]float32, len(sp.metas))
	for d, q := range query {
		if q == 0 {
			continue
		}
		col := sp.cols[d][:len(scores)]
		for s, x := range col {
			scores[s] += q * x
		}
	}
	t := &topK{k: limit, f: f, sp: sp}
	for s, score := range scores {
		if sp.hasVec[s] {
			t.offer(int32(s), float64(score))
		}
	}
	return t.sorted()
}
