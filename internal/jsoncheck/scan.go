package jsoncheck

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Scan reports whether b passes Refusal with maxDepth (whose tokens accept
// a stream of JSON values, one after another), and how deeply b nests, in
// one pass over its bytes that builds no tokens: valid UTF-8, no \u escape
// of a lone surrogate (half of a UTF-16 pair, which is no character),
// well-formed JSON, nested at most maxDepth deep, no \u0000 in any string
// or member name (a raw NUL is malformed), no object with one member name
// twice, every number finite as a float64. It allocates nothing but for
// an object of more than smallObject members, whose names it keeps in a
// map. The depth is that of what it read, when it refuses b.
func Scan(b []byte, maxDepth int) (depth int, ok bool) {
	s := Scanner{b: b, maxDepth: maxDepth}
	s.Space()
	for s.i < len(s.b) {
		if !s.value(0) {
			return s.deepest, false
		}
		s.Space()
	}
	return s.deepest, true
}

// Scanner walks a JSON text; each method consumes what it names and
// reports whether it was valid (as Scan, which walks the whole text with
// one). A caller that walks a text beside something else (httpapi's check
// of a body's members against the type it decodes into) steps through it
// with the exported methods.
type Scanner struct {
	b        []byte
	i        int
	maxDepth int // how deep containers may nest
	deepest  int // how deep they nested
}

// NewScanner returns a Scanner at the start of b, whose values nest at
// most maxDepth deep.
func NewScanner(b []byte, maxDepth int) Scanner {
	return Scanner{b: b, maxDepth: maxDepth}
}

// Peek returns the byte that comes next, false at the end of the text.
func (s *Scanner) Peek() (byte, bool) {
	if s.i >= len(s.b) {
		return 0, false
	}
	return s.b[s.i], true
}

// Value consumes one value, as Scan checks it.
func (s *Scanner) Value() bool { return s.value(0) }

// Str consumes a string and returns its contents as written, between
// the quotes (MemberName reads a member name's escapes).
func (s *Scanner) Str() ([]byte, bool) {
	start := s.i
	if c, _ := s.Peek(); c != '"' || !s.str() {
		return nil, false
	}
	return s.b[start+1 : s.i-1], true
}

// Number consumes a number and returns its text.
func (s *Scanner) Number() ([]byte, bool) {
	start := s.i
	if !s.number() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// Space consumes white space.
func (s *Scanner) Space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value nested in depth containers.
func (s *Scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		if depth >= s.maxDepth {
			return false
		}
		s.deepest = max(s.deepest, depth+1)
		if c == '{' {
			return s.object(depth + 1)
		}
		return s.array(depth + 1)
	case c == '"':
		return s.str()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *Scanner) object(depth int) bool {
	s.i++ // {
	s.Space()
	if s.Next('}') {
		return true
	}
	var names memberNames
	for {
		start := s.i
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		if !names.add(s.b[start+1 : s.i-1]) {
			return false
		}
		s.Space()
		if !s.Next(':') {
			return false
		}
		s.Space()
		if !s.value(depth) {
			return false
		}
		s.Space()
		if s.Next('}') {
			return true
		}
		if !s.Next(',') {
			return false
		}
		s.Space()
	}
}

func (s *Scanner) array(depth int) bool {
	s.i++ // [
	s.Space()
	if s.Next(']') {
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.Space()
		if s.Next(']') {
			return true
		}
		if !s.Next(',') {
			return false
		}
		s.Space()
	}
}

// Next consumes c when it comes next.
func (s *Scanner) Next(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str scans a string: no control character, valid escapes, valid UTF-8,
// no \u0000, no \u escape of a lone surrogate.
func (s *Scanner) str() bool {
	s.i++ // "
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false
				}
				r, ok := hex4(s.b[s.i+2:])
				switch {
				case !ok || r == 0:
					return false
				case 0xD800 <= r && r < 0xDC00: // a high surrogate: its low one must follow
					if s.i+12 > len(s.b) || s.b[s.i+6] != '\\' || s.b[s.i+7] != 'u' {
						return false
					}
					if lo, ok := hex4(s.b[s.i+8:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
						return false
					}
					s.i += 12
				case 0xDC00 <= r && r <= 0xDFFF: // a low surrogate with no high one
					return false
				default:
					s.i += 6
				}
			default:
				return false
			}
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			s.i += n
		}
	}
	return false
}

// number scans a number that is finite as a float64.
func (s *Scanner) number() bool {
	start := s.i
	s.Next('-')
	switch {
	case s.Next('0'):
	case s.digits() == 0:
		return false
	}
	if s.Next('.') && s.digits() == 0 {
		return false
	}
	exp := s.Next('e') || s.Next('E')
	if exp {
		if !s.Next('+') {
			s.Next('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	// Without an exponent, 300 digits are far below the largest float64
	// (about 1.8e308): only a longer number can overflow.
	if exp || s.i-start > 300 {
		_, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
		return err == nil
	}
	return true
}

// digits consumes a run of digits and returns its length.
func (s *Scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// literal scans true, false or null.
func (s *Scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// hex4 reads the four hex digits of a \u escape from the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, h := range b[:4] {
		switch {
		case '0' <= h && h <= '9':
			r = r<<4 | rune(h-'0')
		case 'a' <= h && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case 'A' <= h && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// smallObject is how many member names of one object Scan compares in
// place, one with another, before it keeps them in a map.
const smallObject = 16

// memberNames are the member names of one object so far, raw (between the
// quotes, escapes as written), to refuse a name given twice: encoding/json
// would keep the last value and drop the first without a word.
type memberNames struct {
	n     int
	small [smallObject][]byte
	big   map[string]struct{}
}

// add records name and reports whether it is new to the object.
func (m *memberNames) add(name []byte) bool {
	if m.big != nil {
		k := MemberName(name)
		if _, dup := m.big[k]; dup {
			return false
		}
		m.big[k] = struct{}{}
		return true
	}
	for _, seen := range m.small[:m.n] {
		if sameMemberName(seen, name) {
			return false
		}
	}
	if m.n < smallObject {
		m.small[m.n] = name
		m.n++
		return true
	}
	m.big = make(map[string]struct{}, 2*smallObject)
	for _, seen := range m.small[:m.n] {
		m.big[MemberName(seen)] = struct{}{}
	}
	m.big[MemberName(name)] = struct{}{}
	return true
}

// sameMemberName reports whether two raw names name the same member: equal
// bytes, or equal once their escapes are read.
func sameMemberName(a, b []byte) bool {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.Equal(a, b)
	}
	return MemberName(a) == MemberName(b)
}

// MemberName is a raw name (a well-formed JSON string's contents) with its
// escapes read.
func MemberName(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return string(raw)
	}
	return s
}
