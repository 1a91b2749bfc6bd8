package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// checkJSON applies the checks every JSON request body gets before its
// handler decodes it, so bad input is refused the same way everywhere:
// valid UTF-8 (the decoder would silently replace invalid bytes), well
// formed, nested at most MaxJSONDepth deep, no NUL in any string or key,
// and every number finite as a float64. An empty body passes: handlers
// that need one say so.
func checkJSON(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !utf8.Valid(body) {
		return loci.Errorf(loci.EINVALID, "request body must be valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth != 0 {
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
				if depth++; depth > MaxJSONDepth {
					return loci.Errorf(loci.EINVALID, "JSON must not nest more than %d levels deep", MaxJSONDepth)
				}
			} else {
				depth--
			}
		case string:
			if strings.IndexByte(v, 0) >= 0 {
				return loci.Errorf(loci.EINVALID, "JSON strings must not contain NUL characters")
			}
		case json.Number:
			if _, err := strconv.ParseFloat(string(v), 64); err != nil {
				return loci.Errorf(loci.EINVALID, "number %.40s is out of range", string(v))
			}
		}
	}
}

// jsonDecoder returns a decoder over body that keeps numbers as text.
func jsonDecoder(body []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec
}
