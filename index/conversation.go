package index

import (
	"slices"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// Conversations: the conversational docs of an entry in order, by
// conversation, for the neighbours a lender's context reads.

// groupKey names a conversation: records of one kind, scope and category
// (interned strings of the entry).
type groupKey struct {
	kind, agent, user, session, task, category uint32
}

func (e *entry) groupKeyOf(d *doc) groupKey {
	s := &e.tuples[d.strs]
	return groupKey{s[sKind], s[sAgent], s[sUser], s[sSession], s[sTask], s[sCategory]}
}

// group is one conversation's slots in (created_at, id) order, its
// ordinal in the entry (entry.gids, entry.glens).
type group struct {
	key   groupKey
	e     *entry
	slots []int32
	id    int32
}

func (g *group) doc(i int) *doc { return g.e.docs[g.slots[i]] }

// before orders records as conversations are read: by creation time, then
// id (ids are time-ordered, so a batch written at one time keeps its
// order).
func before(at int64, id string, bat int64, bid string) bool {
	if at != bat {
		return at < bat
	}
	return id < bid
}

// join adds a conversational doc to its group, in order (usually at the
// end: messages arrive in order).
func (e *entry) join(slot int32, d *doc) {
	k := e.groupKeyOf(d)
	g := e.groups[k]
	if g == nil {
		g = &group{key: k, e: e, id: e.nextGroup}
		e.nextGroup++
		e.groups[k] = g
	}
	if int(g.id) >= len(e.glens) {
		e.glens = append(e.glens, make([]int64, int(g.id)+1-len(e.glens))...)
	}
	e.glens[g.id] += int64(d.length)
	e.groupLen += int64(d.length)
	e.gids[slot] = g.id
	i := len(g.slots)
	for i > 0 && before(d.created, d.id, g.doc(i-1).created, g.doc(i-1).id) {
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
func (e *entry) neighbours(id string, f loci.RecordFilter, window time.Duration, ar *arena) []*Doc {
	slot, ok := e.slotOf[id]
	if !ok || e.docs[slot].group == nil {
		return nil
	}
	d := e.docs[slot]
	g := d.group
	r := e.record(d)
	cf := conversationFilter(f, &r)
	var out []*Doc
	for _, j := range pickNeighbours(len(g.slots), slices.Index(g.slots, slot), func(j int) int64 { return g.doc(j).created },
		func(j int) bool { return e.match(&cf, g.doc(j)) }, window) {
		out = append(out, e.docOf(g.doc(j), ar))
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

// pickNeighbours returns the positions, in a conversation of n records in
// (created_at, id) order, of the record before and the record after
// position i that match selects, each only if written within window of
// record i (strictly); created gives a record's creation time in µs.
func pickNeighbours(n, i int, created func(int) int64, match func(int) bool, window time.Duration) []int {
	t, w := created(i), window.Microseconds()
	var out []int
	for j := i - 1; j >= 0; j-- {
		if created(j) <= t-w {
			break
		}
		if match(j) {
			out = append(out, j)
			break
		}
	}
	for j := i + 1; j < n; j++ {
		if created(j) >= t+w {
			break
		}
		if match(j) {
			out = append(out, j)
			break
		}
	}
	return out
}

// Conversations scored as documents: a turn is found by its own words,
// but whether its conversation is about what the query asks is read
// better from the conversation whole, its words counted together (BM25
// over conversations: "how many bikes did I service?" is the
// conversation that says "bike" in one turn and "service" in another).
// The lexical pass counts, as it reads each query term's postings, how
// often each conversation holds it, and scores it once the term is read.

// convScratch holds one search's conversation scoring.
type convScratch struct {
	tf      []float64 // the term read's count at 1 + ordinal (or, reading docs, by ordinal × term)
	score   []float64 // by ordinal
	touched []int32   // the ordinals with a score
	held    []int32   // the ordinals holding the term read
	n       int       // terms, reading docs
}

// convStats are a scope's conversation statistics: how many (0: none),
// and their mean length.
type convStats struct {
	n   int
	avg float64
}

func newConvStats(n int, total int64) convStats {
	if n == 0 {
		return convStats{}
	}
	return convStats{n: n, avg: max(1, float64(total)/float64(n))}
}

func (e *entry) convStats() convStats { return newConvStats(len(e.groups), e.groupLen) }

// reset sizes cs for groups ordinals and n query terms, zeroed.
func (cs *convScratch) reset(groups int32, n int) {
	size := int(groups) + 1 // reading postings: by 1 + ordinal
	if n > 0 {
		size = int(groups) * n
	}
	if cap(cs.tf) < size {
		cs.tf = make([]float64, size)
	}
	cs.tf = cs.tf[:size]
	if cap(cs.score) < int(groups) {
		cs.score = make([]float64, groups)
	}
	cs.score = cs.score[:groups]
	cs.touched, cs.held, cs.n = cs.touched[:0], cs.held[:0], n
}

// clear zeroes what a search scored.
func (cs *convScratch) clear() {
	for _, g := range cs.touched {
		cs.score[g] = 0
	}
	cs.touched = cs.touched[:0]
}

// add adds to conversation g's score one term's BM25 (weight w, count tf).
func (cs *convScratch) add(g int32, w, tf float64, st convStats, glens []int64) {
	if cs.score[g] == 0 {
		cs.touched = append(cs.touched, g)
	}
	cs.score[g] += convBM25(w, tf, float64(glens[g]), st.avg)
}

// scoreTerm adds to each conversation holding the term read (cs.held,
// each listed once, its count negated at cs.tf[1+ordinal]) the term's
// BM25, weighted by its IDF over conversations, and zeroes the counts.
func (cs *convScratch) scoreTerm(st convStats, glens []int64) {
	if len(cs.held) == 0 {
		return
	}
	w := weight(idf(st.n, len(cs.held)))
	for _, g := range cs.held {
		cs.add(g, w, -cs.tf[g+1], st, glens)
		cs.tf[g+1] = 0
	}
	cs.held = cs.held[:0]
}

// scoreTermDense is scoreTerm for counts at 1 + each ordinal (cs.tf[0]
// is what docs in no conversation counted, dropped): it reads every
// conversation's count, which costs less than listing those that hold
// the term as the postings are read.
func (cs *convScratch) scoreTermDense(st convStats, glens []int64) {
	cs.tf[0] = 0
	tf := cs.tf[1:]
	df := 0
	for _, x := range tf {
		if x > 0 {
			df++
		}
	}
	if df == 0 {
		return
	}
	w := weight(idf(st.n, df))
	for g, x := range tf {
		if x > 0 {
			cs.add(int32(g), w, x, st, glens)
			tf[g] = 0
		}
	}
}

// scoreDocTerms is scoreTerm for counts read doc by doc (by ordinal ×
// term, in cs.tf): each term's IDF is over the conversations holding it.
func (cs *convScratch) scoreDocTerms(st convStats, glens []int64, groups []int32) {
	n := cs.n
	for i := range n {
		for _, g := range groups {
			if cs.tf[int(g)*n+i] > 0 {
				cs.held = append(cs.held, g)
			}
		}
		if len(cs.held) > 0 {
			w := weight(idf(st.n, len(cs.held)))
			for _, g := range cs.held {
				cs.add(g, w, cs.tf[int(g)*n+i], st, glens)
				cs.tf[int(g)*n+i] = 0
			}
			cs.held = cs.held[:0]
		}
	}
}

// convB is BM25's length normalisation for conversations: a long
// conversation holds more words by chance.
const convB = 0.75

// convBM25 is one term's BM25 for a conversation of length length
// holding it tf times, with weight w, against the mean length avg.
func convBM25(w, tf, length, avg float64) float64 {
	return w * tf / (tf + K1*(1-convB+convB*length/avg))
}

// conversationKey names r's conversation as groupKey does: its kind,
// exact scope and category.
func conversationKey(r *loci.Record) string {
	return strings.Join([]string{string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Category}, "\x00")
}
