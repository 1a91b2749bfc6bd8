package rules_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// failingAudit is a store whose write transactions cannot write audit
// entries.
type failingAudit struct{ loci.Store }

func (f failingAudit) Update(ctx context.Context, fn func(loci.Tx) error) error {
	return f.Store.Update(ctx, func(tx loci.Tx) error { return fn(loci.Tx{StoreTx: auditFailTx{tx.StoreTx}}) })
}

type auditFailTx struct{ loci.StoreTx }

var errAuditFull = errors.New("the audit log refuses the entry")

func (tx auditFailTx) InsertRow(ctx context.Context, t *loci.Table, row loci.Row) (bool, error) {
	if t.Name == "audit_log" {
		return false, errAuditFull
	}
	return tx.StoreTx.InsertRow(ctx, t, row)
}

// TestAuditCommitsWithTheWrite: a write and its audit entry commit or roll
// back together. An entry that cannot be written fails the write, which
// leaves nothing; a write that fails leaves no entry of success (its
// failure is logged, with its status and no ids).
func TestAuditCommitsWithTheWrite(t *testing.T) {
	ctx := context.Background()
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		store := open(t)
		svc := rules.New(store)
		t.Run("EntryFailsWrite", func(t *testing.T) {
			broken := rules.New(failingAudit{store})
			if _, err := broken.Remember(ctx, "a1", "k", json.RawMessage(`"v"`)); !errors.Is(err, errAuditFull) {
				t.Fatalf("remember: %v, want the audit error", err)
			}
			if _, err := svc.Recall(ctx, "a1", "k"); loci.ErrorCode(err) != loci.ENOTFOUND {
				t.Fatalf("the note was stored without its audit entry: %v", err)
			}
		})
		t.Run("WriteFailsEntry", func(t *testing.T) {
			if _, err := svc.Remember(ctx, "a1", "k", json.RawMessage(`"v"`)); err != nil {
				t.Fatal(err)
			}
			// A creator may add but not change: the update is refused
			// inside its transaction, after the note was read.
			creator := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "c", Role: loci.RoleCreator, Workspace: loci.DefaultWorkspace})
			if _, err := svc.Remember(creator, "a1", "k", json.RawMessage(`"w"`)); loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Fatalf("remember as creator: %v, want forbidden", err)
			}
			entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{KeyID: "c"})
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Status != 403 || len(entries[0].RecordIDs) != 0 || entries[0].Count != 0 {
				t.Fatalf("entries of the refused write: %+v", entries)
			}
			if n, err := svc.Recall(ctx, "a1", "k"); err != nil || string(n.Value) != `"v"` {
				t.Fatalf("note after the refused write: %v %v", n, err)
			}
		})
	})
}

// TestLibraryCallsAudited: a Go program calling the service is audited as
// every interface is, as the library.
func TestLibraryCallsAudited(t *testing.T) {
	ctx := context.Background()
	svc := rules.New(testdb.OpenSQLite(t))
	if _, err := svc.Remember(ctx, "a1", "k", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Recall(ctx, "a1", "k"); err != nil {
		t.Fatal(err)
	}
	entries, _, err := svc.FindAudit(ctx, loci.AuditFilter{AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(entries), entries)
	}
	for i, op := range []string{"note.recall", "note.remember"} { // newest first
		e := entries[i]
		if e.Operation != op || e.Via != loci.ViaLibrary || e.Kind != loci.KindNote || len(e.RecordIDs) != 1 || e.Count != 1 {
			t.Errorf("entry %d = %+v, want %s via library", i, e, op)
		}
	}
	if entries[0].RecordIDs[0] != entries[1].RecordIDs[0] {
		t.Errorf("the recall and the remember name different records: %v %v", entries[0].RecordIDs, entries[1].RecordIDs)
	}
	// Off, nothing is written.
	quiet := rules.New(testdb.OpenSQLite(t), rules.WithAudit(false))
	if _, err := quiet.Remember(ctx, "a1", "k", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := quiet.FindAudit(ctx, loci.AuditFilter{}); n != 0 {
		t.Errorf("audit off wrote %d entries", n)
	}
}
