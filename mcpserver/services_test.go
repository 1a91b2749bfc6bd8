package mcpserver

import (
	"reflect"
	"testing"

	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/internal/wire"
	"github.com/loci-memory/loci/rules"
)

// TestServerServicesAreSmall: every service field of the MCP server is an
// interface of at most ten methods (narrow interfaces), and every tool group
// calls only its own.
func TestServerServicesAreSmall(t *testing.T) {
	st := reflect.TypeFor[server]()
	n := 0
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Interface {
			continue
		}
		n++
		if m := f.Type.NumMethod(); m > 10 {
			t.Errorf("server.%s (%s) has %d methods, more than 10", f.Name, f.Type, m)
		}
	}
	if n == 0 {
		t.Fatal("the server has no service fields")
	}
}

// TestNewServerSetsEveryService: a server built on the one service sets
// every service field from it (setServices), so that a new kind's field
// needs no line of wiring.
func TestNewServerSetsEveryService(t *testing.T) {
	s := &server{}
	s.setServices(rules.New(testdb.OpenSQLite(t)))
	if unset := wire.Unset(s); len(unset) > 0 {
		t.Errorf("server fields not set: %v", unset)
	}
}
