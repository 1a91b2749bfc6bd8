package rules_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/embed"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// TestCloseWritesQueuedAudit: reads are audited in batches; Close writes what
// waits before it closes the store, so a program that reads and then closes
// loses no entry. Close also stops the embedding worker (a worker left running
// would use the closed store). A second handle on the same database, as the
// next run of the program would be, counts them.
func TestCloseWritesQueuedAudit(t *testing.T) {
	for _, p := range testdb.Pairs() {
		t.Run(p.Name, func(t *testing.T) {
			ctx := context.Background()
			first, next := p.Open(t)
			svc := rules.New(first, rules.WithEmbedder(embed.NewHash(8)))
			// A worker that Close must stop before the store closes.
			svc.StartEmbedding(ctx)
			if _, err := svc.Remember(ctx, "writer", "tone", json.RawMessage(`"friendly"`)); err != nil {
				t.Fatal(err)
			}
			const reads = 40
			for range reads {
				if _, err := svc.Recall(ctx, "writer", "tone"); err != nil {
					t.Fatal(err)
				}
			}
			if err := svc.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if err := svc.Close(); err != nil {
				t.Errorf("a second close: %v, want nil", err)
			}
			if _, err := svc.Recall(ctx, "writer", "tone"); err == nil {
				t.Errorf("a read after close succeeded: the store is still open")
			}
			_, n, err := rules.New(next).FindAudit(ctx, loci.AuditFilter{Operation: "note.recall"})
			if err != nil {
				t.Fatal(err)
			}
			if n != reads {
				t.Errorf("recall entries after close: %d, want %d (lost %d)", n, reads, reads-n)
			}
		})
	}
}
