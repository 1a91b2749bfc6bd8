package httpapi

import (
	"strconv"
	"unicode/utf8"
)

// scanJSON reports whether body passes checkJSON (whose tokens accept a
// stream of JSON values, one after another), in one pass over its bytes
// that builds no tokens and allocates nothing: valid UTF-8, well-formed
// JSON, nested at most MaxJSONDepth deep, no \u0000 in any string or key
// (a raw NUL is malformed), every number finite as a float64.
func scanJSON(body []byte) bool {
	s := scanner{b: body}
	s.space()
	for s.i < len(s.b) {
		if !s.value(0) {
			return false
		}
		s.space()
	}
	return true
}

// scanner walks a JSON text; each method consumes what it names and
// reports whether it was valid.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
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
func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return depth < MaxJSONDepth && s.object(depth+1)
	case c == '[':
		return depth < MaxJSONDepth && s.array(depth+1)
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

func (s *scanner) object(depth int) bool {
	s.i++ // {
	s.space()
	if s.next('}') {
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return false
		}
		s.space()
		if !s.next(':') {
			return false
		}
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
		s.space()
	}
}

func (s *scanner) array(depth int) bool {
	s.i++ // [
	s.space()
	if s.next(']') {
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
		s.space()
	}
}

// next consumes c when it comes next.
func (s *scanner) next(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str scans a string: no control character, valid escapes, valid UTF-8,
// no \u0000.
func (s *scanner) str() bool {
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
				hex := s.b[s.i+2 : s.i+6]
				nul := true
				for _, h := range hex {
					switch {
					case h == '0':
					case '1' <= h && h <= '9', 'a' <= h && h <= 'f', 'A' <= h && h <= 'F':
						nul = false
					default:
						return false
					}
				}
				if nul {
					return false
				}
				s.i += 6
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
func (s *scanner) number() bool {
	start := s.i
	s.next('-')
	switch {
	case s.next('0'):
	case s.digits() == 0:
		return false
	}
	if s.next('.') && s.digits() == 0 {
		return false
	}
	exp := s.next('e') || s.next('E')
	if exp {
		if !s.next('+') {
			s.next('-')
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
func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// literal scans true, false or null.
func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}
