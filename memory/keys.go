package memory

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
// secret once.
func (s *Service) CreateKey(ctx context.Context, spec loci.KeySpec) (*loci.APIKey, string, error) {
	if _, err := loci.ParseRole(string(spec.Role)); err != nil {
		return nil, "", err
	}
	if spec.AgentID != "" {
		if err := requireText("agent_id", spec.AgentID, loci.MaxNoteKeyBytes); err != nil {
			return nil, "", err
		}
	}
	if spec.Name != "" {
		if err := requireText("name", spec.Name, 256); err != nil {
			return nil, "", err
		}
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, "", err
	}
	if p := loci.PrincipalFrom(ctx); p != nil && p.AgentID != "" && spec.AgentID != p.AgentID {
		return nil, "", loci.Errorf(loci.EFORBIDDEN, "a key bound to agent %s can only create keys bound to it", p.AgentID)
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
	if err := s.store.Update(ctx, func(tx loci.Tx) error { return tx.InsertKey(ctx, k) }); err != nil {
		return nil, "", fmt.Errorf("create key: %w", err)
	}
	return k, secret, nil
}

// ListKeys returns the keys of the context's workspace, or of every
// workspace when all is set and the caller is trusted (no principal).
func (s *Service) ListKeys(ctx context.Context, all bool) ([]*loci.APIKey, error) {
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	if all && loci.PrincipalFrom(ctx) == nil {
		ws = ""
	}
	keys := []*loci.APIKey{}
	err := s.store.View(ctx, func(tx loci.Tx) error {
		found, err := tx.ListKeys(ctx, ws)
		keys = append(keys[:0], found...)
		return err
	})
	return keys, err
}

// RevokeKey revokes a key: of the principal's workspace when there is a
// principal, of any workspace for a trusted caller (the local CLI).
func (s *Service) RevokeKey(ctx context.Context, id string) error {
	if err := requireText("id", id, 64); err != nil {
		return err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return err
	}
	ws := ""
	if p := loci.PrincipalFrom(ctx); p != nil {
		ws = loci.WorkspaceFrom(ctx)
	}
	return s.store.Update(ctx, func(tx loci.Tx) error { return tx.RevokeKey(ctx, ws, id, s.now()) })
}

// Authenticate returns the principal of the active key with that secret.
func (s *Service) Authenticate(ctx context.Context, secret string) (*loci.Principal, error) {
	unauthorized := loci.Errorf(loci.EUNAUTHORIZED, "a valid API key is required (Authorization: Bearer <key>)")
	if secret == "" || len(secret) > 256 {
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

// HasKeys reports whether an active key exists in any workspace.
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
