package index

import (
	"slices"
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

// group is one conversation's slots in (created_at, id) order.
type group struct {
	key   groupKey
	e     *entry
	slots []int32
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
		g = &group{key: k, e: e}
		e.groups[k] = g
	}
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
func (e *entry) neighbours(id string, f loci.RecordFilter, window time.Duration) []*Doc {
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
		out = append(out, e.docOf(g.doc(j)))
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
