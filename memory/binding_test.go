package memory

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
		b       binding
		wantErr bool
	}{
		{"NamedOwn", bound, "a1", agentNamed, false},
		{"ErrNamedOther", bound, "a2", agentNamed, true},
		{"ErrNamedNone", bound, "", agentNamed, true},
		{"FreeNone", bound, "", agentFree, false},
		{"FreeOwn", bound, "a1", agentFree, false},
		{"ErrFreeOther", bound, "a2", agentFree, true},
		{"ErrDeny", bound, "a1", agentDeny, true},
		{"UnboundKey", free, "a2", agentDeny, false},
		{"NoKey", context.Background(), "", agentNamed, false},
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
