package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// memoriesWalk runs the memories verbs on one target (extra: --db or
// --server): add (ADD, NOOP, a key's UPDATE), get, update, history,
// a filtered list, delete, and the error cases.
func memoriesWalk(t *testing.T, extra ...string) {
	t.Helper()
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append(args, extra...)...)
	}
	add := func(args ...string) (id, stderr string) {
		t.Helper()
		code, out, errOut := cli(append([]string{"memories", "add"}, args...)...)
		if code != exitOK {
			t.Fatalf("memories add %v: exit %d, stderr %q", args, code, errOut)
		}
		return strings.TrimSpace(out), errOut
	}
	tabs, ev := add("Prefers tabs", "--user", "u", "--agent", "coder", "--tags", "style,editor", "--metadata", `{"project": "billing", "priority": 2}`)
	if !strings.HasPrefix(ev, "ADD fact") {
		t.Errorf("add: stderr %q, want ADD fact", ev)
	}
	if again, ev := add("prefers  TABS", "--user", "u", "--agent", "coder"); again != tabs || !strings.HasPrefix(ev, "NOOP") {
		t.Errorf("the same content again: %q %q, want NOOP of %s", again, ev, tabs)
	}
	lyon, _ := add("lives in Lyon", "--user", "u", "--key", "city")
	paris, ev := add("lives in Paris", "--user", "u", "--key", "city")
	if !strings.Contains(ev, "UPDATE fact") || !strings.Contains(ev, "supersedes "+lyon) {
		t.Errorf("a key's new content: stderr %q, want UPDATE superseding %s", ev, lyon)
	}
	passage, _ := add("We shipped v2 on Friday", "--kind", "passage", "--agent", "coder", "--ttl", "24h", "--metadata", `{"project": "search"}`)
	note, _ := add("main", "--kind", "note", "--agent", "coder", "--key", "branch", "--ttl", "3600")

	steps := []struct {
		name     string
		args     []string
		wantExit int
		want     []string // substrings of stdout (or of stderr on failure)
		absent   []string // substrings stdout must not hold
	}{
		{"Get", []string{"memories", "get", tabs}, 0, []string{tabs + "\tfact\t-\tPrefers tabs\t{\"priority\":2,\"project\":\"billing\"}"}, nil},
		{"GetJSON", []string{"memories", "get", tabs, "--json"}, 0, []string{`"user_id": "u"`, `"agent_id": "coder"`, `"project": "billing"`, `"style"`}, nil},
		{"GetNote", []string{"memories", "get", note}, 0, []string{note + "\tnote\tbranch\t"}, nil},
		{"GetPassageExpires", []string{"memories", "get", passage, "--json"}, 0, []string{`"kind": "passage"`, `"expires_at"`}, nil},
		{"UpdateNoExpiry", []string{"memories", "update", note, "--no-expiry", "--json"}, 0, []string{`"event": "UPDATE"`}, nil},
		{"GetNoteNoExpiry", []string{"memories", "get", note, "--json"}, 0, []string{`"kind": "note"`}, []string{`"expires_at"`}},
		{"ErrNoExpiryAndTTL", []string{"memories", "update", note, "--no-expiry", "--ttl", "60"}, 2, []string{"--no-expiry removes the time to live"}, nil},
		{"Update", []string{"memories", "update", tabs, "Prefers spaces", "--metadata", `{"project": "billing", "checked": true}`}, 0, []string{tabs}, nil},
		{"UpdateNoop", []string{"memories", "update", tabs, "Prefers spaces", "--json"}, 0, []string{`"event": "NOOP"`}, nil},
		{"UpdateTags", []string{"memories", "update", tabs, "--tags", "style", "--json"}, 0, []string{`"event": "UPDATE"`}, nil},
		{"History", []string{"memories", "history", tabs}, 0, []string{"\tUPDATE\t", "Prefers spaces", "1\tADD\t"}, nil},
		{"HistoryJSON", []string{"memories", "history", tabs, "--json"}, 0, []string{`"versions"`, `"content": "Prefers tabs"`}, nil},
		{"HistoryOfKey", []string{"memories", "history", paris}, 0, []string{"lives in Paris", "lives in Lyon"}, nil},
		{"ListUser", []string{"memories", "list", "--user", "u"}, 0, []string{tabs, paris}, []string{passage, note}},
		{"ListFilter", []string{"memories", "list", "--filter", `{"metadata.project": "billing"}`}, 0, []string{tabs}, []string{passage, paris}},
		{"ListFilterOr", []string{"memories", "list", "--filter", `{"or": [{"metadata.project": {"in": ["search"]}}, {"key": "branch"}]}`}, 0, []string{passage, note}, []string{tabs}},
		{"ListFilterNot", []string{"memories", "list", "--agent", "coder", "--filter", `{"not": {"kind": "fact"}}`}, 0, []string{passage, note}, []string{tabs}},
		{"ListKind", []string{"memories", "list", "--kind", "passage,note"}, 0, []string{passage, note}, []string{tabs}},
		// The user's memories: tabs, and the key city's two versions.
		{"ListJSON", []string{"memories", "list", "--user", "u", "--limit", "1", "--json"}, 0, []string{`"count": 3`}, nil},
		{"Delete", []string{"memories", "delete", passage}, 0, []string{"Deleted: " + passage}, nil},
		{"ErrDeleteAgain", []string{"memories", "delete", passage}, 1, []string{"loci memories: memory not found"}, nil},
		{"ErrGetUnknown", []string{"memories", "get", "nope"}, 1, []string{"memory not found"}, nil},
		{"ErrUpdateUnknown", []string{"memories", "update", "nope", "x"}, 1, []string{"memory not found"}, nil},
		{"ErrHistoryUnknown", []string{"memories", "history", "nope"}, 1, []string{"memory not found"}, nil},
		{"ErrHistoryDeleted", []string{"memories", "history", passage}, 1, []string{"memory not found"}, nil},
		{"ErrFilterField", []string{"memories", "list", "--filter", `{"colour": "red"}`}, 1, []string{`unknown filter field "colour"`}, nil},
		{"ErrFilterOperator", []string{"memories", "list", "--filter", `{"kind": {"like": "fact"}}`}, 1, []string{`unknown operator "like"`}, nil},
		{"ErrFilterJSON", []string{"memories", "list", "--filter", `{"kind":`}, 2, []string{"-filter: not valid JSON"}, nil},
		{"ErrMetadataJSON", []string{"memories", "add", "x", "--metadata", `{"a"`}, 2, []string{"-metadata: not valid JSON"}, nil},
		{"ErrMetadataKey", []string{"memories", "add", "x", "--metadata", `{"bad.key": 1}`}, 1, []string{`metadata key "bad.key"`}, nil},
		{"ErrMetadataNotObject", []string{"memories", "add", "x", "--metadata", `[1, 2]`}, 1, []string{"metadata"}, nil},
		{"ErrMetadataTooLarge", []string{"memories", "add", "x", "--metadata", `{"a": "` + strings.Repeat("x", loci.MaxMetadataBytes) + `"}`}, 1, []string{"metadata"}, nil},
		{"ErrNoteWithoutKey", []string{"memories", "add", "x", "--kind", "note", "--agent", "coder"}, 1, []string{"key"}, nil},
		{"ErrKindNotAdded", []string{"memories", "add", "x", "--kind", "episode", "--user", "u"}, 1, []string{"/v1/episodes"}, nil},
		{"ErrUnknownKind", []string{"memories", "add", "x", "--kind", "thought"}, 1, []string{"thought"}, nil},
		{"ErrTTLFormat", []string{"memories", "add", "x", "--ttl", "soon"}, 2, []string{"-ttl: want a duration"}, nil},
		{"ErrTTLZero", []string{"memories", "add", "x", "--ttl", "0"}, 2, []string{"-ttl: a time to live must be positive"}, nil},
		{"ErrTTLFraction", []string{"memories", "add", "x", "--ttl", "1.5s"}, 2, []string{"whole seconds"}, nil},
		{"ErrUpdateNothing", []string{"memories", "update", tabs}, 2, []string{"nothing to change"}, nil},
		{"ErrNoSub", []string{"memories"}, 2, []string{"usage: loci memories add|get|update|delete|history|list"}, nil},
		{"ErrUnknownSub", []string{"memories", "frob"}, 2, []string{`unknown memories command "frob"`}, nil},
		{"ErrAddNoText", []string{"memories", "add", "--user", "u"}, 2, []string{"usage: loci memories add TEXT"}, nil},
		{"ErrGetNoID", []string{"memories", "get"}, 2, []string{"usage: loci memories get ID"}, nil},
		{"ErrListArg", []string{"memories", "list", "extra"}, 2, []string{"usage: loci memories list"}, nil},
		{"ErrFlagOfOtherSub", []string{"memories", "get", tabs, "--filter", "{}"}, 2, []string{"flag provided but not defined: -filter"}, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			code, out, errOut := cli(st.args...)
			if code != st.wantExit {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, st.wantExit, out, errOut)
			}
			text := out
			if st.wantExit != exitOK {
				text = errOut
			}
			for _, w := range st.want {
				if !strings.Contains(text, w) {
					t.Errorf("output %q, want it to hold %q", text, w)
				}
			}
			for _, a := range st.absent {
				if strings.Contains(out, a) {
					t.Errorf("stdout %q holds %q", out, a)
				}
			}
		})
	}
	// The update kept the content and the new metadata.
	_, out, _ := cli("memories", "get", tabs, "--json")
	var m struct {
		Content  string         `json:"content"`
		Tags     []string       `json:"tags"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Content != "Prefers spaces" || m.Metadata["checked"] != true || len(m.Tags) != 1 {
		t.Errorf("after the updates: %s (%v)", out, err)
	}
}

func TestCLIMemoriesLocal(t *testing.T) {
	memoriesWalk(t, "--db", filepath.Join(t.TempDir(), "loci.db"))
}

func TestCLIMemoriesServer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(open(t)), slog.New(slog.NewTextHandler(io.Discard, nil))))
		defer srv.Close()
		t.Setenv("LOCI_DB", filepath.Join(t.TempDir(), "unused.db"))
		memoriesWalk(t, "--server", srv.URL)
	})
}
