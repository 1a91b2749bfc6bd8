package loci

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// MaxJSONDepth bounds how deeply the JSON loci takes nests: a request
// body (the values in it a level less at least), and each value an
// import's line brings back (a record's data and metadata, a version's,
// a user's defaults), counted from the value.
const MaxJSONDepth = 32

// RequireText checks a required text field: valid UTF-8, free of NUL
// bytes, not only whitespace and at most max bytes (max 0: no limit).
// EINVALID, naming field.
func RequireText(field, v string, max int) error {
	if err := CheckText(field, v, 0); err != nil {
		return err
	} else if strings.TrimSpace(v) == "" {
		return Errorf(EINVALID, "%s must not be empty", field)
	} else if max > 0 && len(v) > max {
		return Errorf(EINVALID, "%s must be at most %d bytes", field, max)
	}
	return nil
}

// CheckText checks a text field that may be empty: valid UTF-8, free of
// NUL bytes and at most max bytes (max 0: no limit). EINVALID, naming
// field.
func CheckText(field, v string, max int) error {
	if !utf8.ValidString(v) {
		return Errorf(EINVALID, "%s must be valid UTF-8", field)
	} else if strings.IndexByte(v, 0) >= 0 {
		return Errorf(EINVALID, "%s must not contain NUL bytes", field)
	} else if max > 0 && len(v) > max {
		return Errorf(EINVALID, "%s must be at most %d bytes", field, max)
	}
	return nil
}

// requireJSON checks that raw is a JSON value other than null.
func requireJSON(field string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Errorf(EINVALID, "%s is required", field)
	} else if !json.Valid(raw) {
		return Errorf(EINVALID, "%s must be valid JSON", field)
	}
	return nil
}

// checkObject checks that raw, when present and not null, is a JSON
// object.
func checkObject(field string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	} else if raw[0] != '{' || !json.Valid(raw) {
		return Errorf(EINVALID, "%s must be a JSON object", field)
	}
	return nil
}
