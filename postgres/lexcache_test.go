package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

func searchLex(t *testing.T, s loci.Store, f loci.RecordFilter, terms []string, limit int) []loci.ScoredRecord {
	t.Helper()
	var out []loci.ScoredRecord
	if err := s.View(context.Background(), func(tx loci.Tx) (err error) {
		out, err = tx.SearchLexical(context.Background(), f, terms, limit)
		return err
	}); err != nil {
		t.Fatalf("search lexical: %v", err)
	}
	return out
}

// TestLexicalCacheReplicas writes through one store and searches through
// another whose cache was loaded before the writes: inserts, content
// updates, scope changes and deletes are all seen right after commit,
// with the ranking and scores that SQL gives (a third store, without the
// cache).
func TestLexicalCacheReplicas(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testLexicalCacheReplicas(t, postgresDSN(t)) })
	t.Run("PGlite", func(t *testing.T) { testLexicalCacheReplicas(t, pgliteDSN(t)) })
}

func testLexicalCacheReplicas(t *testing.T, dsn string) {
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	dbs := replicasIn(t, dsn, schema, 3)
	writer, reader, oracle := dbs[0], dbs[1], dbs[2]
	postgres.SetVectorCache(oracle, false)
	c := newCorpus(7, 60)
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	agentA := ws
	agentA.AgentID = loci.Ptr("a")

	newRec := func(agent, content string) *loci.Record {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: agent}, "", content)
		r.SearchText = analysis.SearchText(content)
		return r
	}
	var recs []*loci.Record
	for i := range 40 {
		recs = append(recs, newRec([]string{"a", "b"}[i%2], c.text(3, 20)))
	}
	recs[2] = newRec("a", "gnuword "+c.text(3, 20))
	storetest.MustInsert(t, writer, recs...)
	q := analysis.QueryTerms

	checks := int64(0)
	// check compares the reader's answers with SQL's on a few queries,
	// plus terms, and returns the reader's answer to terms on f.
	check := func(step string, f loci.RecordFilter, terms []string) []loci.ScoredRecord {
		t.Helper()
		var got []loci.ScoredRecord
		for i := range 5 {
			query := terms
			if i > 0 {
				query = c.query(1 + i%3)
			}
			for _, filter := range []loci.RecordFilter{f, ws, agentA} {
				for _, limit := range []int{3, 100} {
					g, want := searchLex(t, reader, filter, query, limit), searchLex(t, oracle, filter, query, limit)
					checks++
					if msg := sameRanking(want, g); msg != "" {
						t.Fatalf("%s: terms %q limit %d: %s\nsql:   %s\ncache: %s", step, query, limit, msg, ranking(want), ranking(g))
					}
					if i == 0 && filter.AgentID == f.AgentID && limit == 100 {
						got = g
					}
				}
			}
		}
		return got
	}
	has := func(rs []loci.ScoredRecord, id string) bool {
		for _, r := range rs {
			if r.Record.ID == id {
				return true
			}
		}
		return false
	}
	// The reader loads its cache now, before the changes below.
	if got := check("Load", ws, c.query(2)); len(got) == 0 {
		t.Fatal("Load: nothing found")
	}
	t.Cleanup(func() {
		// Every search of the reader was answered from its cache.
		if n := postgres.CachedLexicalSearches(reader); n != checks {
			t.Errorf("the cache answered %d lexical searches, want %d", n, checks)
		}
	})
	t.Run("Insert", func(t *testing.T) {
		r := newRec("a", "zebraword "+c.text(2, 5))
		storetest.MustInsert(t, writer, r)
		if got := check("Insert", agentA, q("zebraword")); len(got) != 1 || got[0].Record.ID != r.ID {
			t.Fatalf("found %s, want the new record %s alone", ranking(got), r.ID)
		}
	})
	t.Run("ContentUpdate", func(t *testing.T) {
		r := recs[2]
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			cur, err := tx.GetRecord(ctx, r.Workspace, r.ID)
			if err != nil {
				return err
			}
			prev := cur.Version
			cur.Content = "quagga quagga " + c.text(1, 3)
			cur.SearchText, cur.Version = analysis.SearchText(cur.Content), prev+1
			return tx.UpdateRecord(ctx, cur, prev)
		})
		if got := check("ContentUpdate", ws, q("quagga")); len(got) != 1 || got[0].Record.ID != r.ID {
			t.Fatalf("found %s, want the updated record %s alone", ranking(got), r.ID)
		}
		if got := check("ContentUpdateOld", ws, q("gnuword")); len(got) != 0 {
			t.Fatalf("found %s by its old text", ranking(got))
		}
	})
	t.Run("TextOnlyUpdate", func(t *testing.T) {
		// An update of the analyzed text alone restamps the row too
		// (migration 0006).
		r := recs[4]
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `UPDATE `+schema+`.records SET search_text = 'wombatword wombatword x', search_len = 3
			WHERE id = $1`, r.ID); err != nil {
			t.Fatal(err)
		}
		if got := check("TextOnlyUpdate", ws, []string{"wombatword"}); len(got) != 1 || got[0].Record.ID != r.ID {
			t.Fatalf("found %s, want the updated record %s alone", ranking(got), r.ID)
		}
	})
	t.Run("ScopeChange", func(t *testing.T) {
		r := recs[1] // agent b
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			cur, err := tx.GetRecord(ctx, r.Workspace, r.ID)
			if err != nil {
				return err
			}
			prev := cur.Version
			cur.AgentID, cur.Version = "a", prev+1
			return tx.UpdateRecord(ctx, cur, prev)
		})
		if got := check("ScopeChange", agentA, q(r.Content)); !has(got, r.ID) {
			t.Fatalf("agent a's search for its terms misses %s, moved to a: %s", r.ID, ranking(got))
		}
	})
	t.Run("Delete", func(t *testing.T) {
		r := recs[0]
		storetest.MustUpdate(t, writer, func(tx loci.Tx) error {
			_, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: r.Workspace, IDs: []string{r.ID}})
			return err
		})
		if got := check("Delete", ws, q(r.Content)); has(got, r.ID) {
			t.Fatalf("found deleted record %s", r.ID)
		}
	})
	t.Run("ReaderWritesToo", func(t *testing.T) {
		// A transaction that has written searches its own writes (in SQL).
		r := newRec("a", "okapiword")
		storetest.MustUpdate(t, reader, func(tx loci.Tx) error {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
			got, err := tx.SearchLexical(ctx, ws, q("okapiword"), 5)
			if err != nil {
				return err
			}
			if len(got) != 1 || got[0].Record.ID != r.ID {
				t.Errorf("in the writing transaction: %s, want %s", ranking(got), r.ID)
			}
			return nil
		})
		check("ReaderWritesToo", ws, q("okapiword"))
	})
}
