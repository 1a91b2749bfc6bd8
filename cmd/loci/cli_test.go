package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// runCLI runs the command line in-process and returns its exit status,
// stdout and stderr.
func runCLI(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// cliStep is one command line and what it must do.
type cliStep struct {
	name       string
	args       []string
	wantExit   int
	wantStdout string // exact, when wantJSON is nil
	wantStderr string // a substring; "" means stderr must be empty
	// wantJSON, when set, holds top-level fields of stdout as JSON.
	wantJSON map[string]any
}

func runSteps(t *testing.T, extra []string, steps []cliStep) {
	t.Helper()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append(append([]string{}, st.args...), extra...)...)
			if code != st.wantExit {
				t.Errorf("exit status: got %d, want %d (stderr %q)", code, st.wantExit, stderr)
			}
			if st.wantJSON != nil {
				var got map[string]any
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatalf("stdout is not JSON: %v: %q", err, stdout)
				}
				for k, want := range st.wantJSON {
					g, _ := json.Marshal(got[k])
					w, _ := json.Marshal(want)
					if string(g) != string(w) {
						t.Errorf("stdout field %q: got %s, want %s", k, g, w)
					}
				}
			} else if stdout != st.wantStdout {
				t.Errorf("stdout: got %q, want %q", stdout, st.wantStdout)
			}
			if st.wantStderr == "" && stderr != "" {
				t.Errorf("stderr: got %q, want nothing", stderr)
			} else if !strings.Contains(stderr, st.wantStderr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr, st.wantStderr)
			}
		})
	}
}

// noteSteps is the remember / recall / forget walk, the same on a local
// database and on a server.
var noteSteps = []cliStep{
	{name: "RecallAllEmpty", args: []string{"recall", "--agent", "writer"}, wantExit: 0},
	{name: "RememberCreated", args: []string{"remember", "audience_preference", "Educational content performs 3x better", "--agent", "writer"},
		wantStdout: "Remembered: audience_preference (created)\n"},
	{name: "RememberUpdated", args: []string{"remember", "--agent", "writer", "audience_preference", "Focus on how-to guides"},
		wantStdout: "Remembered: audience_preference (updated)\n"},
	{name: "RememberJSON", args: []string{"remember", "limits", `{"posts_per_day": 3}`, "--json", "--agent", "writer"},
		wantStdout: "Remembered: limits (created)\n"},
	{name: "RememberJSONLooking", args: []string{"remember", "raw", `{"not": "parsed"}`, "--agent", "writer"},
		wantStdout: "Remembered: raw (created)\n"},
	{name: "Recall", args: []string{"recall", "audience_preference", "--agent", "writer"},
		wantStdout: "Focus on how-to guides\n"},
	{name: "RecallJSONValue", args: []string{"recall", "limits", "--agent", "writer"},
		wantStdout: "{\"posts_per_day\":3}\n"},
	{name: "RecallStringThatLooksLikeJSON", args: []string{"recall", "raw", "--agent", "writer"},
		wantStdout: "{\"not\": \"parsed\"}\n"},
	{name: "RecallAll", args: []string{"recall", "--agent", "writer"},
		wantStdout: "audience_preference\tFocus on how-to guides\nlimits\t{\"posts_per_day\":3}\nraw\t{\"not\": \"parsed\"}\n"},
	{name: "RecallAsJSON", args: []string{"recall", "audience_preference", "--agent", "writer", "--json"},
		wantJSON: map[string]any{"success": true, "key": "audience_preference", "value": "Focus on how-to guides"}},
	{name: "RecallAllAsJSON", args: []string{"recall", "--json", "--agent", "writer"},
		wantJSON: map[string]any{"success": true, "count": 3}},
	{name: "OtherAgentSeesNothing", args: []string{"recall", "--agent", "reviewer"}, wantExit: 0},
	{name: "ErrOtherAgentRecall", args: []string{"recall", "audience_preference", "--agent", "reviewer"},
		wantExit: 1, wantStderr: "loci recall: Memory not found\n"},
	{name: "ErrOtherAgentForget", args: []string{"forget", "limits", "--agent", "reviewer"},
		wantExit: 1, wantStderr: "loci forget: Memory not found\n"},
	{name: "Forget", args: []string{"forget", "limits", "--agent", "writer"}, wantStdout: "Forgotten: limits\n"},
	{name: "ErrRecallForgotten", args: []string{"recall", "limits", "--agent", "writer"},
		wantExit: 1, wantStderr: "loci recall: Memory not found\n"},
	{name: "ErrForgetForgotten", args: []string{"forget", "limits", "--agent", "writer"},
		wantExit: 1, wantStderr: "Memory not found"},
	{name: "ErrEmptyValue", args: []string{"remember", "k", "", "--agent", "writer"},
		wantExit: 1, wantStderr: "loci remember: value must not be empty\n"},
	{name: "ErrWhitespaceValue", args: []string{"remember", "k", " \t ", "--agent", "writer"},
		wantExit: 1, wantStderr: "value must not be empty"},
	{name: "ErrEmptyKey", args: []string{"remember", "", "v", "--agent", "writer"},
		wantExit: 1, wantStderr: "key must not be empty"},
	{name: "ErrBadJSON", args: []string{"remember", "k", `{"a":`, "--json", "--agent", "writer"},
		wantExit: 1, wantStderr: "VALUE is not valid JSON"},
	{name: "ErrValueTooLarge", args: []string{"remember", "k", strings.Repeat("v", loci.MaxNoteValueBytes+1), "--agent", "writer"},
		wantExit: 1, wantStderr: "value must be at most 65536 bytes"},
	{name: "NothingStoredByErrors", args: []string{"recall", "--agent", "writer"},
		wantStdout: "audience_preference\tFocus on how-to guides\nraw\t{\"not\": \"parsed\"}\n"},
}

func TestCLINotesLocal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sub", "loci.db") // the directory is created
	runSteps(t, []string{"--db", db}, noteSteps)
	if _, err := os.Stat(db); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func TestCLINotesServer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(open(t)), slog.New(slog.NewTextHandler(io.Discard, nil))))
		defer srv.Close()
		t.Setenv("LOCI_DB", filepath.Join(t.TempDir(), "unused.db"))
		runSteps(t, []string{"--server", srv.URL}, noteSteps)
		if _, err := os.Stat(os.Getenv("LOCI_DB")); !os.IsNotExist(err) {
			t.Errorf("with --server, a local database was opened: %v", err)
		}
	})
}

func TestCLIServerDown(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	code, _, stderr := runCLI(t, "recall", "--agent", "writer", "--server", url)
	if code != exitDomain || !strings.Contains(stderr, "loci recall:") {
		t.Errorf("got exit %d, stderr %q; want 1 and a message", code, stderr)
	}
}

func TestCLIUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	steps := []cliStep{
		{name: "ErrNoArgs", args: nil, wantExit: 2, wantStderr: "usage: loci COMMAND"},
		// loci help: TestTopLevelHelp (on stdout).
		{name: "ErrUnknownCommand", args: []string{"frobnicate"}, wantExit: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "ErrRememberNoAgent", args: []string{"remember", "k", "v", "--db", db}, wantExit: 2, wantStderr: "--agent is required"},
		{name: "ErrRecallNoAgent", args: []string{"recall", "k", "--db", db}, wantExit: 2, wantStderr: "--agent is required"},
		{name: "ErrForgetNoAgent", args: []string{"forget", "k", "--db", db}, wantExit: 2, wantStderr: "--agent is required"},
		{name: "ErrAgentWithoutValue", args: []string{"recall", "--agent"}, wantExit: 2, wantStderr: "flag needs an argument"},
		{name: "ErrRememberOneArg", args: []string{"remember", "k", "--agent", "a", "--db", db}, wantExit: 2, wantStderr: "usage: loci remember KEY VALUE"},
		{name: "ErrRememberThreeArgs", args: []string{"remember", "k", "v", "w", "--agent", "a", "--db", db}, wantExit: 2, wantStderr: "usage: loci remember"},
		{name: "ErrRecallTwoArgs", args: []string{"recall", "k", "l", "--agent", "a", "--db", db}, wantExit: 2, wantStderr: "usage: loci recall"},
		{name: "ErrForgetNoArg", args: []string{"forget", "--agent", "a", "--db", db}, wantExit: 2, wantStderr: "usage: loci forget"},
		{name: "ErrForgetTwoArgs", args: []string{"forget", "k", "l", "--agent", "a", "--db", db}, wantExit: 2, wantStderr: "usage: loci forget"},
		{name: "ErrUnknownFlag", args: []string{"remember", "k", "v", "--agent", "a", "--bogus", "--db", db}, wantExit: 2, wantStderr: "flag provided but not defined: -bogus"},
		{name: "ErrServeArg", args: []string{"serve", "extra", "--db", db}, wantExit: 2, wantStderr: `unexpected argument "extra"`},
		{name: "ErrServeUnknownFlag", args: []string{"serve", "--port", "1"}, wantExit: 2, wantStderr: "flag provided but not defined"},
	}
	runSteps(t, nil, steps)
	// Usage errors touch no database.
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a usage error created the database: %v", err)
	}
}

func TestCLIDatabaseChoice(t *testing.T) {
	dir := t.TempDir()
	t.Run("LOCI_DB", func(t *testing.T) {
		envDB := filepath.Join(dir, "env.db")
		t.Setenv("LOCI_DB", envDB)
		runSteps(t, nil, []cliStep{{name: "Remember", args: []string{"remember", "k", "from env", "--agent", "a"},
			wantStdout: "Remembered: k (created)\n"}})
		t.Setenv("LOCI_DB", "")
		runSteps(t, nil, []cliStep{{name: "RecallByFlag", args: []string{"recall", "k", "--agent", "a", "--db", envDB},
			wantStdout: "from env\n"}})
	})
	t.Run("FlagOverridesEnv", func(t *testing.T) {
		t.Setenv("LOCI_DB", filepath.Join(dir, "env.db"))
		flagDB := filepath.Join(dir, "flag.db")
		runSteps(t, nil, []cliStep{
			{name: "Remember", args: []string{"remember", "only_in_flag_db", "v", "--agent", "a", "--db", flagDB},
				wantStdout: "Remembered: only_in_flag_db (created)\n"},
			{name: "ErrNotInEnvDB", args: []string{"recall", "only_in_flag_db", "--agent", "a"},
				wantExit: 1, wantStderr: "Memory not found"},
		})
	})
	t.Run("DefaultInDataDir", func(t *testing.T) {
		data := filepath.Join(dir, "xdg")
		t.Setenv("LOCI_DB", "")
		t.Setenv("XDG_DATA_HOME", data)
		runSteps(t, nil, []cliStep{{name: "Remember", args: []string{"remember", "k", "v", "--agent", "a"},
			wantStdout: "Remembered: k (created)\n"}})
		if _, err := os.Stat(filepath.Join(data, "loci", "loci.db")); err != nil {
			t.Errorf("default database: %v", err)
		}
	})
	t.Run("Memory", func(t *testing.T) {
		// A transient store: each command starts empty.
		runSteps(t, []string{"--db", ":memory:"}, []cliStep{
			{name: "Remember", args: []string{"remember", "k", "v", "--agent", "a"}, wantStdout: "Remembered: k (created)\n"},
			{name: "ErrGone", args: []string{"recall", "k", "--agent", "a"}, wantExit: 1, wantStderr: "Memory not found"},
		})
	})
}

// TestCLIFlagHelp: -h and --help print the verb's usage and flags on stdout
// and exit 0.
func TestCLIFlagHelp(t *testing.T) {
	for _, args := range [][]string{{"remember", "-h"}, {"search", "--help"}, {"serve", "-help"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "loci "+args[0]) || !strings.Contains(stdout, "-db") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and the usage with its flags", args, code, stdout, stderr)
		}
	}
}
