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

// factsWalk runs the facts verbs on one target (extra: --db or --server):
// a key superseded, as of a time, history, a dispute resolved, the review
// queue, invalidation and deletion, and the error cases.
func factsWalk(t *testing.T, extra ...string) {
	t.Helper()
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append(args, extra...)...)
	}
	mustID := func(args ...string) string {
		t.Helper()
		code, out, errOut := cli(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		return strings.TrimSpace(out)
	}
	paris := mustID("facts", "add", "lives in Paris", "--user", "u", "--category", "general_fact", "--key", "home_city", "--valid-at", "2020-01-01T00:00:00Z")
	code, out, errOut := cli("facts", "add", "lives in Berlin", "--user", "u", "--category", "general_fact", "--key", "home_city", "--json")
	var berlin loci.Fact
	if code != exitOK || json.Unmarshal([]byte(out), &berlin) != nil || berlin.Supersedes != paris || berlin.Status != loci.FactCurrent {
		t.Fatalf("add superseding: exit %d, %s %s", code, out, errOut)
	}
	steps := []struct {
		name     string
		args     []string
		wantExit int
		want     []string // substrings of stdout (or of stderr on failure)
		absent   []string // substrings stdout must not hold
	}{
		{"ListNow", []string{"facts", "list", "--user", "u"}, 0, []string{berlin.ID + "\tcurrent\t1.00\thome_city\tlives in Berlin"}, []string{paris}},
		{"ListAsOf", []string{"facts", "list", "--user", "u", "--as-of", "2021-01-01T00:00:00Z"}, 0, []string{paris + "\tcurrent"}, []string{berlin.ID}}, // current as of then
		{"ListHistory", []string{"facts", "list", "--user", "u", "--history", "--json"}, 0, []string{`"count": 2`}, nil},
		{"Search", []string{"facts", "search", "lives", "--user", "u"}, 0, []string{berlin.ID}, []string{paris}},
		{"SearchHistory", []string{"facts", "search", "lives Paris", "--user", "u", "--history"}, 0, []string{berlin.ID, paris}, nil},
		{"Get", []string{"facts", "get", paris}, 0, []string{paris + "\tsuperseded\t1.00\thome_city\tlives in Paris"}, nil},
		{"History", []string{"facts", "history", paris}, 0, []string{berlin.ID + "\tcurrent\t", paris + "\tsuperseded\t2020-01-01T00:00:00Z\t"}, nil},
		{"Contradict", []string{"facts", "contradict", berlin.ID}, 0, []string{berlin.ID + "\tdisputed\t0.80"}, nil},
		{"ListDisputed", []string{"facts", "list", "--user", "u", "--disputed"}, 0, []string{berlin.ID}, nil},
		{"Review", []string{"facts", "review", "--user", "u"}, 0, []string{"fact\tdisputed\t" + berlin.ID + "\tlives in Berlin"}, nil},
		{"ReviewJSON", []string{"facts", "review", "--user", "u", "--json"}, 0, []string{`"kind": "fact"`, `"reason": "disputed"`}, nil},
		{"ResolveKeep", []string{"facts", "resolve", berlin.ID, "keep"}, 0, []string{berlin.ID + "\tcurrent"}, nil},
		{"ErrResolveAgain", []string{"facts", "resolve", berlin.ID, "keep"}, 1, []string{"loci facts: the fact is not disputed"}, nil},
		{"Validate", []string{"facts", "validate", berlin.ID}, 0, []string{berlin.ID + "\tcurrent\t0.90"}, nil},
		{"ErrValidateHistory", []string{"facts", "validate", paris}, 1, []string{"history does not change"}, nil},
		{"Invalidate", []string{"facts", "invalidate", berlin.ID}, 0, []string{berlin.ID + "\tinvalidated"}, nil},
		{"ErrInvalidateAgain", []string{"facts", "invalidate", berlin.ID}, 1, []string{"already no longer true"}, nil},
		{"NothingCurrent", []string{"facts", "list", "--user", "u", "--json"}, 0, []string{`"count": 0`}, nil},
		{"Delete", []string{"facts", "delete", paris}, 0, []string{"Deleted: " + paris}, nil},
		{"ErrDeleteAgain", []string{"facts", "delete", paris}, 1, []string{"loci facts: fact not found"}, nil},
		{"ErrGetUnknown", []string{"facts", "get", "nope"}, 1, []string{"fact not found"}, nil},
		{"ErrBlankKey", []string{"facts", "add", "x", "--category", "general_fact", "--key", " "}, 1, []string{"key must not be empty"}, nil},
		{"ErrUnknownCategory", []string{"facts", "add", "x", "--category", "Gossip!"}, 1, []string{"category must be a name"}, nil},
		{"ErrEmptyQuery", []string{"facts", "search", " ", "--user", "u"}, 1, []string{"q must contain at least one word"}, nil},
		{"ErrNoSub", []string{"facts"}, 2, []string{"usage: loci facts add|list"}, nil},
		{"ErrUnknownSub", []string{"facts", "frob"}, 2, []string{`unknown facts command "frob"`}, nil},
		{"ErrAddNoText", []string{"facts", "add", "--category", "general_fact"}, 2, []string{"usage: loci facts add TEXT"}, nil},
		{"ErrAddNoCategory", []string{"facts", "add", "x"}, 2, []string{"--category is required"}, nil},
		{"ErrAddBadEvidence", []string{"facts", "add", "x", "--category", "general_fact", "--evidence", "{"}, 2, []string{"--evidence is not valid JSON"}, nil},
		{"ErrAddBadValidAt", []string{"facts", "add", "x", "--category", "general_fact", "--valid-at", "tomorrow"}, 2, []string{"not an RFC 3339 time"}, nil},
		{"ErrListBadAsOf", []string{"facts", "list", "--as-of", "2021-01-01"}, 2, []string{"not an RFC 3339 time"}, nil},
		{"ErrListArg", []string{"facts", "list", "extra"}, 2, []string{"usage: loci facts list"}, nil},
		{"ErrResolveNoVerdict", []string{"facts", "resolve", berlin.ID}, 2, []string{"usage: loci facts resolve ID keep|drop"}, nil},
		{"ErrResolveBadVerdict", []string{"facts", "resolve", berlin.ID, "maybe"}, 2, []string{"usage: loci facts resolve ID keep|drop"}, nil},
		{"ErrReviewNoUser", []string{"facts", "review"}, 2, []string{"--user is required"}, nil},
		{"ErrGetNoID", []string{"facts", "get"}, 2, []string{"usage: loci facts get ID"}, nil},
		{"ErrFlagOfOtherSub", []string{"facts", "get", "x", "--at", "2021-01-01T00:00:00Z"}, 2, []string{"flag provided but not defined: -at"}, nil},
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
			} else if errOut != "" {
				t.Errorf("stderr %q, want nothing", errOut)
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
}

func TestCLIFactsLocal(t *testing.T) {
	factsWalk(t, "--db", filepath.Join(t.TempDir(), "loci.db"))
}

func TestCLIFactsServer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		srv := httptest.NewServer(httpapi.NewServer(rules.New(open(t)), slog.New(slog.NewTextHandler(io.Discard, nil))))
		defer srv.Close()
		t.Setenv("LOCI_DB", filepath.Join(t.TempDir(), "unused.db"))
		factsWalk(t, "--server", srv.URL)
	})
}
