package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// A JSON request body is read once, by the guard, checked once, by
// checkBody, and decoded once, by its handler's decode from the guard's
// bytes (bodyKey).

// MaxBodyBytes bounds every request body.
const MaxBodyBytes = 1 << 20

// MaxJSONDepth bounds how deeply a request body may nest.
const MaxJSONDepth = 32

// bodyKey is the context key of the body the guard read.
type bodyKey struct{}

// withBody returns ctx carrying the body the guard read.
func withBody(ctx context.Context, body []byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, body)
}

// bodyOf returns the body the guard read for r (nil when it had none).
func bodyOf(r *http.Request) []byte {
	b, _ := r.Context().Value(bodyKey{}).([]byte)
	return b
}

// readBody reads a request body of at most MaxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, loci.Errorf(loci.ETOOLARGE, "request body must be at most %d bytes", MaxBodyBytes)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, loci.Errorf(loci.EINVALID, "the request body stopped arriving before the server's read timeout")
		}
		return nil, loci.Errorf(loci.EINVALID, "cannot read request body")
	}
	return body, nil
}

// decode decodes the JSON object body the guard read into v: each member
// by its exact name (checkMembers), no unknown fields, nothing after the
// object. The guard has already checked it (checkBody), so v's fields get
// no invalid UTF-8, NUL, member given twice, deep nesting or infinite
// number.
func decode(r *http.Request, v any) error {
	body := bodyOf(r)
	if len(bytes.TrimSpace(body)) == 0 {
		return loci.Errorf(loci.EINVALID, "request body must be a JSON object")
	}
	return decodeJSON(body, v, "")
}

// decodeJSON decodes one JSON value into v as decode does: a body the guard
// checked, or (at naming its member) a part of one.
func decodeJSON(body []byte, v any, at string) error {
	if err := checkMembers(body, reflect.TypeOf(v), at); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// encoding/json words an unknown field `json: unknown field "x"`
		// and has no error type for it.
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			name, _ = strconv.Unquote(name)
			if fields := jsonFields(reflect.TypeOf(v)); len(fields) > 0 {
				return loci.Errorf(loci.EINVALID, "unknown field %s; this body takes %s", loggableName(name), strings.Join(fields, ", "))
			}
			return loci.Errorf(loci.EINVALID, "unknown field %s", loggableName(name))
		}
		return loci.Errorf(loci.EINVALID, "malformed JSON: %s", jsonProblem(err))
	}
	if dec.More() {
		return loci.Errorf(loci.EINVALID, "malformed JSON: unexpected data after the object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return loci.Errorf(loci.EINVALID, "malformed JSON: unexpected data after the object")
	}
	return nil
}

// checkBody applies the checks every JSON request body gets before its
// handler decodes it, so bad input is refused the same way everywhere:
// valid UTF-8 (the decoder would silently replace invalid bytes, and a \u
// escape of a lone surrogate), well formed, nested at most MaxJSONDepth
// deep, no NUL in any string or key, no object with a member named twice
// (the decoder would keep the last), and every number finite as a
// float64. An empty body passes: handlers that need one say so.
//
// scanJSON decides, in one pass over the bytes that builds no tokens;
// checkJSON, the tokenizing reference, words a refusal.
func checkBody(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 || scanJSON(body) {
		return nil
	}
	return checkJSON(body)
}

// checkJSON is checkBody by tokens: what it refuses, and how it says so.
// It is the reference scanJSON is fuzzed against (FuzzCheckJSON), and it
// runs only to word a refusal.
func checkJSON(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return loci.Errorf(loci.EINVALID, "request body must be valid UTF-8")
	}
	if esc := loneSurrogate(body); esc != "" {
		return loci.Errorf(loci.EINVALID, "request body must be valid UTF-8: %s is half of a surrogate pair, not a character", esc)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// The containers open at this point, innermost last: for an object, the
	// member names seen and whether the next string is a name.
	type container struct {
		object  bool
		names   map[string]bool
		name    string // the member being read
		index   int    // the element being read
		wantKey bool
	}
	var open []*container
	// where names the place of the innermost open container.
	where := func() string {
		var b strings.Builder
		for _, c := range open[:len(open)-1] {
			if c.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(loggableName(c.name))
			} else {
				fmt.Fprintf(&b, "[%d]", c.index)
			}
		}
		return b.String()
	}
	// value is called for each value read: it moves its container on.
	value := func() {
		if n := len(open); n > 0 {
			if c := open[n-1]; c.object {
				c.wantKey = true
			} else {
				c.index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(open) != 0 {
				return loci.Errorf(loci.EINVALID, "malformed JSON: unexpected end of input")
			}
			return nil
		} else if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
				return loci.Errorf(loci.EINVALID, "malformed JSON: %s", jsonProblem(err))
			}
			return loci.Errorf(loci.EINVALID, "malformed JSON")
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if len(open) >= MaxJSONDepth {
					return loci.Errorf(loci.EINVALID, "JSON must not nest more than %d levels deep", MaxJSONDepth)
				}
				open = append(open, &container{object: v == '{', names: map[string]bool{}, wantKey: true})
			} else {
				open = open[:len(open)-1]
				value()
			}
			continue
		case string:
			if strings.IndexByte(v, 0) >= 0 {
				return loci.Errorf(loci.EINVALID, "JSON strings must not contain NUL characters")
			}
			if n := len(open); n > 0 && open[n-1].object && open[n-1].wantKey {
				c := open[n-1]
				if c.names[v] {
					if at := where(); at != "" {
						return loci.Errorf(loci.EINVALID, "%s: member %s is given twice", at, loggableName(v))
					}
					return loci.Errorf(loci.EINVALID, "member %s is given twice", loggableName(v))
				}
				c.names[v], c.name, c.wantKey = true, v, false
				continue
			}
		case json.Number:
			if _, err := strconv.ParseFloat(string(v), 64); err != nil {
				return loci.Errorf(loci.EINVALID, "number %.40s is out of range", string(v))
			}
		}
		value()
	}
}

// loneSurrogate returns the first \u escape in body that names half of a
// UTF-16 surrogate pair alone (which decoders silently turn into U+FFFD),
// or "" when there is none.
func loneSurrogate(body []byte) string {
	inString := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(body):
			if body[i+1] != 'u' {
				i++ // the escaped character
				continue
			}
			r, ok := hex4(body[i+2:])
			switch {
			case !ok:
			case 0xD800 <= r && r < 0xDC00:
				if lo, ok := hex4(body[min(i+8, len(body)):]); ok && i+8 <= len(body) && body[i+6] == '\\' && body[i+7] == 'u' && 0xDC00 <= lo && lo <= 0xDFFF {
					i += 11
					continue
				}
				return string(body[i : i+6])
			case 0xDC00 <= r && r <= 0xDFFF:
				return string(body[i : i+6])
			}
			i++
		}
	}
	return ""
}

// loggableName is a field name as an error message may quote it: at most
// 64 bytes (the body is not echoed at length).
func loggableName(name string) string {
	if len(name) > 64 {
		return strings.ToValidUTF8(name[:64], "") + "…"
	}
	return name
}

// jsonFields returns the JSON names of the fields a value of type t
// decodes, in declaration order (those of embedded structs in place).
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return fieldsOf(t).names
}

// jsonProblem describes a decoding error without echoing the body.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		if te.Field != "" {
			return "field " + strconv.Quote(te.Field) + " must be " + te.Type.String()
		}
		return "body must be a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	default:
		// e.g. `json: unknown field "ttl"`, which has no error type.
		return strings.TrimPrefix(err.Error(), "json: ")
	}
}

// resolveRequest is the body of the resolve routes: keep is required.
type resolveRequest struct {
	Keep *bool `json:"keep"`
}

// readResolve reads a resolve body.
func readResolve(w http.ResponseWriter, r *http.Request) (bool, error) {
	var req resolveRequest
	if err := decode(r, &req); err != nil {
		return false, err
	}
	if req.Keep == nil {
		return false, loci.Errorf(loci.EINVALID, "keep is required: true keeps it, false does not")
	}
	return *req.Keep, nil
}
