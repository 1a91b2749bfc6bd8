package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// FuzzSearchLexical: a search query is text, never FTS5 syntax. Whatever
// the terms (quotes, operators, NUL, invalid UTF-8), the search answers
// without error.
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
		err := s.View(context.Background(), func(tx loci.Tx) error {
			_, err := tx.SearchLexical(context.Background(), loci.RecordFilter{Workspace: loci.DefaultWorkspace}, terms, 10)
			return err
		})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
	})
}
