package postgres_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/textgen"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/storetest"
)

// TestSearchParity checks that a search ranks the same records with the
// same scores on PostgreSQL (15, and PGlite with pgvector) as on SQLite:
// the same data, through the whole pipeline (the shared index, BM25,
// vectors, fusion, recency, confidence), with filters narrower and wider
// than an agent, and after updates and deletes reach the held indexes
// through each store's change feed.
func TestSearchParity(t *testing.T) {
	t.Run("Postgres", func(t *testing.T) { testSearchParity(t, testdb.OpenPostgres(t, postgresDSN(t))) })
	t.Run("PGliteWithoutPublicOnPath", func(t *testing.T) {
		db := openSchemaOnly(t, pgliteDSN(t))
		if !db.HasPGVector() {
			t.Fatal("PGlite store has no pgvector column")
		}
		testSearchParity(t, db)
	})
}

func testSearchParity(t *testing.T, pg loci.Store) {
	ctx := context.Background()
	lite := testdb.OpenSQLite(t)
	clock := loci.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	emb := embed.NewHash(64)
	svcs := []*rules.Service{
		rules.New(lite, rules.WithClock(clock), rules.WithEmbedder(emb)),
		rules.New(pg, rules.WithClock(clock), rules.WithEmbedder(emb)),
	}
	// A small vocabulary, with digits and non-ASCII letters in its words,
	// analyzed as the service does.
	c := textgen.NewVocab(3, 300, append(slices.Clip(textgen.Syllables), "é", "ö", "2", "7"))
	var recs []*loci.Record
	for i := range 400 {
		scope := loci.Scope{AgentID: []string{"a", "b"}[i%2], UserID: []string{"", "u"}[i%3%2]}
		content := c.Text(1, 30)
		if i%50 == 0 {
			content = "" // no terms at all: counts in N with length 0
		}
		kind := loci.KindPassage
		if i%5 == 0 {
			kind = loci.KindFact
		}
		r := storetest.NewRecord(kind, scope, "", content)
		r.SearchText = analysis.SearchText(content)
		r.CreatedAt = clock.Now().Add(-time.Duration(i) * time.Hour).UTC().Truncate(time.Microsecond)
		r.UpdatedAt, r.Confidence = r.CreatedAt, float64(i%10)/10
		if i%3 == 0 {
			r.Tags = []string{"t"}
		}
		if i%7 != 0 { // the others wait for their embedding
			vecs, err := emb.Embed(ctx, []string{content})
			if err != nil {
				t.Fatal(err)
			}
			r.Embedding, r.EmbeddingModel = vecs[0], emb.Model()
		}
		recs = append(recs, r)
	}
	// Another workspace's records weigh nothing.
	for range 50 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", c.Text(1, 30))
		r.Workspace, r.SearchText = "other", analysis.SearchText(r.Content)
		recs = append(recs, r)
	}
	storetest.MustInsert(t, lite, recs...)
	storetest.MustInsert(t, pg, recs...)

	queries := []loci.SearchQuery{}
	for q := range 30 {
		text := c.Text(1+q%4, 1+q%4)
		if q%10 == 0 {
			text += " nosuchterm"
		}
		for _, sq := range []loci.SearchQuery{
			{Query: text, Limit: 5},
			{Query: text, AgentID: "a", Limit: 1000, Explain: true},
			{Query: text, AgentID: "a", Tags: []string{"t"}, Limit: 3},
			{Query: text, UserID: "u", Kinds: []loci.Kind{loci.KindFact}, Limit: 10},
		} {
			queries = append(queries, sq)
		}
	}
	compare := func(t *testing.T) {
		t.Helper()
		for _, q := range queries {
			var got [2]*loci.SearchResults
			for i, svc := range svcs {
				res, err := svc.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = res
			}
			if msg := sameResults(got[0], got[1]); msg != "" {
				t.Fatalf("%+v: %s", q, msg)
			}
		}
	}
	t.Run("Fresh", compare)
	// Change both the same way: the held indexes learn it from the feed.
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = c.Text(3, 10)
	}
	for _, s := range []loci.Store{lite, pg} {
		if err := s.Update(ctx, func(tx loci.Tx) error {
			for i, r := range recs[:40] {
				if i%2 == 0 {
					if _, err := tx.DeleteRecords(ctx, loci.RecordFilter{Workspace: r.Workspace, IDs: []string{r.ID}}); err != nil {
						return err
					}
					continue
				}
				u := *r
				u.Content = texts[i]
				u.SearchText, u.Version, u.Embedding, u.EmbeddingModel = analysis.SearchText(u.Content), 2, nil, ""
				if err := tx.UpdateRecord(ctx, &u, 1); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("AfterChanges", compare)
}

// explained writes an explanation out, following its pointers.
func explained(e *loci.Explanation) string {
	if e == nil {
		return "none"
	}
	out := fmt.Sprintf("%v %v %v %v %v", e.Signals, e.Fused, e.Recency, e.MMRRank, e.Score)
	if e.Confidence != nil {
		out += fmt.Sprint(" confidence ", *e.Confidence)
	}
	return out
}

// sameResults compares two searches' results: the same records with the
// same scores (and explanations), in order.
func sameResults(want, got *loci.SearchResults) string {
	if want.PendingEmbeddings != got.PendingEmbeddings {
		return fmt.Sprintf("pending %d, want %d", got.PendingEmbeddings, want.PendingEmbeddings)
	}
	if len(want.Results) != len(got.Results) {
		return fmt.Sprintf("%d results, want %d", len(got.Results), len(want.Results))
	}
	for i := range want.Results {
		w, g := want.Results[i], got.Results[i]
		if w.ID != g.ID || w.Score != g.Score {
			return fmt.Sprintf("result %d: %s at %v, want %s at %v", i, g.ID, g.Score, w.ID, w.Score)
		}
		if explained(w.Explain) != explained(g.Explain) {
			return fmt.Sprintf("result %d: explanation %+v, want %+v", i, g.Explain, w.Explain)
		}
	}
	return ""
}

// sameRanking compares two rankings: the same scores rank by rank, and the
// same records, except that records tied in score may swap or be cut at
// the limit differently.
func sameRanking(want, got []loci.ScoredRecord) string {
	return sameRankingTol(want, got, 1e-9)
}

// sameRankingTol is sameRanking with scores equal within tol.
func sameRankingTol(want, got []loci.ScoredRecord, tol float64) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d results, want %d", len(got), len(want))
	}
	scores := map[string]float64{}
	for _, r := range want {
		scores[r.Record.ID] = r.Score
	}
	for i := range want {
		if math.Abs(want[i].Score-got[i].Score) > tol {
			return fmt.Sprintf("score at %d = %v, want %v", i, got[i].Score, want[i].Score)
		}
		id := got[i].Record.ID
		if s, ok := scores[id]; ok && math.Abs(s-got[i].Score) > tol {
			return fmt.Sprintf("%s scores %v, want %v", id, got[i].Score, s)
		} else if !ok && math.Abs(want[len(want)-1].Score-got[i].Score) > tol {
			return fmt.Sprintf("%s found, not tied at the cut", id)
		}
	}
	return ""
}

func ranking(rs []loci.ScoredRecord) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s=%.6f ", r.Record.ID[len(r.Record.ID)-4:], r.Score)
	}
	return b.String()
}

// openSchemaOnly opens a store in a fresh schema with search_path set to
// that schema alone.
func openSchemaOnly(t *testing.T, dsn string) *postgres.DB {
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	cfg, err := testdb.PostgresConfig(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `SET search_path TO `+schema)
		return err
	}
	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
