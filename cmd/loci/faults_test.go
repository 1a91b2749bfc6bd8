package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loci-memory/loci/internal/testdb"
)

// TestCLIRefusesForeignDatabase: pointed at another application's SQLite
// file, every verb, serve included, exits 1 saying why, and the file is
// unchanged.
func TestCLIRefusesForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--db", path},
		{"remember", "k", "v", "--agent", "a", "--db", path},
		{"import", "--db", path},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != exitDomain || !strings.Contains(stderr, "not loci's") || !strings.Contains(stderr, path) {
			t.Errorf("loci %s: exit %d, stderr %q; want 1 naming the file and saying it is not loci's", args[0], code, stderr)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the foreign database changed")
	}
}

// TestCLIRefusesForeignPostgres: a PostgreSQL schema holding another
// application's tables is refused the same way, and gets no table.
func TestCLIRefusesForeignPostgres(t *testing.T) {
	dsn := os.Getenv(testdb.PostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set", testdb.PostgresEnv)
	}
	ctx := context.Background()
	schema := testdb.NewSchema(t, dsn)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE `+schema+`.users (id serial PRIMARY KEY); CREATE TABLE `+schema+`.records (id serial PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	target, err := testdb.PostgresDSN(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--db", target)
	if code != exitDomain || !strings.Contains(stderr, "not loci's") || !strings.Contains(stderr, "search_path=loci") {
		t.Errorf("serve on a foreign schema: exit %d, stderr %q", code, stderr)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&n); err != nil || n != 2 {
		t.Errorf("the schema holds %d tables (%v), want its 2", n, err)
	}
}

// TestCLIReadOnlyDatabase: a database file the user may not write is
// refused at start with a message naming it (not a failure at the first
// write), and nothing is left beside it. As root, permission bits do not
// bind, so the binary runs as nobody.
func TestCLIReadOnlyDatabase(t *testing.T) {
	bin := lociBinary(t)
	dir, err := os.MkdirTemp("", "loci-cli-readonly-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loci.db")
	if code, _, stderr := runCLI(t, "remember", "k", "v", "--agent", "a", "--db", path); code != 0 {
		t.Fatalf("remember: %s", stderr)
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "recall", "k", "--agent", "a", "--db", path)
	if os.Geteuid() == 0 {
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		copyBin := filepath.Join(dir, "loci")
		if err := os.WriteFile(copyBin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(copyBin, "recall", "k", "--agent", "a", "--db", path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("run: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitDomain || !strings.Contains(stderr.String(), "read-only") || !strings.Contains(stderr.String(), path) {
		t.Errorf("recall on a read-only file: exit %d, stderr %q; want 1 naming the file as read-only", code, stderr.String())
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s left beside the read-only file", side)
		}
	}
}

// TestCLIUnavailable: a database another process keeps locked past
// --db-timeout (LOCI_DB_TIMEOUT) is a domain error, exit 1, saying so.
func TestCLIUnavailable(t *testing.T) {
	t.Setenv("LOCI_DB_TIMEOUT", "100ms")
	path := filepath.Join(t.TempDir(), "loci.db")
	if code, _, stderr := runCLI(t, "remember", "k", "v", "--agent", "a", "--db", path); code != 0 {
		t.Fatalf("remember: %s", stderr)
	}
	holder, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	code, _, stderr := runCLI(t, "remember", "k", "w", "--agent", "a", "--db", path)
	if code != exitDomain || !strings.Contains(stderr, "database is busy") {
		t.Errorf("remember on a locked database: exit %d, stderr %q; want 1 saying the database is busy", code, stderr)
	}
}

// TestCLIImportRefusedLine: loci import names the refused line and
// imports nothing.
func TestCLIImportRefusedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loci.db")
	line := `{"type":"record","id":"r1","workspace":"default","kind":"note","agent_id":"a","key":"k","content":"v","data":[1],` +
		`"confidence":0,"access_count":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","version":1}`
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"import", "--db", path}, strings.NewReader(line+"\n"), &stdout, &stderr)
	if code != exitDomain || !strings.Contains(stderr.String(), "line 1: record r1: data of a note must be a JSON object") {
		t.Errorf("import of a bad line: exit %d, stderr %q", code, stderr.String())
	}
	if code, out, _ := runCLI(t, "recall", "--agent", "a", "--db", path); code != 0 || strings.Contains(out, `"k"`) {
		t.Errorf("a refused import stored: %s", out)
	}
}
