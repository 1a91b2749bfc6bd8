package analysis_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// FuzzQuery checks that any query text, once analyzed, is searched on a
// real SQLite store's search index without an error: a query is text,
// never syntax.
// The seed corpus is in testdata/fuzz/FuzzQuery; run more with
// go test ./analysis -fuzz FuzzQuery.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		`plain words`, `"unbalanced quote`, `a AND b OR NOT c`, `NEAR(a b, 3)`, `col:value`,
		`prefix*`, `(((`, `)`, `^start`, `-minus +plus`, "\x00nul", "bad\xffutf8", `🍕 emoji ❤️`, `''`, `""""`,
	} {
		f.Add(s)
	}
	store := testdb.OpenSQLite(f)
	agent := "fuzz"
	var recs []*loci.Record
	for _, c := range []string{"the runner ran a marathon", "AND OR NOT NEAR", "pizza 🍕 and ❤️", "prefix* col:value"} {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", c)
		r.SearchText = analysis.SearchText(c)
		recs = append(recs, r)
	}
	storetest.MustInsert(f, store, recs...)
	f.Fuzz(func(t *testing.T, q string) {
		terms := analysis.QueryTerms(q)
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || strings.ContainsRune(term, 0) || len(term) > analysis.MaxTermBytes {
				t.Fatalf("bad term %q from %q", term, q)
			}
		}
		st := analysis.SearchText(q)
		if !utf8.ValidString(st) || strings.ContainsRune(st, 0) {
			t.Fatalf("bad search text %q from %q", st, q)
		}
		storetest.SearchLexical(t, store, loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: &agent}, terms, 10)
	})
}
