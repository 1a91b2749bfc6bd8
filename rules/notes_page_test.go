package rules_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// readCounter is a store that counts the records its transactions read
// (through ScanRecords, which FindRecords reads through).
type readCounter struct {
	loci.Store
	read atomic.Int64
}

type countingTx struct {
	loci.StoreTx
	c *readCounter
}

func (tx countingTx) ScanRecords(ctx context.Context, f loci.RecordFilter, fn func(*loci.Record) error) error {
	return tx.StoreTx.ScanRecords(ctx, f, func(r *loci.Record) error {
		tx.c.read.Add(1)
		return fn(r)
	})
}

func (c *readCounter) View(ctx context.Context, fn func(loci.Tx) error) error {
	return c.Store.View(ctx, func(tx loci.Tx) error { return fn(loci.Tx{StoreTx: countingTx{tx.StoreTx, c}}) })
}

// TestListNotesReadsOnlyThePage: a page of an agent's notes reads, and
// audits, only the notes of the page; count is the agent's total.
func TestListNotesReadsOnlyThePage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := &readCounter{Store: open(t)}
		svc := rules.New(store)
		ctx := context.Background()
		for i := range 50 {
			MustRemember(t, svc, "a", fmt.Sprintf("k%02d", i), jsonString("v"))
		}
		for _, tt := range []struct {
			name                     string
			limit, offset            int
			wantLen, wantFirstKeyIdx int
		}{
			{"FirstPage", 20, 0, 20, 0},
			{"LastPage", 20, 40, 10, 40},
			{"PastTheEnd", 20, 60, 0, 0},
		} {
			t.Run(tt.name, func(t *testing.T) {
				store.read.Store(0)
				notes, total, err := svc.ListNotes(ctx, "a", tt.limit, tt.offset)
				if err != nil {
					t.Fatal(err)
				}
				if total != 50 || len(notes) != tt.wantLen {
					t.Fatalf("got %d notes of %d, want %d of 50", len(notes), total, tt.wantLen)
				}
				if len(notes) > 0 && notes[0].Key != fmt.Sprintf("k%02d", tt.wantFirstKeyIdx) {
					t.Errorf("first key %s, want k%02d", notes[0].Key, tt.wantFirstKeyIdx)
				}
				if got := store.read.Load(); got != int64(tt.wantLen) {
					t.Errorf("read %d records for a page of %d", got, tt.wantLen)
				}
				entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{Operation: "note.recall_all", Limit: 1})
				if err != nil || len(entries) != 1 {
					t.Fatalf("audit: %v %v", entries, err)
				}
				if e := entries[0]; len(e.RecordIDs) != tt.wantLen || e.Count != tt.wantLen {
					t.Errorf("audit entry holds %d ids, count %d; want the page's %d", len(e.RecordIDs), e.Count, tt.wantLen)
				}
			})
		}
		if _, _, err := svc.ListNotes(ctx, " ", 20, 0); loci.ErrorCode(err) != loci.EINVALID {
			t.Errorf("ListNotes with an empty agent: %v, want invalid", err)
		}
	})
}
