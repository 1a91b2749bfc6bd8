package rules_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/testdb"
	"github.com/loci-memory/loci/rules"
)

func TestAuditRetention(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		clock := loci.NewFakeClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
		svc := rules.New(open(t), rules.WithClock(clock))
		for _, op := range []string{"old", "new"} {
			if err := svc.Audit(ctx, loci.AuditEntry{Operation: op}); err != nil {
				t.Fatal(err)
			}
			clock.Add(48 * time.Hour)
		}
		n, err := svc.PruneAudit(ctx, loci.AuditRetention{MaxAge: 72 * time.Hour})
		if err != nil || n != 1 {
			t.Fatalf("prune = %d, %v; want 1", n, err)
		}
		// Left: the new entry, and the prune's own (written with it).
		entries, total, err := svc.FindAudit(ctx, loci.AuditFilter{})
		if err != nil || total != 2 || entries[0].Operation != "audit.prune" || entries[0].Count != 1 || entries[1].Operation != "new" {
			t.Fatalf("left %+v (%d), %v; want the prune's entry and the new one", entries, total, err)
		}
		for _, r := range []loci.AuditRetention{{}, {MaxAge: -time.Hour}, {MaxEntries: -1}} {
			if _, err := svc.PruneAudit(ctx, r); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("retention %+v: %v, want invalid", r, err)
			}
		}
	})
}

// TestAuditRetentionSize: the size bound keeps the newest MaxEntries
// entries (and the prune's own), whatever their age.
func TestAuditRetentionSize(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		for i := range 30 {
			if err := svc.Audit(ctx, loci.AuditEntry{Operation: fmt.Sprint("op", i)}); err != nil {
				t.Fatal(err)
			}
		}
		n, err := svc.PruneAudit(ctx, loci.AuditRetention{MaxAge: time.Hour, MaxEntries: 10})
		if err != nil || n != 20 {
			t.Fatalf("prune = %d, %v; want 20", n, err)
		}
		entries, total, err := svc.FindAudit(ctx, loci.AuditFilter{})
		if err != nil || total != 11 || entries[0].Operation != "audit.prune" || entries[1].Operation != "op29" || entries[10].Operation != "op20" {
			t.Fatalf("left %d entries, %v; want the prune's and op29..op20", total, err)
		}
	})
}

func TestKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		svc := rules.New(open(t))
		t.Run("ErrRole", func(t *testing.T) {
			if _, _, err := svc.CreateKey(ctx, loci.KeySpec{Role: "root"}); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("err = %v, want invalid", err)
			}
		})
		t.Run("ErrAgentNUL", func(t *testing.T) {
			if _, _, err := svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleViewer, AgentID: "a\x00"}); loci.ErrorCode(err) != loci.EINVALID {
				t.Errorf("err = %v, want invalid", err)
			}
		})
		if has, _ := svc.HasKeys(ctx); has {
			t.Fatal("HasKeys before any key")
		}
		k, secret, err := svc.CreateKey(ctx, loci.KeySpec{Role: loci.RoleCreator, AgentID: "a1", Name: "bot"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "loci_") || len(secret) < 40 || k.Hash == "" || strings.Contains(k.Hash, secret) {
			t.Errorf("secret %q, hash %q", secret, k.Hash)
		}
		if has, _ := svc.HasKeys(ctx); !has {
			t.Error("HasKeys after a key is created")
		}
		p, err := svc.Authenticate(ctx, secret)
		if err != nil || p.KeyID != k.ID || p.Role != loci.RoleCreator || p.AgentID != "a1" || p.Workspace != loci.DefaultWorkspace {
			t.Errorf("Authenticate = %+v, %v", p, err)
		}
		if _, err := svc.Authenticate(ctx, "loci_wrong"); loci.ErrorCode(err) != loci.EUNAUTHORIZED {
			t.Errorf("wrong secret: %v, want unauthorized", err)
		}
		t.Run("ErrNonAdminCreates", func(t *testing.T) {
			pctx := loci.WithPrincipal(ctx, p)
			if _, _, err := svc.CreateKey(pctx, loci.KeySpec{Role: loci.RoleAdmin}); loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Errorf("err = %v, want forbidden", err)
			}
		})
		t.Run("ErrBoundAdminEscapes", func(t *testing.T) {
			pctx := loci.WithPrincipal(ctx, &loci.Principal{KeyID: "x", Role: loci.RoleAdmin, AgentID: "a1"})
			if _, _, err := svc.CreateKey(pctx, loci.KeySpec{Role: loci.RoleViewer}); loci.ErrorCode(err) != loci.EFORBIDDEN {
				t.Errorf("err = %v, want forbidden", err)
			}
		})
		keys, err := svc.ListKeys(ctx, true)
		if err != nil || len(keys) != 1 || keys[0].ID != k.ID {
			t.Errorf("ListKeys = %v, %v", keys, err)
		}
		if err := svc.RevokeKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.RevokeKey(ctx, k.ID); loci.ErrorCode(err) != loci.ENOTFOUND {
			t.Errorf("second revoke: %v, want not_found", err)
		}
		if _, err := svc.Authenticate(ctx, secret); loci.ErrorCode(err) != loci.EUNAUTHORIZED {
			t.Errorf("revoked key: %v, want unauthorized", err)
		}
		if has, _ := svc.HasKeys(ctx); has {
			t.Error("HasKeys with only a revoked key")
		}
	})
}

// TestAuditRetentionSizePerWorkspace: the size bound keeps each
// workspace's newest MaxEntries entries: a busy workspace never pushes
// another's history out.
func TestAuditRetentionSizePerWorkspace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, open func(testing.TB) loci.Store) {
		ctx := context.Background()
		other := loci.WithWorkspace(ctx, "busy")
		svc := rules.New(open(t))
		for i := range 3 {
			if err := svc.Audit(ctx, loci.AuditEntry{Operation: fmt.Sprint("quiet", i)}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 30 {
			if err := svc.Audit(other, loci.AuditEntry{Operation: fmt.Sprint("busy", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.PruneAudit(ctx, loci.AuditRetention{MaxAge: time.Hour, MaxEntries: 10}); err != nil {
			t.Fatal(err)
		}
		if _, total, err := svc.FindAudit(ctx, loci.AuditFilter{}); err != nil || total != 4 {
			t.Errorf("the quiet workspace kept %d entries, %v; want its 3 and the prune's", total, err)
		}
		if entries, total, err := svc.FindAudit(other, loci.AuditFilter{}); err != nil || total != 10 || entries[0].Operation != "busy29" {
			t.Errorf("the busy workspace kept %d entries, %v; want its newest 10", total, err)
		}
	})
}
