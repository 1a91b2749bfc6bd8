package index

import (
	"sync"

	"github.com/loci-memory/loci"
)

// arena holds the docs, and their records, that one search hands out:
// a search's candidates are its largest garbage (a record each), so a
// caller done with a result gives them back (Result.Release) for the
// next search to fill again.
type arena struct {
	docs []Doc
	recs []loci.Record
}

var arenas = sync.Pool{New: func() any { return new(arena) }}

// take returns n docs and their n records, from a's room when it has it.
// A nil arena allocates them.
func (a *arena) take(n int) ([]Doc, []loci.Record) {
	if a == nil {
		return make([]Doc, n), make([]loci.Record, n)
	}
	if len(a.docs)+n > cap(a.docs) {
		// What a handed out before stays with its holders; a grows for
		// the next search.
		c := max(2*cap(a.docs), n, 64)
		a.docs, a.recs = make([]Doc, 0, c), make([]loci.Record, 0, c)
	}
	at := len(a.docs)
	a.docs, a.recs = a.docs[:at+n], a.recs[:at+n]
	return a.docs[at : at+n : at+n], a.recs[at : at+n : at+n]
}

// release empties a (dropping the strings its records held) and gives it
// back to the pool.
func (a *arena) release() {
	clear(a.docs)
	clear(a.recs)
	a.docs, a.recs = a.docs[:0], a.recs[:0]
	arenas.Put(a)
}
