package sqlite_test

import (
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// FuzzSearchLexical: a search query is text, never syntax. Whatever the
// terms (quotes, operators, NUL, invalid UTF-8), a search of a SQLite
// store's index answers without error, and the index the store's feed
// keeps agrees with a fresh one.
func FuzzSearchLexical(f *testing.F) {
	for _, q := range []string{`hello world`, `"unbalanced`, `a AND b OR NOT c`, `NEAR(a b, 3)`, `col:term*`, `^start`, "nul\x00byte", "\xff\xfe", `'); DROP TABLE records; --`, `""`, `-`, `(`, `*`} {
		f.Add(q)
	}
	s := testdb.OpenSQLite(f)
	storetest.MustInsert(f, s,
		storetest.NewRecord(loci.KindNote, loci.Scope{AgentID: "a"}, "k1", "hello world"),
		storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", "NEAR the AND operator"))
	f.Fuzz(func(t *testing.T, q string) {
		terms := append(strings.Fields(q), q)
		storetest.SearchLexical(t, s, loci.RecordFilter{Workspace: loci.DefaultWorkspace}, terms, 10)
	})
}
