package index

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// TestVocab: terms keep the ids they were given in order, through the
// table's growth and the probes of terms whose hashes collide (a table of
// 16 slots holds up to 12), and a term never added is not found.
func TestVocab(t *testing.T) {
	v := newVocab()
	for n := range 3000 {
		term := fmt.Sprintf("term%d", n)
		if id, added := v.add(term); !added || id != uint32(n) {
			t.Fatalf("add %s = %d, %v; want %d, added", term, id, added, n)
		}
		if id, added := v.add(term); added || id != uint32(n) {
			t.Fatalf("add %s again = %d, %v; want %d, not added", term, id, added, n)
		}
		if n == 11 || n == 2999 {
			for i := range n + 1 {
				w := fmt.Sprintf("term%d", i)
				if id, ok := v.lookup(w); !ok || id != uint32(i) || string(v.textOf(id)) != w {
					t.Fatalf("%d terms: lookup %s = %d, %v", n+1, w, id, ok)
				}
			}
		}
	}
	if got := v.size(); got != 3000 {
		t.Errorf("size %d, want 3000", got)
	}
	if used := len(v.slots); 4*v.size() > 3*used {
		t.Errorf("%d terms in %d slots: over 3/4 full", v.size(), used)
	}
	for _, w := range []string{"", "term", "term3000", "delta"} {
		if id, ok := v.lookup(w); ok {
			t.Errorf("%q found as %d", w, id)
		}
	}
	var empty vocab
	if _, ok := empty.lookup("a"); ok {
		t.Error("an empty vocabulary finds a term")
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
	// Records are in 40 conversations (by session), so that the
	// conversations' scores are compared too.
	cfg := &config{conversational: func(r *loci.Record) bool { return r.SessionID != "" }}
	small, large := newEntry(cfg, keyOf(scope), scope), newEntry(cfg, keyOf(scope), scope)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range invertAt + 200 {
		w := make([]string, 5+rng.Intn(30))
		for j := range w {
			w[j] = vocab[z.Uint64()]
		}
		r := &loci.Record{ID: fmt.Sprintf("r%05d", i), Workspace: "w", Kind: loci.KindPassage, Scope: loci.Scope{AgentID: agent, SessionID: fmt.Sprint("s", i%40)},
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
		a, _ := small.lexical(m, terms, st, 20, nil, nil)
		b, _ := large.lexical(large.matcher(&f), terms, large.stats(terms), 20, nil, nil)
		if !slices.EqualFunc(a, b, func(x, y Hit) bool {
			return x.Doc.Meta.ID == y.Doc.Meta.ID && x.Score == y.Score && math.Abs(x.Conversation-y.Conversation) < 1e-9 && x.Conversation > 0
		}) {
			t.Fatalf("query %v:\nscanned  %v\npostings %v", terms, hitList(a), hitList(b))
		}
	}
}

func hitList(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%v/%v", h.Doc.Meta.ID, h.Score, h.Conversation))
	}
	return out
}
