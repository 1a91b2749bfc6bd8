package rules_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

// tableCounts counts, in every table, the rows that belong to agent id:
// its records, their versions and full-text entries, the links of its
// blocks and the links that attach blocks to it, and its agent row.
func tableCounts(t *testing.T, db *sql.DB, id string) map[string]int {
	t.Helper()
	queries := map[string]string{
		"records":           `SELECT count(*) FROM records WHERE agent_id = ?`,
		"record_versions":   `SELECT count(*) FROM record_versions v JOIN records r ON r.id = v.record_id WHERE r.agent_id = ?`,
		"block_links_owned": `SELECT count(*) FROM block_links l WHERE l.block_id IN (SELECT id FROM records WHERE agent_id = ?)`,
		"block_links_used":  `SELECT count(*) FROM block_links WHERE agent_id = ?`,
		"agents":            `SELECT count(*) FROM agents WHERE id = ?`,
	}
	out := map[string]int{}
	for name, q := range queries {
		var n int
		if err := db.QueryRow(q, id).Scan(&n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = n
	}
	return out
}

func TestDeleteAgentCascade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := rules.New(store)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	// Three agents, each with every kind of thing an agent owns; a's and
	// b's shared blocks are attached to each other and to c.
	shared := map[string]string{}
	for _, id := range []string{"a", "b", "c"} {
		word := "only" + id
		if _, _, err := svc.CreateAgent(ctx, loci.AgentCreate{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.SetBlock(ctx, id, "personality", loci.BlockWrite{Content: "calm " + word}); err != nil {
			t.Fatal(err)
		}
		b, err := svc.CreateBlock(ctx, id, loci.BlockSpec{Label: "news_" + id, Content: "news " + word}, true)
		if err != nil {
			t.Fatal(err)
		}
		shared[id] = b.ID
		for _, v := range []string{`"one"`, `"two ` + word + `"`} {
			if _, err := svc.Remember(ctx, id, "mood", json.RawMessage(v)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.AddPassage(ctx, id, "a passage "+word, []string{"lore"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "a"}, {"b", "c"}} {
		if err := svc.AttachBlock(ctx, shared[l[0]], l[1]); err != nil {
			t.Fatal(err)
		}
	}

	// The service holds an index of the workspace before the delete.
	if res, err := svc.Search(ctx, loci.SearchQuery{Query: "onlya", Limit: 50}); err != nil || len(res.Results) == 0 {
		t.Fatalf("search before: %v %v", res, err)
	}
	beforeA, beforeC := tableCounts(t, raw, "a"), tableCounts(t, raw, "c")
	for table, n := range beforeA {
		if n == 0 {
			t.Fatalf("setup: agent a has no rows in %s", table)
		}
	}
	beforeB := tableCounts(t, raw, "b")

	if err := svc.DeleteAgent(ctx, "a"); err != nil {
		t.Fatal(err)
	}

	for table, n := range tableCounts(t, raw, "a") {
		if n != 0 {
			t.Errorf("after delete: agent a has %d rows in %s, want 0", n, table)
		}
	}
	afterB := tableCounts(t, raw, "b")
	// b loses only its link to a's shared block (it was a's consumer).
	wantB := map[string]int{}
	for k, v := range beforeB {
		wantB[k] = v
	}
	wantB["block_links_used"]--
	wantB["block_links_owned"]-- // b's block is no longer attached to a
	for table, n := range wantB {
		if afterB[table] != n {
			t.Errorf("agent b: %s = %d, want %d", table, afterB[table], n)
		}
	}
	afterC := tableCounts(t, raw, "c")
	beforeC["block_links_used"]-- // c consumed a's shared block
	for table, n := range beforeC {
		if afterC[table] != n {
			t.Errorf("agent c: %s = %d, want %d", table, afterC[table], n)
		}
	}
	// No orphans anywhere: versions without a record, links without a
	// block.
	for name, q := range map[string]string{
		"orphan versions": `SELECT count(*) FROM record_versions WHERE record_id NOT IN (SELECT id FROM records)`,
		"orphan links":    `SELECT count(*) FROM block_links WHERE block_id NOT IN (SELECT id FROM records)`,
		"links to a":      `SELECT count(*) FROM block_links WHERE block_id = '` + shared["a"] + `'`,
	} {
		var n int
		if err := raw.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d %v", name, n, err)
		}
	}
	// The service's search index lost a's records and kept the others'.
	for _, id := range []string{"a", "b", "c"} {
		res, err := svc.Search(ctx, loci.SearchQuery{Query: "only" + id, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if gone := id == "a"; gone != (len(res.Results) == 0) {
			t.Errorf("search for agent %s's word after deleting a: %d results", id, len(res.Results))
		}
	}

	// b's prompt lost a's shared block; c's prompt keeps b's.
	if p, err := svc.Prompt(ctx, "c"); err != nil || p != "### news_c\nnews onlyc\n\n### personality\ncalm onlyc\n\n### news_b\nnews onlyb" {
		t.Errorf("prompt of c = %q, %v", p, err)
	}
	if _, err := svc.GetAgent(ctx, "a"); loci.ErrorCode(err) != loci.ENOTFOUND {
		t.Errorf("get deleted agent: %v, want not_found", err)
	}
}

func TestDeleteAgentWithoutRow(t *testing.T) {
	ctx := context.Background()
	svc := rules.New(testdb.OpenSQLite(t))
	// Notes do not create the agent row; deleting the agent still removes them.
	if _, err := svc.Remember(ctx, "ghost", "k", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteAgent(ctx, "ghost"); err != nil {
		t.Fatalf("delete agent with records only: %v", err)
	}
	if notes, _ := svc.RecallAll(ctx, "ghost"); len(notes) != 0 {
		t.Fatalf("notes left: %+v", notes)
	}
	if err := svc.DeleteAgent(ctx, "ghost"); loci.ErrorCode(err) != loci.ENOTFOUND {
		t.Fatalf("second delete: %v, want not_found", err)
	}
}

// TestSessionMessagesSearchable checks that what was said in a session is
// found by lexical search over the session kind (recall memory), scoped to
// its user.
func TestSessionMessagesSearchable(t *testing.T) {
	ctx := context.Background()
	testdb.Each(t, func(t *testing.T, open func(t testing.TB) loci.Store) {
		store := open(t)
		svc := rules.New(store, rules.WithClock(loci.NewFakeClock(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))))
		_, _, err := svc.PutSession(ctx, "s1", loci.SessionPut{UserID: "u1", Summary: "campaign planning",
			Messages: []loci.Message{{Role: "user", Content: "My dog Biscuit hates the vacuum"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.AppendSessionMessage(ctx, "s1", loci.Message{Role: "user", Content: "Biscuit is a beagle"}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.PutSession(ctx, "s2", loci.SessionPut{UserID: "u2", Messages: []loci.Message{{Role: "user", Content: "biscuit recipes"}}}); err != nil {
			t.Fatal(err)
		}
		found := storetest.SearchLexical(t, store, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession},
			UserID: loci.Ptr("u1"), Category: loci.Ptr("message")}, []string{"biscuit"}, 10)
		if len(found) != 2 {
			t.Fatalf("found %d messages, want 2: %+v", len(found), found)
		}
		for _, f := range found {
			if f.Record.SessionID != "s1" || f.Record.UserID != "u1" {
				t.Errorf("found %+v, want only u1's session s1", f.Record.Scope)
			}
		}
		// The session's summary is searchable too.
		found = storetest.SearchLexical(t, store, loci.RecordFilter{Workspace: loci.DefaultWorkspace, Kinds: []loci.Kind{loci.KindSession},
			Category: loci.Ptr("session")}, []string{"campaign"}, 10)
		if len(found) != 1 || found[0].Record.Key != "s1" {
			t.Fatalf("summary search: %+v", found)
		}
		// Deleting the session deletes its messages.
		if ok, err := svc.DeleteSession(ctx, "s1"); err != nil || !ok {
			t.Fatalf("delete: %v %v", ok, err)
		}
		err = store.View(ctx, func(tx loci.Tx) error {
			n, err := tx.CountRecords(ctx, loci.RecordFilter{Workspace: loci.DefaultWorkspace, SessionID: loci.Ptr("s1")})
			if err == nil && n != 0 {
				t.Errorf("%d records of the deleted session left", n)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
