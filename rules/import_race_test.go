package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// importDuring imports first then rest through a pipe, running during
// once first has been read (and, given the time, checked: its holdings
// read) and before rest, and so before anything is written.
func importDuring(t *testing.T, svc *rules.Service, first, rest string, during func()) error {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Import(context.Background(), pr)
		done <- err
	}()
	if _, err := io.WriteString(pw, first); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // not a timed assertion: the import's check of first, most often done
	during()
	if _, err := io.WriteString(pw, rest); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	return <-done
}

// fillerNotes are n notes of agent filler, lines that fill an import's
// first chunk.
func fillerNotes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"record","id":"fill%04d","workspace":"default","kind":"note","agent_id":"filler","key":"k%04d","content":"v","data":{"value":"v"},%s}`+"\n", i, i, importTimes)
	}
	return b.String()
}

// TestImportRacingWritesKeepsLimits: a write that commits after an import
// read what a task or a user and agent held, and before the import
// writes, is counted: the working limit and the episode cap hold (the
// import is refused) whichever comes first.
func TestImportRacingWritesKeepsLimits(t *testing.T) {
	for _, populated := range []bool{false, true} {
		t.Run(fmt.Sprintf("populated=%v", populated), func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
				ctx := context.Background()
				svc := rules.New(open(t))
				if populated {
					if _, err := svc.Remember(ctx, "other", "x", jsonString("y")); err != nil {
						t.Fatal(err)
					}
				}
				// Working memory: 30 KB imported, 30 KB set meanwhile; the
				// limit is 50 KB.
				var setErr error
				err := importDuring(t, svc, workingLine("w1", "t", "k1", 30000)+"\n"+fillerNotes(511), "", func() {
					v, _ := json.Marshal(strings.Repeat("y", 29998))
					_, _, setErr = svc.SetWorking(ctx, loci.WorkingInput{TaskID: "t", AgentID: "a", Key: "k2", Value: v})
				})
				list, lerr := svc.ListWorking(ctx, "t", loci.WorkingFilter{})
				if lerr != nil {
					t.Fatal(lerr)
				}
				total := 0
				for _, e := range list {
					total += len(e.Value)
				}
				if total > loci.MaxWorkingTaskBytes || (err == nil && setErr == nil) {
					t.Errorf("working: import %v, set %v: task t holds %d bytes, limit %d; want one refused", err, setErr, total, loci.MaxWorkingTaskBytes)
				}
				// Episodes: 1,000 imported for u and a, one recorded
				// meanwhile; the cap is 1,000.
				var recErr error
				err = importDuring(t, svc, episodeLines(0, 1000, "u", "a"), "", func() {
					_, recErr = svc.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u", AgentID: "a", ActionType: "act", ActionDescription: "live one", Outcome: "success"})
				})
				n := countRecords(t, svc, loci.RecordFilter{Kinds: []loci.Kind{loci.KindEpisode}, UserID: loci.Ptr("u"), AgentID: loci.Ptr("a")})
				if n > 1000 || (err == nil && recErr == nil && n != 1000) {
					t.Errorf("episodes: import %v, record %v: u and a hold %d episodes, cap 1000", err, recErr, n)
				}
			})
		})
	}
}
