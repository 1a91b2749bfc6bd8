package loci_test

import (
	"testing"

	"github.com/loci-memory/loci"
)

// TestStatusOf: every code has its own status, and CodeOf reads it back,
// so that a client sees the code the server answered with.
func TestStatusOf(t *testing.T) {
	codes := []string{loci.EINVALID, loci.EUNAUTHORIZED, loci.EFORBIDDEN, loci.ENOTFOUND, loci.ECONFLICT, loci.ETOOLARGE, loci.ERATELIMIT, loci.EINTERNAL, loci.EUNAVAILABLE, loci.ESTORAGEFULL}
	seen := map[int]string{}
	for _, code := range codes {
		st := loci.StatusOf(code)
		if st < 400 || st > 599 {
			t.Errorf("StatusOf(%q) = %d, want an error status", code, st)
		} else if other, ok := seen[st]; ok {
			t.Errorf("StatusOf(%q) = %d, as for %q", code, st, other)
		}
		seen[st] = code
		if got := loci.CodeOf(st); got != code {
			t.Errorf("CodeOf(%d) = %q, want %q", st, got, code)
		}
	}
	if st := loci.StatusOf(""); st != 200 {
		t.Errorf("StatusOf(\"\") = %d, want 200", st)
	}
	if st := loci.StatusOf("no_such_code"); st != 500 {
		t.Errorf("StatusOf(unknown) = %d, want 500", st)
	}
	if got := loci.CodeOf(418); got != loci.EINTERNAL {
		t.Errorf("CodeOf(418) = %q, want %q", got, loci.EINTERNAL)
	}
	for code, want := range map[string]string{loci.EUNAVAILABLE: "2", loci.ESTORAGEFULL: "60", loci.EINVALID: "", loci.EINTERNAL: ""} {
		after, ok := loci.RetryAfter(code)
		if after != want || ok != (want != "") {
			t.Errorf("RetryAfter(%q) = %q, %v, want %q", code, after, ok, want)
		}
	}
}
