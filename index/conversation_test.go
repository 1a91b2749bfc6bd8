package index_test

import (
	"context"
	"math"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/sqlite"
	"github.com/loci-memory/loci/storetest"
)

// TestConversationScores: each lexical hit carries its conversation's
// BM25 as one document among the scope's conversations (k1 1.2, b 0.75),
// so a conversation that holds the query's words in different records
// scores as one that holds them together; a record in no conversation
// carries none. Alike in an index held in memory and in a scope streamed.
func TestConversationScores(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type rec struct{ session, text string }
	corpus := []rec{
		// "split": bike and service said in different turns.
		{"split", "my bike is old"}, {"split", "the service was quick"}, {"split", "thanks"},
		// "together": both in one turn, and a long filler turn.
		{"together", "bike service booked"}, {"together", "filler words about nothing in particular at all today"},
		// "bikes": bike twice, no service.
		{"bikes", "bike bike"},
		{"none", "unrelated talk"},
		{"", "bike service outside any conversation"},
	}
	var recs []*loci.Record
	for _, c := range corpus {
		r := storetest.NewRecord(loci.KindPassage, loci.Scope{AgentID: "a", SessionID: c.session}, "", c.text)
		r.SearchText = c.text
		recs = append(recs, r)
	}
	storetest.MustInsert(t, db, recs...)
	session := map[string]string{}
	for _, r := range recs {
		session[r.ID] = r.SessionID
	}

	// The expected scores, from BM25's formula over the conversations'
	// words: length and how often each holds "bike" and "service".
	convs := map[string]struct{ length, bike, service float64 }{
		"split": {4 + 4 + 1, 1, 1}, "together": {3 + 9, 1, 1}, "bikes": {2, 2, 0}, "none": {2, 0, 0},
	}
	var total float64
	for _, c := range convs {
		total += c.length
	}
	n, avg := float64(len(convs)), total/float64(len(convs))
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	bm := func(tf, length, df float64) float64 {
		if tf == 0 {
			return 0
		}
		return idf(df) * 2.2 * tf / (tf + 1.2*(1-0.75+0.75*length/avg))
	}
	want := map[string]float64{}
	for name, c := range convs {
		want[name] = bm(c.bike, c.length, 3) + bm(c.service, c.length, 2)
	}
	if !(want["split"] > want["bikes"]) {
		t.Fatalf("test corpus: split %v should outscore bikes %v", want["split"], want["bikes"])
	}

	conversational := index.WithConversational(func(r *loci.Record) bool { return r.SessionID != "" })
	for name, c := range map[string]*index.Cache{
		"Held":     index.New(conversational),
		"Streamed": index.New(conversational, index.WithBudget(1)),
	} {
		t.Run(name, func(t *testing.T) {
			f := loci.RecordFilter{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr("a")}
			err := db.View(ctx, func(tx loci.Tx) error {
				res, err := c.Search(ctx, tx, index.Query{Filters: []loci.RecordFilter{f}, Terms: []string{"bike", "service"}, N: 10})
				if err != nil {
					return err
				}
				if len(res.Lexical) != 5 {
					t.Errorf("%d lexical hits, want 5", len(res.Lexical))
				}
				for _, h := range res.Lexical {
					s := session[h.Doc.Meta.ID]
					if math.Abs(h.Conversation-want[s]) > 1e-9 {
						t.Errorf("hit %q (conversation %q): conversation score %v, want %v", h.Doc.Meta.Content, s, h.Conversation, want[s])
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
