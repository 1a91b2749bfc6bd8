package loci_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
)

func TestNormalizeMetadata(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"OK", `{"b": 2, "a": "x"}`, `{"a":"x","b":2}`},
		{"None", `null`, ``},
		{"Empty", `{}`, ``},
		{"KeysOfAnyCharacters", `{"topicName": 1, "Ünïcode": 2, "user-agent": 3, "with space": 4}`,
			`{"topicName":1,"user-agent":3,"with space":4,"Ünïcode":2}`},
		{"AnyJSON", `{"n": null, "t": true, "f": 1.50, "e": 1e3, "l": [1, "a", null, [2], {"k": "v"}]}`,
			`{"e":1e3,"f":1.50,"l":[1,"a",null,[2],{"k":"v"}],"n":null,"t":true}`},
		{"NestedSortedAtEveryLevel", `{"food": {"kind": "veg", "allergy": {"nuts": true, "level": {"z": 1, "a": 2}}}}`,
			`{"food":{"allergy":{"level":{"a":2,"z":1},"nuts":true},"kind":"veg"}}`},
		{"IntegersExact", `{"big": 9007199254740993, "neg": -9223372036854775809}`, `{"big":9007199254740993,"neg":-9223372036854775809}`},
		{"NoHTMLEscaping", `{"q": "a & b < c > d"}`, `{"q":"a & b < c > d"}`},
		{"EscapedInputUnescaped", `{"q": "\u0026"}`, `{"q":"&"}`},
		{"NestedEmptyObjectKept", `{"a": {}}`, `{"a":{}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := loci.NormalizeMetadata(json.RawMessage(c.in))
			if err != nil {
				t.Fatalf("NormalizeMetadata(%s): %v", c.in, err)
			}
			if string(got) != c.want {
				t.Fatalf("NormalizeMetadata(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}

	keys := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"k%d": %d`, i, i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	// The 4 KB are the compact JSON's bytes: {"a":"…"} is 8 bytes
	// beside its string.
	fill := func(c string, n int) string { return `{"a": "` + strings.Repeat(c, n) + `"}` }
	for _, c := range []struct{ name, in, code string }{
		{"OK32Keys", keys(32), ""},
		{"Err33Keys", keys(33), loci.EINVALID},
		{"OKFourLevels", `{"a": {"b": {"c": {"d": 1}}}}`, ""},
		{"ErrFiveLevels", `{"a": {"b": {"c": {"d": {"e": 1}}}}}`, loci.EINVALID},
		{"ErrFiveLevelsInArray", `{"a": [{"b": {"c": {"d": {"e": 1}}}}]}`, loci.EINVALID},
		{"ErrDotKey", `{"a.b": 1}`, loci.EINVALID},
		{"ErrNestedDotKey", `{"a": {"b.c": 1}}`, loci.EINVALID},
		{"ErrControlKey", `{"a\tb": 1}`, loci.EINVALID},
		{"ErrC1ControlKey", `{"a\u0085b": 1}`, loci.EINVALID},
		{"ErrEmptyKey", `{"": 1}`, loci.EINVALID},
		{"OK64ByteKey", `{"` + strings.Repeat("é", 32) + `": 1}`, ""},
		{"Err65ByteKey", `{"` + strings.Repeat("é", 32) + `x": 1}`, loci.EINVALID},
		{"ErrNUL", `{"a": "x\u0000"}`, loci.EINVALID},
		{"ErrNotObject", `[1]`, loci.EINVALID},
		{"ErrMalformed", `{"a": }`, loci.EINVALID},
		{"OK4096Bytes", fill("a", loci.MaxMetadataBytes-8), ""},
		{"ErrTooLarge4097Bytes", fill("a", loci.MaxMetadataBytes-7), loci.ETOOLARGE},
		// &, < and > count one byte each, not six (\u0026).
		{"OK4096BytesOfAmpersands", fill("&", loci.MaxMetadataBytes-8), ""},
		{"OK4096BytesOfAngles", fill("<", loci.MaxMetadataBytes-8), ""},
		{"ErrTooLarge4097BytesOfAmpersands", fill("&", loci.MaxMetadataBytes-7), loci.ETOOLARGE},
		// Spacing in the request is not counted.
		{"OKSpacingNotCounted", `{"a":    "` + strings.Repeat("a", loci.MaxMetadataBytes-8) + `"   }`, ""},
		{"OKMultibyteCountedInBytes", fill("é", (loci.MaxMetadataBytes-8)/2), ""},
		{"ErrMultibyteCountedInBytes", fill("é", (loci.MaxMetadataBytes-8)/2+1), loci.ETOOLARGE},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loci.NormalizeMetadata(json.RawMessage(c.in))
			if got := loci.ErrorCode(err); err == nil && c.code != "" || err != nil && got != c.code {
				t.Fatalf("NormalizeMetadata(%.60s…) = %v, want code %q", c.in, err, c.code)
			}
		})
	}
}

// TestNormalizeImportedMetadata: an import takes back what earlier
// versions wrote (a top-level key holding '.', & escaped) and stores it
// in today's canonical form.
func TestNormalizeImportedMetadata(t *testing.T) {
	got, err := loci.NormalizeImportedMetadata(json.RawMessage(`{"a.b":"x \u0026 y","c":1}`))
	if err != nil || string(got) != `{"a.b":"x & y","c":1}` {
		t.Fatalf("NormalizeImportedMetadata = %s, %v", got, err)
	}
	if _, err := loci.NormalizeImportedMetadata(json.RawMessage(`{"a":{"b.c":1}}`)); loci.ErrorCode(err) != loci.EINVALID {
		t.Fatalf("a nested key holding '.' = %v, want invalid", err)
	}
}
