package rules

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loci-memory/loci"
)

// optionalObject checks that raw, when present and not null, is a JSON
// object, and returns it compacted (nil when absent). Compacting is the
// check: it fails on what is not JSON.
func optionalObject(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var buf bytes.Buffer
	if raw[0] != '{' || json.Compact(&buf, raw) != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be a JSON object", field)
	}
	return buf.Bytes(), nil
}

// requiredJSON checks that raw is a JSON value other than null and returns
// it compacted. Compacting is the check: it fails on what is not JSON.
func requiredJSON(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, loci.Errorf(loci.EINVALID, "%s is required", field)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be valid JSON", field)
	}
	return buf.Bytes(), nil
}

// jsonStrings returns the string values found anywhere in a JSON value, so
// structured context can be searched as text.
func jsonStrings(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// decodeData decodes a record's data into v.
func decodeData(rec *loci.Record, v any) error {
	if len(rec.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(rec.Data, v); err != nil {
		return fmt.Errorf("decode %s %s: %w", rec.Kind, rec.ID, err)
	}
	return nil
}
