package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// meaning is a semantic embedder for tests: texts about the sea (by a few
// words) point one way, everything else another, whatever words they
// share.
type meaning struct{}

func (meaning) Model() string   { return "meaning-test" }
func (meaning) Dimensions() int { return 2 }
func (meaning) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{0, 1}
		for _, w := range []string{"ocean", "sea", "waves", "tide"} {
			if strings.Contains(strings.ToLower(t), w) {
				out[i] = []float32{1, 0}
			}
		}
	}
	return out, nil
}

// TestVectorWeight: LOCI_VECTOR_WEIGHT sets the fusion weight of a
// semantic embedder's similarity. One record matches the query's words
// only, the other its meaning only: a low weight ranks the first above,
// a high one the second.
func TestVectorWeight(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "loci.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	words := &loci.Record{ID: "0190a000-0000-7000-8000-000000000001", Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
		Scope: loci.Scope{AgentID: "a"}, Content: "swimming lessons schedule", SearchText: "swim lesson schedul", Version: 1}
	sense := &loci.Record{ID: "0190a000-0000-7000-8000-000000000002", Workspace: loci.DefaultWorkspace, Kind: loci.KindPassage,
		Scope: loci.Scope{AgentID: "a"}, Content: "the tide was high at the beach", SearchText: "tide high beach", Version: 1}
	for _, r := range []*loci.Record{words, sense} {
		vecs, _ := meaning{}.Embed(ctx, []string{r.Content})
		r.Embedding, r.EmbeddingModel = vecs[0], meaning{}.Model()
	}
	if err := db.Update(ctx, func(tx loci.Tx) error {
		for _, r := range []*loci.Record{words, sense} {
			if err := tx.InsertRecord(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		weight, first string
	}{
		{"0.5", words.ID},
		{"3", sense.ID},
		{"", words.ID}, // the default, 1: a tie at the top, broken by id
	} {
		t.Run("weight="+tc.weight, func(t *testing.T) {
			t.Setenv("LOCI_VECTOR_WEIGHT", tc.weight)
			cfg := loadConfig()
			opts, err := cfg.memoryOptions(quietLogger())
			if err != nil {
				t.Fatal(err)
			}
			svc := rules.New(db, append(opts, rules.WithEmbedder(meaning{}))...)
			res, err := svc.Search(ctx, loci.SearchQuery{Query: "swimming in the ocean", AgentID: "a", Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 2 || res.Results[0].ID != tc.first {
				t.Fatalf("got %+v, want %s first", res.Results, tc.first)
			}
			if _, ok := res.Results[0].Explain.Signals["vector"]; ok != (tc.first == sense.ID) {
				t.Errorf("first result's signals %v", res.Results[0].Explain.Signals)
			}
		})
	}
}

func TestVectorWeightErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loci.db")
	for _, v := range []string{"heavy", "-1", "NaN", "+Inf", "1e400"} {
		t.Run(v, func(t *testing.T) {
			t.Setenv("LOCI_VECTOR_WEIGHT", v)
			code, _, stderr := runCLI(t, "search", "anything", "--db", db)
			if code != exitDomain || !strings.Contains(stderr, "LOCI_VECTOR_WEIGHT must be a number, 0 or more") {
				t.Errorf("exit %d, stderr %q; want %d naming LOCI_VECTOR_WEIGHT", code, stderr, exitDomain)
			}
		})
	}
}
