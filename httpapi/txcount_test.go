package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

// countingStore counts the transactions run on a store.
type countingStore struct {
	loci.Store
	updates, views atomic.Int64
}

func (c *countingStore) Update(ctx context.Context, fn func(loci.Tx) error) error {
	c.updates.Add(1)
	return c.Store.Update(ctx, fn)
}

func (c *countingStore) View(ctx context.Context, fn func(loci.Tx) error) error {
	c.views.Add(1)
	return c.Store.View(ctx, fn)
}

// TestOneTransactionPerWrite: a PUT of a note over HTTP runs one write
// transaction, which holds the note, its version and its audit entry, and
// at most one read: the authentication read (whether keys exist, or the
// key presented), with authentication off and on, creating and updating.
func TestOneTransactionPerWrite(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		cs := &countingStore{Store: open(t)}
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		svc := rules.New(cs, rules.WithLogger(quiet))
		e := &secEnv{srv: NewServer(svc, quiet), svc: svc, store: cs}
		put := func(t *testing.T, key, path string, want int) {
			t.Helper()
			if err := svc.FlushAudit(context.Background()); err != nil {
				t.Fatal(err)
			}
			cs.updates.Store(0)
			cs.views.Store(0)
			if s, body, _ := e.call(t, "PUT", path, key, []byte(`{"value":"v"}`)); s != want {
				t.Fatalf("status %d (%v), want %d", s, body, want)
			}
			if u, v := cs.updates.Load(), cs.views.Load(); u != 1 || v > 1 {
				t.Errorf("%d write and %d read transactions, want 1 write and at most 1 read", u, v)
			}
		}
		t.Run("AuthOff", func(t *testing.T) {
			put(t, "", "/v1/agents/a1/notes/k1", http.StatusCreated)
			put(t, "", "/v1/agents/a1/notes/k1", http.StatusOK)
		})
		t.Run("AuthOn", func(t *testing.T) {
			secret, _ := e.key(t, loci.RoleEditor, "")
			put(t, secret, "/v1/agents/a1/notes/k2", http.StatusCreated)
			put(t, secret, "/v1/agents/a1/notes/k2", http.StatusOK)
		})
		// Each write's entry is there, written with it.
		entries, _, err := svc.FindAudit(context.Background(), loci.AuditFilter{Operation: "note.remember"})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 4 {
			t.Fatalf("%d note.remember entries, want 4", len(entries))
		}
		for _, en := range entries {
			if en.Via != loci.ViaREST || len(en.RecordIDs) != 1 || en.AgentID != "a1" {
				t.Errorf("entry %+v", en)
			}
		}
	})
}
