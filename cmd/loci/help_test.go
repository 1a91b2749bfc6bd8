package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// README: "Every verb prints its flags with -h" — and exits 0, also the
// verbs that take a sub-command.
func TestEveryVerbHelp(t *testing.T) {
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			t.Run(c.name+h, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, c.name, h)
				if code != exitOK {
					t.Errorf("exit status: got %d, want %d (stderr %q)", code, exitOK, stderr)
				}
				if !strings.HasPrefix(stdout, "loci "+c.name) {
					t.Errorf("stdout: got %q, want the verb's usage", stdout)
				}
			})
		}
	}
}

// oneLine shortens long content for a result line without cutting a
// character in two.
func TestOneLineKeepsUTF8(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"ASCII", strings.Repeat("a", 200)},
		{"TwoByte", "a" + strings.Repeat("é", 100)},
		{"FourByte", strings.Repeat("🍕", 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := oneLine(tc.in)
			if !utf8.ValidString(got) {
				t.Errorf("oneLine(%q) = %q: not valid UTF-8", tc.in, got)
			}
			if len(got) > 120 {
				t.Errorf("oneLine: got %d bytes, want at most 120", len(got))
			}
		})
	}
}
