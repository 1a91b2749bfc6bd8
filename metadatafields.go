package loci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// MetadataField is one top-level key of decoded metadata and its value:
// a string, a number (int64 when the number is an integer that fits,
// else float64), a bool, nil (JSON null), []any or map[string]any of
// those.
type MetadataField struct {
	Key   string
	Value any
}

// MetadataFields is a record's metadata decoded, its keys in order: what
// an index keeps so that filters read metadata without decoding its JSON
// for each record (MemoryFilter.MatchFields).
type MetadataFields []MetadataField

// DecodeMetadataFields decodes canonical metadata (NormalizeMetadata's
// output) for filtering; nil for none.
func DecodeMetadataFields(raw json.RawMessage) (MetadataFields, error) {
	m, err := metadataValues(raw)
	if err != nil || len(m) == 0 {
		return nil, err
	}
	out := make(MetadataFields, 0, len(m))
	for k, v := range m {
		out = append(out, MetadataField{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// parsedNumbers returns v with its numbers parsed (parseNumber), as
// filters compare them, so that they are parsed once.
func parsedNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, ok := parseNumber(x); ok {
			return n
		}
	case []any:
		for i, e := range x {
			x[i] = parsedNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = parsedNumbers(e)
		}
	}
	return v
}

// parseNumber parses a JSON number: an int64 when it is an integer that
// fits one (so that integers compare exactly), else a float64.
func parseNumber(n json.Number) (any, bool) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		// 1.0 and 1e3 are integers too.
		return int64(f), true
	}
	return f, true
}

// Get returns the value of the top-level key, and whether the metadata
// holds it.
func (m MetadataFields) Get(key string) (any, bool) {
	i := sort.Search(len(m), func(i int) bool { return m[i].Key >= key })
	if i < len(m) && m[i].Key == key {
		return m[i].Value, true
	}
	return nil, false
}

// Lookup returns the value a path of keys names (metadata.food.kind is
// food, kind), and whether the metadata holds it. A path of several keys
// that names nothing may name a top-level key holding '.' (which earlier
// versions allowed), joined.
func (m MetadataFields) Lookup(path []string) (any, bool) {
	v, ok := m.Get(path[0])
	if ok {
		if v, ok = descend(v, path[1:]); ok {
			return v, true
		}
	}
	if len(path) > 1 {
		return m.Get(strings.Join(path, "."))
	}
	return nil, false
}

// descend follows path down nested objects from v.
func descend(v any, path []string) (any, bool) {
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// metaView is a record's metadata as a filter reads it: decoded already,
// or decoded from raw on the first read.
type metaView struct {
	raw     json.RawMessage
	decoded bool
	fields  MetadataFields
	values  map[string]any
}

func (m *metaView) lookup(path []string) (any, bool) {
	if m.fields != nil || m.decoded {
		if len(m.fields) == 0 {
			return nil, false
		}
		return m.fields.Lookup(path)
	}
	if m.values == nil {
		var err error
		if m.values, err = metadataValues(m.raw); err != nil || m.values == nil {
			m.values = map[string]any{}
		}
	}
	v, ok := m.values[path[0]]
	if ok {
		if v, ok = descend(v, path[1:]); ok {
			return v, true
		}
	}
	if len(path) > 1 {
		v, ok = m.values[strings.Join(path, ".")]
	}
	return v, ok
}

// metadataValues decodes canonical metadata for filtering, its numbers
// parsed.
func metadataValues(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	for k, v := range m {
		m[k] = parsedNumbers(v)
	}
	return m, nil
}

// MetadataOnly reports whether the filter reads nothing of a record but
// its metadata, so that MatchFields may be given a record without its
// other fields.
func (f *MemoryFilter) MetadataOnly() bool {
	if f == nil {
		return true
	}
	for _, sub := range f.And {
		if !sub.MetadataOnly() {
			return false
		}
	}
	for _, sub := range f.Or {
		if !sub.MetadataOnly() {
			return false
		}
	}
	if f.Not != nil {
		return f.Not.MetadataOnly()
	}
	return f.Field == "" || strings.HasPrefix(f.Field, "metadata.")
}
