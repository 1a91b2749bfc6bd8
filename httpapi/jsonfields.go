package httpapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/jsoncheck"
)

// checkMembers checks a well-formed JSON value against the Go type t it is
// about to be decoded into, for what encoding/json lets by or reports
// without saying where:
//
//   - a member of an object decoded into a struct is one of the struct's
//     JSON names, exactly (encoding/json matches a name in any case, so
//     "USER_ID" would set user_id); any other name is an unknown field,
//     answered with the names that object takes;
//   - each value has the JSON type its field takes (a string, an integer in
//     range, …), and an error says where it stands: "add[1]: field
//     "content" must be a string", "delete[1] must be a string".
//
// A value whose type decodes itself (json.Unmarshaler, encoding.TextUnmarshaler)
// or that goes into an interface is taken as it is. On malformed input it
// stops and returns nil, leaving the decoder to word the problem. at names
// the member of a body that body is ("" for a body).
func checkMembers(body []byte, t reflect.Type, at string) error {
	w := memberWalker{Scanner: jsoncheck.NewScanner(body, MaxJSONDepth)}
	if at != "" {
		w.path = append(w.path, pathStep{name: at})
	}
	w.Space()
	if _, ok := w.Peek(); !ok {
		return nil
	}
	err := w.value(t)
	if err == errMalformed {
		return nil
	}
	return err
}

// errMalformed stops a walk over input the decoder will refuse anyway.
var errMalformed = loci.Errorf(loci.EINVALID, "malformed JSON")

// memberWalker walks a JSON value beside its Go type; path is where it is.
type memberWalker struct {
	jsoncheck.Scanner
	path []pathStep
}

// pathStep is one step into a value: a member (name) or an element (index).
type pathStep struct {
	name  string
	index int
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands a value of type t to
// its own method.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler)
}

// value checks the value at w.i against t and consumes it.
func (w *memberWalker) value(t reflect.Type) error {
	for t.Kind() == reflect.Pointer && !decodesItself(t) {
		t = t.Elem()
	}
	c, ok := w.Peek()
	if !ok {
		return errMalformed
	}
	if c == 'n' || decodesItself(t) || t.Kind() == reflect.Interface {
		return w.skip()
	}
	switch t.Kind() {
	case reflect.Struct:
		if c != '{' {
			return w.mustBe(t)
		}
		return w.object(t)
	case reflect.Map:
		if c != '{' {
			return w.mustBe(t)
		}
		return w.object(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && c == '"' { // []byte: base64 text
			return w.skip()
		}
		fallthrough
	case reflect.Array:
		if c != '[' {
			return w.mustBe(t)
		}
		return w.array(t.Elem())
	case reflect.String:
		if c != '"' {
			return w.mustBe(t)
		}
		return w.skip()
	case reflect.Bool:
		if c != 't' && c != 'f' {
			return w.mustBe(t)
		}
		return w.skip()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		if c != '-' && (c < '0' || c > '9') {
			return w.mustBe(t)
		}
		text, ok := w.Number()
		if !ok {
			return errMalformed
		}
		if !numberFits(string(text), t) {
			return w.mustBe(t)
		}
		return nil
	}
	return w.skip()
}

// numberFits reports whether encoding/json decodes the number text into a
// value of type t.
func numberFits(text string, t reflect.Type) bool {
	var err error
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		_, err = strconv.ParseInt(text, 10, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		_, err = strconv.ParseUint(text, 10, t.Bits())
	default:
		_, err = strconv.ParseFloat(text, t.Bits())
	}
	return err == nil
}

// object checks an object decoded into a struct (its members by their
// exact names) or a map (each value against the map's).
func (w *memberWalker) object(t reflect.Type) error {
	var fields *structFields
	if t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	w.Next('{')
	w.Space()
	if w.Next('}') {
		return nil
	}
	for {
		raw, ok := w.Str()
		if !ok {
			return errMalformed
		}
		name := jsoncheck.MemberName(raw)
		var elem reflect.Type
		if fields != nil {
			ft, ok := fields.byName[name]
			if !ok {
				return w.unknown(name, fields.names)
			}
			elem = ft
		} else {
			elem = t.Elem()
		}
		w.Space()
		if !w.Next(':') {
			return errMalformed
		}
		w.Space()
		w.path = append(w.path, pathStep{name: name})
		if err := w.value(elem); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.Space()
		if w.Next('}') {
			return nil
		}
		if !w.Next(',') {
			return errMalformed
		}
		w.Space()
	}
}

// array checks each element of an array against elem.
func (w *memberWalker) array(elem reflect.Type) error {
	w.Next('[')
	w.Space()
	if w.Next(']') {
		return nil
	}
	for i := 0; ; i++ {
		w.path = append(w.path, pathStep{index: i})
		if err := w.value(elem); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		w.Space()
		if w.Next(']') {
			return nil
		}
		if !w.Next(',') {
			return errMalformed
		}
		w.Space()
	}
}

// skip consumes any one value.
func (w *memberWalker) skip() error {
	if !w.Value() {
		return errMalformed
	}
	return nil
}

// where splits the walker's path for an error message: the array element
// it is in (add[2]: the path up to its last element step) and the field
// under that element (content, or metadata.source).
func (w *memberWalker) where() (entry, field string) {
	last := -1
	for i, s := range w.path {
		if s.name == "" {
			last = i
		}
	}
	return formatPath(w.path[:last+1]), formatPath(w.path[last+1:])
}

// formatPath writes steps as a path: blocks[0].label.
func formatPath(steps []pathStep) string {
	var b strings.Builder
	for _, s := range steps {
		if s.name == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(loggableName(s.name))
	}
	return b.String()
}

// unknown is the error of a member the object at the walker's path does
// not take.
func (w *memberWalker) unknown(name string, takes []string) error {
	entry, field := w.where()
	switch {
	case entry == "" && field == "":
		return loci.Errorf(loci.EINVALID, "unknown field %s; this body takes %s", loggableName(name), strings.Join(takes, ", "))
	case field == "":
		return loci.Errorf(loci.EINVALID, "%s: unknown field %s; this entry takes %s", entry, loggableName(name), strings.Join(takes, ", "))
	case entry == "":
		return loci.Errorf(loci.EINVALID, "unknown field %s.%s; %s takes %s", field, loggableName(name), field, strings.Join(takes, ", "))
	}
	return loci.Errorf(loci.EINVALID, "%s: unknown field %s.%s; %s takes %s", entry, field, loggableName(name), field, strings.Join(takes, ", "))
}

// mustBe is the error of a value at the walker's path that is not of the
// JSON type t decodes.
func (w *memberWalker) mustBe(t reflect.Type) error {
	entry, field := w.where()
	switch {
	case entry == "" && field == "" && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		return loci.Errorf(loci.EINVALID, "malformed JSON: body must be a JSON object")
	case entry == "" && field == "":
		return loci.Errorf(loci.EINVALID, "malformed JSON: body must be %s", jsonType(t))
	case field == "":
		return loci.Errorf(loci.EINVALID, "%s must be %s", entry, jsonType(t))
	case entry == "":
		return loci.Errorf(loci.EINVALID, "field %q must be %s", field, jsonType(t))
	}
	return loci.Errorf(loci.EINVALID, "%s: field %q must be %s", entry, field, jsonType(t))
}

// jsonType says in words which JSON values decode into type t.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e.Kind() != reflect.Slice && e.Kind() != reflect.Array && e.Kind() != reflect.Struct && e.Kind() != reflect.Map &&
			e.Kind() != reflect.Interface && !decodesItself(e) {
			return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonType(e), "a "), "an ") + "s"
		}
		return "an array"
	}
	return "JSON"
}

// structFields are the members a struct type decodes: by JSON name, and
// the names in declaration order.
type structFields struct {
	byName map[string]reflect.Type
	names  []string
}

var structFieldsCache sync.Map // reflect.Type → *structFields

// fieldsOf returns the members struct type t decodes, by encoding/json's
// rules: a field's tag name, else its Go name; an embedded struct's fields
// promoted, the shallowest (then the tagged) winning a name, a tie
// dropping it.
func fieldsOf(t reflect.Type) *structFields {
	if f, ok := structFieldsCache.Load(t); ok {
		return f.(*structFields)
	}
	type candidate struct {
		name   string
		depth  int
		tagged bool
		typ    reflect.Type
	}
	var all []candidate
	var walk func(t reflect.Type, depth int, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					walk(et, depth+1, seen)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			all = append(all, candidate{name: firstOf(name, f.Name), depth: depth, tagged: name != "", typ: f.Type})
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	out := &structFields{byName: map[string]reflect.Type{}}
	for _, c := range all {
		if _, done := out.byName[c.name]; done {
			continue
		}
		var best []candidate
		for _, d := range all {
			switch {
			case d.name != c.name:
			case len(best) == 0 || d.depth < best[0].depth:
				best = []candidate{d}
			case d.depth == best[0].depth:
				best = append(best, d)
			}
		}
		if len(best) > 1 {
			var tagged []candidate
			for _, d := range best {
				if d.tagged {
					tagged = append(tagged, d)
				}
			}
			best = tagged
		}
		if len(best) == 1 {
			out.byName[c.name] = best[0].typ
			out.names = append(out.names, c.name)
		}
	}
	f, _ := structFieldsCache.LoadOrStore(t, out)
	return f.(*structFields)
}

// firstOf returns a unless it is empty, else b.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
