package index

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestVocabClash: two terms with one hash keep their own ids.
func TestVocabClash(t *testing.T) {
	v := newVocab()
	a, _ := v.add("alpha")
	// Make "beta" clash with "alpha": point alpha's hash at beta's.
	v.byHash = map[uint64]uint32{}
	b, added := v.add("beta")
	if !added || b == a {
		t.Fatalf("beta: id %d added %v", b, added)
	}
	for h := range v.byHash {
		delete(v.byHash, h)
		v.byHash[h] = a // beta's hash now names alpha
	}
	c, added := v.add("gamma")
	if !added {
		t.Fatal("gamma not added")
	}
	if id, ok := v.lookup("beta"); ok {
		t.Fatalf("beta found as %d though its hash names alpha", id)
	}
	// Re-adding beta puts it in clash; it keeps a new id there.
	b2, _ := v.add("beta")
	if got, ok := v.lookup("beta"); !ok || got != b2 || b2 == a || b2 == c {
		t.Errorf("beta: %d %v (alpha %d, gamma %d)", got, ok, a, c)
	}
	if got, ok := v.lookup("gamma"); !ok || got != c {
		t.Errorf("gamma: %d %v, want %d", got, ok, c)
	}
	if _, ok := v.lookup("delta"); ok {
		t.Error("delta found")
	}
}

// TestScoreDocsMatchesPostings: an entry too small for postings scores
// exactly as one with postings does, and as a streamed scope does.
func TestScoreDocsMatchesPostings(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	vocab := make([]string, 400)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%d", i)
	}
	z := rand.NewZipf(rng, 1.2, 2, uint64(len(vocab)-1))
	agent := "a"
	scope := loci.RecordFilter{Workspace: "w", AgentID: &agent}
	small, large := newEntry(&config{}, keyOf(scope), scope), newEntry(&config{}, keyOf(scope), scope)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range invertAt + 200 {
		w := make([]string, 5+rng.Intn(30))
		for j := range w {
			w[j] = vocab[z.Uint64()]
		}
		r := &loci.Record{ID: fmt.Sprintf("r%05d", i), Workspace: "w", Kind: loci.KindPassage, Scope: loci.Scope{AgentID: agent},
			SearchText: strings.Join(w, " "), CreatedAt: at, UpdatedAt: at}
		small.put(r)
		large.put(r)
		if i%7 == 0 && i > 0 {
			gone := fmt.Sprintf("r%05d", i-3)
			small.remove(gone)
			large.remove(gone)
		}
	}
	small.inverted, small.postings = false, nil
	if !large.inverted {
		t.Fatal("the large entry has no postings")
	}
	f := scope
	m := small.matcher(&f)
	for q := range 50 {
		terms := distinct([]string{vocab[z.Uint64()], vocab[z.Uint64()], vocab[z.Uint64()], vocab[rng.Intn(len(vocab))], fmt.Sprint("absent", q)})
		st := small.stats(terms)
		a, _ := small.lexical(m, terms, st, 20, nil)
		b, _ := large.lexical(large.matcher(&f), terms, large.stats(terms), 20, nil)
		if !slices.EqualFunc(a, b, func(x, y Hit) bool { return x.Doc.Meta.ID == y.Doc.Meta.ID && x.Score == y.Score }) {
			t.Fatalf("query %v:\nscanned  %v\npostings %v", terms, hitList(a), hitList(b))
		}
	}
}

func hitList(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%v", h.Doc.Meta.ID, h.Score))
	}
	return out
}
