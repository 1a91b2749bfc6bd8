package loci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MetadataField is one key of decoded metadata and its value: a string,
// a number (float64), a bool, or []any of those.
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
		out = append(out, MetadataField{Key: k, Value: parsedNumbers(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// parsedNumbers returns v with its numbers parsed into float64s, as
// filters compare them (compare), so that they are parsed once.
func parsedNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, ok := number(x); ok {
			return f
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = parsedNumbers(e)
		}
		return out
	}
	return v
}

// Get returns the value of key, and whether the metadata holds it.
func (m MetadataFields) Get(key string) (any, bool) {
	i := sort.Search(len(m), func(i int) bool { return m[i].Key >= key })
	if i < len(m) && m[i].Key == key {
		return m[i].Value, true
	}
	return nil, false
}

// metaView is a record's metadata as a filter reads it: decoded already,
// or decoded from raw on the first read.
type metaView struct {
	raw     json.RawMessage
	decoded bool
	fields  MetadataFields
	values  map[string]any
}

func (m *metaView) get(key string) (any, bool) {
	if m.fields != nil || m.decoded {
		return m.fields.Get(key)
	}
	if m.values == nil {
		var err error
		if m.values, err = metadataValues(m.raw); err != nil || m.values == nil {
			m.values = map[string]any{}
		}
	}
	v, ok := m.values[key]
	return v, ok
}

// metadataValues decodes canonical metadata for filtering.
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
