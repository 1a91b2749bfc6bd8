package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestWorkingLimitCountsTheValue: a 26,000-byte value is accepted whether
// the client sends it as UTF-8 or with \u00e9 escapes (Python's default);
// the task's total counts values, not their escaping.
func TestWorkingLimitCountsTheValue(t *testing.T) {
	text := strings.Repeat("é", 13000) // 26,000 bytes of UTF-8
	var escaped strings.Builder
	for range 13000 {
		escaped.WriteString(`\u00e9`)
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv, clock := newServer(t, open)
		runScenarios(t, srv, clock, "", []scenario{
			{name: "Raw", method: "PUT", path: "/v1/tasks/t1/working/k", body: fmt.Sprintf(`{"agent_id":"a","value":"%s"}`, text), wantStatus: 201},
			{name: "Escaped", method: "PUT", path: "/v1/tasks/t2/working/k", body: fmt.Sprintf(`{"agent_id":"a","value":"%s"}`, escaped.String()), wantStatus: 201},
			{name: "ErrEscapedTotal", method: "PUT", path: "/v1/tasks/t2/working/k2", body: fmt.Sprintf(`{"agent_id":"a","value":"%s"}`, escaped.String()),
				wantStatus: 413, want: map[string]any{"code": "too_large"}},
			{name: "Small", method: "PUT", path: "/v1/tasks/t2/working/k2", body: `{"agent_id":"a","value":"\u00e9t\u00e9"}`, wantStatus: 201},
		})
	})
}
