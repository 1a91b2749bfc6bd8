package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestImportChecksJSON: POST /v1/import refuses, with 400 naming the line
// and importing nothing, the JSON a request body may not carry (a NUL in
// a member name, a lone surrogate, a number out of float64's range, a
// value nested deeper than a body may nest, a member given twice), in a
// record's data, its metadata, a version, a user's defaults or the line
// itself; the deepest values the API stores still round trip.
func TestImportChecksJSON(t *testing.T) {
	const at = `"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"`
	note := func(id, data string) string {
		return `{"type":"record","id":"` + id + `","workspace":"default","kind":"note","agent_id":"a","key":"` + id +
			`","content":"v","data":` + data + `,` + at + `,"version":1}`
	}
	passage := func(metadata string) string {
		return `{"type":"record","id":"p1","workspace":"default","kind":"passage","agent_id":"a","content":"x","metadata":` + metadata + `,` + at + `,"version":1}`
	}
	withVersion := func(data string) string {
		return `{"type":"record","id":"n1","workspace":"default","kind":"note","agent_id":"a","key":"n1","content":"v","data":{"value":"v"},` + at +
			`,"version":2,"versions":[{"record_id":"n1","version":1,"content":"o","data":` + data + `,"updated_at":"2026-01-01T00:00:00Z"}]}`
	}
	user := func(defaults string) string {
		return `{"type":"user","id":"u","defaults":` + defaults + `,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
	}
	// nested is a value nested n levels deep.
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	good := note("n0", `{"value":"v"}`)
	tests := []struct {
		name, line, want string
	}{
		{"ErrNULInName", note("n1", `{"value":{"a\u0000":1}}`), "must not contain NUL"},
		{"ErrNULInDefaultsName", user(`{"a\u0000":1}`), "must not contain NUL"},
		{"ErrLoneSurrogate", note("n1", `{"value":"a\ud800"}`), `\ud800 is half of a surrogate pair`},
		{"ErrLoneSurrogateInMetadata", passage(`{"a":"b\udc00"}`), `\udc00 is half of a surrogate pair`},
		{"ErrNumberOutOfRange", note("n1", `{"value":1e400}`), "number 1e400 is out of range"},
		{"ErrNumberOutOfRangeInMetadata", passage(`{"a":-1e400}`), "number -1e400 is out of range"},
		{"ErrTooDeep", note("n1", `{"value":`+nested(loci.MaxJSONDepth)+`}`), "nest more than 32 levels"},
		{"ErrTooDeepInAVersion", withVersion(`{"value":` + nested(loci.MaxJSONDepth) + `}`), "nest more than 32 levels"},
		{"ErrMemberTwice", note("n1", `{"value":"a","value":"b"}`), "data: member value is given twice"},
		{"ErrMemberTwiceInMetadata", passage(`{"a":1,"a":2}`), "metadata: member a is given twice"},
		{"ErrMemberTwiceInAVersion", withVersion(`{"value":"a","value":"b"}`), "versions[0].data: member value is given twice"},
		{"ErrTopLevelMemberTwice", strings.Replace(note("n1", `{"value":"v"}`), `"content":"v"`, `"content":"v","content":"w"`, 1), "member content is given twice"},
		{"ErrMemberTwiceInDefaults", user(`{"a":1,"a":2}`), "defaults: member a is given twice"},
		{"ErrAgentMemberTwice", `{"type":"agent","id":"b","id":"c","name":"b","created_at":"2026-01-01T00:00:00Z"}`, "member id is given twice"},
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := newSecEnv(t, open)
				status, out, _ := e.call(t, "POST", "/v1/import", "", []byte(good+"\n"+tt.line+"\n"))
				if msg, _ := out["error"].(string); status != http.StatusBadRequest || out["code"] != loci.EINVALID ||
					!strings.HasPrefix(msg, "line 2: ") || !strings.Contains(msg, tt.want) {
					t.Errorf("import: %d %v, want 400 invalid naming line 2 and %q", status, out, tt.want)
				}
				if _, _, rec := e.call(t, "GET", "/v1/export", "", nil); rec.Body.Len() != 0 {
					t.Errorf("a refused import stored:\n%s", rec.Body.String())
				}
			})
		}
		t.Run("OK", func(t *testing.T) {
			e := newSecEnv(t, open)
			// The deepest value a note's body may carry, in its data and in
			// a version's, and a passage's deepest metadata.
			deepest := `{"value":` + nested(loci.MaxJSONDepth-1) + `}`
			body := note("n0", deepest) + "\n" + withVersion(deepest) + "\n" + passage(`{"a":{"b":{"c":{"d":1}}}}`) + "\n"
			if status, out, _ := e.call(t, "POST", "/v1/import", "", []byte(body)); status != http.StatusCreated || out["records"] != 3.0 {
				t.Errorf("import: %d %v, want 201 with 3 records", status, out)
			}
		})
	})
}

// TestImportRoundTripsDeepestValues: a note written through the API with
// the deepest value its body may carry, then written again (the first
// value kept as a version), exports to lines that import.
func TestImportRoundTripsDeepestValues(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		src := newSecEnv(t, open)
		nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
		for _, v := range []string{nested(loci.MaxJSONDepth - 1), "[" + nested(loci.MaxJSONDepth-2) + ",1]"} {
			if status, out, _ := src.call(t, "PUT", "/v1/agents/a1/notes/k", "", []byte(`{"value":`+v+`}`)); status >= 300 {
				t.Fatalf("remember: %d %v", status, out)
			}
		}
		_, _, rec := src.call(t, "GET", "/v1/export", "", nil)
		export := rec.Body.String()
		if !strings.Contains(export, `"versions":[`) {
			t.Fatalf("the export holds no version:\n%s", export)
		}
		dst := newSecEnv(t, open)
		if status, out, _ := dst.call(t, "POST", "/v1/import", "", []byte(export)); status != http.StatusCreated || out["records"] != 1.0 {
			t.Errorf("import of the export: %d %v", status, out)
		}
	})
}
