package rules

import (
	"context"
	"testing"

	"github.com/loci-memory/loci"
)

// TestCheckBinding: a key bound to agent a1 reaches only what its binding
// allows, on the agent an operation is given; other keys and calls
// without a key are not bound.
func TestCheckBinding(t *testing.T) {
	bound := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "k", Role: loci.RoleAdmin, AgentID: "a1"})
	free := loci.WithPrincipal(context.Background(), &loci.Principal{KeyID: "k", Role: loci.RoleAdmin})
	tests := []struct {
		name    string
		ctx     context.Context
		agent   string
		b       loci.AgentBinding
		wantErr bool
	}{
		{"NamedOwn", bound, "a1", loci.AgentNamed, false},
		{"ErrNamedOther", bound, "a2", loci.AgentNamed, true},
		{"ErrNamedNone", bound, "", loci.AgentNamed, true},
		{"FreeNone", bound, "", loci.AgentFree, false},
		{"FreeOwn", bound, "a1", loci.AgentFree, false},
		{"ErrFreeOther", bound, "a2", loci.AgentFree, true},
		{"ErrDeny", bound, "a1", loci.AgentDeny, true},
		{"UnboundKey", free, "a2", loci.AgentDeny, false},
		{"NoKey", context.Background(), "", loci.AgentNamed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkBinding(tt.ctx, tt.agent, tt.b)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Errorf("code = %s, want forbidden", loci.ErrorCode(err))
			}
		})
	}
}
