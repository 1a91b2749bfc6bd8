package testdb

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGBinEnv names the directory of the PostgreSQL server's programs
// (initdb, pg_ctl, pg_basebackup) that Cluster runs; without it they are
// looked for with pg_config, then under /usr/lib/postgresql.
const PGBinEnv = "LOCI_TEST_PG_BIN"

// Cluster is a PostgreSQL server of the test's own: initialized in a
// temporary directory, listening on 127.0.0.1 on a free port, stopped and
// removed when the test ends. Tests that stop, kill or promote a server,
// stream to a standby or need settings the shared server lacks run on one,
// never on the server of LOCI_TEST_POSTGRES_DSN. Under root, the server's
// programs run as the postgres user (PostgreSQL refuses to run as root).
type Cluster struct {
	Dir  string
	Port int
	bin  string
	t    testing.TB
}

// NewCluster initializes and starts a server of the test's own, with the
// given postgresql.conf settings ("max_prepared_transactions = 5") after
// its own. It is for tests that run where LOCI_TEST_POSTGRES_DSN is set
// (the PostgreSQL suites): they fail, never skip, when the server's
// programs cannot be found.
func NewCluster(t testing.TB, settings ...string) *Cluster {
	t.Helper()
	c := &Cluster{bin: pgBin(t), t: t}
	c.Dir = ownedTempDir(t)
	c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
	c.configure(append([]string{
		"wal_level = replica", "max_wal_senders = 10", "hot_standby = on", "fsync = off",
		"shared_buffers = 32MB", "max_connections = 60", "wal_keep_size = 256MB",
	}, settings...)...)
	c.Start()
	return c
}

// Standby makes a streaming hot standby of c (pg_basebackup) on a port of
// its own, with the given settings, and starts it.
func (c *Cluster) Standby(t testing.TB, settings ...string) *Cluster {
	t.Helper()
	s := &Cluster{bin: c.bin, t: t}
	s.Dir = ownedTempDir(t)
	s.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres", "-D", s.data(),
		"-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	s.configure(append([]string{"hot_standby_feedback = on"}, settings...)...)
	s.Start()
	return s
}

// DSN is the URL of database db on the server.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// Start starts the server, on a new free port if it has none yet, and
// waits until it accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	for attempt := 0; ; attempt++ {
		if c.Port == 0 || attempt > 0 {
			c.Port = freePort(c.t)
			c.configure(fmt.Sprintf("port = %d", c.Port))
		}
		out, err := c.output("pg_ctl", "start", "-w", "-t", "120", "-D", c.data(), "-l", filepath.Join(c.Dir, "log"))
		if err == nil {
			break
		}
		if attempt == 2 {
			log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
			c.t.Fatalf("start the test's PostgreSQL server: %v\n%s\n%s", err, out, log)
		}
	}
	c.t.Cleanup(func() { c.output("pg_ctl", "stop", "-m", "immediate", "-D", c.data()) })
}

// Stop shuts the server down (fast: sessions are ended, WAL is flushed and
// sent to standbys).
func (c *Cluster) Stop() {
	c.t.Helper()
	c.run("pg_ctl", "stop", "-m", "fast", "-w", "-D", c.data())
}

// Kill stops the server as a crash would (immediate shutdown: nothing more
// is flushed or sent).
func (c *Cluster) Kill() {
	c.t.Helper()
	c.run("pg_ctl", "stop", "-m", "immediate", "-w", "-D", c.data())
}

// Promote makes a standby a primary and waits until it accepts writes.
func (c *Cluster) Promote() {
	c.t.Helper()
	c.run("pg_ctl", "promote", "-w", "-t", "120", "-D", c.data())
}

// Exec runs sql on database db of the server.
func (c *Cluster) Exec(db, sql string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN(db))
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// configure appends settings to postgresql.conf (a later line wins).
func (c *Cluster) configure(settings ...string) {
	c.t.Helper()
	f, err := os.OpenFile(filepath.Join(c.data(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "\n%s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n", strings.Join(settings, "\n"), c.Dir)
}

func (c *Cluster) run(prog string, args ...string) {
	c.t.Helper()
	if out, err := c.output(prog, args...); err != nil {
		c.t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
}

// output runs one of the server's programs, as the postgres user under
// root.
func (c *Cluster) output(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGCONNECT_TIMEOUT=10")
	return cmd.CombinedOutput()
}

// ownedTempDir makes a directory removed when the test ends, owned by the
// postgres user under root.
func ownedTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "loci-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, the test's PostgreSQL server runs as the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pgBin finds the server's programs.
func pgBin(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(PGBinEnv); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
			t.Fatalf("%s=%s: no initdb there: %v", PGBinEnv, dir, err)
		}
		return dir
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	t.Fatalf("no PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) found: install the server "+
		"(Debian: postgresql) or set %s to their directory", PGBinEnv)
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
