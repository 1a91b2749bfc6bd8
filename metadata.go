package loci

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a record's metadata: a JSON object the client owns, never
// searched as text.
const (
	// MaxMetadataKeys bounds the keys of the top-level object.
	MaxMetadataKeys = 32
	// MaxMetadataKeyBytes bounds one key, at any level.
	MaxMetadataKeyBytes = 64
	// MaxMetadataBytes bounds the whole, counted as the UTF-8 bytes of
	// its compact JSON with no escaping of &, < and >.
	MaxMetadataBytes = 4096
	// MaxMetadataDepth bounds how deep objects nest: the metadata object
	// is the first level, so a path names at most this many keys
	// (metadata.a.b.c.d). Arrays add no level.
	MaxMetadataDepth = 4
)

// MetadataKeyOK reports whether k is a metadata key: 1 to
// MaxMetadataKeyBytes bytes of valid UTF-8, no '.' (a filter's path
// separator) and no control character.
func MetadataKeyOK(k string) bool {
	if k == "" || len(k) > MaxMetadataKeyBytes || !utf8.ValidString(k) {
		return false
	}
	for _, c := range k {
		if c == '.' || unicode.IsControl(c) {
			return false
		}
	}
	return true
}

// metadataKeyRule says what a key may be, for error messages.
const metadataKeyRule = "1-64 bytes of any characters but '.' and control characters"

// NormalizeMetadata checks metadata and returns it in canonical form, or
// nil for none (absent, null or {}). Metadata is a JSON object of at most
// MaxMetadataKeys keys (each MetadataKeyOK, at every level) whose values
// are any JSON: strings, numbers, booleans, null, arrays and objects
// nested at most MaxMetadataDepth levels. Its canonical form is compact
// JSON, keys sorted at every level, &, < and > unescaped, and every
// number written as it was sent (an integer past 2^53 stays exact); it
// is at most MaxMetadataBytes long (ETOOLARGE). EINVALID otherwise.
func NormalizeMetadata(raw json.RawMessage) (json.RawMessage, error) {
	return normalizeMetadata(raw, false)
}

// NormalizeImportedMetadata is NormalizeMetadata for metadata an import
// brings back: it also takes top-level keys holding '.', which earlier
// versions wrote, so that their exports import.
func NormalizeImportedMetadata(raw json.RawMessage) (json.RawMessage, error) {
	return normalizeMetadata(raw, true)
}

func normalizeMetadata(raw json.RawMessage, dottedKeys bool) (json.RawMessage, error) {
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
		return nil, Errorf(EINVALID, "metadata has at most %d keys at the top level, not %d", MaxMetadataKeys, len(m))
	}
	for k, v := range m {
		ok := MetadataKeyOK(k)
		if !ok && dottedKeys {
			ok = MetadataKeyOK(strings.ReplaceAll(k, ".", "_"))
		}
		if !ok {
			return nil, Errorf(EINVALID, "metadata key %q must be %s", k, metadataKeyRule)
		}
		if err := checkMetadataValue("metadata."+k, v, 1); err != nil {
			return nil, err
		}
	}
	out, err := compactJSON(m)
	if err != nil {
		return nil, Errorf(EINVALID, "metadata: %v", err)
	}
	if len(out) > MaxMetadataBytes {
		return nil, Errorf(ETOOLARGE, "metadata must be at most %d bytes as compact JSON, not %d", MaxMetadataBytes, len(out))
	}
	return out, nil
}

// checkMetadataValue checks the value at path, held by an object at
// depth (the metadata object is depth 1).
func checkMetadataValue(path string, v any, depth int) error {
	switch x := v.(type) {
	case nil, bool, json.Number:
		return nil
	case string:
		// No length of its own: a long string is over the limit of the
		// whole (ETOOLARGE), not a malformed value.
		return CheckText(path, x, 0)
	case []any:
		for i, e := range x {
			if err := checkMetadataValue(path+"["+strconv.Itoa(i)+"]", e, depth); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if depth+1 > MaxMetadataDepth {
			return Errorf(EINVALID, "%s: metadata nests objects at most %d levels deep (the metadata object is the first)", path, MaxMetadataDepth)
		}
		for k, e := range x {
			if !MetadataKeyOK(k) {
				return Errorf(EINVALID, "%s: metadata key %q must be %s", path, k, metadataKeyRule)
			}
			if err := checkMetadataValue(path+"."+k, e, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return Errorf(EINVALID, "%s is not a JSON value", path)
}

// compactJSON encodes v as compact JSON, object keys sorted, with no
// escaping of &, < and > (json.Number values are written as they are).
func compactJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
