package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/sqlite"
)

func TestMaintainVerb(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	ctx := context.Background()
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().UTC().Add(-time.Hour)
	err = store.Update(ctx, func(tx loci.Tx) error {
		return tx.InsertRecord(ctx, &loci.Record{ID: "w1", Workspace: loci.DefaultWorkspace, Kind: loci.KindWorking,
			Scope: loci.Scope{TaskID: "t", AgentID: "a"}, Key: "k", Content: "1", Data: json.RawMessage(`{"value":1}`),
			CreatedAt: past.Add(-lcDayCLI), UpdatedAt: past.Add(-lcDayCLI), ExpiresAt: past, Version: 1})
	})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"DryRun", []string{"maintain", "--db", path, "--tasks", "expire", "--dry-run"}, exitOK, "(dry run) expire      created 0, updated 0, deleted 1"},
		{"Expire", []string{"maintain", "--db", path, "--tasks", "expire"}, exitOK, "expire      created 0, updated 0, deleted 1"},
		{"ExpireAgain", []string{"maintain", "--db", path, "--tasks", "expire"}, exitOK, "expire      created 0, updated 0, deleted 0"},
		{"AllJSON", []string{"maintain", "--db", path, "--json"}, exitOK, `"consolidate": {`},
		{"ErrUnknownTask", []string{"maintain", "--db", path, "--tasks", "vacuum"}, exitUsage, ""},
		{"ErrNoTask", []string{"maintain", "--db", path, "--tasks", ","}, exitUsage, ""},
		{"ErrArgument", []string{"maintain", "--db", path, "now"}, exitUsage, ""},
		{"ServeErrNegativeSchedule", []string{"serve", "--db", path, "--maintain-every", "-1s"}, exitUsage, ""},
		{"ServeErrBadSchedule", []string{"serve", "--db", path, "--maintain-every", "often"}, exitUsage, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(ctx, tc.args, strings.NewReader(""), &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.wantCode, errOut.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Fatalf("stdout %q, want it to contain %q", out.String(), tc.wantOut)
			}
		})
	}
}

const lcDayCLI = 24 * time.Hour
