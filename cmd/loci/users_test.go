package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
)

// TestUserVerbs walks the verbs for users, preferences, sessions, episodes
// and working memory on a local database, in text and --json, with their
// error cases: bad usage exits 2, a domain error (absent, invalid) 1.
func TestUserVerbs(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	// Sessions and episodes have no CLI writer: seed them through the
	// service on the same file.
	cfg := loadConfig()
	cfg.DB = db
	svc, done, err := openLocal(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u1", Summary: "Planned the Q3 campaign",
		Messages: []loci.Message{{Role: "user", Content: "Budget is 500K"}}}); err != nil {
		t.Fatal(err)
	}
	ep, err := svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u1", AgentID: "a", ActionType: "plan",
		ActionDescription: "split the budget", Outcome: "success", Context: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	done()

	runSteps(t, []string{"--db", db}, []cliStep{
		{name: "PrefSet", args: []string{"preferences", "set", "tone", "casual", "--user", "u1"}, wantStdout: "Stored tone (confidence 100)\n"},
		{name: "PrefSetJSONValue", args: []string{"preferences", "set", "channels", `["CTV"]`, "--value-json", "--source", "implicit", "--user", "u1", "--json"},
			wantJSON: map[string]any{"type": "channels", "value": []any{"CTV"}, "confidence": 40}},
		{name: "PrefList", args: []string{"preferences", "list", "--user", "u1", "--json"}, wantJSON: map[string]any{"count": 2}},
		{name: "PrefErrSource", args: []string{"preferences", "set", "tone", "x", "--source", "gossip", "--user", "u1"}, wantExit: exitDomain, wantStderr: "source"},
		{name: "PrefErrNoUser", args: []string{"preferences", "list"}, wantExit: exitUsage, wantStderr: "--user is required"},
		{name: "PrefErrValueJSON", args: []string{"preferences", "set", "tone", "{", "--value-json", "--user", "u1"}, wantExit: exitUsage, wantStderr: "not JSON"},
		{name: "PrefDelete", args: []string{"preferences", "delete", "channels", "--user", "u1"}, wantStdout: "Deleted: channels\n"},
		{name: "PrefDeleteErrAbsent", args: []string{"preferences", "delete", "channels", "--user", "u1"}, wantExit: exitDomain, wantStderr: "not"},

		{name: "WorkingSet", args: []string{"working", "set", "t1", "plan", "step 1", "--agent", "a", "--user", "u1", "--json"},
			wantJSON: map[string]any{"task_id": "t1", "key": "plan", "value": "step 1"}},
		{name: "WorkingGet", args: []string{"working", "get", "t1", "plan"}, wantStdout: "\"step 1\"\n"},
		{name: "WorkingList", args: []string{"working", "list", "t1", "--json"}, wantJSON: map[string]any{"count": 1}},
		{name: "WorkingErrNoAgent", args: []string{"working", "set", "t1", "k", "v"}, wantExit: exitUsage, wantStderr: "--agent is required"},
		{name: "WorkingErrAbsent", args: []string{"working", "get", "t1", "nope"}, wantExit: exitDomain, wantStderr: "not found"},
		{name: "WorkingErrArgs", args: []string{"working", "get", "t1"}, wantExit: exitUsage, wantStderr: "usage: loci working get"},

		{name: "SessionsList", args: []string{"sessions", "list", "--user", "u1", "--json"}, wantJSON: map[string]any{"count": 1}},
		{name: "SessionsGet", args: []string{"sessions", "get", "s1", "--json"}, wantJSON: map[string]any{"session_id": "s1", "message_count": 1}},
		{name: "SessionsErrAbsent", args: []string{"sessions", "get", "nope"}, wantExit: exitDomain, wantStderr: "not found"},
		{name: "SessionsDeleteErrAbsent", args: []string{"sessions", "delete", "nope"}, wantExit: exitDomain, wantStderr: "no session nope"},
		{name: "SessionsErrNoUser", args: []string{"sessions", "list"}, wantExit: exitUsage, wantStderr: "--user is required"},

		{name: "EpisodesList", args: []string{"episodes", "list", "--user", "u1", "--agent", "a", "--json"}, wantJSON: map[string]any{"count": 1}},
		{name: "EpisodesGet", args: []string{"episodes", "get", ep.ID, "--json"}, wantJSON: map[string]any{"id": ep.ID, "outcome": "success"}},
		{name: "EpisodesErrAbsent", args: []string{"episodes", "get", "nope"}, wantExit: exitDomain, wantStderr: "not found"},
		{name: "EpisodesErrNoAgent", args: []string{"episodes", "list", "--user", "u1"}, wantExit: exitUsage, wantStderr: "--agent is required"},

		{name: "UsersList", args: []string{"users", "list", "--json"}, wantJSON: map[string]any{"count": 1}},
		{name: "UsersMemories", args: []string{"users", "memories", "u1", "--json"}, wantJSON: map[string]any{"count": 5}},
		{name: "UsersForgetDry", args: []string{"users", "forget", "u1", "--query", "Q3 campaign", "--dry-run", "--json"},
			wantJSON: map[string]any{"dry_run": true, "count": 1}},
		{name: "UsersForgetErrNothing", args: []string{"users", "forget", "u1"}, wantExit: exitUsage, wantStderr: "needs --query or --id"},
		{name: "UsersErrSub", args: []string{"users", "nope"}, wantExit: exitUsage, wantStderr: "unknown users command"},
		{name: "UsersDelete", args: []string{"users", "delete", "u1", "--json"}, wantJSON: map[string]any{"deleted": 5}},
		{name: "UsersMemoriesAfter", args: []string{"users", "memories", "u1", "--json"}, wantJSON: map[string]any{"count": 0}},
		{name: "EpisodesGetAfter", args: []string{"episodes", "get", ep.ID}, wantExit: exitDomain, wantStderr: "not found"},
	})
}
