package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/jsoncheck"
)

// A JSON request body is read once, by the guard, checked once, by
// checkBody, and decoded once, by its handler's decode from the guard's
// bytes (bodyKey).

// MaxBodyBytes bounds every request body.
const MaxBodyBytes = 1 << 20

// MaxJSONDepth bounds how deeply a request body may nest.
const MaxJSONDepth = loci.MaxJSONDepth

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
// float64. An empty body passes: handlers that need one say so. An
// import checks each of its lines the same way (rules, checkImportLine).
//
// scanJSON decides, in one pass over the bytes that builds no tokens;
// checkJSON, the tokenizing reference, words a refusal.
func checkBody(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 || scanJSON(body) {
		return nil
	}
	return checkJSON(body)
}

// scanJSON reports whether body passes checkJSON (jsoncheck.Scan).
func scanJSON(body []byte) bool {
	_, ok := jsoncheck.Scan(body, MaxJSONDepth)
	return ok
}

// checkJSON is checkBody by tokens: what it refuses, and how it says so
// (jsoncheck.Refusal). It is the reference scanJSON is fuzzed against
// (FuzzCheckJSON), and it runs only to word a refusal.
func checkJSON(body []byte) error {
	return jsoncheck.Refusal(body, "request body", MaxJSONDepth)
}

// loggableName is a field name as an error message may quote it: at most
// 64 bytes (the body is not echoed at length).
func loggableName(name string) string { return jsoncheck.Name(name) }

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
