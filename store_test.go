package loci_test

import (
	"reflect"
	"testing"

	"github.com/loci-memory/loci"
)

// TestStorageInterfaceSize keeps the storage interface to what only a
// backend can do: what can be derived from it belongs on loci.Tx, and a
// new plain table needs no new method (tables.go). README's layout names
// its size.
func TestStorageInterfaceSize(t *testing.T) {
	if n := reflect.TypeFor[loci.StoreTx]().NumMethod(); n > 20 {
		t.Errorf("loci.StoreTx has %d methods, want at most 20: derive the new ones on loci.Tx", n)
	}
}
