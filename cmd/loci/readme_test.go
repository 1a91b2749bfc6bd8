//go:build unix

package main

// TestREADME runs README.md's shell examples in the order they are
// written, as one script against a real `loci serve`, and checks every
// command succeeds and prints what the README says it prints.
//
// The rules, for whoever writes README sections:
//
//   - Only fenced blocks whose info string is exactly "sh" run (```sh).
//     Blocks of any other language (json, go, python, bash, text) never
//     run; examples in other languages are run by their own tests.
//   - An sh block that must not run here (it needs the network, files
//     outside the repository, minutes of time, or a server of its own, e.g.
//     `go run ./cmd/loci serve`, npx, a PostgreSQL URL, loci bench) is
//     preceded by the line <!-- norun --> (blank lines between allowed).
//   - The blocks run in order in one bash process with `set -u` (so a
//     variable set in one block, VAR=$(curl … | jq -r .id), is there in
//     the next, and an unset one fails), from a fresh directory that holds
//     bin/loci, the binary under test. curl and jq are available.
//   - `loci serve` runs on the default database (XDG_DATA_HOME and HOME
//     point to fresh directories, LOCI_DB is unset), which the CLI examples
//     use too; localhost:8420 and 127.0.0.1:8420 are rewritten to its
//     address.
//   - A command is a line with its continuation lines (a trailing
//     backslash, or an open quote). Every command must exit 0. The comment
//     lines right below a command (no blank line between) are its output,
//     line for line, where "…" stands for any text; a command without them
//     must not answer a JSON object with "success": false.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeCommand is one command of a README sh block.
type readmeCommand struct {
	line int      // README line of its first line
	text string   // the command, as written (continuation lines included)
	want []string // the output lines the README claims; nil for none
}

// readmeCommands extracts the commands of the runnable sh blocks of a
// Markdown document, in order.
func readmeCommands(t *testing.T, markdown string) []readmeCommand {
	t.Helper()
	lines := strings.Split(markdown, "\n")
	var out []readmeCommand
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		info := strings.TrimSpace(strings.TrimPrefix(lines[i], "```"))
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if info == "sh" && !norun(lines[:i]) {
			out = append(out, blockCommands(t, lines[i+1:end], i+2)...)
		}
		i = end
	}
	return out
}

// norun reports whether the last non-blank line before a block is the
// norun marker.
func norun(before []string) bool {
	for j := len(before) - 1; j >= 0; j-- {
		if l := strings.TrimSpace(before[j]); l != "" {
			return l == "<!-- norun -->"
		}
	}
	return false
}

// blockCommands splits a block's lines into commands; first is the README
// line number of lines[0].
func blockCommands(t *testing.T, lines []string, first int) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	var cur *readmeCommand
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
			cur = nil
		case strings.HasPrefix(trimmed, "#"):
			if cur != nil {
				cur.want = append(cur.want, strings.TrimPrefix(strings.TrimPrefix(trimmed, "#"), " "))
			}
		default:
			c := readmeCommand{line: first + i, text: l}
			for !complete(t, c.text) && i+1 < len(lines) {
				i++
				c.text += "\n" + lines[i]
			}
			out = append(out, c)
			cur = &out[len(out)-1]
		}
	}
	return out
}

// complete reports whether text is a whole shell command: no trailing
// backslash and nothing bash finds unterminated (a quote).
func complete(t *testing.T, text string) bool {
	t.Helper()
	if strings.HasSuffix(strings.TrimRight(text, " \t"), "\\") {
		return false
	}
	return exec.Command("bash", "-n", "-c", text).Run() == nil
}

// matchClaim reports whether output is what the claim says: its lines,
// "…" standing for any text.
func matchClaim(claim []string, output string) bool {
	parts := strings.Split(strings.Join(claim, "\n"), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*") + `\z`).MatchString(strings.TrimRight(output, "\n"))
}

func TestREADME(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's examples need %s", tool)
		}
	}
	bin := lociBinary(t)
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, string(raw))
	if len(cmds) < 10 {
		t.Fatalf("found %d runnable commands in README.md: the extractor is broken", len(cmds))
	}

	tmp := t.TempDir()
	work, out := filepath.Join(tmp, "work"), filepath.Join(tmp, "out")
	for _, d := range []string{filepath.Join(work, "bin"), out, filepath.Join(tmp, "home"), filepath.Join(tmp, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(work, "bin", "loci")); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(tmp, "home"), "XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"LOCI_DB=", "LOCI_API_KEY=", "LOCI_EMBEDDER=", "LOCI_EMBED_URL="}
	srv := startServer(t, env)
	addr := strings.TrimPrefix(srv.url, "http://")

	var script strings.Builder
	script.WriteString("set -u\ncd " + strconv.Quote(work) + "\n")
	for i, c := range cmds {
		text := strings.NewReplacer("localhost:8420", addr, "127.0.0.1:8420", addr).Replace(c.text)
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q </dev/null\necho $? >%q\n", text,
			filepath.Join(out, fmt.Sprint(i, ".out")), filepath.Join(out, fmt.Sprint(i, ".err")), filepath.Join(out, fmt.Sprint(i, ".status")))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", script.String())
	sh.Env = append(os.Environ(), env...)
	shOut, shErr := sh.CombinedOutput()

	read := func(i int, ext string) string {
		b, _ := os.ReadFile(filepath.Join(out, fmt.Sprint(i, ext)))
		return string(b)
	}
	for i, c := range cmds {
		status := strings.TrimSpace(read(i, ".status"))
		stdout, stderr := read(i, ".out"), read(i, ".err")
		where := fmt.Sprintf("README.md:%d: %s", c.line, c.text)
		if testing.Verbose() {
			t.Logf("%s\n→ %s%s", where, stdout, stderr)
		}
		switch {
		case status == "":
			t.Fatalf("%s\ndid not finish (the script stopped: %v %s)\nstderr: %s", where, shErr, shOut, stderr)
		case status != "0":
			t.Errorf("%s\nexit status %s\nstdout: %s\nstderr: %s", where, status, stdout, stderr)
		case c.want != nil && !matchClaim(c.want, stdout):
			t.Errorf("%s\nprinted:\n%s\nthe README says:\n%s", where, stdout, strings.Join(c.want, "\n"))
		case c.want == nil && failedJSON(stdout):
			t.Errorf("%s\nanswered an error: %s", where, stdout)
		}
	}
}

// failedJSON reports whether output is a JSON object with "success": false.
func failedJSON(output string) bool {
	var v struct {
		Success *bool `json:"success"`
	}
	return json.Unmarshal([]byte(output), &v) == nil && v.Success != nil && !*v.Success
}

// TestREADMEExtractor shows the extractor's rules on a small document.
func TestREADMEExtractor(t *testing.T) {
	doc := "text\n```sh\ncurl -s a \\\n  -d '{\"x\":\n  1}'\n# {\"ok\":…}\n\n# a note\necho hi   # trailing\n```\n" +
		"<!-- norun -->\n\n```sh\nnpx something\n```\n```bash\nnot run\n```\n```json\n{}\n```\n```sh\nX=$(echo 1)\n# 1\n# 2\n```\n"
	got := readmeCommands(t, doc)
	want := []readmeCommand{
		{line: 3, text: "curl -s a \\\n  -d '{\"x\":\n  1}'", want: []string{`{"ok":…}`}},
		{line: 9, text: "echo hi   # trailing"},
		{line: 23, text: "X=$(echo 1)", want: []string{"1", "2"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d commands %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i].line != want[i].line || got[i].text != want[i].text || strings.Join(got[i].want, "|") != strings.Join(want[i].want, "|") {
			t.Errorf("command %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, tc := range []struct {
		claim  []string
		output string
		want   bool
	}{
		{[]string{`{"a":1,"t":"…"}`}, `{"a":1,"t":"2025-01-01"}` + "\n", true},
		{[]string{`{"a":1,"t":"…"}`}, `{"a":2,"t":"x"}`, false},
		{[]string{"one", "…"}, "one\ntwo\nthree\n", true},
		{[]string{"one"}, "one\ntwo", false},
	} {
		if got := matchClaim(tc.claim, tc.output); got != tc.want {
			t.Errorf("matchClaim(%q, %q) = %v, want %v", tc.claim, tc.output, got, tc.want)
		}
	}
}
