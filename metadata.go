package loci

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Limits of a record's metadata (API.md v1.2): a JSON object the client
// owns, never searched as text.
const (
	MaxMetadataKeys     = 32
	MaxMetadataKeyBytes = 64
	MaxMetadataBytes    = 4096
)

// metadataKeyOK reports whether k is a metadata key: 1 to
// MaxMetadataKeyBytes bytes of [a-z0-9_.-].
func metadataKeyOK(k string) bool {
	if k == "" || len(k) > MaxMetadataKeyBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// NormalizeMetadata checks metadata and returns it in canonical form
// (compact JSON, keys sorted), or nil for none (absent, null or {}): at
// most MaxMetadataKeys keys of [a-z0-9_.-] (1-MaxMetadataKeyBytes bytes),
// each value a string, number or boolean or an array of those, and at most
// MaxMetadataBytes in all (ETOOLARGE). EINVALID otherwise.
func NormalizeMetadata(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, Errorf(EINVALID, "metadata must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || dec.More() {
		return nil, Errorf(EINVALID, "metadata must be a JSON object")
	}
	if len(m) == 0 {
		return nil, nil
	}
	if len(m) > MaxMetadataKeys {
		return nil, Errorf(EINVALID, "metadata has at most %d keys", MaxMetadataKeys)
	}
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if !metadataKeyOK(k) {
			return nil, Errorf(EINVALID, "metadata key %q must be 1-%d bytes of a-z, 0-9, _, . and -", k, MaxMetadataKeyBytes)
		}
		if err := checkMetadataValue(k, v); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(m[k])
		if err != nil {
			return nil, Errorf(EINVALID, "metadata.%s: %v", k, err)
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	if buf.Len() > MaxMetadataBytes {
		return nil, Errorf(ETOOLARGE, "metadata must be at most %d bytes", MaxMetadataBytes)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// checkMetadataValue checks one metadata value: a scalar, or an array of
// scalars.
func checkMetadataValue(k string, v any) error {
	switch x := v.(type) {
	case string:
		// No length of its own: a long string is over the limit of the
		// whole (ETOOLARGE), not a malformed value.
		return CheckText("metadata."+k, x, 0)
	case json.Number, bool:
		return nil
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case string:
				if err := CheckText("metadata."+k, y, 0); err != nil {
					return err
				}
			case json.Number, bool:
			default:
				return Errorf(EINVALID, "metadata.%s: an array holds only strings, numbers and booleans", k)
			}
		}
		return nil
	}
	return Errorf(EINVALID, "metadata.%s must be a string, number, boolean or an array of those", k)
}
