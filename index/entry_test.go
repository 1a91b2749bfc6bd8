package index

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/textgen"
)

// notKept are the record fields a doc leaves out: what no filter and no
// ranking reads. Any other field (a new filterable one included) must
// survive indexing, or filters would silently see it empty.
var notKept = map[string]bool{
	"Content": true, "SearchText": true, "Data": true, "Embedding": true, "EmbeddingModel": true,
	"AccessCount": true, "LastAccessedAt": true, "Version": true,
}

// filled returns a record with every field set to a value of its type.
func filled(t *testing.T) *loci.Record {
	r := &loci.Record{}
	v := reflect.ValueOf(r).Elem()
	at := time.Date(2026, 2, 3, 4, 5, 6, 7000, time.UTC)
	var fill func(v reflect.Value, name string)
	fill = func(v reflect.Value, name string) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("v-" + name)
		case reflect.Int, reflect.Int64:
			v.SetInt(7)
		case reflect.Float64:
			v.SetFloat(0.625)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			switch v.Type().Elem().Kind() {
			case reflect.String:
				v.Set(reflect.ValueOf([]string{"t1", "t2"}))
			case reflect.Float32:
				v.Set(reflect.ValueOf([]float32{0.6, 0.8}))
			case reflect.Uint8:
				v.SetBytes([]byte(`{"a":1}`))
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				v.Set(reflect.ValueOf(at))
				return
			}
			for i := range v.NumField() {
				fill(v.Field(i), v.Type().Field(i).Name)
			}
		default:
			t.Fatalf("field %s: kind %s not handled by this test", name, v.Kind())
		}
	}
	fill(v, "record")
	return r
}

func TestDocKeepsWhatFiltersRead(t *testing.T) {
	r := filled(t)
	e := newEntry(&config{model: "m"}, "k", loci.RecordFilter{Workspace: r.Workspace})
	e.put(r)
	got := *e.docOf(e.docs[0], nil).Meta
	want := reflect.ValueOf(*r)
	gv := reflect.ValueOf(got)
	var check func(g, w reflect.Value, name string)
	check = func(g, w reflect.Value, name string) {
		if g.Kind() == reflect.Struct && g.Type() != reflect.TypeOf(time.Time{}) {
			for i := range g.NumField() {
				check(g.Field(i), w.Field(i), g.Type().Field(i).Name)
			}
			return
		}
		if notKept[name] {
			return
		}
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("field %s: indexed %v, record %v; keep it in the doc (or list it in notKept if no filter reads it)", name, g.Interface(), w.Interface())
		}
	}
	check(gv, want, "record")
	// What a streamed scope keeps is the same.
	if s := strip(r); !reflect.DeepEqual(*s, got) {
		t.Errorf("strip = %+v, indexed %+v", *s, got)
	}
}

func TestBM25(t *testing.T) {
	st := Stats{N: 10, TotalLen: 50, DF: map[string]int{"a": 2}}
	idf := st.idf(2)
	if want := math.Log(1 + (10-2+0.5)/(2+0.5)); idf != want {
		t.Fatalf("idf = %v, want %v", idf, want)
	}
	// A record of average length holding the term once: idf*(k1+1)/(1+k1).
	bm := newScorer(&st)
	if got, want := bm.bm25(weight(idf), 1, 5), idf; math.Abs(got-want) > 1e-12 {
		t.Errorf("bm25 at average length = %v, want %v", got, want)
	}
	// More occurrences score higher, a longer record lower.
	if bm.bm25(weight(idf), 2, 5) <= bm.bm25(weight(idf), 1, 5) {
		t.Error("tf 2 does not beat tf 1")
	}
	if bm.bm25(weight(idf), 1, 20) >= bm.bm25(weight(idf), 1, 5) {
		t.Error("a longer record does not score lower")
	}
	if got := (&Stats{}).avgLen(); got != 1 {
		t.Errorf("empty corpus average length = %v, want 1", got)
	}
}

func TestTopKTies(t *testing.T) {
	top := newTopK(3)
	for _, c := range []cand{{score: 1, id: "d"}, {score: 2, id: "z"}, {score: 1, id: "b"}, {score: 1, id: "c"}, {score: 1, id: "a"}, {score: 0.5, id: "0"}} {
		if top.wantsScore(c.score) && top.wants(c.score, c.id) {
			top.push(c)
		}
	}
	var got []string
	for _, c := range top.sorted() {
		got = append(got, c.id)
	}
	// Ties break by id, whatever the order offered.
	if want := []string{"z", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if newTopK(0).wants(1, "x") {
		t.Error("a top-0 wants something")
	}
}

// TestDocTerms: a doc's terms are its distinct words in order of first
// use, each with how often it occurs (at most maxTF), and its length is
// every word, words split as strings.Fields splits them.
func TestDocTerms(t *testing.T) {
	e := newEntry(&config{}, "k", loci.RecordFilter{Workspace: "w"})
	terms := func(id string) (out []string, length int32) {
		d := e.docs[e.slotOf[id]]
		for _, tt := range e.terms(d) {
			out = append(out, fmt.Sprintf("%s:%d", e.vocab.textOf(tt.term()), tt.tf()))
		}
		return out, d.length
	}
	e.put(&loci.Record{ID: "1", Workspace: "w", SearchText: "b a b  c b"})
	if got, n := terms("1"); !slices.Equal(got, []string{"b:3", "a:1", "c:1"}) || n != 5 {
		t.Errorf("terms %v, length %d; want [b:3 a:1 c:1], 5", got, n)
	}
	e.put(&loci.Record{ID: "2", Workspace: "w", SearchText: strings.Repeat("tea ", 1000) + "b"})
	if got, n := terms("2"); !slices.Equal(got, []string{fmt.Sprintf("tea:%d", maxTF), "b:1"}) || n != 1001 {
		t.Errorf("terms %v, length %d; want [tea:%d b:1], 1001", got, n, maxTF)
	}
	if e.df[0] != 2 || e.df[1] != 1 {
		t.Errorf("document frequencies %v, want b in 2 and a in 1", e.df[:3])
	}
	for _, s := range []string{"", "   ", " a\tb\n c ", "x\u00a0y\u2003z", "é ü\u0085ß", "a\x80b c"} {
		var got []string
		for i := 0; ; {
			var f string
			if f, i = nextField(s, i); f == "" {
				break
			}
			got = append(got, f)
		}
		if want := strings.Fields(s); !slices.Equal(got, want) {
			t.Errorf("fields of %q: %q, want %q", s, got, want)
		}
	}
}

func TestPickNeighbours(t *testing.T) {
	// Minutes of a conversation; 3 is filtered out.
	created := []int64{0, 1, 2, 3, 4, 60}
	at := func(j int) int64 { return created[j] * int64(time.Minute/time.Microsecond) }
	match := func(j int) bool { return j != 3 }
	tests := []struct {
		name string
		i    int
		win  time.Duration
		want []int
	}{
		{"BothSides", 1, 5 * time.Minute, []int{0, 2}},
		{"SkipsFiltered", 2, 5 * time.Minute, []int{1, 4}},
		{"First", 0, 5 * time.Minute, []int{1}},
		{"OutsideWindow", 4, 30 * time.Minute, []int{2}},
		{"WindowIsStrict", 1, time.Minute, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pickNeighbours(len(created), tt.i, at, match, tt.win); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestScopeKeys(t *testing.T) {
	a, u, empty := "a", "u", ""
	ws := "w"
	tests := []struct {
		name      string
		f, g      loci.RecordFilter
		sameIndex bool
	}{
		// An agent's index serves every kind asked of it.
		{"PinnedIgnoresKinds", loci.RecordFilter{Workspace: ws, AgentID: &a, Kinds: []loci.Kind{loci.KindPassage}},
			loci.RecordFilter{Workspace: ws, AgentID: &a}, true},
		// Filters that are not the scope do not split indexes.
		{"TagsAndTimesIgnored", loci.RecordFilter{Workspace: ws, UserID: &u, Tags: []string{"x"}, LiveAt: time.Now()},
			loci.RecordFilter{Workspace: ws, UserID: &u}, true},
		// Global knowledge is kept per kinds: all of it may be most of
		// the workspace.
		{"GlobalByKinds", loci.RecordFilter{Workspace: ws, UserID: &empty, Kinds: []loci.Kind{loci.KindFact}},
			loci.RecordFilter{Workspace: ws, UserID: &empty}, false},
		{"OrGlobalByKinds", loci.RecordFilter{Workspace: ws, UserID: &u, OrGlobalUser: true, Kinds: []loci.Kind{loci.KindFact}},
			loci.RecordFilter{Workspace: ws, UserID: &u, OrGlobalUser: true}, false},
		{"KindOrderIrrelevant", loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindNote, loci.KindFact}},
			loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindFact, loci.KindNote, loci.KindFact}}, true},
		{"AbsentIsNotEmpty", loci.RecordFilter{Workspace: ws, UserID: &empty}, loci.RecordFilter{Workspace: ws}, false},
		{"Workspaces", loci.RecordFilter{Workspace: ws, AgentID: &a}, loci.RecordFilter{Workspace: "other", AgentID: &a}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, gs := scopeOf(tt.f), scopeOf(tt.g)
			same := keyOf(fs) == keyOf(gs) && fs.Workspace == gs.Workspace
			if same != tt.sameIndex {
				t.Fatalf("same index = %v, want %v (%q, %q)", same, tt.sameIndex, keyOf(fs), keyOf(gs))
			}
		})
	}
}

// TestPackedPostings: a posting and a doc term keep their slot or term id
// (up to the bounds) and their count (up to maxTF) in 4 bytes.
func TestPackedPostings(t *testing.T) {
	for _, c := range []struct {
		id uint32
		tf uint16
	}{{0, 1}, {1, maxTF}, {maxSlots - 1, 7}, {12345, 0}} {
		if p := mkPosting(int32(c.id), c.tf); p.slot() != int32(c.id) || p.tf() != c.tf {
			t.Errorf("posting (%d, %d) reads back (%d, %d)", c.id, c.tf, p.slot(), p.tf())
		}
		if tt := mkTermTF(c.id, c.tf); tt.term() != c.id || tt.tf() != c.tf {
			t.Errorf("doc term (%d, %d) reads back (%d, %d)", c.id, c.tf, tt.term(), tt.tf())
		}
	}
}

// TestLoadInvertsOnce: a load (reserve, puts, loaded) builds the postings
// once at its end; they, the estimate and what a search finds are those
// of the same records put one by one (inverted at invertAt, grown by
// appends), and a record put after the load extends them as it would.
func TestLoadInvertsOnce(t *testing.T) {
	gen := textgen.New(3)
	n := invertAt + 500
	recs := make([]*loci.Record, n+2)
	for i := range recs {
		c := gen.Passage()
		recs[i] = &loci.Record{ID: fmt.Sprintf("r%05d", i), Workspace: "w", Kind: loci.KindPassage, Content: c, SearchText: analysis.SearchText(c)}
	}
	loaded := newEntry(&config{}, "k", loci.RecordFilter{Workspace: "w"})
	loaded.reserve(n)
	for _, r := range recs[:n] {
		loaded.put(r)
		if loaded.inverted {
			t.Fatalf("inverted during the load, at %d records", loaded.live)
		}
	}
	loaded.loaded()
	grown := newEntry(&config{}, "k", loci.RecordFilter{Workspace: "w"})
	for _, r := range recs[:n] {
		grown.put(r)
	}
	same := func(when string) {
		t.Helper()
		if !loaded.inverted || !grown.inverted {
			t.Fatalf("%s: inverted %v, %v", when, loaded.inverted, grown.inverted)
		}
		if !reflect.DeepEqual(loaded.postings, grown.postings) {
			t.Errorf("%s: the load's postings differ from those grown by appends", when)
		}
		if loaded.bytes != grown.bytes {
			t.Errorf("%s: estimate %d bytes, grown by appends %d", when, loaded.bytes, grown.bytes)
		}
		f := loci.RecordFilter{Workspace: "w"}
		for range 20 {
			terms := distinct(strings.Fields(analysis.SearchText(gen.Query())))
			a, _ := loaded.lexical(loaded.matcher(&f), terms, loaded.stats(terms), 10, nil, nil)
			b, _ := grown.lexical(grown.matcher(&f), terms, grown.stats(terms), 10, nil, nil)
			if !slices.EqualFunc(a, b, func(x, y Hit) bool { return x.Doc.Meta.ID == y.Doc.Meta.ID && x.Score == y.Score }) {
				t.Errorf("%s: %v finds %v, grown by appends %v", when, terms, hitList(a), hitList(b))
			}
		}
	}
	same("after the load")
	// Terms of the load and new ones: appends past a term's exact
	// length move only that term's postings.
	for _, r := range recs[n:] {
		loaded.put(r)
		grown.put(r)
	}
	loaded.remove(recs[0].ID)
	grown.remove(recs[0].ID)
	same("after puts and a remove")
}
