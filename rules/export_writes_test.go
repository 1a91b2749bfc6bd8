package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// exportRoundsEnv sets how many rounds TestExportUnderWrites runs on each
// backend (default 1): LOCI_EXPORT_ROUNDS=20 go test ./memory -run
// TestExportUnderWrites -v reports the exports and writes counted.
const exportRoundsEnv = "LOCI_EXPORT_ROUNDS"

// exportsPerRound is how many exports a round takes while the writers run:
// the workspace's, and last one user's.
const exportsPerRound = 4

// TestExportUnderWrites: every export taken while writers change the
// workspace (notes overwritten with their versions kept, messages appended
// to sessions, agents created with blocks and passages and deleted again,
// passages added and deleted, keyed facts superseded, a shared block
// attached and detached and its content rewritten, episodes recorded,
// working values set; embeddings stored in the background) imports into an
// empty database, and that database
// exports again byte for byte the same: nothing is normalised between the
// two exports. An export that mixed two states (a record whose kept
// versions are not below its version, a passage of an agent the export
// lacks, a session whose message_count is not its messages') is refused
// by the import, or exported differently.
func TestExportUnderWrites(t *testing.T) {
	rounds := 1
	if v := os.Getenv(exportRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of rounds", exportRoundsEnv, v)
		}
		rounds = n
	}
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		var total roundCounts
		for round := range rounds {
			// A subtest each, so that each round's databases are closed
			// when it ends.
			ok := t.Run(fmt.Sprintf("Round%d", round+1), func(t *testing.T) {
				c := exportUnderWrites(t, open, round)
				total.exports += c.exports
				total.records += c.records
				total.embedded += c.embedded
				total.writes += c.writes
			})
			if !ok {
				t.Fatalf("round %d of %d failed", round+1, rounds)
			}
		}
		t.Logf("%s, %d rounds: %d exports (%d records in all, %d with an embedding) taken under %d writes, each imported into an empty database and exported again identically",
			t.Name(), rounds, total.exports, total.records, total.embedded, total.writes)
	})
}

// roundCounts is what rounds did: the exports taken, the records they held
// (and of those, the records with an embedding), the writes acknowledged.
type roundCounts struct{ exports, records, embedded, writes int }

// exportUnderWrites runs one round: it seeds a workspace, starts the
// writers, takes exportsPerRound exports while they write (each after some
// more writes), checks each round trip, and returns what it counted.
func exportUnderWrites(t *testing.T, open func(testing.TB) loci.Store, round int) (c roundCounts) {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The source embeds in the background, as a server does: embeddings
	// are stored beside the writes, without a new version.
	src := rules.New(open(t), rules.WithLogger(quiet), rules.WithEmbedder(embed.NewHash(8)),
		rules.WithEmbedQueue(rules.QueueParams{Batch: 16, Poll: 5 * time.Millisecond}))
	defer src.FlushAudit(ctx)
	defer src.StartEmbedding(ctx)()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The seed: two agents with blocks, a shared block, sessions, notes.
	for _, id := range []string{"a0", "a1"} {
		_, _, err := src.CreateAgent(ctx, loci.AgentCreate{ID: id, Name: "Agent " + id, Blocks: []loci.BlockSpec{{Label: "persona", Content: "helpful"}}})
		must(err)
	}
	shared, err := src.CreateBlock(ctx, "a0", loci.BlockSpec{Label: "news", Content: "office news"}, true)
	must(err)
	for i := range 3 {
		// s0 has no summary: its search text is empty, and stays so.
		_, _, err := src.PutSession(ctx, fmt.Sprintf("s%d", i), loci.SessionPut{UserID: fmt.Sprintf("u%d", i%2), Summary: strings.Repeat("a talk", min(i, 1)),
			Messages: []loci.Message{{Role: "user", Content: "hello"}}})
		must(err)
	}

	// The empty databases the exports are imported into, opened before
	// the writes (a PostgreSQL schema takes a second to migrate).
	var dsts [exportsPerRound]*rules.Service
	for i := range dsts {
		dsts[i] = rules.New(open(t), rules.WithLogger(quiet))
	}

	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	// writer runs step(i) for i = 0, 1, … until stopped; each step is one
	// or more acknowledged writes.
	writer := func(name string, step func(i int) error) {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := step(i); err != nil {
					errs <- fmt.Errorf("%s, step %d: %w", name, i, err)
					return
				}
			}
		})
	}
	ack := func(err error) error {
		if err == nil {
			acked.Add(1)
		}
		return err
	}
	writer("notes", func(i int) error {
		_, err := src.Remember(ctx, "a0", fmt.Sprintf("k%d", i%3), json.RawMessage(fmt.Sprintf(`"value %d"`, i)))
		return ack(err)
	})
	writer("messages", func(i int) error {
		_, err := src.AppendSessionMessage(ctx, fmt.Sprintf("s%d", i%3), loci.Message{Role: "assistant", Content: fmt.Sprintf("reply %d", i)})
		return ack(err)
	})
	writer("agents", func(i int) error {
		id := fmt.Sprintf("tmp%d", i)
		if _, _, err := src.CreateAgent(ctx, loci.AgentCreate{ID: id, Blocks: []loci.BlockSpec{{Label: "persona", Content: "brief"}}}); ack(err) != nil {
			return err
		}
		for j := range 2 {
			if _, err := src.AddPassage(ctx, id, fmt.Sprintf("passage %d of %s", j, id), []string{"tmp"}); ack(err) != nil {
				return err
			}
		}
		if i%3 == 2 { // every third is kept
			return nil
		}
		return ack(src.DeleteAgent(ctx, id))
	})
	writer("passages", func(i int) error {
		p, err := src.AddPassage(ctx, "a1", fmt.Sprintf("a passage %d", i), nil)
		if ack(err) != nil {
			return err
		}
		if i%2 == 0 {
			return ack(src.DeletePassage(ctx, "a1", p.ID))
		}
		return nil
	})
	writer("facts", func(i int) error {
		_, err := src.StoreFact(ctx, loci.FactInput{UserID: "u0", Category: loci.CategoryGeneralFact, Key: "home",
			Fact: fmt.Sprintf("I live in city %d", i), Keywords: []string{"home"}})
		return ack(err)
	})
	writer("blocks", func(i int) error {
		var err error
		if i%2 == 0 {
			err = src.AttachBlock(ctx, shared.ID, "a1")
		} else {
			err = src.DetachBlock(ctx, shared.ID, "a1")
		}
		if ack(err) != nil {
			return err
		}
		_, _, err = src.SetBlock(ctx, "a0", "news", loci.BlockWrite{Content: fmt.Sprintf("news %d", i)})
		return ack(err)
	})
	writer("episodes and working", func(i int) error {
		_, err := src.RecordEpisode(ctx, loci.EpisodeInput{UserID: "u1", AgentID: "a1", ActionType: "reply",
			ActionDescription: fmt.Sprintf("answered %d", i), Outcome: loci.OutcomeSuccess})
		if ack(err) != nil {
			return err
		}
		_, _, err = src.SetWorking(ctx, loci.WorkingInput{TaskID: "t", AgentID: "a1", Key: fmt.Sprintf("step%d", i%4), Value: json.RawMessage(strconv.Itoa(i))})
		return ack(err)
	})
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer halt()

	// waitWrites waits until the writers acknowledged n more writes (or
	// one failed).
	waitWrites := func(n int64) {
		t.Helper()
		target := acked.Load() + n
		deadline := time.Now().Add(30 * time.Second)
		for acked.Load() < target {
			select {
			case err := <-errs:
				t.Fatal(err)
			case <-time.After(time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("the writers acknowledged %d writes in 30 s, want %d", acked.Load(), target)
			}
		}
	}
	for e := range exportsPerRound {
		waitWrites(50)
		// The last export of a round is one user's (u0, then u1).
		var f loci.ExportFilter
		if e == exportsPerRound-1 {
			f.UserID = fmt.Sprintf("u%d", round%2)
		}
		var first bytes.Buffer
		n, err := src.Export(ctx, f, &first)
		if err != nil {
			t.Fatalf("round %d, export %d: %v", round+1, e+1, err)
		}
		dst := dsts[e]
		if _, err := dst.Import(ctx, bytes.NewReader(first.Bytes())); err != nil {
			t.Fatalf("round %d, export %d (%d records) taken under writes: the import refuses it: %v", round+1, e+1, n, err)
		}
		var second bytes.Buffer
		if _, err := dst.Export(ctx, f, &second); err != nil {
			t.Fatal(err)
		}
		dst.FlushAudit(ctx)
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("round %d, export %d: the export of its import differs:\n%s", round+1, e+1, firstDifference(first.String(), second.String()))
		}
		c.exports++
		c.records += n
		c.embedded += bytes.Count(first.Bytes(), []byte(`"embedding":[`))
	}
	halt()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	c.writes = int(acked.Load())
	return c
}

// firstDifference shows the first line where two exports differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nexported: %s\nimported: %s", i+1, x, y)
		}
	}
	return "(no line differs)"
}
