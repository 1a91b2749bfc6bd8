package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/analysis"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/postgres"
	"github.com/loci-memory/loci/storetest"
)

// corpus makes English-like passages from a fixed seed: words drawn from a
// Zipf distribution over a made-up vocabulary (a few words everywhere, most
// rare), with some digits and non-ASCII words, analyzed as the service does.
type corpus struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

func newCorpus(seed int64, vocab int) *corpus {
	rng := rand.New(rand.NewSource(seed))
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "fi", "gu", "he", "jo", "bar", "con", "tel", "mor", "ist", "é", "ö", "2", "7"}
	seen := map[string]bool{}
	var words []string
	for len(words) < vocab {
		var b strings.Builder
		for range 2 + rng.Intn(3) {
			b.WriteString(syl[rng.Intn(len(syl))])
		}
		w := b.String()
		if !seen[w] && !analysis.IsStopWord(w) {
			seen[w] = true
			words = append(words, w)
		}
	}
	return &corpus{rng: rng, vocab: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))}
}

func (c *corpus) word() string { return c.vocab[c.zipf.Uint64()] }

func (c *corpus) text(minWords, maxWords int) string {
	w := make([]string, minWords+c.rng.Intn(maxWords-minWords+1))
	for i := range w {
		w[i] = c.word()
	}
	return strings.Join(w, " ")
}

// query returns n distinct analyzed terms.
func (c *corpus) query(n int) []string {
	return analysis.QueryTerms(c.text(n, n))
}

// TestLexicalParity checks that PostgreSQL ranks by the same BM25 as the
// SQLite index: on one corpus, both return the same records with the same
// scores, with and without a filter narrower than the workspace. Each runs
// with the in-memory cache and without it (in SQL).
func TestLexicalParity(t *testing.T) {
	for _, cache := range []bool{true, false} {
		name := map[bool]string{true: "Cache", false: "SQL"}[cache]
		t.Run("Postgres"+name, func(t *testing.T) {
			db := testdb.OpenPostgres(t, postgresDSN(t))
			postgres.SetVectorCache(db, cache)
			testLexicalParity(t, db, cache)
		})
		t.Run("PGlite"+name, func(t *testing.T) {
			db := testdb.OpenPostgres(t, pgliteDSN(t))
			postgres.SetVectorCache(db, cache)
			testLexicalParity(t, db, cache)
		})
	}
}

func testLexicalParity(t *testing.T, pg *postgres.DB, cache bool) {
	ctx := context.Background()
	lite := testdb.OpenSQLite(t)
	c := newCorpus(3, 300)
	var recs []*loci.Record
	for i := range 400 {
		scope := loci.Scope{AgentID: []string{"a", "b"}[i%2]}
		content := c.text(1, 30)
		if i%50 == 0 {
			content = "" // no terms at all: counts in N with length 0
		}
		r := storetest.NewRecord(loci.KindPassage, scope, "", content)
		r.SearchText = analysis.SearchText(content)
		if i%3 == 0 {
			r.Tags = []string{"t"}
		}
		recs = append(recs, r)
	}
	// Another workspace's records weigh nothing.
	for range 50 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a"}, "", c.text(1, 30))
		r.Workspace, r.SearchText = "other", analysis.SearchText(r.Content)
		recs = append(recs, r)
	}
	storetest.MustInsert(t, lite, recs...)
	storetest.MustInsert(t, pg, recs...)

	search := func(s loci.Store, f loci.RecordFilter, terms []string, limit int) []loci.ScoredRecord {
		t.Helper()
		var out []loci.ScoredRecord
		if err := s.View(ctx, func(tx loci.Tx) (err error) {
			out, err = tx.SearchLexical(ctx, f, terms, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	agentA := ws
	agentA.AgentID = loci.Ptr("a")
	tagged := agentA
	tagged.Tags = []string{"t"}
	filters := map[string]loci.RecordFilter{"Workspace": ws, "Agent": agentA, "Tagged": tagged}
	searches := int64(0)
	t.Cleanup(func() {
		// With the cache, every search was answered from it.
		want := map[bool]int64{true: searches, false: 0}[cache]
		if n := postgres.CachedLexicalSearches(pg); n != want {
			t.Errorf("the cache answered %d lexical searches, want %d", n, want)
		}
	})
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			for q := range 40 {
				terms := c.query(1 + q%4)
				if q%10 == 0 {
					terms = append(terms, "nosuchterm", terms[0])
				}
				for _, limit := range []int{3, 1000} {
					want, got := search(lite, f, terms, limit), search(pg, f, terms, limit)
					searches++
					if msg := sameRanking(want, got); msg != "" {
						t.Fatalf("terms %q limit %d: %s\nsqlite:   %s\npostgres: %s", terms, limit, msg, ranking(want), ranking(got))
					}
				}
			}
		})
	}
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

// BenchmarkSearchLexical times BM25 searches of three terms on n passages
// of one agent (LOCI_TEST_POSTGRES_DSN; a fresh schema, filled once per
// size), from the cache and in SQL.
func BenchmarkSearchLexical(b *testing.B) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		b.Skipf("%s is not set", testdb.PostgresEnv)
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db := testdb.OpenPostgres(b, dsn)
			c := newCorpus(1, 30000)
			fill(b, db, c, n)
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("bench"), Kinds: []loci.Kind{loci.KindPassage}}
			ctx := context.Background()
			search := func(terms []string) {
				if err := db.View(ctx, func(tx loci.Tx) error {
					_, err := tx.SearchLexical(ctx, f, terms, 10)
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
			for _, cache := range []bool{true, false} {
				b.Run(map[bool]string{true: "Cache", false: "SQL"}[cache], func(b *testing.B) {
					postgres.SetVectorCache(db, cache)
					search(c.query(3)) // loads the cache
					b.ResetTimer()
					for range b.N {
						search(c.query(3))
					}
				})
			}
		})
	}
}

// fill inserts n passages of agent "bench", a thousand per transaction.
func fill(tb testing.TB, s loci.Store, c *corpus, n int) {
	ctx := context.Background()
	now := time.Now().UTC()
	for done := 0; done < n; {
		k := min(1000, n-done)
		if err := s.Update(ctx, func(tx loci.Tx) error {
			for range k {
				content := c.text(12, 42)
				r := &loci.Record{ID: uuid.Must(uuid.NewV7()).String(), Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
					Scope: loci.Scope{AgentID: "bench"}, Content: content, SearchText: analysis.SearchText(content),
					CreatedAt: now, UpdatedAt: now, Version: 1}
				if err := tx.InsertRecord(ctx, r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
		done += k
	}
}

// TestVectorParity checks that the exact real[] path (PostgreSQL 15), the
// pgvector path (PGlite) and the SQLite index rank the same records by
// vector, with the same scores, within filters; on PGlite with a
// search_path that leaves out public, where the extension lives.
// Each runs with the in-memory vector cache and without it (in SQL).
func TestVectorParity(t *testing.T) {
	for _, cache := range []bool{true, false} {
		name := map[bool]string{true: "Cache", false: "SQL"}[cache]
		t.Run("Postgres"+name, func(t *testing.T) {
			db := testdb.OpenPostgres(t, postgresDSN(t))
			postgres.SetVectorCache(db, cache)
			testVectorParity(t, db)
		})
		t.Run("PGliteWithoutPublicOnPath"+name, func(t *testing.T) {
			db := openSchemaOnly(t, pgliteDSN(t))
			if !db.HasPGVector() {
				t.Fatal("PGlite store has no pgvector column")
			}
			postgres.SetVectorCache(db, cache)
			testVectorParity(t, db)
		})
	}
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

func testVectorParity(t *testing.T, pg loci.Store) {
	ctx := context.Background()
	lite := testdb.OpenSQLite(t)
	const model, dims = "m", 16
	rng := rand.New(rand.NewSource(5))
	vec := func() []float32 {
		v := make([]float32, dims)
		var ss float64
		for d := range v {
			v[d] = float32(rng.NormFloat64())
			ss += float64(v[d]) * float64(v[d])
		}
		for d := range v {
			v[d] = float32(float64(v[d]) / math.Sqrt(ss))
		}
		return v
	}
	var recs []*loci.Record
	for i := range 300 {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: []string{"a", "b"}[i%2]}, "", fmt.Sprint("passage ", i))
		switch {
		case i%17 == 0: // not embedded yet
		case i%23 == 0:
			r.Embedding, r.EmbeddingModel = vec(), "other"
		default:
			r.Embedding, r.EmbeddingModel = vec(), model
		}
		if i%3 == 0 {
			r.Tags = []string{"t"}
		}
		recs = append(recs, r)
	}
	storetest.MustInsert(t, lite, recs...)
	storetest.MustInsert(t, pg, recs...)
	search := func(s loci.Store, f loci.RecordFilter, q []float32, limit int) []loci.ScoredRecord {
		t.Helper()
		var out []loci.ScoredRecord
		if err := s.View(ctx, func(tx loci.Tx) (err error) {
			out, err = tx.SearchVector(ctx, f, model, q, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	ws := loci.RecordFilter{Workspace: loci.DefaultWorkspace}
	agentA := ws
	agentA.AgentID = loci.Ptr("a")
	tagged := agentA
	tagged.Tags = []string{"t"}
	for name, f := range map[string]loci.RecordFilter{"Workspace": ws, "Agent": agentA, "Tagged": tagged} {
		t.Run(name, func(t *testing.T) {
			for range 20 {
				q := vec()
				for _, limit := range []int{5, 1000} {
					want, got := search(lite, f, q, limit), search(pg, f, q, limit)
					if msg := sameRankingTol(want, got, 1e-5); msg != "" {
						t.Fatalf("limit %d: %s\nsqlite:   %s\npostgres: %s", limit, msg, ranking(want), ranking(got))
					}
				}
			}
		})
	}
}
