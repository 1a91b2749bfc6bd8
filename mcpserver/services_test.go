package mcpserver

import (
	"reflect"
	"testing"
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
