package wire_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loci-memory/loci/internal/wire"
)

type (
	greeter interface{ Greet() string }
	counter interface{ Count() int }
	closer  interface{ Close() error }
)

type svc struct{}

func (svc) Greet() string { return "hi" }
func (svc) Count() int    { return 1 }

type server struct {
	Greeter greeter
	Counter counter
	Closer  closer       // svc does not implement it: left nil
	Name    string       // not an interface: left alone
	hidden  greeter      // unexported: left alone
	Str     fmt.Stringer // not implemented either
}

// TestServices: every exported interface field svc implements is set,
// and only those; Unset names the rest.
func TestServices(t *testing.T) {
	var s server
	wire.Services(&s, svc{})
	if s.Greeter == nil || s.Counter == nil {
		t.Fatalf("implemented fields not set: %+v", s)
	}
	if s.Closer != nil || s.Name != "" || s.hidden != nil || s.Str != nil {
		t.Fatalf("fields svc does not implement were set: %+v", s)
	}
	if got := wire.Unset(&s); !slices.Equal(got, []string{"Closer", "Str"}) {
		t.Errorf("Unset = %v, want [Closer Str]", got)
	}
}
