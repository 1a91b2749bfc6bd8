package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
)

// TestScanJSON: the one-pass scan accepts exactly what the tokenizing
// reference accepts, on the shapes where JSON parsers tend to differ.
func TestScanJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, body := range []string{
		`{}`, `[]`, `{"a":1}`, `{"a":[1,2,{"b":null}],"c":true,"d":false}`, `"x"`, `1`, `-0`, `0.5e-3`, `1E+2`,
		`{"a":1} {"b":2}`, `{}{}`, `1 2`, `1-2`, `01`, `truefalse`, `"a""b"`, `true1`,
		`{"a":1,}`, `[1,]`, `[,1]`, `{1:2}`, `{"a" 1}`, `{"a":}`, `[01]`, `[1 2]`, `[truex]`, `{},`, `{}:`, `}`,
		`-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `1.5.5`, `tru`, `nul`, `[`, `{"a":`, `"abc`,
		`1e308`, `1e309`, `-1e400`, `1e-400`, `1.7976931348623157e308`, `1.7976931348623159e308`,
		strings.Repeat("9", 300), strings.Repeat("9", 309), strings.Repeat("9", 400), "0." + strings.Repeat("0", 400) + "1",
		`"\u0000"`, `{"a\u0000":1}`, `"\\u0000"`, `"\u000A"`, `"\u00"`, `"\uZZZZ"`, `"\ud800"`, `"\x"`, `"\/"`,
		"\"a\x00b\"", "\"a\x1fb\"", "\"\xff\"", "\"\xe2\x82\"", "\"é\"", "\xc2\xa0{}", "\v{}", "\ufeff{}",
		`"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\ud800\u0041"`, `"\udc00"`, `"\ud800\ud800"`, `"\udbff\udfff"`, `"\ud800\"`,
		`"\ud800\n"`, `"\ud800\udc0"`, `"\\ud800"`, `{"\ud800":1}`, `"\ud7ff\ue000"`,
		`{"a":1,"a":2}`, `{"a":1,"b":{"a":2}}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":1}}`, `[{"a":1},{"a":1}]`, `{"":1,"":2}`,
		`{"a\/":1,"a/":2}`, `{"é":1,"\u00e9":2}`, `{"é":1,"\u00c9":2}`, `{"a":1,"A":2}`, manyMembers(40, false), manyMembers(40, true),
		deep(32), deep(33), `{"a":` + deep(31) + `}`, `{"a":` + deep(32) + `}`,
	} {
		b := []byte(body)
		if got, want := scanJSON(b), checkJSON(b) == nil; got != want {
			t.Errorf("scanJSON(%q) = %v, want %v (checkJSON: %v)", body, got, want, checkJSON(b))
		}
	}
}

// manyMembers is an object of n members, its last name repeating its
// first when twice is set (past what scanJSON compares in place).
func manyMembers(n int, twice bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		name := fmt.Sprintf("m%d", i)
		if twice && i == n-1 {
			name = `\u006d0`
		}
		fmt.Fprintf(&b, `"%s":%d,`, name, i)
	}
	return strings.TrimSuffix(b.String(), ",") + "}"
}

// TestCheckBodyRefuses: what checkBody refuses beyond malformed JSON, in
// its words: a lone surrogate, a member given twice (named by where it
// stands).
func TestCheckBodyRefuses(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"content":"a\ud800"}`, `request body must be valid UTF-8: \ud800 is half of a surrogate pair, not a character`},
		{`{"content":"\uDC00x"}`, `request body must be valid UTF-8: \uDC00 is half of a surrogate pair, not a character`},
		{`{"content":"\ud800\u0041"}`, `request body must be valid UTF-8: \ud800 is half of a surrogate pair`},
		{`{"user_id":"a","user_id":"b"}`, "member user_id is given twice"},
		{`{"user_id":"a","user\u005fid":"b"}`, "member user_id is given twice"},
		{`{"add":[{"a":1},{"a":1,"b":2,"a":3}]}`, "add[1]: member a is given twice"},
		{`{"metadata":{"x":{"y":1,"y":2}}}`, "metadata.x: member y is given twice"},
		{manyMembers(40, true), "member m0 is given twice"},
	} {
		err := checkBody([]byte(tc.body))
		if err == nil || loci.ErrorCode(err) != loci.EINVALID || !strings.Contains(loci.ErrorMessage(err), tc.want) {
			t.Errorf("checkBody(%s) = %v, want invalid: %s", tc.body, err, tc.want)
		}
	}
	for _, body := range []string{`{"a":"\ud83d\ude00","b":{"a":1},"c":[{"a":1},{"a":1}]}`, manyMembers(40, false)} {
		if err := checkBody([]byte(body)); err != nil {
			t.Errorf("checkBody(%s) = %v, want nil", body, err)
		}
	}
}

// TestCheckBodyAllocatesNothing: a valid body is checked without being
// tokenized (the tokenizer allocates for every token).
func TestCheckBodyAllocatesNothing(t *testing.T) {
	body := []byte(`{"value":{"list":[1,2.5,-3e10,true,false,null],"text":"caf\u00e9 \"quoted\"","n":{"m":{}}},"tags":["a","b"]}`)
	if err := checkBody(body); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { checkBody(body) }); n != 0 {
		t.Errorf("checkBody allocates %v times per body, want 0", n)
	}
}

// poisonedBody fails the test when anything reads it.
type poisonedBody struct{ t *testing.T }

func (b poisonedBody) Read([]byte) (int, error) {
	b.t.Error("the request body was read again after the guard")
	return 0, http.ErrBodyReadAfterClose
}

func (b poisonedBody) Close() error { return nil }

// TestBodyReadOnce: the guard reads the body and checks it; the handler
// decodes the guard's bytes and never reads the body again.
func TestBodyReadOnce(t *testing.T) {
	s := NewServer(nil, slog.New(slog.DiscardHandler))
	// A documented route (TestMain checks what each answers), public here.
	rt := Route{Method: "PUT", Pattern: "/v1/agents/{agent_id}/notes/{key}", Policy: Policy{Role: public, Agent: loci.AgentFree}}
	var got struct {
		Value json.RawMessage `json:"value"`
	}
	h := s.guard(rt, func(w http.ResponseWriter, r *http.Request) {
		r.Body = poisonedBody{t}
		if err := decode(r, &got); err != nil {
			t.Errorf("decode: %v", err)
		}
		w.WriteHeader(http.StatusOK)
	})

	body := strings.NewReader(`{"value":{"a":[1,2]}}`)
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest("PUT", "/v1/agents/a1/notes/k", body))
	if rec.Code != http.StatusOK || string(got.Value) != `{"a":[1,2]}` {
		t.Errorf("status %d, value %s: want 200 and the body's value", rec.Code, got.Value)
	}
	if body.Len() != 0 {
		t.Errorf("%d bytes of the body left unread", body.Len())
	}

	// A body the guard refuses never reaches the handler.
	rec = httptest.NewRecorder()
	h(rec, httptest.NewRequest("PUT", "/v1/agents/a1/notes/k", bytes.NewReader([]byte(`{"value":"a\u0000"}`))))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "JSON strings must not contain NUL characters") {
		t.Errorf("NUL body: %d %s, want 400 and the check's message", rec.Code, rec.Body.String())
	}
}

// TestDecodeWithoutBody: a handler that decodes a request that had no body
// is told it needs one.
func TestDecodeWithoutBody(t *testing.T) {
	var v struct{}
	err := decode(httptest.NewRequest("POST", "/", nil), &v)
	if loci.ErrorCode(err) != loci.EINVALID || loci.ErrorMessage(err) != "request body must be a JSON object" {
		t.Errorf("decode without body: %v", err)
	}
}
