package loci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// MemoryFilter is a condition on records, in loci's filter language:
// {"and": [F, …]}, {"or": [F, …]}, {"not": F}, {"FIELD": VALUE}
// (equality) or {"FIELD": {"OP": VALUE}}. An object with several members
// is the conjunction of them; {} is the condition that always holds,
// wherever it stands ({"and": []} holds, {"or": []} does not, {"not": {}}
// does not). It is applied before ranking and paging, so a filtered
// search still fills its limit.
type MemoryFilter struct {
	// And, when not nil, is a conjunction (empty: always holds); Or,
	// when not nil, a disjunction (empty: never holds); Not a negation.
	// A filter with none of them and no Field always holds.
	And []*MemoryFilter
	Or  []*MemoryFilter
	Not *MemoryFilter

	// A leaf: Field compared by Op with Value (as the filter was written:
	// a string, json.Number, bool, nil, or []any of those).
	Field string
	Op    string
	Value any

	path  []string    // a metadata field's keys (metadata.food.kind: food, kind)
	want  any         // Value with its numbers parsed (parseNumber)
	times []time.Time // Value as times, for created_at and updated_at
	lower string      // icontains: Value lower-cased
}

// Operators of a filter leaf.
const (
	FilterEq        = "eq"
	FilterNe        = "ne"
	FilterIn        = "in"
	FilterNin       = "nin"
	FilterGt        = "gt"
	FilterGte       = "gte"
	FilterLt        = "lt"
	FilterLte       = "lte"
	FilterContains  = "contains"
	FilterIContains = "icontains"
)

// FilterOps lists the operators, FilterFields the fields other than
// metadata.PATH.
var (
	FilterOps    = []string{FilterEq, FilterNe, FilterIn, FilterNin, FilterGt, FilterGte, FilterLt, FilterLte, FilterContains, FilterIContains}
	FilterFields = []string{"kind", "category", "tags", "key", "user_id", "agent_id", "session_id", "created_at", "updated_at"}
)

// Limits of a filter.
const (
	MaxFilterBytes = 8 << 10
	MaxFilterDepth = 8
	MaxFilterNodes = 128
	MaxFilterList  = 1000 // values of one in or nin
)

// ParseMemoryFilter parses a filter. nil or empty input (or null, or {})
// is no filter (nil). EINVALID for an unknown field or operator, a value
// of the wrong type or a filter past its limits.
func ParseMemoryFilter(raw []byte) (*MemoryFilter, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if len(raw) > MaxFilterBytes {
		return nil, Errorf(EINVALID, "filters must be at most %d bytes", MaxFilterBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, Errorf(EINVALID, "filters must be a JSON object")
	}
	p := &filterParser{}
	f, err := p.node(v, 0)
	if err != nil {
		return nil, err
	}
	if f.always() {
		return nil, nil
	}
	return f, nil
}

// always reports whether f is {}, the condition that always holds.
func (f *MemoryFilter) always() bool {
	return f.And == nil && f.Or == nil && f.Not == nil && f.Field == ""
}

type filterParser struct{ nodes int }

func (p *filterParser) node(v any, depth int) (*MemoryFilter, error) {
	if depth > MaxFilterDepth {
		return nil, Errorf(EINVALID, "filters nest at most %d deep", MaxFilterDepth)
	}
	p.nodes++
	if p.nodes > MaxFilterNodes {
		return nil, Errorf(EINVALID, "filters hold at most %d conditions", MaxFilterNodes)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, Errorf(EINVALID, "a filter must be a JSON object")
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []*MemoryFilter
	for _, name := range names {
		val := obj[name]
		switch name {
		case "and", "or":
			list, ok := val.([]any)
			if !ok {
				return nil, Errorf(EINVALID, "%q takes an array of filters", name)
			}
			subs := []*MemoryFilter{}
			for _, e := range list {
				sub, err := p.node(e, depth+1)
				if err != nil {
					return nil, err
				}
				subs = append(subs, sub)
			}
			if name == "and" {
				parts = append(parts, allOf(subs))
			} else {
				parts = append(parts, anyOf(subs))
			}
		case "not":
			sub, err := p.node(val, depth+1)
			if err != nil {
				return nil, err
			}
			parts = append(parts, negation(sub))
		default:
			leaves, err := p.field(name, val)
			if err != nil {
				return nil, err
			}
			parts = append(parts, leaves...)
		}
	}
	return allOf(parts), nil
}

// The filters that hold for every record ({}, also written
// {"and": []}) and for none ({"or": []}, also {"not": {}}) are folded
// where they stand, so that {"and": [{}, F]} is F and a filter that
// always holds is no filter.

// never reports whether f is the filter that holds for no record.
func (f *MemoryFilter) never() bool { return f.Or != nil && len(f.Or) == 0 }

// allOf is the conjunction of subs.
func allOf(subs []*MemoryFilter) *MemoryFilter {
	var out []*MemoryFilter
	for _, sub := range subs {
		switch {
		case sub.never():
			return sub
		case !sub.always():
			out = append(out, sub)
		}
	}
	switch len(out) {
	case 0:
		return &MemoryFilter{}
	case 1:
		return out[0]
	}
	return &MemoryFilter{And: out}
}

// anyOf is the disjunction of subs.
func anyOf(subs []*MemoryFilter) *MemoryFilter {
	out := []*MemoryFilter{}
	for _, sub := range subs {
		switch {
		case sub.always():
			return sub
		case !sub.never():
			out = append(out, sub)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return &MemoryFilter{Or: out}
}

// negation is the negation of sub.
func negation(sub *MemoryFilter) *MemoryFilter {
	switch {
	case sub.always():
		return &MemoryFilter{Or: []*MemoryFilter{}}
	case sub.never():
		return &MemoryFilter{}
	}
	return &MemoryFilter{Not: sub}
}

// field parses the condition(s) on one field: a value (equality), or an
// object of operators (their conjunction).
func (p *filterParser) field(name string, val any) ([]*MemoryFilter, error) {
	path, err := checkFilterField(name)
	if err != nil {
		return nil, err
	}
	ops, isOps := val.(map[string]any)
	if !isOps {
		leaf, err := newLeaf(name, path, FilterEq, val)
		if err != nil {
			return nil, err
		}
		return []*MemoryFilter{leaf}, nil
	}
	if len(ops) == 0 {
		return nil, Errorf(EINVALID, "%s: an empty object is no condition; use one of the operators %s", name, strings.Join(FilterOps, ", "))
	}
	var out []*MemoryFilter
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	for _, op := range names {
		if !slices.Contains(FilterOps, op) {
			hint := ""
			if path != nil {
				hint = fmt.Sprintf(" (a nested value is named by its path: %s.%s)", name, op)
			}
			return nil, Errorf(EINVALID, "%s: unknown operator %q; operators are %s%s", name, op, strings.Join(FilterOps, ", "), hint)
		}
		p.nodes++
		if p.nodes > MaxFilterNodes {
			return nil, Errorf(EINVALID, "filters hold at most %d conditions", MaxFilterNodes)
		}
		leaf, err := newLeaf(name, path, op, ops[op])
		if err != nil {
			return nil, err
		}
		out = append(out, leaf)
	}
	return out, nil
}

// checkFilterField checks a field's name, and returns the keys of a
// metadata path.
func checkFilterField(name string) ([]string, error) {
	if rest, ok := strings.CutPrefix(name, "metadata."); ok {
		path := strings.Split(rest, ".")
		if len(path) > MaxMetadataDepth {
			return nil, Errorf(EINVALID, "unknown filter field %q: a metadata path names at most %d keys", name, MaxMetadataDepth)
		}
		for _, k := range path {
			if !MetadataKeyOK(k) {
				return nil, Errorf(EINVALID, "unknown filter field %q: metadata.PATH names keys of %s, joined by '.'", name, metadataKeyRule)
			}
		}
		return path, nil
	}
	if !slices.Contains(FilterFields, name) {
		return nil, Errorf(EINVALID, "unknown filter field %q; fields are metadata.PATH, %s", name, strings.Join(FilterFields, ", "))
	}
	return nil, nil
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, json.Number, bool, nil:
		return true
	}
	return false
}

// newLeaf checks op and value for the field's type and returns the leaf.
func newLeaf(field string, path []string, op string, val any) (*MemoryFilter, error) {
	leaf := &MemoryFilter{Field: field, Op: op, Value: val, path: path}
	list, isList := val.([]any)
	if isList && len(list) > MaxFilterList {
		return nil, Errorf(EINVALID, "%s %s: at most %d values", field, op, MaxFilterList)
	}
	var err error
	switch {
	case path != nil:
		err = checkMetadataLeaf(field, op, val)
	case field == "tags":
		err = checkTagsLeaf(field, op, val)
	case field == "created_at" || field == "updated_at":
		leaf.times, err = timesOfLeaf(field, op, val)
	default: // the string fields
		err = checkStringLeaf(field, op, val)
	}
	if err != nil {
		return nil, err
	}
	leaf.want = parsedNumbers(copyValue(val))
	if op == FilterIContains {
		leaf.lower = strings.ToLower(val.(string))
	}
	return leaf, nil
}

// copyValue copies a filter's value, so that parsing its numbers leaves
// Value as it was written.
func copyValue(v any) any {
	if l, ok := v.([]any); ok {
		return slices.Clone(l)
	}
	return v
}

// wrongLeaf refuses a leaf whose value is not what op on field takes.
func wrongLeaf(field, op, want string) error {
	return Errorf(EINVALID, "%s %s takes %s", field, op, want)
}

// checkMetadataLeaf checks op and val on a metadata field.
func checkMetadataLeaf(field, op string, val any) error {
	list, isList := val.([]any)
	switch op {
	case FilterIn, FilterNin:
		if !isList || !everyOf(list, isScalar) {
			return wrongLeaf(field, op, "an array of strings, numbers, booleans or nulls")
		}
	case FilterGt, FilterGte, FilterLt, FilterLte:
		if _, ok := val.(string); !ok {
			if _, ok := val.(json.Number); !ok {
				return wrongLeaf(field, op, "a number or a string")
			}
		}
	case FilterContains:
		if !isScalar(val) {
			return wrongLeaf(field, op, "a string (a substring of a string, or an element of an array), number, boolean or null (an element)")
		}
	case FilterIContains:
		if !isString(val) {
			return wrongLeaf(field, op, "a string")
		}
	default: // eq, ne
		if !isScalar(val) && !(isList && everyOf(list, isScalar)) {
			return wrongLeaf(field, op, "a string, number, boolean or null, or an array of those")
		}
	}
	return nil
}

// checkTagsLeaf checks op and val on tags.
func checkTagsLeaf(field, op string, val any) error {
	switch op {
	case FilterEq, FilterNe, FilterContains, FilterIContains:
		if _, ok := val.(string); !ok {
			return wrongLeaf(field, op, "a string (a tag the record holds)")
		}
	case FilterIn, FilterNin:
		if list, isList := val.([]any); !isList || !everyOf(list, isString) {
			return wrongLeaf(field, op, "an array of strings")
		}
	default:
		return Errorf(EINVALID, "tags take eq, ne, contains, icontains, in and nin")
	}
	return nil
}

// leafValues returns the values op compares field with: val, or the
// elements of val for in and nin (want names what they must be).
func leafValues(field, op, want string, val any) ([]any, error) {
	if op == FilterIn || op == FilterNin {
		list, isList := val.([]any)
		if !isList {
			return nil, wrongLeaf(field, op, want)
		}
		return list, nil
	}
	return []any{val}, nil
}

// ParseFilterTime parses a time as filters take it: RFC 3339, or a date
// (2026-01-31), meaning its midnight UTC.
func ParseFilterTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, Errorf(EINVALID, "%q is not an RFC 3339 time or a date (YYYY-MM-DD)", s)
	}
	return t, nil
}

// timesOfLeaf checks op and val on a time field and returns its times.
func timesOfLeaf(field, op string, val any) ([]time.Time, error) {
	if op == FilterContains || op == FilterIContains {
		return nil, Errorf(EINVALID, "%s does not take %s (it applies to strings, tags and arrays in metadata)", field, op)
	}
	vals, err := leafValues(field, op, "an array of RFC 3339 times or dates", val)
	if err != nil {
		return nil, err
	}
	var times []time.Time
	for _, v := range vals {
		s, ok := v.(string)
		if !ok {
			return nil, wrongLeaf(field, op, "RFC 3339 times or dates (YYYY-MM-DD)")
		}
		t, err := ParseFilterTime(s)
		if err != nil {
			return nil, wrongLeaf(field, op, "RFC 3339 times or dates (YYYY-MM-DD)")
		}
		times = append(times, t)
	}
	return times, nil
}

// checkStringLeaf checks op and val on a string field (a kind must be
// one of the kinds, except as a substring).
func checkStringLeaf(field, op string, val any) error {
	vals, err := leafValues(field, op, "an array of strings", val)
	if err != nil {
		return err
	}
	for _, v := range vals {
		s, ok := v.(string)
		if !ok {
			return wrongLeaf(field, op, "strings")
		}
		if field == "kind" && op != FilterContains && op != FilterIContains {
			if _, err := ParseKind(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

func everyOf(list []any, ok func(any) bool) bool {
	for _, v := range list {
		if !ok(v) {
			return false
		}
	}
	return true
}

// MarshalJSON writes the filter in the filter language, so that it
// parses to the same filter again.
func (f *MemoryFilter) MarshalJSON() ([]byte, error) {
	return json.Marshal(f.language())
}

func (f *MemoryFilter) language() any {
	list := func(fs []*MemoryFilter) []any {
		out := make([]any, len(fs))
		for i, sub := range fs {
			out[i] = sub.language()
		}
		return out
	}
	switch {
	case f == nil:
		return map[string]any{}
	case f.And != nil:
		return map[string]any{"and": list(f.And)}
	case f.Or != nil:
		return map[string]any{"or": list(f.Or)}
	case f.Not != nil:
		return map[string]any{"not": f.Not.language()}
	case f.Field == "":
		return map[string]any{}
	}
	return map[string]any{f.Field: map[string]any{f.Op: f.Value}}
}

// Match reports whether r meets the filter. A record without the field
// matches only ne and nin.
func (f *MemoryFilter) Match(r *Record) bool {
	if f == nil {
		return true
	}
	return f.match(r, &metaView{raw: r.Metadata})
}

// MatchFields is Match for a record whose metadata is already decoded
// (meta, DecodeMetadataFields of r.Metadata): what an index that filters
// many records calls, so as not to decode each one's JSON again.
func (f *MemoryFilter) MatchFields(r *Record, meta MetadataFields) bool {
	if f == nil {
		return true
	}
	return f.match(r, &metaView{fields: meta, decoded: true})
}

func (f *MemoryFilter) match(r *Record, meta *metaView) bool {
	switch {
	case f.And != nil:
		for _, sub := range f.And {
			if !sub.match(r, meta) {
				return false
			}
		}
		return true
	case f.Or != nil:
		for _, sub := range f.Or {
			if sub.match(r, meta) {
				return true
			}
		}
		return false
	case f.Not != nil:
		return !f.Not.match(r, meta)
	case f.Field == "":
		return true // {}
	}
	switch f.Field {
	case "tags":
		return f.matchTags(r.Tags)
	case "created_at":
		return f.matchTime(r.CreatedAt)
	case "updated_at":
		return f.matchTime(r.UpdatedAt)
	case "kind":
		return f.matchValue(string(r.Kind), r.Kind != "")
	case "category":
		return f.matchValue(r.Category, r.Category != "")
	case "key":
		return f.matchValue(r.Key, r.Key != "")
	case "user_id":
		return f.matchValue(r.UserID, r.UserID != "")
	case "agent_id":
		return f.matchValue(r.AgentID, r.AgentID != "")
	case "session_id":
		return f.matchValue(r.SessionID, r.SessionID != "")
	}
	v, ok := meta.lookup(f.path)
	return f.matchValue(v, ok)
}

// matchValue compares a field's value v (present or not) by f's operator.
func (f *MemoryFilter) matchValue(v any, present bool) bool {
	if !present {
		return f.Op == FilterNe || f.Op == FilterNin
	}
	switch f.Op {
	case FilterEq:
		return valueEq(v, f.want)
	case FilterNe:
		return !valueEq(v, f.want)
	case FilterIn:
		return valueIn(v, f.want.([]any))
	case FilterNin:
		return !valueIn(v, f.want.([]any))
	case FilterContains:
		switch x := v.(type) {
		case string:
			s, ok := f.want.(string)
			return ok && strings.Contains(x, s)
		case []any:
			return slices.ContainsFunc(x, func(e any) bool { return scalarEq(e, f.want) })
		}
		return false
	case FilterIContains:
		switch x := v.(type) {
		case string:
			return strings.Contains(strings.ToLower(x), f.lower)
		case []any:
			return slices.ContainsFunc(x, func(e any) bool { s, ok := e.(string); return ok && strings.EqualFold(s, f.lower) })
		}
		return false
	}
	c, ok := compare(v, f.want)
	if !ok {
		return false
	}
	switch f.Op {
	case FilterGt:
		return c > 0
	case FilterGte:
		return c >= 0
	case FilterLt:
		return c < 0
	case FilterLte:
		return c <= 0
	}
	return false
}

func (f *MemoryFilter) matchTags(tags []string) bool {
	has := func(v any) bool { s, _ := v.(string); return slices.Contains(tags, s) }
	switch f.Op {
	case FilterEq, FilterContains:
		return has(f.Value)
	case FilterIContains:
		return slices.ContainsFunc(tags, func(t string) bool { return strings.EqualFold(t, f.lower) })
	case FilterNe:
		return !has(f.Value)
	case FilterIn:
		return slices.ContainsFunc(f.Value.([]any), has)
	case FilterNin:
		return !slices.ContainsFunc(f.Value.([]any), has)
	}
	return false
}

func (f *MemoryFilter) matchTime(t time.Time) bool {
	if t.IsZero() {
		return f.Op == FilterNe || f.Op == FilterNin
	}
	in := slices.ContainsFunc(f.times, t.Equal)
	switch f.Op {
	case FilterEq, FilterIn:
		return in
	case FilterNe, FilterNin:
		return !in
	case FilterGt:
		return t.After(f.times[0])
	case FilterGte:
		return !t.Before(f.times[0])
	case FilterLt:
		return t.Before(f.times[0])
	case FilterLte:
		return !t.After(f.times[0])
	}
	return false
}

// valueEq: scalars equal; an array equals an array of the same values in
// order, and holds a scalar it is compared with.
func valueEq(v, want any) bool {
	vl, vIsList := v.([]any)
	wl, wIsList := want.([]any)
	switch {
	case vIsList && wIsList:
		return slices.EqualFunc(vl, wl, scalarEq)
	case vIsList:
		return slices.ContainsFunc(vl, func(e any) bool { return scalarEq(e, want) })
	case wIsList:
		return false
	}
	return scalarEq(v, want)
}

// valueIn: a scalar is one of list; an array holds one of list.
func valueIn(v any, list []any) bool {
	if vl, ok := v.([]any); ok {
		return slices.ContainsFunc(vl, func(e any) bool { return valueIn(e, list) })
	}
	return slices.ContainsFunc(list, func(w any) bool { return scalarEq(v, w) })
}

// scalarEq: two strings, two numbers, two booleans or two nulls that are
// equal.
func scalarEq(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	c, ok := compare(a, b)
	return ok && c == 0
}

// compare orders two numbers or two strings; ok is false for any other
// pair. Integers compare exactly.
func compare(a, b any) (int, bool) {
	if x, ok := a.(string); ok {
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	}
	xi, xInt, xf, ok1 := number(a)
	yi, yInt, yf, ok2 := number(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	if xInt && yInt {
		return cmpInt(xi, yi), true
	}
	switch {
	case xf < yf:
		return -1, true
	case xf > yf:
		return 1, true
	}
	return 0, true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// number is v as a number: its value as a float64, and as an int64 when
// it is an integer that fits one (isInt; metadata decoded by
// parseNumber, or a json.Number).
func number(v any) (i int64, isInt bool, f float64, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, true, float64(x), true
	case float64:
		return 0, false, x, true
	case json.Number:
		if n, ok := parseNumber(x); ok {
			return number(n)
		}
	}
	return 0, false, 0, false
}
