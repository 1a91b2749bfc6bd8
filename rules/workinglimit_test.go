package rules_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// escapeNonASCII writes a JSON string value with every character outside
// ASCII as a \u escape, as Python's json.dumps does by default.
func escapeNonASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestWorkingLimitCountsTheValue: the 50 KB limit of a task counts the
// value (its compact JSON with strings as UTF-8), not the client's
// escaping: a value of 26,000 bytes is accepted whether its "é"s come as
// UTF-8 or as \u00e9 escapes, and a task whose values total more than the
// limit is refused either way.
func TestWorkingLimitCountsTheValue(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := lcOpen(t, open)
		text := strings.Repeat("é", 13000) // 26,000 bytes of UTF-8
		for _, tc := range []struct{ name, value string }{
			{"UTF8", `"` + text + `"`},
			{"Escaped", escapeNonASCII(text)},
			{"EscapedInObject", `{"note": ` + escapeNonASCII(text) + `, "n": [1, 2.5, true, null]}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				task := "t-" + tc.name
				if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: task, AgentID: "a", Key: "k1", Value: json.RawMessage(tc.value)}); err != nil {
					t.Fatalf("a value of 26,000 bytes: %v, want it stored", err)
				}
				// 26,000 + 26,000 bytes is more than 51,200.
				_, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: task, AgentID: "a", Key: "k2", Value: json.RawMessage(tc.value)})
				if loci.ErrorCode(err) != loci.ETOOLARGE {
					t.Fatalf("a second value of 26,000 bytes: %v, want too_large", err)
				}
				// A small second value fits beside it.
				if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: task, AgentID: "a", Key: "k2", Value: json.RawMessage(`"\u00e9t\u00e9"`)}); err != nil {
					t.Fatalf("a small second value: %v", err)
				}
			})
		}
		big := strings.Repeat("é", 26000) // 52,000 bytes
		for _, v := range []string{`"` + big + `"`, escapeNonASCII(big)} {
			if _, _, err := e.svc.SetWorking(e.ctx, loci.WorkingInput{TaskID: "big", AgentID: "a", Key: "k", Value: json.RawMessage(v)}); loci.ErrorCode(err) != loci.ETOOLARGE {
				t.Errorf("a value of 52,000 bytes (%d as sent): %v, want too_large", len(v), err)
			}
		}
	})
}
