package testdb

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMakeTestSaysWhatWasSkipped: `make test` without a PostgreSQL DSN
// says the PostgreSQL suites were skipped (go test alone prints a plain
// "ok"), and says nothing of the kind when the DSN is set. The go
// commands are replaced by true: only the Makefile runs.
func TestMakeTestSaysWhatWasSkipped(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	makeTest := func(env ...string) string {
		t.Helper()
		cmd := exec.Command("make", "-s", "-C", "../..", "test", "GO=true")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make test: %v\n%s", err, out)
		}
		return string(out)
	}
	out := makeTest(PostgresEnv+"=", "LOCI_TEST_PGLITE_DSN=")
	for _, want := range []string{"PostgreSQL suites were skipped", PostgresEnv, "LOCI_TEST_PGLITE_DSN"} {
		if !strings.Contains(out, want) {
			t.Errorf("make test without DSNs: output lacks %q:\n%s", want, out)
		}
	}
	out = makeTest(PostgresEnv+"=postgres://x@127.0.0.1/test", "LOCI_TEST_PGLITE_DSN=postgres://y@127.0.0.1/test")
	if strings.Contains(out, "skipped") {
		t.Errorf("make test with both DSNs: output %q says something was skipped", out)
	}
}
