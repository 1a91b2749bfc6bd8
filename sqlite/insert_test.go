package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/storetest"
)

// TestSparseInsertStoresWhatAFullInsertDoes: an insert that leaves out the
// columns whose value is their default (insert.go) stores the same row,
// every column's value and type, as one that names all of them, for a
// record that leaves everything it may at the default, one that sets
// everything, and one for each column set alone.
func TestSparseInsertStoresWhatAFullInsertDoes(t *testing.T) {
	if got, want := len(recordDefaults), len(insertColumns)-1; got != want {
		t.Fatalf("recordDefaults has %d values, want %d (insertColumns but change_gen)", got, want)
	}
	ctx := context.Background()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	bare := func() *loci.Record {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{}, "", "a passage")
		r.Data = nil
		return r
	}
	set := map[string]func(r *loci.Record){
		"agent_id":         func(r *loci.Record) { r.AgentID = "agent" },
		"user_id":          func(r *loci.Record) { r.UserID = "user" },
		"session_id":       func(r *loci.Record) { r.SessionID = "session" },
		"task_id":          func(r *loci.Record) { r.TaskID = "task" },
		"key":              func(r *loci.Record) { r.Key = "key" },
		"search_text":      func(r *loci.Record) { r.SearchText = "passag" },
		"data":             func(r *loci.Record) { r.Data = json.RawMessage(`{"a":1}`) },
		"tags":             func(r *loci.Record) { r.Tags = []string{"t"} },
		"category":         func(r *loci.Record) { r.Category = "c" },
		"action_type":      func(r *loci.Record) { r.ActionType = "act" },
		"outcome":          func(r *loci.Record) { r.Outcome = "success" },
		"confidence":       func(r *loci.Record) { r.Confidence = 0.5 },
		"access_count":     func(r *loci.Record) { r.AccessCount = 3 },
		"last_accessed_at": func(r *loci.Record) { r.LastAccessedAt = at },
		"expires_at":       func(r *loci.Record) { r.ExpiresAt = at.Add(time.Hour) },
		"version":          func(r *loci.Record) { r.Version = 2 },
		"embedding":        func(r *loci.Record) { r.Embedding = []float32{0.25, -1} },
		"embedding_model":  func(r *loci.Record) { r.EmbeddingModel = "m" },
		"valid_at":         func(r *loci.Record) { r.ValidAt = at.Add(-time.Hour) },
		"invalid_at":       func(r *loci.Record) { r.InvalidAt = at.Add(2 * time.Hour) },
		"review":           func(r *loci.Record) { r.Review = "stale" },
		"metadata":         func(r *loci.Record) { r.Metadata = json.RawMessage(`{"m":"v"}`) },
	}
	cases := map[string]*loci.Record{"bare": bare()}
	all := bare()
	for name, fn := range set {
		r := bare()
		fn(r)
		cases[name] = r
		fn(all)
	}
	cases["everything"] = all
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			sparse, full := openFile(t), openFile(t)
			if err := sparse.Update(ctx, func(tx loci.Tx) error { return tx.InsertRecord(ctx, r) }); err != nil {
				t.Fatal(err)
			}
			err := full.Update(ctx, func(tx loci.Tx) error {
				args, err := recordArgs(r)
				if err != nil {
					return err
				}
				_, err = tx.StoreTx.(*Tx).exec(ctx, `INSERT INTO records (`+strings.Join(insertColumns, ", ")+`)
					VALUES (?`+strings.Repeat(", ?", len(insertColumns)-1)+`)`, append(args, 1)...)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got, want := storedRow(t, sparse), storedRow(t, full)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("sparse insert stored\n%v\nwant (all columns named)\n%v", got, want)
			}
		})
	}
}

func openFile(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// storedRow returns the one record's columns as SQLite holds them: each
// column's name, type and value (quoted), but seq and change_gen (the
// database's counters).
func storedRow(t *testing.T, db *DB) []string {
	t.Helper()
	var cols []string
	rows, err := db.reader.Query(`SELECT name FROM pragma_table_info('records') WHERE name NOT IN ('seq', 'change_gen') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, fmt.Sprintf("'%s: ' || typeof(%s) || ' ' || quote(%s)", c, c, c))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	out := make([]string, len(cols))
	dest := make([]any, len(cols))
	for i := range out {
		dest[i] = &out[i]
	}
	if err := db.reader.QueryRow(`SELECT ` + strings.Join(cols, ", ") + ` FROM records`).Scan(dest...); err != nil {
		t.Fatal(err)
	}
	return out
}
