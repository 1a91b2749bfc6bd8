package loci

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MemoryFilter is a condition on records, in the filter language of
// API.md v1.2: {"and": [F, …]}, {"or": [F, …]}, {"not": F},
// {"FIELD": VALUE} (equality) or {"FIELD": {"OP": VALUE}}. An object with
// several members is the conjunction of them. It is applied before
// ranking and paging, so a filtered search still fills its limit.
type MemoryFilter struct {
	And []*MemoryFilter
	Or  []*MemoryFilter
	Not *MemoryFilter

	// A leaf: Field compared by Op with Value (a string, json.Number,
	// bool, or []any of those; times are parsed into times).
	Field string
	Op    string
	Value any
	times []time.Time // Value as times, for created_at and updated_at
}

// Operators of a filter leaf.
const (
	FilterEq       = "eq"
	FilterNe       = "ne"
	FilterIn       = "in"
	FilterNin      = "nin"
	FilterGt       = "gt"
	FilterGte      = "gte"
	FilterLt       = "lt"
	FilterLte      = "lte"
	FilterContains = "contains"
)

// FilterOps lists the operators, FilterFields the fields other than
// metadata.NAME.
var (
	FilterOps    = []string{FilterEq, FilterNe, FilterIn, FilterNin, FilterGt, FilterGte, FilterLt, FilterLte, FilterContains}
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
	if f != nil && len(f.And) == 0 && len(f.Or) == 0 && f.Not == nil && f.Field == "" {
		return nil, nil
	}
	return f, nil
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
			if !ok || len(list) == 0 {
				return nil, Errorf(EINVALID, "%q takes a non-empty array of filters", name)
			}
			var subs []*MemoryFilter
			for _, e := range list {
				sub, err := p.node(e, depth+1)
				if err != nil {
					return nil, err
				}
				subs = append(subs, sub)
			}
			if name == "and" {
				parts = append(parts, &MemoryFilter{And: subs})
			} else {
				parts = append(parts, &MemoryFilter{Or: subs})
			}
		case "not":
			sub, err := p.node(val, depth+1)
			if err != nil {
				return nil, err
			}
			parts = append(parts, &MemoryFilter{Not: sub})
		default:
			leaves, err := p.field(name, val)
			if err != nil {
				return nil, err
			}
			parts = append(parts, leaves...)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return &MemoryFilter{And: parts}, nil
}

// field parses the condition(s) on one field: a value (equality), or an
// object of operators (their conjunction).
func (p *filterParser) field(name string, val any) ([]*MemoryFilter, error) {
	if err := checkFilterField(name); err != nil {
		return nil, err
	}
	ops, isOps := val.(map[string]any)
	if !isOps {
		leaf, err := newLeaf(name, FilterEq, val)
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
			return nil, Errorf(EINVALID, "%s: unknown operator %q; operators are %s", name, op, strings.Join(FilterOps, ", "))
		}
		p.nodes++
		if p.nodes > MaxFilterNodes {
			return nil, Errorf(EINVALID, "filters hold at most %d conditions", MaxFilterNodes)
		}
		leaf, err := newLeaf(name, op, ops[op])
		if err != nil {
			return nil, err
		}
		out = append(out, leaf)
	}
	return out, nil
}

func checkFilterField(name string) error {
	if rest, ok := strings.CutPrefix(name, "metadata."); ok {
		if !metadataKeyOK(rest) {
			return Errorf(EINVALID, "unknown filter field %q: a metadata key is 1-%d bytes of a-z, 0-9, _, . and -", name, MaxMetadataKeyBytes)
		}
		return nil
	}
	if !slices.Contains(FilterFields, name) {
		return Errorf(EINVALID, "unknown filter field %q; fields are metadata.NAME, %s", name, strings.Join(FilterFields, ", "))
	}
	return nil
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, json.Number, bool:
		return true
	}
	return false
}

// newLeaf checks op and value for the field's type and returns the leaf.
func newLeaf(field, op string, val any) (*MemoryFilter, error) {
	leaf := &MemoryFilter{Field: field, Op: op, Value: val}
	list, isList := val.([]any)
	if isList && len(list) > MaxFilterList {
		return nil, Errorf(EINVALID, "%s %s: at most %d values", field, op, MaxFilterList)
	}
	var err error
	switch {
	case strings.HasPrefix(field, "metadata."):
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
	return leaf, nil
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
		if !isList || !allOf(list, isScalar) {
			return wrongLeaf(field, op, "an array of strings, numbers or booleans")
		}
	case FilterGt, FilterGte, FilterLt, FilterLte:
		if _, ok := val.(string); !ok {
			if _, ok := val.(json.Number); !ok {
				return wrongLeaf(field, op, "a number or a string")
			}
		}
	case FilterContains:
		if !isScalar(val) {
			return wrongLeaf(field, op, "a string, number or boolean")
		}
	default: // eq, ne
		if !isScalar(val) && !(isList && allOf(list, isScalar)) {
			return wrongLeaf(field, op, "a string, number or boolean, or an array of those")
		}
	}
	return nil
}

// checkTagsLeaf checks op and val on tags.
func checkTagsLeaf(field, op string, val any) error {
	switch op {
	case FilterEq, FilterNe, FilterContains:
		if _, ok := val.(string); !ok {
			return wrongLeaf(field, op, "a string (a tag the record holds)")
		}
	case FilterIn, FilterNin:
		if list, isList := val.([]any); !isList || !allOf(list, isString) {
			return wrongLeaf(field, op, "an array of strings")
		}
	default:
		return Errorf(EINVALID, "tags take eq, ne, contains, in and nin")
	}
	return nil
}

// leafValues returns the values op compares field with: val, or the
// elements of val for in and nin (want names what they must be).
func leafValues(field, op, want string, val any) ([]any, error) {
	if op == FilterContains {
		return nil, Errorf(EINVALID, "%s does not take contains (it applies to tags and arrays in metadata)", field)
	}
	if op == FilterIn || op == FilterNin {
		list, isList := val.([]any)
		if !isList {
			return nil, wrongLeaf(field, op, want)
		}
		return list, nil
	}
	return []any{val}, nil
}

// timesOfLeaf checks op and val on a time field and returns its times.
func timesOfLeaf(field, op string, val any) ([]time.Time, error) {
	vals, err := leafValues(field, op, "an array of RFC 3339 times", val)
	if err != nil {
		return nil, err
	}
	var times []time.Time
	for _, v := range vals {
		s, ok := v.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if !ok || err != nil {
			return nil, wrongLeaf(field, op, "RFC 3339 times")
		}
		times = append(times, t.UTC())
	}
	return times, nil
}

// checkStringLeaf checks op and val on a string field (a kind must be
// one of the kinds).
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
		if field == "kind" {
			if _, err := ParseKind(s); err != nil {
				return err
			}
		}
	}
	return nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

func allOf(list []any, ok func(any) bool) bool {
	for _, v := range list {
		if !ok(v) {
			return false
		}
	}
	return true
}

// Match reports whether r meets the filter. A record without the field
// matches only ne and nin.
func (f *MemoryFilter) Match(r *Record) bool {
	if f == nil {
		return true
	}
	var meta map[string]any
	metaRead := false
	return f.match(r, &meta, &metaRead)
}

func (f *MemoryFilter) match(r *Record, meta *map[string]any, metaRead *bool) bool {
	switch {
	case f.And != nil:
		for _, sub := range f.And {
			if !sub.match(r, meta, metaRead) {
				return false
			}
		}
		return true
	case f.Or != nil:
		for _, sub := range f.Or {
			if sub.match(r, meta, metaRead) {
				return true
			}
		}
		return false
	case f.Not != nil:
		return !f.Not.match(r, meta, metaRead)
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
	if !*metaRead {
		*metaRead = true
		*meta, _ = metadataValues(r.Metadata)
	}
	v, ok := (*meta)[strings.TrimPrefix(f.Field, "metadata.")]
	return f.matchValue(v, ok)
}

// matchValue compares a field's value v (present or not) by f's operator.
func (f *MemoryFilter) matchValue(v any, present bool) bool {
	if !present {
		return f.Op == FilterNe || f.Op == FilterNin
	}
	switch f.Op {
	case FilterEq:
		return valueEq(v, f.Value)
	case FilterNe:
		return !valueEq(v, f.Value)
	case FilterIn:
		return valueIn(v, f.Value.([]any))
	case FilterNin:
		return !valueIn(v, f.Value.([]any))
	case FilterContains:
		list, ok := v.([]any)
		return ok && slices.ContainsFunc(list, func(e any) bool { return scalarEq(e, f.Value) })
	}
	c, ok := compare(v, f.Value)
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

func scalarEq(a, b any) bool {
	if c, ok := compare(a, b); ok {
		return c == 0
	}
	ab, aok := a.(bool)
	bb, bok := b.(bool)
	return aok && bok && ab == bb
}

// compare orders two numbers or two strings; ok is false for any other
// pair.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return 0, false
		}
		xf, err1 := strconv.ParseFloat(string(x), 64)
		yf, err2 := strconv.ParseFloat(string(y), 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		switch {
		case xf < yf:
			return -1, true
		case xf > yf:
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
