// Package jsoncheck refuses the JSON text that loci never stores, wherever
// it comes from (a request body, an import's line): invalid UTF-8, a \u
// escape of a lone surrogate, malformed JSON, nesting deeper than a limit,
// a NUL in a string or a member name, an object with a member named twice,
// a number that is not finite as a float64. Decoders take all of these
// without a word, or change them (a lone surrogate becomes U+FFFD, the
// last of two members wins), so a value stored from one would not be the
// one that was sent.
//
// Scan decides, in one pass over the bytes that builds no tokens; Refusal,
// the tokenizing reference, words a refusal; Check is both.
package jsoncheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// Check returns nil when b passes Scan (text that is only white space
// passes), else Refusal's error, naming b what ("request body").
func Check(b []byte, what string, maxDepth int) error {
	if _, ok := Scan(b, maxDepth); ok {
		return nil
	}
	return Refusal(b, what, maxDepth)
}

// Refusal is Scan by tokens: what it refuses, and how it says so (EINVALID,
// naming b what in a refusal of its encoding, and the member or entry
// where an object names a member twice); nil for text it accepts, a stream
// of JSON values one after another, or only white space. Past encoding/json's
// own limit (10,000 levels) the text is malformed, whatever maxDepth. It
// is the reference Scan is fuzzed against, and runs only to word a
// refusal.
func Refusal(b []byte, what string, maxDepth int) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if !utf8.Valid(b) {
		return loci.Errorf(loci.EINVALID, "%s must be valid UTF-8", what)
	}
	if esc := loneSurrogate(b); esc != "" {
		return loci.Errorf(loci.EINVALID, "%s must be valid UTF-8: %s is half of a surrogate pair, not a character", what, esc)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
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
				b.WriteString(Name(c.name))
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
			if errors.As(err, &se) {
				return loci.Errorf(loci.EINVALID, "malformed JSON: syntax error at byte %d", se.Offset)
			} else if errors.Is(err, io.ErrUnexpectedEOF) {
				return loci.Errorf(loci.EINVALID, "malformed JSON: unexpected end of input")
			}
			return loci.Errorf(loci.EINVALID, "malformed JSON")
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if len(open) >= maxDepth {
					return loci.Errorf(loci.EINVALID, "JSON must not nest more than %d levels deep", maxDepth)
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
						return loci.Errorf(loci.EINVALID, "%s: member %s is given twice", at, Name(v))
					}
					return loci.Errorf(loci.EINVALID, "member %s is given twice", Name(v))
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

// loneSurrogate returns the first \u escape in b that names half of a
// UTF-16 surrogate pair alone (which decoders silently turn into U+FFFD),
// or "" when there is none.
func loneSurrogate(b []byte) string {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if b[i+1] != 'u' {
				i++ // the escaped character
				continue
			}
			r, ok := hex4(b[i+2:])
			switch {
			case !ok:
			case 0xD800 <= r && r < 0xDC00:
				if lo, ok := hex4(b[min(i+8, len(b)):]); ok && i+8 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' && 0xDC00 <= lo && lo <= 0xDFFF {
					i += 11
					continue
				}
				return string(b[i : i+6])
			case 0xDC00 <= r && r <= 0xDFFF:
				return string(b[i : i+6])
			}
			i++
		}
	}
	return ""
}

// Name is a member name as an error message may quote it: at most 64
// bytes (the text is not echoed at length).
func Name(name string) string {
	if len(name) > 64 {
		return strings.ToValidUTF8(name[:64], "") + "…"
	}
	return name
}
