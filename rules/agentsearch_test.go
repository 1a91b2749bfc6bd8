package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestSearchAgentMemoryErrors checks the validation of the scoped search
// (search_memory's schema catches most of it first).
func TestSearchAgentMemoryErrors(t *testing.T) {
	svc := rules.New(testdb.OpenSQLite(t))
	for _, tc := range []struct {
		name string
		q    loci.AgentSearchQuery
		code string
	}{
		{"ErrNoAgent", loci.AgentSearchQuery{Query: "x"}, loci.EINVALID},
		{"ErrBlankUser", loci.AgentSearchQuery{Query: "x", AgentID: "a", UserID: " "}, loci.EINVALID},
		{"ErrUnknownKind", loci.AgentSearchQuery{Query: "x", AgentID: "a", Kinds: []loci.Kind{"gossip"}}, loci.EINVALID},
		{"ErrLimit", loci.AgentSearchQuery{Query: "x", AgentID: "a", Limit: loci.MaxSearchLimit + 1}, loci.EINVALID},
		{"ErrTooLarge", loci.AgentSearchQuery{Query: strings.Repeat("x", loci.MaxQueryBytes+1), AgentID: "a"}, loci.ETOOLARGE},
		{"OK", loci.AgentSearchQuery{Query: "x", AgentID: "a"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.SearchAgentMemory(context.Background(), tc.q)
			if got := loci.ErrorCode(err); (err == nil) != (tc.code == "") || (err != nil && got != tc.code) {
				t.Fatalf("err %v (%s), want code %q", err, got, tc.code)
			}
		})
	}
}
