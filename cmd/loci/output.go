package main

import (
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"
)

// printJSON prints v as indented JSON, as the API answers it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneLine is s on one line, its spacing collapsed, cut to 120 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		n := 117
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}
