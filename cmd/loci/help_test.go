package main

import (
	"strings"
	"testing"
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
