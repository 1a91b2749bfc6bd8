// Package index is loci's one in-memory ranking index, shared by every
// backend: for one scope (a workspace's records of an agent, a user, a
// session, a task or a combination, optionally of some kinds), the records'
// analyzed terms in an inverted index scored with BM25, their embeddings
// scored by cosine similarity, exact top-k under a filter applied before
// the cut, and the order of each conversation for context.
//
// The Cache (cache.go) holds the indexes of the scopes searched, loaded on
// demand through a loci.Tx, kept exact by the store's change feed
// (loci.Tx.Changes) and evicted least-recently-used under a memory budget,
// so what a process keeps is bounded by what is searched, never by what is
// stored (DESIGN §6). A scope too large for the budget is scored by one
// streaming pass over its records instead (stream.go). Backends only store
// records and report changes: ranking is written once, here.
package index

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loci-memory/loci"
)

// BM25 parameters, for every backend.
const (
	K1 = 1.2
	// B is lower than the usual 0.75: memories are short, and long ones
	// are not less relevant for being long (0.4 measured better on LoCoMo
	// turns than 0.75, 0.5 and 0.3 did).
	B = 0.4
)

// Doc is what the index keeps of a record for ranking: its filterable
// fields (Meta: the record without content, data, analyzed text and
// embedding; never modified once indexed) and its confidence on 0..1, if
// its kind has one.
type Doc struct {
	Meta    *loci.Record
	Conf    float64
	HasConf bool
}

// doc is one slot of an entry.
type doc struct {
	Doc
	length int32
	terms  []uint32 // distinct term ids
	hasVec bool
	group  *group // its conversation, when conversational
	bytes  int64  // what it costs, for the budget
}

type posting struct {
	slot int32
	tf   uint16
}

// entry is the index of one scope. Slots are append-only; a removed or
// replaced record leaves a dead slot, compacted away when they pile up.
type entry struct {
	mu     sync.RWMutex
	key    string
	filter loci.RecordFilter // the scope: workspace, scope fields, kinds
	cfg    *config

	docs   []*doc // by slot; nil when dead
	slotOf map[string]int32
	live   int

	termID   map[string]uint32
	postings [][]posting // by term id
	df       []int32     // live documents per term
	totalLen int64

	// Vectors of the cache's model, by dimension: cols[d][slot].
	dims    int
	cols    [][]float32
	pending int // live docs without a vector of the model

	groups map[groupKey]*group // conversations, by kind, scope and category
	strs   map[string]string   // interned scope strings

	bytes   int64 // estimated size, for the budget
	capHint int   // records expected (a load), for the first vector's columns

	// Cache bookkeeping, guarded by the cache's mutex.
	lastUse uint64
	cached  bool
}

// entryOverhead is what an empty entry costs, about.
const entryOverhead = 4096

func newEntry(cfg *config, key string, filter loci.RecordFilter) *entry {
	return &entry{
		cfg: cfg, key: key, filter: filter,
		slotOf: map[string]int32{}, termID: map[string]uint32{},
		groups: map[groupKey]*group{}, strs: map[string]string{},
		bytes: entryOverhead,
	}
}

// reserve makes room for n records, so a load does not grow slices one
// append at a time.
func (e *entry) reserve(n int) {
	e.docs = make([]*doc, 0, n)
	e.slotOf = make(map[string]int32, n)
	e.capHint = n
}

// intern returns s, shared with the entry's earlier copies of it.
func (e *entry) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := e.strs[s]; ok {
		return v
	}
	if len(e.strs) < 4096 {
		e.strs[s] = s
	}
	return s
}

// put indexes r, replacing the record with its id if any. r's SearchText
// (or Content when empty) gives the terms; its Embedding the vector.
func (e *entry) put(r *loci.Record) {
	e.remove(r.ID)
	m := *r
	m.Content, m.SearchText, m.Data, m.Embedding = "", "", nil, nil
	m.Workspace, m.AgentID, m.UserID = e.intern(m.Workspace), e.intern(m.AgentID), e.intern(m.UserID)
	m.SessionID, m.TaskID = e.intern(m.SessionID), e.intern(m.TaskID)
	m.Kind = loci.Kind(e.intern(string(m.Kind)))
	m.Category, m.EmbeddingModel = e.intern(m.Category), e.intern(m.EmbeddingModel)
	d := &doc{Doc: Doc{Meta: &m}}
	if e.cfg.confidence != nil {
		d.Conf, d.HasConf = e.cfg.confidence(r)
	}
	slot := int32(len(e.docs))
	e.docs = append(e.docs, d)
	e.slotOf[m.ID] = slot
	e.live++

	text := r.SearchText
	if text == "" {
		text = r.Content
	}
	counts := countTerms(text)
	d.terms = make([]uint32, 0, len(counts))
	for _, tc := range counts {
		id, ok := e.termID[tc.term]
		if !ok {
			id = uint32(len(e.postings))
			e.termID[strings.Clone(tc.term)] = id
			e.postings = append(e.postings, nil)
			e.df = append(e.df, 0)
			d.bytes += int64(len(tc.term)) + 64
		}
		e.postings[id] = append(e.postings[id], posting{slot: slot, tf: tc.tf})
		e.df[id]++
		d.terms = append(d.terms, id)
		d.length += int32(tc.n)
	}
	e.totalLen += int64(d.length)
	d.bytes += int64(len(d.terms))*(4+8+2) + 96 // terms, postings (with slack), the doc
	d.bytes += recordBytes(&m)

	for dim := range e.cols {
		e.cols[dim] = append(e.cols[dim], 0)
	}
	if e.cfg.model != "" && r.Embedding != nil && r.EmbeddingModel == e.cfg.model {
		e.setVector(slot, d, r.Embedding)
	}
	if !d.hasVec {
		e.pending++
	}
	if e.cfg.conversational != nil && e.cfg.conversational(&m) {
		e.join(slot, d)
	}
	e.bytes += d.bytes + int64(4*e.dims)
}

// recordBytes is about what a meta record costs in memory.
func recordBytes(m *loci.Record) int64 {
	n := int64(480 + len(m.ID) + len(m.Key) + 64) // the struct, its id, key, map entry
	for _, t := range m.Tags {
		n += int64(16 + len(t))
	}
	return n
}

// setVector stores vec in slot, if it has the entry's dimensions (the
// first vector stored sets them).
func (e *entry) setVector(slot int32, d *doc, vec []float32) {
	if e.cols == nil {
		e.dims = len(vec)
		e.cols = make([][]float32, len(vec))
		for dim := range e.cols {
			e.cols[dim] = make([]float32, len(e.docs), max(len(e.docs), e.capHint, 16))
		}
		e.bytes += int64(4 * e.dims * (len(e.docs) - 1))
	}
	if len(vec) != e.dims {
		return // another shape: it counts as pending
	}
	for dim, x := range vec {
		e.cols[dim][slot] = x
	}
	d.hasVec = true
}

// remove drops the record with id, if indexed.
func (e *entry) remove(id string) {
	slot, ok := e.slotOf[id]
	if !ok {
		return
	}
	d := e.docs[slot]
	delete(e.slotOf, id)
	e.docs[slot] = nil
	e.live--
	for _, t := range d.terms {
		e.df[t]--
	}
	e.totalLen -= int64(d.length)
	if d.hasVec {
		for dim := range e.cols {
			e.cols[dim][slot] = 0
		}
	} else {
		e.pending--
	}
	if d.group != nil {
		d.group.leave(slot)
		if len(d.group.slots) == 0 {
			delete(e.groups, d.group.key)
		}
	}
	e.bytes -= d.bytes
	if dead := len(e.docs) - e.live; dead > 1024 && dead > e.live {
		e.compact()
	}
}

// compact rebuilds the slots without the dead ones.
func (e *entry) compact() {
	newSlot := make([]int32, len(e.docs))
	docs := make([]*doc, 0, e.live)
	for s, d := range e.docs {
		if d == nil {
			newSlot[s] = -1
			continue
		}
		newSlot[s] = int32(len(docs))
		e.slotOf[d.Meta.ID] = int32(len(docs))
		docs = append(docs, d)
	}
	for t, ps := range e.postings {
		out := ps[:0]
		for _, p := range ps {
			if ns := newSlot[p.slot]; ns >= 0 {
				out = append(out, posting{slot: ns, tf: p.tf})
			}
		}
		e.postings[t] = slices.Clip(out)
	}
	for dim, col := range e.cols {
		out := make([]float32, len(docs))
		for s, x := range col {
			if ns := newSlot[s]; ns >= 0 {
				out[ns] = x
			}
		}
		e.cols[dim] = out
	}
	for _, g := range e.groups {
		for i, s := range g.slots {
			g.slots[i] = newSlot[s]
		}
	}
	e.bytes -= int64(4 * e.dims * (len(e.docs) - len(docs)))
	e.docs = docs
}

// termCount is a term of a text and how often it occurs.
type termCount struct {
	term string
	tf   uint16 // capped
	n    int    // uncapped
}

// countTerms splits analyzed text into its distinct terms with their
// frequencies.
func countTerms(text string) []termCount {
	fields := strings.Fields(text)
	out := make([]termCount, 0, len(fields))
	at := make(map[string]int, len(fields))
	for _, t := range fields {
		i, ok := at[t]
		if !ok {
			i = len(out)
			at[t] = i
			out = append(out, termCount{term: t})
		}
		if out[i].tf < math.MaxUint16 {
			out[i].tf++
		}
		out[i].n++
	}
	return out
}

// Stats are the corpus statistics BM25 reads: the number of records, their
// total length and each query term's document frequency. The statistics
// of several disjoint scopes add up to those of their union.
type Stats struct {
	N        int
	TotalLen int64
	DF       map[string]int
}

func (s *Stats) add(o Stats) {
	s.N += o.N
	s.TotalLen += o.TotalLen
	if s.DF == nil {
		s.DF = map[string]int{}
	}
	for t, n := range o.DF {
		s.DF[t] += n
	}
}

// idf is BM25's inverse document frequency of a term held by df records.
func (s *Stats) idf(df int) float64 {
	n, d := float64(s.N), float64(df)
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

func (s *Stats) avgLen() float64 {
	if s.N == 0 || s.TotalLen <= 0 {
		return 1
	}
	return float64(s.TotalLen) / float64(s.N)
}

// bm25 is one term's contribution for a record of length length holding
// it tf times.
func bm25(idf float64, tf int, length int32, avg float64) float64 {
	x := float64(tf)
	return idf * x * (K1 + 1) / (x + K1*(1-B+B*float64(length)/avg))
}

// stats returns the entry's statistics for terms.
func (e *entry) stats(terms []string) Stats {
	st := Stats{N: e.live, TotalLen: e.totalLen, DF: map[string]int{}}
	for _, t := range terms {
		if id, ok := e.termID[t]; ok {
			st.DF[t] = int(e.df[id])
		}
	}
	return st
}

// Hit is a ranked record: its doc and a signal's score.
type Hit struct {
	Doc   *Doc
	Score float64
}

// scratch buffers for lexical scoring, reused across searches.
var accPool = sync.Pool{New: func() any { return new([]float64) }}

// lexical returns the best limit docs matching f by BM25 against terms
// (distinct), with the corpus statistics st; a doc matches when it holds
// any term.
func (e *entry) lexical(f *loci.RecordFilter, terms []string, st Stats, limit int) []Hit {
	if e.live == 0 || limit <= 0 || st.N == 0 {
		return nil
	}
	avg := st.avgLen()
	bufp := accPool.Get().(*[]float64)
	defer accPool.Put(bufp)
	acc := *bufp
	if cap(acc) < len(e.docs) {
		acc = make([]float64, len(e.docs))
		*bufp = acc
	}
	acc = acc[:len(e.docs)]
	var touched []int32
	for _, t := range terms {
		id, ok := e.termID[t]
		if !ok || e.df[id] <= 0 {
			continue
		}
		idf := st.idf(st.DF[t])
		for _, p := range e.postings[id] {
			d := e.docs[p.slot]
			if d == nil {
				continue
			}
			if acc[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			acc[p.slot] += bm25(idf, int(p.tf), d.length, avg)
		}
	}
	top := newTopK(limit)
	for _, s := range touched {
		score := acc[s]
		acc[s] = 0
		if !top.wantsScore(score) {
			continue
		}
		d := e.docs[s]
		if top.wants(score, d.Meta.ID) && f.Match(d.Meta) {
			top.push(&d.Doc, score)
		}
	}
	return top.sorted()
}

// vecPool holds score buffers for vector search.
var vecPool = sync.Pool{New: func() any { return new([]float32) }}

// vector returns the best limit docs matching f that hold a vector, by
// dot product with q (cosine: both are unit vectors).
func (e *entry) vector(f *loci.RecordFilter, q []float32, limit int) []Hit {
	if len(q) != e.dims || e.dims == 0 || limit <= 0 {
		return nil
	}
	bufp := vecPool.Get().(*[]float32)
	defer vecPool.Put(bufp)
	scores := *bufp
	if cap(scores) < len(e.docs) {
		scores = make([]float32, len(e.docs))
		*bufp = scores
	}
	scores = scores[:len(e.docs)]
	clear(scores)
	e.dot(scores, q)
	top := newTopK(limit)
	for s, score := range scores {
		if !top.wantsScore(float64(score)) {
			continue
		}
		d := e.docs[s]
		if d == nil || !d.hasVec {
			continue
		}
		if top.wants(float64(score), d.Meta.ID) && f.Match(d.Meta) {
			top.push(&d.Doc, float64(score))
		}
	}
	return top.sorted()
}

// dot adds each slot's dot product with q to scores. The query's non-zero
// dimensions are taken four at a time, each slot's sum kept in a register
// across them; the additions happen in the order of the dimensions, one at
// a time, so the sums are exactly those of a plain loop (the streaming
// pass's).
func (e *entry) dot(scores []float32, q []float32) {
	var dims []int
	for d, x := range q {
		if x != 0 {
			dims = append(dims, d)
		}
	}
	n := len(scores)
	for len(dims) >= 4 {
		x0, x1, x2, x3 := q[dims[0]], q[dims[1]], q[dims[2]], q[dims[3]]
		c0, c1, c2, c3 := e.cols[dims[0]][:n], e.cols[dims[1]][:n], e.cols[dims[2]][:n], e.cols[dims[3]][:n]
		for s := range scores {
			v := scores[s]
			v += x0 * c0[s]
			v += x1 * c1[s]
			v += x2 * c2[s]
			v += x3 * c3[s]
			scores[s] = v
		}
		dims = dims[4:]
	}
	for _, d := range dims {
		x, col := q[d], e.cols[d][:n]
		for s, y := range col {
			scores[s] += x * y
		}
	}
}

// vectorOf returns a copy of the vector of the record id, or nil.
func (e *entry) vectorOf(id string) []float32 {
	slot, ok := e.slotOf[id]
	if !ok || !e.docs[slot].hasVec {
		return nil
	}
	v := make([]float32, e.dims)
	for dim := range v {
		v[dim] = e.cols[dim][slot]
	}
	return v
}

// countPending counts the live docs matching f without a vector.
func (e *entry) countPending(f *loci.RecordFilter) int {
	if e.pending == 0 {
		return 0
	}
	n := 0
	for _, d := range e.docs {
		if d != nil && !d.hasVec && f.Match(d.Meta) {
			n++
		}
	}
	return n
}

// groupKey names a conversation: records of one kind, scope and category.
type groupKey struct {
	kind                     loci.Kind
	agent, user, session, tk string
	category                 string
}

func groupKeyOf(m *loci.Record) groupKey {
	return groupKey{m.Kind, m.AgentID, m.UserID, m.SessionID, m.TaskID, m.Category}
}

// group is one conversation's slots in (created_at, id) order.
type group struct {
	key   groupKey
	e     *entry
	slots []int32
}

func (g *group) meta(i int) *loci.Record { return g.e.docs[g.slots[i]].Meta }

// less orders records as conversations are read: by creation time, then id
// (ids are time-ordered, so a batch written at one time keeps its order).
func less(a, b *loci.Record) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

// join adds a conversational doc to its group, in order (usually at the
// end: messages arrive in order).
func (e *entry) join(slot int32, d *doc) {
	k := groupKeyOf(d.Meta)
	g := e.groups[k]
	if g == nil {
		g = &group{key: k, e: e}
		e.groups[k] = g
	}
	i := len(g.slots)
	for i > 0 && less(d.Meta, g.meta(i-1)) {
		i--
	}
	g.slots = slices.Insert(g.slots, i, slot)
	d.group = g
	d.bytes += 4
}

func (g *group) leave(slot int32) {
	if i := slices.Index(g.slots, slot); i >= 0 {
		g.slots = slices.Delete(g.slots, i, i+1)
	}
}

// neighbours returns the docs just before and just after the conversational
// doc id in its conversation, among those f selects, within window of its
// time.
func (e *entry) neighbours(id string, f loci.RecordFilter, window time.Duration) []*Doc {
	slot, ok := e.slotOf[id]
	if !ok || e.docs[slot].group == nil {
		return nil
	}
	g := e.docs[slot].group
	i := slices.Index(g.slots, slot)
	metas := make([]*loci.Record, len(g.slots))
	for j := range g.slots {
		metas[j] = g.meta(j)
	}
	var out []*Doc
	for _, j := range pickNeighbours(metas, i, conversationFilter(f, e.docs[slot].Meta), window) {
		out = append(out, &e.docs[g.slots[j]].Doc)
	}
	return out
}

// conversationFilter is f narrowed to r's conversation: its kind, exact
// scope and category.
func conversationFilter(f loci.RecordFilter, r *loci.Record) loci.RecordFilter {
	f.Kinds = []loci.Kind{r.Kind}
	f.AgentID, f.UserID, f.SessionID, f.TaskID = &r.AgentID, &r.UserID, &r.SessionID, &r.TaskID
	f.OrGlobalUser = false
	f.Category = &r.Category
	return f
}

// pickNeighbours returns the positions, in conv (one conversation in
// (created_at, id) order), of the record before and the record after
// position i that f selects, each only if written within window of
// conv[i] (strictly).
func pickNeighbours(conv []*loci.Record, i int, f loci.RecordFilter, window time.Duration) []int {
	t := conv[i].CreatedAt
	var out []int
	for j := i - 1; j >= 0; j-- {
		if !conv[j].CreatedAt.After(t.Add(-window)) {
			break
		}
		if f.Match(conv[j]) {
			out = append(out, j)
			break
		}
	}
	for j := i + 1; j < len(conv); j++ {
		if !conv[j].CreatedAt.Before(t.Add(window)) {
			break
		}
		if f.Match(conv[j]) {
			out = append(out, j)
			break
		}
	}
	return out
}
