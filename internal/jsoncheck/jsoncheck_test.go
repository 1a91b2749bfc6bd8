package jsoncheck_test

import (
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/jsoncheck"
)

// TestScanDepth: Scan reports how deeply the text nests, within its limit
// and past it, and refuses it past it.
func TestScanDepth(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		text      string
		max, want int
		ok        bool
	}{
		{`"x"`, 1, 0, true},
		{`{"a":[1,{"b":{}}]}`, 4, 4, true},
		{`{"a":[1,{"b":{}}]}`, 3, 3, false},
		{`{} [[]]`, 2, 2, true},
		{nested(40), 35, 35, false},
	} {
		depth, ok := jsoncheck.Scan([]byte(tc.text), tc.max)
		if depth != tc.want || ok != tc.ok {
			t.Errorf("Scan(%s, %d) = %d, %v; want %d, %v", tc.text, tc.max, depth, ok, tc.want, tc.ok)
		}
	}
}

// TestRefusal: a refusal names the text it checks where it refuses its
// encoding, and holds to the depth it is given; Check
// refuses as Refusal does.
func TestRefusal(t *testing.T) {
	deep := []byte(strings.Repeat("[", 40) + strings.Repeat("]", 40))
	for _, tc := range []struct {
		text, what string
		max        int
		want       string
	}{
		{`"a\ud800"`, "each line", 32, `each line must be valid UTF-8: \ud800 is half of a surrogate pair, not a character`},
		{"\"\xff\"", "request body", 32, "request body must be valid UTF-8"},
		{string(deep), "x", 32, "JSON must not nest more than 32 levels deep"},
		{string(deep), "x", 40, ""},
		{`{"a":{"b":1,"b":2}}`, "x", 32, "a: member b is given twice"},
	} {
		err := jsoncheck.Refusal([]byte(tc.text), tc.what, tc.max)
		if tc.want == "" && err != nil || tc.want != "" && (loci.ErrorCode(err) != loci.EINVALID || loci.ErrorMessage(err) != tc.want) {
			t.Errorf("Refusal(%s, %q, %d) = %v, want %q", tc.text, tc.what, tc.max, err, tc.want)
		}
		if got := jsoncheck.Check([]byte(tc.text), tc.what, tc.max); loci.ErrorMessage(got) != loci.ErrorMessage(err) {
			t.Errorf("Check(%s, %q, %d) = %v, Refusal: %v", tc.text, tc.what, tc.max, got, err)
		}
	}
}
