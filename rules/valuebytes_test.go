package rules

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestValueBytes: a value counts as its compact JSON with strings as UTF-8
// (what encoding/json writes without HTML escaping), however the client
// spaced and escaped it.
func TestValueBytes(t *testing.T) {
	for _, tc := range []struct{ name, sent, same string }{
		{"String", `"été"`, ""},
		{"Escaped", `"\u00e9t\u00e9"`, `"été"`},
		{"EscapedHTML", `"\u003cb\u003e \u0026"`, `"<b> &"`},
		{"Quotes", `"a \"b\" \\ c\nd\te"`, ""},
		{"Control", `"\u0001"`, ""},
		{"Spaced", `{ "a" : [ 1 , 2.50 , true , false , null ] , "b" : { } , "c" : [ ] }`, `{"a":[1,2.50,true,false,null],"b":{},"c":[]}`},
		{"Nested", `{"x": {"y": ["\u00e9", {"z": "w"}]}}`, `{"x":{"y":["é",{"z":"w"}]}}`},
		{"Number", `-1.5e10`, `-1.5e10`},
		{"Surrogates", `"\ud83d\ude00"`, `"😀"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.same
			if want == "" {
				var v any
				if err := json.Unmarshal([]byte(tc.sent), &v); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
				want = string(bytes.TrimSpace(buf.Bytes()))
			}
			if got := valueBytes([]byte(tc.sent)); got != len(want) {
				t.Errorf("valueBytes(%s) = %d, want %d (the length of %s)", tc.sent, got, len(want), want)
			}
		})
	}
}
