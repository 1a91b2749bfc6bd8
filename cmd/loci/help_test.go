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

// The verbs with sub-commands: -h on the verb lists every sub-command's
// usage; -h on a sub-command prints its usage and only its flags.
func TestSubcommandHelp(t *testing.T) {
	for verb, subs := range map[string]map[string][]string{
		// sub-command → flags it has (first) and does not have (after "!")
		"block":    {"list": {"-agent", "-json", "!-expected-version"}, "get": {"-agent", "!-limit"}, "set": {"-agent", "-expected-version", "-limit"}},
		"passage":  {"add": {"-agent", "-tag", "!-offset"}, "list": {"-tag", "-limit", "-offset"}, "search": {"-tag", "-limit", "!-offset"}, "delete": {"-agent", "!-tag"}},
		"keys":     {"create": {"-role", "-agent", "-workspace"}, "list": {"-all", "!-role"}, "revoke": {"-db", "!-role"}},
		"eval":     {"locomo": {"-data", "-k", "-json", "-dump", "-without"}, "longmemeval": {"-data", "-k", "-json", "-dump", "-without"}},
		"memories": {"add": {"-kind", "-key", "-metadata", "-ttl", "-tags", "!-filter"}, "list": {"-filter", "-kind", "-limit", "!-ttl"}, "update": {"-metadata", "-ttl", "-tags", "!-kind"}, "history": {"-json", "!-metadata"}},
	} {
		for _, args := range [][]string{{verb, "-h"}, {verb, "--help"}, {"help", verb}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := runCLI(t, args...)
				if code != exitOK || stderr != "" {
					t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
				}
				for sub := range subs {
					if !strings.Contains(stdout, "loci "+verb+" "+sub) {
						t.Errorf("stdout lacks the usage of %s %s:\n%s", verb, sub, stdout)
					}
				}
			})
		}
		for sub, flags := range subs {
			t.Run(verb+" "+sub+" -h", func(t *testing.T) {
				code, stdout, stderr := runCLI(t, verb, sub, "-h")
				if code != exitOK || stderr != "" {
					t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
				}
				if !strings.HasPrefix(stdout, "loci "+verb+" "+sub+" ") {
					t.Errorf("stdout %q: want the usage of %s %s first", stdout, verb, sub)
				}
				for _, f := range flags {
					if name, not := strings.CutPrefix(f, "!"); not {
						if strings.Contains(stdout, "  "+name+" ") || strings.Contains(stdout, "  "+name+"\n") {
							t.Errorf("stdout lists %s, which %s %s does not take:\n%s", name, verb, sub, stdout)
						}
					} else if !strings.Contains(stdout, "  "+f) {
						t.Errorf("stdout lacks flag %s:\n%s", f, stdout)
					}
				}
			})
		}
	}
}

// Help asked for goes to stdout with exit 0; a missing command is bad
// usage (stderr, 2).
func TestTopLevelHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		code, stdout, stderr := runCLI(t, arg)
		if code != exitOK || stderr != "" || !strings.Contains(stdout, "usage: loci COMMAND") || !strings.Contains(stdout, "remember") {
			t.Errorf("loci %s: exit %d, stdout %q, stderr %q; want the usage on stdout", arg, code, stdout, stderr)
		}
	}
	code, stdout, stderr := runCLI(t)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "usage: loci COMMAND") {
		t.Errorf("loci: exit %d, stdout %q, stderr %q; want 2 and the usage on stderr", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "help", "remember")
	if code != exitOK || !strings.HasPrefix(stdout, "loci remember") || !strings.Contains(stdout, "-agent") {
		t.Errorf("loci help remember: exit %d, stdout %q", code, stdout)
	}
	if code, _, stderr := runCLI(t, "help", "nope"); code != exitUsage || !strings.Contains(stderr, `unknown command "nope"`) {
		t.Errorf("loci help nope: exit %d, stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := runCLI(t, args...)
		fields := strings.Fields(stdout)
		if code != exitOK || stderr != "" || len(fields) < 2 || fields[0] != "loci" || !strings.HasSuffix(stdout, "\n") {
			t.Errorf("loci %s: exit %d, stdout %q, stderr %q; want \"loci VERSION\" on stdout", args[0], code, stdout, stderr)
		}
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != exitUsage {
		t.Errorf("loci version extra: exit %d, want %d", code, exitUsage)
	}
}

// A misspelt flag or a bad flag value is bad usage: the error, then the
// verb's (or sub-command's) usage and flags, on stderr.
func TestMisspeltFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"remember", "k", "v", "--agnet", "w"}, []string{"flag provided but not defined: -agnet", "loci remember KEY VALUE", "-agent"}},
		{[]string{"search", "x", "--explian"}, []string{"-explian", "loci search QUERY", "-explain"}},
		{[]string{"block", "set", "p", "x", "--agnet", "m"}, []string{"-agnet", "loci block set LABEL", "-expected-version"}},
		{[]string{"passage", "list", "--agent", "a", "--limit", "x"}, []string{"invalid value", "loci passage list", "-offset"}},
		{[]string{"keys", "create", "--rol", "admin"}, []string{"-rol", "loci keys create --role", "-workspace"}},
		{[]string{"eval", "locomo", "--dat", "f"}, []string{"-dat", "loci eval locomo --data", "-k"}},
		{[]string{"serve", "--adr", ":0"}, []string{"-adr", "loci serve", "-addr"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}
