package loci

import (
	"context"
	"time"
)

// Role is what an API key may do (docs/api.md, "Roles and agent binding").
// Each role may do everything the roles below it may.
type Role string

// The roles, weakest first.
const (
	// RoleViewer reads.
	RoleViewer Role = "viewer"
	// RoleCreator also adds new memories.
	RoleCreator Role = "creator"
	// RoleEditor also updates and deletes existing memories.
	RoleEditor Role = "editor"
	// RoleAdmin also manages keys, wipes, maintenance, the audit log,
	// export and import.
	RoleAdmin Role = "admin"
)

// Roles lists every role, weakest first.
var Roles = []Role{RoleViewer, RoleCreator, RoleEditor, RoleAdmin}

// rank orders the roles; 0 is not a role.
func (r Role) rank() int {
	for i, v := range Roles {
		if r == v {
			return i + 1
		}
	}
	return 0
}

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// Allows reports whether a holder of r may do what need requires.
func (r Role) Allows(need Role) bool { return r.Valid() && need.Valid() && r.rank() >= need.rank() }

// ParseRole returns the role named s, or an EINVALID error.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !r.Valid() {
		return "", Errorf(EINVALID, "role must be one of viewer, creator, editor, admin, not %q", s)
	}
	return r, nil
}

// Principal is who a request acts for: the API key that authenticated it.
// A Principal with AgentID set may see and touch only that agent's memory.
type Principal struct {
	KeyID     string
	Role      Role
	AgentID   string // "" for a key not bound to an agent
	Workspace string
}

type principalKey struct{}

// WithPrincipal returns a context that acts for p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the context's principal, or nil when the caller is
// trusted (embedded use, the local CLI, a server with authentication off).
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Authorize returns an EFORBIDDEN error unless the context's principal
// holds at least role need; a context without a principal is trusted. The
// rules call it where the role a call needs depends on the data, e.g. a
// create-or-update that turns out to be an update needs RoleEditor.
func Authorize(ctx context.Context, need Role) error {
	p := PrincipalFrom(ctx)
	if p == nil || p.Role.Allows(need) {
		return nil
	}
	return Errorf(EFORBIDDEN, "this needs the %s role; the key has %s", need, p.Role)
}

// Limits on API keys: a key's id as a request names it, its name, and the
// secret a request presents (longer is never a key).
const (
	MaxKeyIDBytes     = 64
	MaxKeyNameBytes   = 256
	MaxKeySecretBytes = 256
)

// APIKey is a stored API key. Only the SHA-256 hash of its secret is
// kept; the secret is shown once, when the key is created.
type APIKey struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Name      string    `json:"name,omitempty"`
	Role      Role      `json:"role"`
	AgentID   string    `json:"agent_id,omitempty"`
	Hash      string    `json:"-"` // hex SHA-256 of the secret
	CreatedAt time.Time `json:"created_at"`
	RevokedAt time.Time `json:"revoked_at,omitzero"` // zero: active
}

// Active reports whether the key has not been revoked.
func (k *APIKey) Active() bool { return k.RevokedAt.IsZero() }

// KeySpec describes a key to create.
type KeySpec struct {
	Role    Role
	AgentID string // bind the key to one agent; "" for none
	Name    string // a label for people
}

// Validate checks the key to create: a known role, an agent when set and
// a name of at most MaxKeyNameBytes when set. EINVALID.
func (k KeySpec) Validate() error {
	if _, err := ParseRole(string(k.Role)); err != nil {
		return err
	}
	if k.AgentID != "" {
		if err := RequireText("agent_id", k.AgentID, MaxAgentIDBytes); err != nil {
			return err
		}
	}
	if k.Name != "" {
		if err := RequireText("name", k.Name, MaxKeyNameBytes); err != nil {
			return err
		}
	}
	return nil
}

// KeyService manages API keys and authenticates requests.
type KeyService interface {
	// CreateKey creates a key in the context's workspace and returns it
	// with its secret, which is not stored and cannot be shown again.
	// EINVALID for an unknown role or a bad agent id or name.
	CreateKey(ctx context.Context, spec KeySpec) (*APIKey, string, error)
	// ListKeys returns the keys of the context's workspace, or of every
	// workspace when all is set, oldest first.
	ListKeys(ctx context.Context, all bool) ([]*APIKey, error)
	// RevokeKey revokes a key of the context's workspace (of any
	// workspace when the context has no principal). ENOTFOUND when absent.
	RevokeKey(ctx context.Context, id string) error
	// Authenticate returns the principal of an active key with that
	// secret. EUNAUTHORIZED when there is none.
	Authenticate(ctx context.Context, secret string) (*Principal, error)
	// HasKeys reports whether any active key exists in any workspace
	// (authentication is on whenever one does).
	HasKeys(ctx context.Context) (bool, error)
}

// AgentBinding is how a key bound to one agent (Principal.AgentID) may call an
// operation (docs/api.md, "Roles and agent binding"). REST routes declare it
// in their policy, and the operation checks it against the agent it is given.
type AgentBinding int

const (
	// AgentNamed: the operation acts on the agent it names (path, query
	// or body agent_id) and filters by it; a bound key must name its own
	// agent (an operation whose agent is optional refuses a bound key
	// that names none). The zero value, so a forgotten field fails closed.
	AgentNamed AgentBinding = iota
	// AgentFree: the operation holds no agent's memory (a user's
	// preferences and sessions, global facts, metrics) or names an agent
	// only optionally; a bound key may call it, and any agent it names
	// must be the key's.
	AgentFree
	// AgentDeny: the operation spans agents (or names its records by id
	// only, or cannot be checked generically); bound keys are refused.
	AgentDeny
)

// String names the binding as the OpenAPI document does
// (x-loci-agent-binding): named, free or deny.
func (b AgentBinding) String() string {
	switch b {
	case AgentNamed:
		return "named"
	case AgentFree:
		return "free"
	case AgentDeny:
		return "deny"
	}
	return "unknown"
}

// The operations on API keys (Operation, declared once: see operations.go).
var (
	OpKeyCreate = declare(Operation{Name: "key.create", Role: RoleAdmin, Agent: AgentDeny, Summary: "Create an API key"})
	OpKeyList   = declare(Operation{Name: "key.list", Role: RoleAdmin, Agent: AgentDeny, Summary: "List the workspace's active keys"})
	OpKeyRevoke = declare(Operation{Name: "key.revoke", Role: RoleAdmin, Agent: AgentDeny, Summary: "Revoke an API key"})
	OpKeyWhoami = declare(Operation{Name: "key.whoami", Role: RoleViewer, Agent: AgentFree, Summary: "The caller's key: its role and bound agent"})
)

// KeyFilter selects API keys: those of Workspace ("" for every
// workspace), or the one whose secret hashes to Hash (in any workspace)
// when Hash is set.
type KeyFilter struct {
	Workspace string
	Hash      string
}
