package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/index"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/storetest"
)

// BenchmarkSearchLongTransaction times scoped searches over 8 agents of
// 500 passages each while a writer adds a passage every tenth search, with
// and without a transaction that holds a transaction id left open in
// another database of the cluster since before loci's schema was made. It
// reports the searches' p50 and p95 and the index loads and resets per
// search: a long transaction elsewhere should cost nothing.
//
//	LOCI_TEST_POSTGRES_DSN=… go test -run '^$' -bench SearchLongTransaction ./postgres
func BenchmarkSearchLongTransaction(b *testing.B) {
	dsn := os.Getenv("LOCI_TEST_POSTGRES_DSN")
	if dsn == "" {
		b.Skip("LOCI_TEST_POSTGRES_DSN is not set")
	}
	const agents, perAgent = 8, 500
	for _, open := range []bool{false, true} {
		name := "NoLongTransaction"
		if open {
			name = "LongTransaction"
		}
		b.Run(name, func(b *testing.B) {
			other := testdb.NewDatabase(b, dsn)
			if open {
				holdTransaction(b, other)
			}
			s := testdb.OpenPostgres(b, dsn)
			words := []string{"apple", "river", "garden", "piano", "harbour", "lantern", "meadow", "copper"}
			for a := range agents {
				recs := make([]*loci.Record, 0, perAgent)
				for i := range perAgent {
					recs = append(recs, passage(fmt.Sprint("agent", a),
						fmt.Sprintf("%s %s note %d of agent %d", words[i%len(words)], words[(i/8)%len(words)], i, a)))
				}
				storetest.MustInsert(b, s, recs...)
			}
			c := index.New()
			search := func(agent string) {
				err := s.View(context.Background(), func(tx loci.Tx) error {
					_, err := c.Search(context.Background(), tx, index.Query{
						Filters: []loci.RecordFilter{{Workspace: loci.DefaultWorkspace, AgentID: loci.Ptr(agent)}},
						Terms:   []string{"apple", "garden"}, N: 10})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			for a := range agents {
				search(fmt.Sprint("agent", a))
			}
			before := c.Stats()
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				agent := fmt.Sprint("agent", i%agents)
				if i%10 == 0 {
					b.StopTimer()
					storetest.MustInsert(b, s, passage(agent, fmt.Sprintf("apple written %d", i)))
					b.StartTimer()
				}
				start := time.Now()
				search(agent)
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(took)
			st := c.Stats()
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(st.Loads-before.Loads)/float64(b.N), "loads/op")
			b.ReportMetric(float64(st.Resets-before.Resets)/float64(b.N), "resets/op")
		})
	}
}
