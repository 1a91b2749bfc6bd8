package rules

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/loci-memory/loci"
)

// keyPrefix starts every API key secret, so a leaked one is recognisable.
const keyPrefix = "loci_"

// hashKey returns the stored form of a secret: its hex SHA-256. A secret
// holds 256 random bits, so a plain hash is enough (no stretching needed).
func hashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateKey creates an API key in the context's workspace and returns its
// secret once. A key bound to an agent cannot create keys (nor list or
// revoke them). The audit entry names the key's id, never its secret.
func (s *Service) CreateKey(ctx context.Context, spec loci.KeySpec) (_ *loci.APIKey, _ string, err error) {
	a, err := s.begin(ctx, loci.OpKeyCreate, loci.Scope{AgentID: spec.AgentID})
	defer a.end(&err)
	if err != nil {
		return nil, "", err
	}
	if err := spec.Validate(); err != nil {
		return nil, "", err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", fmt.Errorf("generate key: %w", err)
	}
	secret := keyPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	k := &loci.APIKey{
		ID: newID(), Workspace: loci.WorkspaceFrom(ctx), Name: spec.Name, Role: spec.Role,
		AgentID: spec.AgentID, Hash: hashKey(secret), CreatedAt: s.now(),
	}
	err = a.update(func(tx loci.Tx) error {
		a.touch(k.ID)
		a.created()
		return tx.InsertKey(ctx, k)
	})
	if err != nil {
		return nil, "", fmt.Errorf("create key: %w", err)
	}
	return k, secret, nil
}

// ListKeys returns the keys of the context's workspace, or of every
// workspace when all is set and the caller is trusted (no principal).
func (s *Service) ListKeys(ctx context.Context, all bool) (_ []*loci.APIKey, err error) {
	a, err := s.begin(ctx, loci.OpKeyList, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	if all && loci.PrincipalFrom(ctx) == nil {
		ws = ""
	}
	keys := []*loci.APIKey{}
	err = a.view(func(tx loci.Tx) error {
		found, err := tx.ListKeys(ctx, ws)
		keys = append(keys[:0], found...)
		for _, k := range found {
			a.touch(k.ID)
		}
		return err
	})
	return keys, err
}

// RevokeKey revokes a key: of the principal's workspace when there is a
// principal, of any workspace for a trusted caller (the local CLI).
func (s *Service) RevokeKey(ctx context.Context, id string) (err error) {
	a, err := s.begin(ctx, loci.OpKeyRevoke, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := loci.RequireText("id", id, loci.MaxKeyIDBytes); err != nil {
		return err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return err
	}
	ws := ""
	if p := loci.PrincipalFrom(ctx); p != nil {
		ws = loci.WorkspaceFrom(ctx)
	}
	return a.update(func(tx loci.Tx) error {
		a.touch(id)
		return tx.RevokeKey(ctx, ws, id, s.now())
	})
}

// Authenticate returns the principal of the active key with that secret.
// It is the authentication every request makes, not an operation: it is
// not audited (a transport audits what it refuses).
func (s *Service) Authenticate(ctx context.Context, secret string) (*loci.Principal, error) {
	unauthorized := loci.Errorf(loci.EUNAUTHORIZED, "a valid API key is required (Authorization: Bearer <key>)")
	if secret == "" || len(secret) > loci.MaxKeySecretBytes {
		return nil, unauthorized
	}
	var k *loci.APIKey
	err := s.store.View(ctx, func(tx loci.Tx) (err error) {
		k, err = tx.GetKeyByHash(ctx, hashKey(secret))
		return err
	})
	if loci.ErrorCode(err) == loci.ENOTFOUND {
		return nil, unauthorized
	} else if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	} else if !k.Active() {
		return nil, loci.Errorf(loci.EUNAUTHORIZED, "the API key has been revoked")
	}
	return &loci.Principal{KeyID: k.ID, Role: k.Role, AgentID: k.AgentID, Workspace: k.Workspace}, nil
}

// HasKeys reports whether an active key exists in any workspace (not
// audited, as Authenticate).
func (s *Service) HasKeys(ctx context.Context) (bool, error) {
	var found bool
	err := s.store.View(ctx, func(tx loci.Tx) error {
		keys, err := tx.ListKeys(ctx, "")
		for _, k := range keys {
			found = found || k.Active()
		}
		return err
	})
	return found, err
}
