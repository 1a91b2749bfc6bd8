package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/loci-memory/loci"
)

// Audit appends one entry to the access log, completing it from the clock
// and the context (workspace, principal). It never takes content: callers
// pass ids, scope and counts.
func (s *Service) Audit(ctx context.Context, e loci.AuditEntry) error {
	e.ID = newID()
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	if e.Workspace == "" {
		e.Workspace = loci.WorkspaceFrom(ctx)
	}
	if p := loci.PrincipalFrom(ctx); p != nil {
		if e.KeyID == "" {
			e.KeyID = p.KeyID
		}
		if e.Role == "" {
			e.Role = p.Role
		}
	}
	if e.RecordIDs == nil {
		e.RecordIDs = []string{}
	}
	if err := s.store.Update(ctx, func(tx loci.Tx) error { return tx.InsertAudit(ctx, &e) }); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// FindAudit returns the context workspace's entries that match f, newest
// first.
func (s *Service) FindAudit(ctx context.Context, f loci.AuditFilter) ([]*loci.AuditEntry, int, error) {
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, 0, err
	}
	f.Workspace = loci.WorkspaceFrom(ctx)
	entries := []*loci.AuditEntry{}
	var total int
	err := s.store.View(ctx, func(tx loci.Tx) error {
		found, n, err := tx.FindAudit(ctx, f)
		entries, total = append(entries[:0], found...), n
		return err
	})
	return entries, total, err
}

// PruneAudit deletes entries older than retention, in every workspace.
func (s *Service) PruneAudit(ctx context.Context, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, loci.Errorf(loci.EINVALID, "audit retention must be positive")
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return 0, err
	}
	var n int
	err := s.store.Update(ctx, func(tx loci.Tx) (err error) {
		n, err = tx.DeleteAuditBefore(ctx, s.now().Add(-retention))
		return err
	})
	return n, err
}
