// Package index is loci's one in-memory ranking index, shared by every
// backend: for one scope (a workspace's records of an agent, a user, a
// session, a task or a combination, optionally of some kinds), the records'
// analyzed terms in an inverted index scored with BM25, their embeddings,
// held compactly and scored by cosine similarity (the best candidates
// rescored exactly from the store: vectors.go), exact top-k under a filter
// applied before the cut, and the order of each conversation for context.
//
// The Cache (cache.go) holds the indexes of the scopes searched, loaded on
// demand through a loci.Tx, kept exact by the store's change feed
// (loci.Tx.Changes) and evicted least-recently-used under a memory budget, so
// what a process keeps is bounded by what is searched, never by what is
// stored. A scope too large for the budget is scored by one streaming pass
// over its records instead (stream.go). Backends only store records and report
// changes: ranking is written once, here.
package index

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

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

// Doc is a ranked record as the index returns it: its filterable fields
// (Meta: the record without content, data, analyzed text, embedding and
// access counts), its confidence on 0..1, if its kind has one,
// whether it asks a question (see WithQuestion) and who said it (see
// WithSpeaker).
type Doc struct {
	Meta     *loci.Record
	Conf     float64
	HasConf  bool
	Question bool
	Speaker  string
}

// The strings of a doc that are few per scope (interned per entry).
const (
	sWorkspace = iota
	sKind
	sAgent
	sUser
	sSession
	sTask
	sCategory
	sActionType
	sOutcome
	sReview
	nStrs
)

// noTime stands for a zero time.
const noTime = math.MinInt64

func micros(t time.Time) int64 {
	if t.IsZero() {
		return noTime
	}
	return t.UnixMicro()
}

func fromMicros(us int64) time.Time {
	if us == noTime {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// doc is one slot of an entry: what filters, ranking and context read of
// a record, compactly (104 bytes beside its id, terms and vector; what few
// records have is in its docExtra).
type doc struct {
	id               string
	extra            *docExtra // nil when the record has none of its fields
	group            *group    // its conversation, when conversational
	created, updated int64     // Unix µs, noTime for zero
	confidence       float64   // the record's confidence column
	conf             float64   // on 0..1, when hasConf
	textHash         uint64    // of the analyzed text: whether it changed
	strs             uint32    // its interned strings: entry.tuples[strs]
	speaker          uint32    // interned in the entry
	length           int32
	tOff, tLen       int32 // its distinct terms: entry.dterms[tOff:tOff+tLen]
	bytes            int32 // what it costs, for the budget
	hasConf, hasVec  bool
	question         bool
}

// docExtra is what a doc keeps of the fields most records leave empty
// (a key, tags, metadata, an expiry, a validity), in a separate object so
// that a doc without them does not carry them.
type docExtra struct {
	key                       string
	tags                      []string
	metadata                  []byte // the record's metadata, for filters
	expires, validAt, invalid int64  // Unix µs, noTime for zero

	// meta is metadata decoded, so that filters do not decode its JSON
	// for each doc (list.go).
	meta loci.MetadataFields
}

// noExtra is the docExtra of a doc without one (read only).
var noExtra = docExtra{expires: noTime, validAt: noTime, invalid: noTime}

// x returns d's docExtra, noExtra when it has none; never write through it.
func (d *doc) x() *docExtra {
	if d.extra != nil {
		return d.extra
	}
	return &noExtra
}

// posting is a doc holding a term, in 4 bytes: its slot (the high 24
// bits) and how often it holds the term (the low 8, at most maxTF).
type posting uint32

func mkPosting(slot int32, tf uint16) posting { return posting(uint32(slot)<<8 | uint32(tf)) }
func (p posting) slot() int32                 { return int32(p >> 8) }
func (p posting) tf() uint16                  { return uint16(p & 0xff) }

// termTF is a term of a doc and how often the doc holds it, in 4 bytes:
// the term's id (the high 24 bits) and the count (the low 8, at most
// maxTF).
type termTF uint32

func mkTermTF(term uint32, tf uint16) termTF { return termTF(term<<8 | uint32(tf)) }
func (t termTF) term() uint32                { return uint32(t >> 8) }
func (t termTF) tf() uint16                  { return uint16(t & 0xff) }

// maxTF is the most times a doc is counted to hold a term (BM25 has long
// saturated); maxSlots and maxTerms bound an entry's slots and terms, so
// that postings and doc terms fit 4 bytes. An entry that would outgrow
// them is too big (entry.tooBig): the scope is searched by streaming, as
// one over the budget (no budget holds so many: each slot costs over 150
// bytes, each term over 40).
const (
	maxTF    = 255
	maxSlots = 1 << 24
	maxTerms = 1 << 24
)

// invertAt is how many live docs make an entry keep postings: a smaller
// one is scored by reading its docs' terms, which costs about what
// reading postings would and keeps no heap object per term.
const invertAt = 1024

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
	// By slot, beside docs so that scoring reads no doc: each doc's
	// length (-1 when dead), and whether it is live with a vector.
	lens  []int32
	vecOK []bool

	vocab    vocab
	dterms   []termTF    // docs' terms, each doc's a range of it
	inverted bool        // whether postings are kept (invertAt)
	postings [][]posting // by term id, when inverted
	df       []int32     // live documents per term
	totalLen int64

	// Vectors of the cache's model, compactly (vectors.go), and their
	// length: the first vector's.
	dims    int
	vecs    *vecs
	pending int // live docs without a vector of the model

	groups map[groupKey]*group // conversations, by kind, scope and category
	// By slot, the ordinal of each doc's conversation (-1: none); the next
	// ordinal; and the conversations' total length, for scoring each
	// conversation as one document (convScores).
	gids      []int32
	glens     []int64 // by ordinal
	nextGroup int32
	groupLen  int64
	strtab    []string // interned strings, by index
	strIdx    map[string]uint32
	// tuples are docs' interned strings (by the s… constants), each
	// distinct tuple once: the docs of a scope share a few.
	tuples  [][nStrs]uint32
	tupleOf map[[nStrs]uint32]uint32
	// vals interns docs' metadata values (list.go), boxed once.
	vals map[any]any

	bytes   int64 // estimated size, for the budget
	capHint int   // records expected (a load), for the first vector's columns
	// loading is set during a load of at least invertAt records
	// (reserve to loaded): postings are built when it ends, and until
	// then each doc counts what its postings will cost.
	loading bool

	// tooBig is set when a put would have outgrown maxSlots or maxTerms
	// (the record was not indexed): the entry must not be searched.
	tooBig bool

	// Cache bookkeeping, guarded by the cache's mutex.
	cached bool
}

// entryOverhead is what an empty entry costs, about.
const entryOverhead = 4096

func newEntry(cfg *config, key string, filter loci.RecordFilter) *entry {
	return &entry{
		cfg: cfg, key: key, filter: filter,
		slotOf: map[string]int32{}, vocab: newVocab(),
		groups: map[groupKey]*group{}, strtab: []string{""}, strIdx: map[string]uint32{"": 0},
		tupleOf: map[[nStrs]uint32]uint32{},
		bytes:   entryOverhead,
	}
}

// reserve makes room for n records, so a load does not grow slices one
// append at a time.
func (e *entry) reserve(n int) {
	e.docs = make([]*doc, 0, n)
	e.lens = make([]int32, 0, n)
	e.vecOK = make([]bool, 0, n)
	e.slotOf = make(map[string]int32, n)
	e.capHint = n
	e.loading = n >= invertAt
}

// loaded ends a load (reserve, then a put of each record): the postings,
// put off while the load read the records, are built at once at their
// exact sizes (invert), instead of grown by appends as records came.
func (e *entry) loaded() {
	if e.loading && !e.inverted && e.live >= invertAt {
		e.invert()
	}
	e.loading = false
}

// intern returns the index of s in the entry's string table.
func (e *entry) intern(s string) uint32 {
	if i, ok := e.strIdx[s]; ok {
		return i
	}
	i := uint32(len(e.strtab))
	s = strings.Clone(s)
	e.strtab = append(e.strtab, s)
	e.strIdx[s] = i
	e.bytes += int64(len(s)) + 48
	return i
}

// tuple returns the index of strs in the entry's tuple table.
func (e *entry) tuple(strs [nStrs]uint32) uint32 {
	if i, ok := e.tupleOf[strs]; ok {
		return i
	}
	i := uint32(len(e.tuples))
	e.tuples = append(e.tuples, strs)
	e.tupleOf[strs] = i
	e.bytes += 2*nStrs*4 + 16
	return i
}

// str returns d's interned string at i (sKind, sAgent, …) as an index of
// the entry's string table.
func (e *entry) str(d *doc, i int) uint32 { return e.tuples[d.strs][i] }

// record returns what the index keeps of d as a record (for filters, and
// for the docs it returns).
func (e *entry) record(d *doc) loci.Record {
	t, s, x := e.strtab, &e.tuples[d.strs], d.x()
	return loci.Record{
		ID: d.id, Workspace: t[s[sWorkspace]], Kind: loci.Kind(t[s[sKind]]),
		Scope: loci.Scope{AgentID: t[s[sAgent]], UserID: t[s[sUser]], SessionID: t[s[sSession]], TaskID: t[s[sTask]]},
		Key:   x.key, Tags: x.tags, Category: t[s[sCategory]], ActionType: t[s[sActionType]], Outcome: t[s[sOutcome]],
		Confidence: d.confidence, CreatedAt: fromMicros(d.created), UpdatedAt: fromMicros(d.updated), ExpiresAt: fromMicros(x.expires),
		ValidAt: fromMicros(x.validAt), InvalidAt: fromMicros(x.invalid), Review: t[s[sReview]],
		Metadata: x.metadata,
	}
}

// match reports whether f selects d.
func (e *entry) match(f *loci.RecordFilter, d *doc) bool {
	r := e.record(d)
	return f.MatchFields(&r, d.x().meta)
}

// docOf returns d as a Doc.
func (e *entry) docOf(d *doc, ar *arena) *Doc {
	docs, recs := ar.take(1)
	e.fillDoc(&docs[0], &recs[0], d)
	return &docs[0]
}

// fillDoc makes out, with its record in r, the Doc of d.
func (e *entry) fillDoc(out *Doc, r *loci.Record, d *doc) {
	*r = e.record(d)
	*out = Doc{Meta: r, Conf: d.conf, HasConf: d.hasConf, Question: d.question, Speaker: e.strtab[d.speaker]}
}

// put indexes r, replacing the record with its id if any. r's SearchText
// (or Content when empty) gives the terms; its Embedding the vector.
func (e *entry) put(r *loci.Record) {
	text := r.SearchText
	if text == "" {
		text = r.Content
	}
	d := e.newDoc(r, text)
	if e.update(d, r) {
		return
	}
	e.remove(r.ID)
	if len(e.docs) >= maxSlots || e.vocab.size()+strings.Count(text, " ")+1 >= maxTerms {
		e.tooBig = true
		return
	}
	slot := int32(len(e.docs))
	e.docs = append(e.docs, d)
	e.vecOK = append(e.vecOK, false)
	e.gids = append(e.gids, -1)
	e.slotOf[d.id] = slot
	e.live++

	e.addTerms(slot, d, text)
	e.growVecs()
	if e.cfg.model != "" && r.Embedding != nil && r.EmbeddingModel == e.cfg.model {
		e.setVector(slot, d, r.Embedding)
	}
	if !d.hasVec {
		e.pending++
	}
	if e.cfg.conversational != nil && e.cfg.conversational(r) {
		e.join(slot, d)
	}
	e.bytes += int64(d.bytes) + e.vecBytes()
	if !e.inverted && !e.loading && e.live >= invertAt {
		e.invert()
	}
}

// newDoc returns what the entry keeps of r, whose analyzed text is text,
// its strings interned.
func (e *entry) newDoc(r *loci.Record, text string) *doc {
	d := &doc{
		id: strings.Clone(r.ID), confidence: r.Confidence, textHash: hashText(text),
		created: micros(r.CreatedAt), updated: micros(r.UpdatedAt),
	}
	x := docExtra{key: r.Key, expires: micros(r.ExpiresAt), validAt: micros(r.ValidAt), invalid: micros(r.InvalidAt)}
	if len(r.Tags) > 0 {
		x.tags = slices.Clone(r.Tags)
	}
	if len(r.Metadata) > 0 {
		x.metadata = slices.Clone(r.Metadata)
	}
	if x.key != "" || x.tags != nil || x.metadata != nil || x.expires != noTime || x.validAt != noTime || x.invalid != noTime {
		d.extra = new(docExtra) // x itself stays on the stack: most docs have none
		*d.extra = x
		d.bytes += 112 // the docExtra
		if x.metadata != nil {
			e.decodeMeta(d)
		}
	}
	var strs [nStrs]uint32
	for i, v := range [nStrs]string{r.Workspace, string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Category, r.ActionType, r.Outcome, r.Review} {
		strs[i] = e.intern(v)
	}
	d.strs = e.tuple(strs)
	if e.cfg.confidence != nil {
		d.conf, d.hasConf = e.cfg.confidence(r)
	}
	d.question = e.cfg.question != nil && e.cfg.question(r)
	if e.cfg.speaker != nil {
		d.speaker = e.intern(e.cfg.speaker(r))
	}
	return d
}

// addTerms indexes text, the analyzed text of d in slot: its terms (and
// postings, once inverted), document frequencies and length, and adds
// what they cost to d.bytes. Its words are counted by their vocabulary
// ids, in a scratch slice by id (no map per doc).
func (e *entry) addTerms(slot int32, d *doc, text string) {
	sp := seenPool.Get().(*[]int32)
	seen := *sp // by term id: 1 + where the doc's term is in e.dterms, 0 when not yet seen
	e.growTerms(strings.Count(text, " ") + 1)
	first := len(e.dterms)
	d.tOff = int32(first)
	for i := 0; ; {
		var t string
		if t, i = nextField(text, i); t == "" {
			break
		}
		if e.cfg.fold != nil {
			t = e.cfg.fold(t)
		}
		d.length++
		id, added := e.vocab.add(t)
		if added {
			e.df = append(e.df, 0)
			// The term's text, table slots, end and df (and postings'
			// slice header): measured.
			d.bytes += int32(len(t)) + 16
			if e.inverted {
				e.postings = append(e.postings, nil)
				d.bytes += 24
			} else if e.loading {
				e.bytes += 24 // as invert counts it: the entry's, not the doc's
			}
		}
		if int(id) >= len(seen) {
			seen = append(seen, make([]int32, int(id)+1-len(seen))...)
		}
		if at := seen[id]; at > 0 {
			if tt := e.dterms[at-1]; tt.tf() < maxTF {
				e.dterms[at-1] = tt + 1
			}
			continue
		}
		e.dterms = append(e.dterms, mkTermTF(id, 1))
		seen[id] = int32(len(e.dterms))
	}
	terms := e.dterms[first:]
	d.tLen = int32(len(terms))
	for _, tt := range terms {
		id := tt.term()
		seen[id] = 0
		e.df[id]++
		if e.inverted {
			e.postings[id] = append(e.postings[id], mkPosting(slot, tt.tf()))
		}
	}
	*sp = seen
	seenPool.Put(sp)
	e.totalLen += int64(d.length)
	e.lens = append(e.lens, d.length)
	// The doc, its id (and map entry), key and tags; its terms (with
	// growth slack) and postings.
	x := d.x()
	d.bytes += int32(112 + 2*len(d.id) + len(x.key) + len(x.metadata) + 64 + 5*len(terms))
	if e.inverted || e.loading {
		d.bytes += int32(6 * len(terms))
	}
	for _, t := range x.tags {
		d.bytes += int32(16 + len(t))
	}
}

// seenPool holds addTerms' scratch slices, zeroed.
var seenPool = sync.Pool{New: func() any { return new([]int32) }}

// nextField returns the field (a run of non-space characters, as
// strings.Fields splits) of text at or after i, and where it ends; "" when
// none is left.
func nextField(text string, i int) (string, int) {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] == 0 {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	j := i
	for j < len(text) {
		c := text[j]
		if c < utf8.RuneSelf {
			if asciiSpace[c] != 0 {
				break
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += n
	}
	return text[i:j], j
}

// asciiSpace is strings.Fields' ASCII white space.
var asciiSpace = [256]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// growTerms makes room for k more doc terms. During a load (capHint
// records expected), a full slice grows once to what the records so far
// predict for all of them, an eighth more, instead of by a quarter at a
// time: fewer copies, each the whole slice twice over while it is made.
func (e *entry) growTerms(k int) {
	n := len(e.dterms)
	if n+k <= cap(e.dterms) || e.live < 64 || e.live >= e.capHint {
		return
	}
	want := n*e.capHint/e.live*9/8 + k
	if want <= n+k {
		return
	}
	e.dterms = slices.Grow(e.dterms, want-n)
}

// invert builds the postings of the live docs, in slot order: each term's
// at its exact length (its document frequency), all in one array, a
// term's slice capped so that a later append moves only that term's out.
// A load's docs have counted what their postings cost (loading); others
// count it here.
func (e *entry) invert() {
	counted := e.loading
	e.inverted = true
	total := 0
	for _, n := range e.df {
		total += int(n)
	}
	all := make([]posting, total)
	e.postings = make([][]posting, e.vocab.size())
	off := 0
	for t, n := range e.df {
		e.postings[t] = all[off : off : off+int(n)]
		off += int(n)
	}
	if !counted {
		e.bytes += int64(24 * len(e.postings))
	}
	for slot, d := range e.docs {
		if d == nil {
			continue
		}
		for _, t := range e.terms(d) {
			e.postings[t.term()] = append(e.postings[t.term()], mkPosting(int32(slot), t.tf()))
		}
		if !counted {
			d.bytes += 6 * d.tLen
			e.bytes += int64(6 * d.tLen)
		}
	}
}

// terms returns d's distinct terms.
func (e *entry) terms(d *doc) []termTF { return e.dterms[d.tOff : d.tOff+d.tLen] }

// update replaces, in its slot, the doc of a record whose analyzed text and
// place in a conversation are unchanged (an embedding arrived, a
// confidence or tag changed): the postings and the slot stay, the fields
// and the vector change. It reports false when the record must be indexed
// anew.
func (e *entry) update(d *doc, r *loci.Record) bool {
	slot, ok := e.slotOf[d.id]
	if !ok {
		return false
	}
	old := e.docs[slot]
	if old.textHash != d.textHash || old.created != d.created || e.groupKeyOf(old) != e.groupKeyOf(d) {
		return false
	}
	d.length, d.tOff, d.tLen, d.group = old.length, old.tOff, old.tLen, old.group
	d.bytes = old.bytes - int32(len(old.x().key)) + int32(len(d.x().key))
	if old.extra != nil {
		d.bytes -= 112
	}
	if d.extra != nil {
		d.bytes += 112
	}
	for _, t := range old.x().tags {
		d.bytes -= int32(16 + len(t))
	}
	for _, t := range d.x().tags {
		d.bytes += int32(16 + len(t))
	}
	if old.hasVec {
		e.vecs.reset(int(slot))
		e.vecOK[slot] = false
		e.pending++
	}
	if e.cfg.model != "" && r.Embedding != nil && r.EmbeddingModel == e.cfg.model {
		e.setVector(slot, d, r.Embedding)
	}
	if d.hasVec {
		e.pending--
	}
	e.docs[slot] = d
	e.bytes += int64(d.bytes - old.bytes)
	return true
}

// hashText is FNV-1a of an analyzed text: whether it changed.
func hashText(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
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
	e.lens[slot], e.vecOK[slot] = -1, false
	e.live--
	for _, t := range e.terms(d) {
		e.df[t.term()]--
	}
	e.totalLen -= int64(d.length)
	if d.hasVec {
		e.vecs.reset(int(slot))
	} else {
		e.pending--
	}
	if d.group != nil {
		d.group.leave(slot)
		e.glens[d.group.id] -= int64(d.length)
		e.groupLen -= int64(d.length)
		e.gids[slot] = -1
		if len(d.group.slots) == 0 {
			delete(e.groups, d.group.key)
		}
	}
	e.bytes -= int64(d.bytes)
	if dead := len(e.docs) - e.live; dead > 1024 && dead > e.live {
		e.compact()
	}
}

// compact rebuilds the slots without the dead ones.
func (e *entry) compact() {
	newSlot := make([]int32, len(e.docs))
	docs := make([]*doc, 0, e.live)
	lens, vecOK, gids := make([]int32, 0, e.live), make([]bool, 0, e.live), make([]int32, 0, e.live)
	var dterms []termTF
	for s, d := range e.docs {
		if d == nil {
			newSlot[s] = -1
			continue
		}
		newSlot[s] = int32(len(docs))
		e.slotOf[d.id] = int32(len(docs))
		docs = append(docs, d)
		lens, vecOK, gids = append(lens, e.lens[s]), append(vecOK, e.vecOK[s]), append(gids, e.gids[s])
		off := int32(len(dterms))
		dterms = append(dterms, e.terms(d)...)
		d.tOff = off
	}
	e.lens, e.vecOK, e.gids, e.dterms = lens, vecOK, gids, dterms
	for t, ps := range e.postings {
		out := ps[:0]
		for _, p := range ps {
			if ns := newSlot[p.slot()]; ns >= 0 {
				out = append(out, mkPosting(ns, p.tf()))
			}
		}
		e.postings[t] = slices.Clip(out)
	}
	if e.vecs != nil {
		e.vecs.compact(newSlot, len(docs))
	}
	// Conversations are numbered again, densely.
	glens := make([]int64, 0, len(e.groups))
	renum := make(map[int32]int32, len(e.groups))
	for _, g := range e.groups {
		for i, s := range g.slots {
			g.slots[i] = newSlot[s]
		}
		renum[g.id] = int32(len(glens))
		glens = append(glens, e.glens[g.id])
		g.id = renum[g.id]
	}
	for i, g := range e.gids {
		if g >= 0 {
			e.gids[i] = renum[g]
		}
	}
	e.glens, e.nextGroup = glens, int32(len(glens))
	e.bytes -= e.vecBytes() * int64(len(e.docs)-len(docs))
	e.docs = docs
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
func (s *Stats) idf(df int) float64 { return idf(s.N, df) }

// idf is BM25's inverse document frequency of a term held by df of n
// documents.
func idf(n, df int) float64 {
	N, d := float64(n), float64(df)
	return math.Log(1 + (N-d+0.5)/(d+0.5))
}

func (s *Stats) avgLen() float64 {
	if s.N == 0 || s.TotalLen <= 0 {
		return 1
	}
	return float64(s.TotalLen) / float64(s.N)
}

// scorer computes BM25 for one search's statistics. Its length
// normalisation K1·(1−B+B·len/avg) is a + b·len, so a term's contribution
// costs one division.
type scorer struct{ a, b float64 }

func newScorer(st *Stats) scorer {
	return scorer{a: K1 * (1 - B), b: K1 * B / st.avgLen()}
}

// weight is what a term's contributions are scaled by: its IDF, times
// K1+1.
func weight(idf float64) float64 { return idf * (K1 + 1) }

// bm25 is one term's contribution, with weight w, for a record of length
// length holding it tf times.
func (s scorer) bm25(w, tf float64, length int32) float64 {
	return w * tf / (tf + (s.a + s.b*float64(length)))
}

// stats returns the entry's statistics for terms.
func (e *entry) stats(terms []string) Stats {
	st := Stats{N: e.live, TotalLen: e.totalLen, DF: map[string]int{}}
	for _, t := range terms {
		if id, ok := e.vocab.lookup(t); ok {
			st.DF[t] = int(e.df[id])
		}
	}
	return st
}

// Hit is a ranked record: its doc and a signal's score.
type Hit struct {
	Doc   *Doc
	Score float64
	// Conversation is the lexical score (BM25) of the hit's conversation
	// as one document, among its scope's conversations; 0 for a hit
	// that is not conversational.
	Conversation float64
}

// scratch buffers for lexical scoring, reused across searches.
type lexScratch struct {
	acc     []float64
	touched []int32
	conv    convScratch
}

var lexPool = sync.Pool{New: func() any { return new(lexScratch) }}

// lexical returns the best limit docs that m selects by BM25 against
// terms (distinct), with the corpus statistics st; a doc matches when it
// holds any term. When during is set, it also returns the best limit of
// those written (created) at a time during accepts.
func (e *entry) lexical(m *matcher, terms []string, st Stats, limit int, during func(time.Time) bool, ar *arena) (all, within []Hit) {
	if e.live == 0 || limit <= 0 || st.N == 0 {
		return nil, nil
	}
	bm := newScorer(&st)
	sc := lexPool.Get().(*lexScratch)
	defer lexPool.Put(sc)
	if cap(sc.acc) < len(e.docs) {
		sc.acc = make([]float64, len(e.docs))
	}
	acc, touched := sc.acc[:len(e.docs)], sc.touched[:0]
	// The query's terms the entry holds, with their weights.
	ids, ws := make([]uint32, 0, len(terms)), make([]float64, 0, len(terms))
	for _, t := range terms {
		if id, ok := e.vocab.lookup(t); ok && e.df[id] > 0 {
			ids, ws = append(ids, id), append(ws, weight(st.idf(st.DF[t])))
		}
	}
	var cs *convScratch // conversations scored, when the entry has them
	cst := e.convStats()
	if cst.n > 0 {
		cs = &sc.conv
		n := 0
		if !e.inverted {
			n = len(ids)
		}
		cs.reset(e.nextGroup, n)
		defer cs.clear()
	}
	if e.inverted {
		touched = e.scorePostings(acc, touched, ids, ws, bm, cs, cst)
	} else {
		touched = e.scoreDocs(acc, touched, ids, ws, bm, cs, cst)
	}
	sc.touched = touched
	top := newTopK(limit)
	if during == nil {
		for _, s := range touched {
			score := acc[s]
			acc[s] = 0
			if !top.wantsScore(score) {
				continue
			}
			d := e.docs[s]
			if top.wants(score, d.id) && m.match(d) {
				top.push(cand{score: score, id: d.id, slot: s})
			}
		}
		return e.hits(top, cs, ar), nil
	}
	in := newTopK(limit)
	for _, s := range touched {
		score := acc[s]
		acc[s] = 0
		if !top.wantsScore(score) && !in.wantsScore(score) {
			continue
		}
		d := e.docs[s]
		toAll := top.wants(score, d.id)
		toIn := in.wants(score, d.id) && during(fromMicros(d.created))
		if (toAll || toIn) && m.match(d) {
			c := cand{score: score, id: d.id, slot: s}
			if toAll {
				top.push(c)
			}
			if toIn {
				in.push(c)
			}
		}
	}
	return e.hits(top, cs, ar), e.hits(in, cs, ar)
}

// scorePostings adds to acc the BM25 of the live docs holding terms ids
// (with weights ws), term by term, and returns touched with the slots it
// scored first appended; with cs (an entry with conversations), it
// scores each conversation holding a term as one document too, into cs.
func (e *entry) scorePostings(acc []float64, touched []int32, ids []uint32, ws []float64, bm scorer, cs *convScratch, cst convStats) []int32 {
	lens := e.lens
	if cs == nil {
		for i, id := range ids {
			for _, p := range e.postings[id] {
				slot := p.slot()
				n := lens[slot]
				if n < 0 {
					continue
				}
				if acc[slot] == 0 {
					touched = append(touched, slot)
				}
				acc[slot] += bm.bm25(ws[i], float64(p.tf()), n)
			}
		}
		return touched
	}
	// The same, counting each conversation's terms as it goes (into
	// cs.tf at 1 + its ordinal; a doc in none counts at 0, unread).
	gids, gtf := e.gids, cs.tf
	for i, id := range ids {
		for _, p := range e.postings[id] {
			slot := p.slot()
			n := lens[slot]
			if n < 0 {
				continue
			}
			if acc[slot] == 0 {
				touched = append(touched, slot)
			}
			tf := float64(p.tf())
			acc[slot] += bm.bm25(ws[i], tf, n)
			gtf[gids[slot]+1] += tf
		}
		if ps := e.postings[id]; len(ps) < len(e.glens)/4 {
			// A rare term: the conversations holding it are read
			// again from its postings, not from every conversation.
			cs.tf[0] = 0
			for _, p := range ps {
				if g := gids[p.slot()]; g >= 0 && cs.tf[g+1] > 0 {
					cs.held = append(cs.held, g)
					cs.tf[g+1] = -cs.tf[g+1] // listed
				}
			}
			cs.scoreTerm(cst, e.glens)
		} else {
			cs.scoreTermDense(cst, e.glens)
		}
	}
	return touched
}

// scoreDocs is scorePostings for an entry without postings: it reads each
// live doc's terms. A doc's score is summed in the order of ids, as
// postings and streamed scopes sum it, so that scores are the same.
func (e *entry) scoreDocs(acc []float64, touched []int32, ids []uint32, ws []float64, bm scorer, cs *convScratch, cst convStats) []int32 {
	if len(ids) == 0 {
		return touched
	}
	// mask has a bit for each query term's id mod 64: most of a doc's
	// terms are turned away on it.
	var mask uint64
	for _, id := range ids {
		mask |= 1 << (id & 63)
	}
	var tfBuf [16]float64
	var tfs []float64 // by query term, of the doc read
	if len(ids) <= len(tfBuf) {
		tfs = tfBuf[:len(ids)]
	} else {
		tfs = make([]float64, len(ids))
	}
	var groups []int32 // the conversations holding a query term
	for slot, d := range e.docs {
		if d == nil {
			continue
		}
		found := false
		for _, t := range e.terms(d) {
			term := t.term()
			if mask&(1<<(term&63)) == 0 {
				continue
			}
			for i, id := range ids {
				if id == term {
					tfs[i], found = float64(t.tf()), true
					break
				}
			}
		}
		if !found {
			continue
		}
		g := e.gids[slot]
		if g >= 0 {
			held := false
			for i, tf := range tfs {
				if tf > 0 {
					if cs.tf[int(g)*len(ids)+i] == 0 {
						held = true
					}
					cs.tf[int(g)*len(ids)+i] += tf
				}
			}
			if held && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		var score float64
		for i, tf := range tfs {
			if tf > 0 {
				score += bm.bm25(ws[i], tf, d.length)
				tfs[i] = 0
			}
		}
		acc[slot] = score
		touched = append(touched, int32(slot))
	}
	if cs != nil {
		cs.scoreDocTerms(cst, e.glens, groups)
	}
	return touched
}

// hits returns the candidates top kept, best first, as hits of their docs
// (their records taken from ar in one piece).
func (e *entry) hits(top *topK, conv *convScratch, ar *arena) []Hit {
	cs := top.sorted()
	out := make([]Hit, len(cs))
	docs, recs := ar.take(len(cs))
	for i, c := range cs {
		e.fillDoc(&docs[i], &recs[i], e.docs[c.slot])
		out[i] = Hit{Doc: &docs[i], Score: c.score}
		if g := e.gids[c.slot]; conv != nil && g >= 0 {
			out[i].Conversation = conv.score[g]
		}
	}
	return out
}

// termIDs returns the vocabulary id of each of terms (at most 64), -1
// for a term the entry does not hold.
func (e *entry) termIDs(terms []string) []int64 {
	ids := make([]int64, min(len(terms), 64))
	for i := range ids {
		ids[i] = -1
		if id, ok := e.vocab.lookup(terms[i]); ok {
			ids[i] = int64(id)
		}
	}
	return ids
}

// holds returns which of the terms whose ids are ids (termIDs) the doc of
// id holds: bit i for ids[i].
func (e *entry) holds(id string, ids []int64) uint64 {
	slot, ok := e.slotOf[id]
	if !ok || e.docs[slot] == nil {
		return 0
	}
	var mask uint64
	for _, dt := range e.terms(e.docs[slot]) {
		for i, tid := range ids {
			if tid == int64(dt.term()) {
				mask |= 1 << i
			}
		}
	}
	return mask
}

// countPending counts the live docs m selects without a vector (none
// without a model: no vector is awaited).
func (e *entry) countPending(m *matcher) int {
	if e.pending == 0 || e.cfg.model == "" {
		return 0
	}
	n := 0
	for _, d := range e.docs {
		if d != nil && !d.hasVec && m.match(d) {
			n++
		}
	}
	return n
}
