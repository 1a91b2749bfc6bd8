package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/loci-memory/loci"
)

// TestBusyIsTransient makes SQLite answer SQLITE_BUSY for real (one
// connection holds the write lock, another with no busy timeout asks for
// it) and checks that the backend marks that error transient, so the retry
// policy above the store tries again, and leaves other errors alone.
func TestBusyIsTransient(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	holder, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	impatient, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer impatient.Close()
	_, busyErr := impatient.BeginTx(ctx, nil)
	if busyErr == nil {
		t.Fatal("a second writer got the write lock: no SQLITE_BUSY to test")
	}
	if !isBusy(busyErr) {
		t.Fatalf("isBusy(%v) = false, want true", busyErr)
	}
	if got := db.classify(busyErr); !loci.IsTransient(got) || loci.ErrorCode(got) != loci.EUNAVAILABLE {
		t.Fatalf("classify(%v) = %v: want transient and %s", busyErr, got, loci.EUNAVAILABLE)
	}
	if got := db.classify(errors.New("disk on fire")); loci.IsTransient(got) || loci.ErrorCode(got) != loci.EINTERNAL {
		t.Fatalf("an error that is not SQLITE_BUSY was classified %v", got)
	}
}
