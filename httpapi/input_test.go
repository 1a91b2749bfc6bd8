package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// badBodies are hostile request bodies every route that takes a body must
// refuse with a 4xx, storing nothing.
var badBodies = map[string][]byte{
	"InvalidUTF8":   []byte("{\"value\":\"\xff\xfe\",\"agent_id\":\"a1\",\"user_id\":\"u1\"}"),
	"NULEscape":     []byte(`{"value":"a\u0000b","content":"a\u0000b","query":"a\u0000b"}`),
	"NULKey":        []byte(`{"val\u0000ue":"x"}`),
	"RawNUL":        []byte("{\"value\":\"a\x00b\"}"),
	"HugeNumber":    []byte(`{"value":1e400,"limit":1e400}`),
	"HugeInteger":   []byte(`{"value":"x","limit":123456789012345678901234567890}`),
	"DeeplyNested":  []byte(strings.Repeat(`{"value":`, 5000) + `1` + strings.Repeat(`}`, 5000)),
	"DeepArrays":    []byte(`{"value":` + strings.Repeat(`[`, 100000) + strings.Repeat(`]`, 100000) + `}`),
	"UnknownField":  []byte(`{"zzz_unknown_field":1}`),
	"OtherCase":     []byte(`{"Value":"x","CONTENT":"x","Query":"x"}`),
	"MemberTwice":   []byte(`{"value":"x","value":"y","content":"x","content":"y","query":"x","query":"y"}`),
	"LoneSurrogate": []byte(`{"value":"a\ud800","content":"a\ud800","query":"a\ud800"}`),
	"Malformed":     []byte(`{"value":`),
	"NotAnObject":   []byte(`"value"`),
	"TrailingData":  []byte(`{"value":"x"} {"value":"y"}`),
	"Oversize":      []byte(`{"value":"` + strings.Repeat("a", MaxBodyBytes) + `"}`),
	"EmptyKeyValue": []byte(`{"value":"   "}`),
}

func TestBadInputStoresNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		e := newSecEnv(t, open)
		for _, rt := range e.srv.Routes() {
			if rt.Method != http.MethodPost && rt.Method != http.MethodPut && rt.Method != http.MethodPatch {
				continue
			}
			if strings.HasPrefix(rt.Policy.Op, "mem0.not_served") {
				continue // 400 for a body that is not JSON, else 501 whatever it holds: TestMem0NotServed
			}
			for name, body := range badBodies {
				t.Run(rt.String()+"/"+name, func(t *testing.T) {
					status, out, _ := e.call(t, rt.Method, concrete(rt), "", body)
					if status < 400 || status >= 500 {
						t.Errorf("status %d (%v), want 4xx", status, out)
					}
					if out["success"] != false || out["error"] == "" || out["code"] == "" {
						t.Errorf("no clear error envelope: %v", out)
					}
				})
			}
		}
		var buf bytes.Buffer
		if n, err := e.svc.Export(context.Background(), loci.ExportFilter{}, &buf); err != nil || n != 0 || buf.Len() != 0 {
			t.Errorf("bad input stored something (%d records, %v):\n%s", n, err, buf.String())
		}
		if keys, _ := e.svc.ListKeys(context.Background(), true); len(keys) != 0 {
			t.Errorf("bad input created keys: %v", keys)
		}
	})
}

func TestBadPathAndQuery(t *testing.T) {
	e := newSecEnv(t, testdb.OpenSQLite)
	tests := []struct {
		name, path string
	}{
		{"ErrNULInPath", "/v1/agents/a%001/notes"},
		{"ErrInvalidUTF8InPath", "/v1/agents/a%ff/notes"},
		{"ErrLongPath", "/v1/agents/" + strings.Repeat("a", MaxPathValueBytes+1) + "/notes"},
		{"ErrNULInQuery", "/v1/agents/a1/notes?q=a%00b"},
		{"ErrInvalidUTF8InQuery", "/v1/agents/a1/notes?q=%ff"},
		{"ErrLimitText", "/v1/agents/a1/notes?limit=ten"},
		{"ErrLimitHuge", "/v1/agents/a1/notes?limit=99999999999999999999999"},
		{"ErrLimitOverMax", "/v1/agents/a1/notes?limit=1001"},
		{"ErrLimitNegative", "/v1/agents/a1/notes?limit=-1"},
		{"ErrOffsetNegative", "/v1/agents/a1/notes?offset=-5"},
		{"ErrMalformedQuery", "/v1/agents/a1/notes?q=%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out, _ := e.call(t, "GET", tt.path, "", nil)
			if status != http.StatusBadRequest || out["code"] != loci.EINVALID {
				t.Errorf("status %d %v, want 400 invalid", status, out)
			}
		})
	}
	if status, _, _ := e.call(t, "GET", "/v1/agents/a1/notes?limit=1000&offset=0", "", nil); status != 200 {
		t.Errorf("limit=1000: status %d, want 200", status)
	}
}

func TestExportImportHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		src := newSecEnv(t, open)
		admin, _ := src.key(t, loci.RoleAdmin, "")
		for _, k := range []string{"a", "b"} {
			src.call(t, "PUT", "/v1/agents/a1/notes/"+k, admin, []byte(`{"value":"v1"}`))
			src.call(t, "PUT", "/v1/agents/a1/notes/"+k, admin, []byte(`{"value":{"v":2}}`))
		}
		status, _, rec := src.call(t, "GET", "/v1/export", admin, nil)
		if status != 200 || rec.Header().Get("Content-Type") != "application/x-ndjson" {
			t.Fatalf("export: %d %s", status, rec.Header().Get("Content-Type"))
		}
		first := rec.Body.String()
		if strings.Count(first, "\n") != 2 {
			t.Errorf("export:\n%s", first)
		}
		dst := newSecEnv(t, open)
		status, out, _ := dst.call(t, "POST", "/v1/import", "", []byte(first))
		if status != http.StatusCreated || out["records"] != 2.0 || out["versions"] != 2.0 {
			t.Fatalf("import: %d %v", status, out)
		}
		_, _, rec = dst.call(t, "GET", "/v1/export", "", nil)
		if rec.Body.String() != first {
			t.Errorf("round trip differs:\n%s\n%s", first, rec.Body.String())
		}
		// Imported again, everything is skipped.
		if status, out, _ := dst.call(t, "POST", "/v1/import", "", []byte(first)); status != http.StatusCreated || out["skipped"] != 2.0 || out["records"] != 0.0 {
			t.Errorf("second import: status %d %v, want 201 with 2 skipped", status, out)
		}
		changed := strings.Replace(first, `"version":2`, `"version":3`, 1)
		if status, _, _ := dst.call(t, "POST", "/v1/import", "", []byte(changed)); status != http.StatusConflict {
			t.Errorf("import of a record stored with other content: status %d, want 409", status)
		}
		// The export is audited with its count, not its content.
		entries, _, _ := src.svc.FindAudit(context.Background(), loci.AuditFilter{Operation: "export"})
		if len(entries) != 1 || entries[0].Count != 2 {
			t.Errorf("export audit = %+v", entries)
		}
		small := newSecEnv(t, open, WithMaxImportBytes(10))
		if status, _, _ := small.call(t, "POST", "/v1/import", "", []byte(first)); status != http.StatusRequestEntityTooLarge {
			t.Errorf("oversize import: status %d, want 413", status)
		}
	})
}

// TestImportRulesHTTP: POST /v1/import refuses with 400, naming the line and
// importing nothing, what the API refuses across records or in a value (a
// task's working values over 50 KB in all, more than 1,000 episodes for a user
// and agent, a note with an empty value) and what later reads would disagree
// with (a session whose message_count is not its messages', a message index
// twice, a message without its session, a tag twice).
func TestImportRulesHTTP(t *testing.T) {
	const at = `"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1`
	const expires = `"expires_at":"2099-01-01T00:00:00Z"` // every working entry and episode has one
	working := func(id, key string, n int) string {
		v := `"` + strings.Repeat("w", n-2) + `"`
		return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"working","agent_id":"a","task_id":"t","key":%q,"content":%q,"data":{"value":%s},%s,%s}`, id, key, v, v, expires, at)
	}
	var episodes strings.Builder
	for i := range 1005 {
		fmt.Fprintf(&episodes, `{"type":"record","id":"e%d","workspace":"default","kind":"episode","user_id":"u","agent_id":"a","content":"did it","data":{},"outcome":"success",%s,%s}`+"\n", i, expires, at)
	}
	session := func(count int) string {
		return fmt.Sprintf(`{"type":"record","id":"s","workspace":"default","kind":"session","user_id":"u","session_id":"s1","key":"s1","content":"","data":{"message_count":%d},"category":"session",%s}`, count, at)
	}
	message := func(id, sid string, index int) string {
		return fmt.Sprintf(`{"type":"record","id":%q,"workspace":"default","kind":"session","user_id":"u","session_id":%q,"content":"hi","data":{"role":"user","index":%d},"category":"message",%s}`, id, sid, index, at)
	}
	note := func(value, tags string) string {
		return fmt.Sprintf(`{"type":"record","id":"n","workspace":"default","kind":"note","agent_id":"a","key":"k","content":"x","tags":%s,"data":{"value":%s},%s}`, tags, value, at)
	}
	fact := func(content, extra string) string {
		return fmt.Sprintf(`{"type":"record","id":"f1","workspace":"default","kind":"fact","user_id":"u1","content":%s,"data":{"is_validated":false,"contradiction_count":0},"category":"general_fact",%s%s}`, content, at, extra)
	}
	tests := []struct {
		name, body, want string
	}{
		{"ErrWorkingOver50KB", working("w1", "k1", 30000) + "\n" + working("w2", "k2", 30000), "line 2: "},
		{"ErrOver1000Episodes", episodes.String(), "line 1001: "},
		{"ErrNoteEmptyValue", note(`""`, `[]`), "line 1: "},
		{"ErrMessageCount", session(0) + "\n" + message("m0", "s1", 0), "line 1: "},
		{"ErrDuplicateIndex", session(2) + "\n" + message("m0", "s1", 0) + "\n" + message("m1", "s1", 0), "line 3: "},
		{"ErrMessageWithoutSession", message("m0", "nope", 0), "line 1: "},
		{"ErrDuplicateTags", note(`"v"`, `["x","x"]`), "line 1: "},
		// A fact's validity in the years both backends store (once in UTC),
		// its end not before its start, its content not empty.
		{"ErrValidAtBeforeYear1", fact(`"lives in Paris"`, `,"valid_at":"0000-01-01T00:00:00+01:00"`), "line 1: "},
		{"ErrInvalidAtPast9999", fact(`"lives in Paris"`, `,"valid_at":"2026-01-01T00:00:00Z","invalid_at":"9999-12-31T23:59:59-01:00"`), "line 1: "},
		{"ErrInvalidBeforeValid", fact(`"lives in Paris"`, `,"valid_at":"2026-01-01T00:00:00Z","invalid_at":"2025-01-01T00:00:00Z"`), "line 1: "},
		{"ErrFactEmpty", fact(`""`, ``), "line 1: "},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		// One server: every case is refused, storing nothing.
		e := newSecEnv(t, open)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, out, _ := e.call(t, "POST", "/v1/import", "", []byte(tt.body))
				if msg, _ := out["error"].(string); status != http.StatusBadRequest || out["code"] != loci.EINVALID || !strings.HasPrefix(msg, tt.want) {
					t.Errorf("import: %d %v, want 400 invalid starting %q", status, out, tt.want)
				}
				if _, _, rec := e.call(t, "GET", "/v1/export", "", nil); rec.Body.Len() != 0 {
					t.Errorf("a refused import stored:\n%s", rec.Body.String())
				}
			})
		}
	})
}
