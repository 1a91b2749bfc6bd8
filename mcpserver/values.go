package mcpserver

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/loci-memory/loci"
)

// Values of tool arguments and results: stored JSON, times.

// jsonAny decodes a stored JSON value for a structured result (nil when
// absent); numbers keep their exact text.
func jsonAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// jsonObject decodes a stored JSON object (nil when absent or not one).
func jsonObject(raw json.RawMessage) map[string]any {
	m, _ := jsonAny(raw).(map[string]any)
	return m
}

func utc(t time.Time) time.Time { return t.UTC() }

func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z", name)
	}
	return t, loci.CheckTime(name, t)
}
