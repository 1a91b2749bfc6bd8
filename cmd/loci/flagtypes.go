package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The value types of the verbs' flags.

// timeFlag is a flag holding an RFC 3339 time.
type timeFlag struct{ t time.Time }

func (f *timeFlag) String() string {
	if f == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f *timeFlag) Set(v string) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)")
	}
	f.t = t
	return nil
}

// tagList is a repeatable --tag flag.
type tagList []string

func (t *tagList) String() string     { return strings.Join(*t, ",") }
func (t *tagList) Set(v string) error { *t = append(*t, v); return nil }

// ttlFlag is a time to live: a Go duration (90s, 24h, 1h30m) or whole
// seconds.
type ttlFlag struct{ secs *int64 }

func (f *ttlFlag) String() string {
	if f == nil || f.secs == nil {
		return ""
	}
	return strconv.FormatInt(*f.secs, 10) + "s"
}

func (f *ttlFlag) Set(v string) error {
	var secs int64
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		secs = n
	} else if d, err := time.ParseDuration(v); err == nil {
		if d%time.Second != 0 {
			return fmt.Errorf("a time to live is whole seconds")
		}
		secs = int64(d / time.Second)
	} else {
		return fmt.Errorf("want a duration such as 90s, 24h or 1h30m, or a number of seconds")
	}
	if secs <= 0 {
		return fmt.Errorf("a time to live must be positive")
	}
	f.secs = &secs
	return nil
}

// jsonFlag is a flag holding a JSON value, checked to be JSON when set.
type jsonFlag struct {
	raw json.RawMessage
	set bool
}

func (f *jsonFlag) String() string { return string(f.raw) }

func (f *jsonFlag) Set(v string) error {
	if !json.Valid([]byte(v)) {
		return fmt.Errorf("not valid JSON")
	}
	f.raw, f.set = json.RawMessage(v), true
	return nil
}

// listFlag is a comma-separated list, repeatable.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// repeatFlag is a repeatable flag whose values are kept whole (a DSN may
// hold commas: a multi-host URL).
type repeatFlag []string

func (r *repeatFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatFlag) Set(v string) error {
	if v = strings.TrimSpace(v); v == "" {
		return fmt.Errorf("empty value")
	}
	*r = append(*r, v)
	return nil
}
