package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loci-memory/loci"
)

// snapshot is what a directory holds: file names and contents.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameSnapshot(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// execSQL runs statements on a plain connection to path (not loci's).
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestOpenRefuses: loci never writes into a file that is not its own or
// that a newer loci wrote; it says why, naming the file, and leaves the
// directory exactly as it was (no tables added, no -wal or -shm beside).
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  []string
	}{
		{"ErrForeignTables", func(t *testing.T, path string) {
			execSQL(t, path, `CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)`,
				`CREATE TABLE records (id INTEGER PRIMARY KEY, body TEXT)`, `INSERT INTO users (name) VALUES ('ann')`)
		}, []string{"not loci's", "records, users"}},
		{"ErrForeignWAL", func(t *testing.T, path string) {
			execSQL(t, path, `PRAGMA journal_mode=WAL`, `CREATE TABLE app (id INTEGER PRIMARY KEY)`)
		}, []string{"not loci's", "app"}},
		{"ErrOtherSchemaMigrations", func(t *testing.T, path string) {
			// Another tool's migrations table (golang-migrate's shape).
			execSQL(t, path, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, dirty BOOLEAN NOT NULL)`,
				`INSERT INTO schema_migrations VALUES (3, 0)`, `CREATE TABLE accounts (id INTEGER PRIMARY KEY)`)
		}, []string{"not loci's", "accounts"}},
		{"ErrNotSQLite", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("name,email\nann,ann@example.com\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a SQLite database"}},
		{"ErrNewerLoci", func(t *testing.T, path string) {
			db, err := Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			execSQL(t, path, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999_future', 0)`)
		}, []string{"newer loci", "schema version 9999", fmt.Sprintf("up to %d", latestMigration())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "app.db")
			tt.setup(t, path)
			before := snapshot(t, dir)
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("code = %s, want invalid (%v)", loci.ErrorCode(err), err)
			}
			msg := loci.ErrorMessage(err)
			for _, want := range append(tt.want, path) {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
			if after := snapshot(t, dir); !sameSnapshot(before, after) {
				var names []string
				for n := range after {
					names = append(names, n)
				}
				t.Errorf("the directory changed: now %v", names)
			}
		})
	}
}

// TestOpenOwnDatabase: loci's own database opens again, and so does one
// whose first start stopped after creating schema_migrations.
func TestOpenOwnDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "loci.db")
	for range 2 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	interrupted := filepath.Join(t.TempDir(), "first.db")
	execSQL(t, interrupted, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	db, err := Open(ctx, interrupted)
	if err != nil {
		t.Fatalf("a database with loci's empty schema_migrations only: %v", err)
	}
	db.Close()
}

// TestOpenRefusesReadOnly: a database file loci may not write is refused
// at start with a message naming it, and no -wal or -shm file is left
// beside it. Permission bits do not bind root, so as root the test runs
// itself again as nobody.
func TestOpenRefusesReadOnly(t *testing.T) {
	if dir := os.Getenv("LOCI_TEST_READONLY_DIR"); dir != "" {
		// The child: try to open the read-only file, report on stdout.
		path := filepath.Join(dir, "loci.db")
		db, err := Open(context.Background(), path)
		if err == nil {
			db.Close()
			fmt.Println("RESULT opened")
			return
		}
		fmt.Printf("RESULT code=%s message=%s\n", loci.ErrorCode(err), loci.ErrorMessage(err))
		return
	}
	dir, err := os.MkdirTemp("", "loci-readonly-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loci.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // the directory stays writable
		t.Fatal(err)
	}
	bin := os.Args[0]
	if os.Geteuid() == 0 {
		// A copy of the test binary that nobody may run, beside the file.
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "sqlite.test")
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^TestOpenRefusesReadOnly$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOCI_TEST_READONLY_DIR="+dir)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Skipf("cannot run the test binary as another user: %v", err)
	}
	var result string
	for _, line := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(line, "RESULT "); ok {
			result = r
		}
	}
	if result == "" {
		t.Fatalf("the child reported nothing:\n%s", out)
	}
	t.Logf("child: %s", result)
	if !strings.HasPrefix(result, "code=invalid") || !strings.Contains(result, path) || !strings.Contains(result, "read-only") {
		t.Errorf("opening a read-only file: %s; want invalid, naming %s, saying read-only", result, path)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s left beside the read-only file", side)
		}
	}
}

// TestWriterWaitBounded: a write waits for the one writer connection at
// most the store's timeout, then fails unavailable (503) instead of
// waiting as long as the holder keeps it.
func TestWriterWaitBounded(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"), WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	held, release := make(chan struct{}), make(chan struct{})
	go db.Update(ctx, func(loci.Tx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	// A bound on the test, not on loci: a hang fails instead of blocking.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = db.Update(wctx, func(loci.Tx) error { return nil })
	close(release)
	if loci.ErrorCode(err) != loci.EUNAVAILABLE || !loci.IsTransient(err) {
		t.Errorf("write while the writer is held: %v; want transient unavailable", err)
	}
	if err := db.Update(ctx, func(loci.Tx) error { return nil }); err != nil {
		t.Errorf("write after release: %v", err)
	}
}

// TestDiskFull: a write that finds no room (the size cap here, a full
// disk in the field) is storage_full, and Ping reports it.
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loci.db"), WithMaxSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	big := strings.Repeat("x", 64<<10)
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		werr = db.Update(ctx, func(tx loci.Tx) error {
			now := time.Now()
			return tx.InsertRecord(ctx, &loci.Record{ID: fmt.Sprintf("r%d", i), Workspace: "w", Kind: loci.KindPassage,
				Scope: loci.Scope{AgentID: "a"}, Content: big, Version: 1, CreatedAt: now, UpdatedAt: now})
		})
	}
	if loci.ErrorCode(werr) != loci.ESTORAGEFULL {
		t.Fatalf("writes past the cap: %v; want storage_full", werr)
	}
	if err := db.Ping(ctx); loci.ErrorCode(err) != loci.ESTORAGEFULL {
		t.Errorf("ping after a full disk: %v; want storage_full", err)
	}
}
