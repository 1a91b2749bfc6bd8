package testdb

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PgBouncer is a real PgBouncer of the test's own in transaction mode
// (pool_mode = transaction, as hosted poolers run), listening on a free
// port of 127.0.0.1 in front of a PostgreSQL server, stopped when the test
// ends.
type PgBouncer struct {
	Port int
	dsn  string
}

// Via returns dsn (a postgres:// URL of the server behind the pooler)
// pointed at the pooler instead.
func (b *PgBouncer) Via(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
	return u.String()
}

// LookPgBouncer finds the pgbouncer program (on PATH, or Debian's
// /usr/sbin/pgbouncer), "" when it is not installed.
func LookPgBouncer() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// NewPgBouncer starts PgBouncer in transaction mode in front of the server
// that dsn (a postgres:// URL) names, trusting every user. It skips the
// test when pgbouncer is not installed (.ci/run installs it, so CI never
// skips).
func NewPgBouncer(t testing.TB, dsn string) *PgBouncer {
	t.Helper()
	bin := LookPgBouncer()
	if bin == "" {
		t.Skip("pgbouncer is not installed (Debian: apt-get install pgbouncer; .ci/run installs it): " +
			"the tests through a transaction pooler cannot run here")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse %s: %v", dsn, err)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "5432"
	}
	user := u.User.Username()
	if user == "" {
		user = "postgres"
	}
	dir, err := os.MkdirTemp("", "loci-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// PgBouncer refuses to run as root: under root it runs as postgres (or
	// nobody), which must read its files.
	os.Chmod(dir, 0o755)
	var args []string
	if os.Geteuid() == 0 {
		runAs := "nobody"
		if userExists("postgres") {
			runAs = "postgres"
		}
		args = append(args, "-u", runAs)
	}
	users := filepath.Join(dir, "users.txt")
	// auth_type = trust still wants the user names listed.
	if err := os.WriteFile(users, []byte(fmt.Sprintf("%q \"\"\n", user)), 0o644); err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		b := &PgBouncer{Port: freePort(t)}
		ini := filepath.Join(dir, "pgbouncer.ini")
		conf := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
max_db_connections = 40
server_reset_query =
ignore_startup_parameters = extra_float_digits
admin_users = %s
`, host, port, b.Port, users, user)
		if err := os.WriteFile(ini, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(args, ini)...)
		out, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = cmd.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start pgbouncer: %v", err)
		}
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				select {
				case lines <- sc.Text():
				default:
				}
			}
			close(lines)
		}()
		if waitListening(b.Port, 10*time.Second) {
			t.Cleanup(func() {
				cmd.Process.Signal(os.Interrupt)
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					cmd.Process.Kill()
					<-done
				}
			})
			b.dsn = b.Via(dsn)
			return b
		}
		cmd.Process.Kill()
		cmd.Wait()
		var log []string
		for l := range lines {
			log = append(log, l)
		}
		if attempt < 2 {
			continue // the port was taken in between
		}
		t.Fatalf("pgbouncer did not start on 127.0.0.1:%d:\n%s", b.Port, strings.Join(log, "\n"))
	}
}

// DSN is the URL of the server's database through the pooler, with the
// original DSN's parameters.
func (b *PgBouncer) DSN() string { return b.dsn }

func userExists(name string) bool {
	data, err := os.ReadFile("/etc/passwd")
	return err == nil && strings.Contains(string(data), "\n"+name+":")
}

// waitListening reports whether 127.0.0.1:port accepts connections within
// d.
func waitListening(port int, d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
