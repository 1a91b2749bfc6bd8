package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// cliRun runs the command line on db and returns its exit status, stdout
// and stderr.
func cliRun(t *testing.T, db, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append(args, "--db", db), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCoreMemoryCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	var passageID string
	steps := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		wantOut  string // stdout contains this
		wantErr  string // stderr contains this
		checkOut func(t *testing.T, out string)
	}{
		{name: "ErrPromptUnknownAgent", args: []string{"prompt", "--agent", "michael"}, wantCode: 1, wantErr: "agent michael not found"},
		{name: "ErrPromptNoAgent", args: []string{"prompt"}, wantCode: 2, wantErr: "--agent is required"},
		{name: "ErrPromptExtraArg", args: []string{"prompt", "x", "--agent", "michael"}, wantCode: 2, wantErr: "usage"},
		{name: "BlockSetCreatesAgent", args: []string{"block", "set", "personality", "World's best boss", "--agent", "michael"},
			wantCode: 0, wantOut: "Created personality (version 1)"},
		{name: "BlockSetUpdate", args: []string{"block", "set", "current_state", "Planning a party", "--agent", "michael"},
			wantCode: 0, wantOut: "Updated current_state (version 2)"},
		{name: "BlockSetStdin", stdin: "Loves Jan\n", args: []string{"block", "set", "relationships", "-", "--agent", "michael"},
			wantCode: 0, wantOut: "Updated relationships (version 2)"},
		{name: "Prompt", args: []string{"prompt", "--agent", "michael"}, wantCode: 0,
			checkOut: func(t *testing.T, out string) {
				want := "### current_state\nPlanning a party\n\n### personality\nWorld's best boss\n\n### relationships\nLoves Jan\n"
				if out != want {
					t.Fatalf("prompt = %q, want %q", out, want)
				}
			}},
		{name: "BlockGet", args: []string{"block", "get", "personality", "--agent", "michael"}, wantCode: 0, wantOut: "World's best boss\n"},
		{name: "BlockList", args: []string{"block", "list", "--agent", "michael"}, wantCode: 0, wantOut: "personality\tv1\t17/5000 chars"},
		{name: "BlockListJSON", args: []string{"block", "list", "--json", "--agent", "michael"}, wantCode: 0, wantOut: `"count": 3`},
		{name: "ErrBlockGetMissing", args: []string{"block", "get", "catchphrases", "--agent", "michael"}, wantCode: 1, wantErr: "not found"},
		{name: "ErrBlockSetStale", args: []string{"block", "set", "personality", "x", "--expected-version", "7", "--agent", "michael"},
			wantCode: 1, wantErr: "version conflict"},
		{name: "BlockSetExpected", args: []string{"block", "set", "personality", "Improv", "--expected-version", "1", "--agent", "michael"},
			wantCode: 0, wantOut: "Updated personality (version 2)"},
		{name: "ErrBlockSetOverLimit", args: []string{"block", "set", "personality", "too long", "--limit", "3", "--agent", "michael"},
			wantCode: 1, wantErr: "over the block's limit of 3"},
		{name: "ErrBlockSetBadLimit", args: []string{"block", "set", "personality", "x", "--limit", "many", "--agent", "michael"},
			wantCode: 2},
		{name: "ErrBlockSetArgs", args: []string{"block", "set", "personality", "--agent", "michael"}, wantCode: 2, wantErr: "usage"},
		{name: "ErrBlockNoSub", args: []string{"block"}, wantCode: 2, wantErr: "usage"},
		{name: "ErrBlockUnknownSub", args: []string{"block", "frobnicate"}, wantCode: 2, wantErr: "unknown block command"},
		{name: "ErrBlockNoAgent", args: []string{"block", "list"}, wantCode: 2, wantErr: "--agent is required"},

		{name: "PassageAdd", args: []string{"passage", "add", "That time Michael grilled his foot", "--tag", "episode", "--tag", "injury", "--agent", "michael"},
			wantCode: 0, checkOut: func(t *testing.T, out string) {
				passageID = strings.TrimSpace(out)
				if len(passageID) != 36 {
					t.Fatalf("add printed %q, want an id", out)
				}
			}},
		{name: "PassageAddLore", args: []string{"passage", "add", "Michael runs the Scranton branch", "--tag", "lore", "--agent", "michael"}, wantCode: 0},
		{name: "PassageList", args: []string{"passage", "list", "--agent", "michael"}, wantCode: 0,
			checkOut: func(t *testing.T, out string) {
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if len(lines) != 2 || !strings.Contains(lines[0], "Scranton") || !strings.Contains(lines[1], "episode,injury\tThat time") {
					t.Fatalf("list = %q, want newest first", out)
				}
			}},
		{name: "PassageListTag", args: []string{"passage", "list", "--tag", "lore", "--json", "--agent", "michael"}, wantCode: 0, wantOut: `"count": 1`},
		{name: "PassageSearch", args: []string{"passage", "search", "grilled foot", "--agent", "michael"}, wantCode: 0, wantOut: "That time Michael grilled his foot"},
		{name: "PassageSearchHostile", args: []string{"passage", "search", `"foot" AND (grill* NEAR`, "--agent", "michael"}, wantCode: 0, wantOut: "grilled his foot"},
		{name: "PassageSearchNone", args: []string{"passage", "search", "toby", "--agent", "michael"}, wantCode: 0,
			checkOut: func(t *testing.T, out string) {
				if out != "" {
					t.Fatalf("search printed %q, want nothing", out)
				}
			}},
		{name: "ErrPassageSearchEmpty", args: []string{"passage", "search", "  ", "--agent", "michael"}, wantCode: 1, wantErr: "query must not be empty"},
		{name: "ErrPassageAddEmpty", args: []string{"passage", "add", "", "--agent", "michael"}, wantCode: 1, wantErr: "content must not be empty"},
		{name: "ErrPassageSearchTwoTags", args: []string{"passage", "search", "x", "--tag", "a", "--tag", "b", "--agent", "michael"}, wantCode: 2},
		{name: "ErrPassageNoSub", args: []string{"passage"}, wantCode: 2, wantErr: "usage"},
		{name: "ErrPassageDeleteArgs", args: []string{"passage", "delete", "--agent", "michael"}, wantCode: 2, wantErr: "usage"},
		{name: "PassageDelete", args: []string{"passage", "delete", "{{id}}", "--agent", "michael"}, wantCode: 0, wantOut: "Deleted: "},
		{name: "ErrPassageDeleteAgain", args: []string{"passage", "delete", "{{id}}", "--agent", "michael"}, wantCode: 1, wantErr: "not found"},
		{name: "ErrPassageDeleteOtherAgent", args: []string{"passage", "delete", "{{id}}", "--agent", "dwight"}, wantCode: 1, wantErr: "not found"},
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			args := make([]string, len(st.args))
			for i, a := range st.args {
				args[i] = strings.ReplaceAll(a, "{{id}}", passageID)
			}
			code, out, errOut := cliRun(t, db, st.stdin, args...)
			if code != st.wantCode {
				t.Fatalf("exit status = %d, want %d; stdout %q; stderr %q", code, st.wantCode, out, errOut)
			}
			if !strings.Contains(out, st.wantOut) {
				t.Errorf("stdout = %q, want it to contain %q", out, st.wantOut)
			}
			if !strings.Contains(errOut, st.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, st.wantErr)
			}
			if st.checkOut != nil {
				st.checkOut(t, out)
			}
		})
		if !ok {
			return
		}
	}
}
