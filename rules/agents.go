package rules

import (
	"context"
	"fmt"

	"github.com/loci-memory/loci"
)

func checkAgentID(id string) error {
	return loci.RequireText("agent_id", id, loci.MaxAgentIDBytes)
}

func errAgentNotFound(id string) error {
	return loci.Errorf(loci.ENOTFOUND, "agent %s not found", id)
}

// getAgent returns the agent, or an "agent not found" error.
func (s *Service) getAgent(ctx context.Context, tx loci.Tx, id string) (*loci.Agent, error) {
	a, err := tx.GetAgent(ctx, loci.WorkspaceFrom(ctx), id)
	if loci.ErrorCode(err) == loci.ENOTFOUND {
		return nil, errAgentNotFound(id)
	}
	return a, err
}

// ensureAgent creates the agent with the standard blocks unless it exists,
// so that writing a block or passage needs no setup step. The standard
// block labelled skip is left out: the caller is about to write it. It
// returns the ids of the blocks it created (for the audit entry).
func (s *Service) ensureAgent(ctx context.Context, tx loci.Tx, id, skip string) ([]string, error) {
	ws := loci.WorkspaceFrom(ctx)
	// Serialize with every other creation of the agent (CreateAgent takes
	// the same lock), or parallel first writes race to insert it.
	if err := tx.Lock(ctx, lockName(ws, "agent", id)); err != nil {
		return nil, err
	}
	if _, err := tx.GetAgent(ctx, ws, id); err == nil {
		return nil, nil
	} else if loci.ErrorCode(err) != loci.ENOTFOUND {
		return nil, err
	}
	now := s.now()
	if err := tx.InsertAgent(ctx, &loci.Agent{Workspace: ws, ID: id, CreatedAt: now}); err != nil {
		return nil, err
	}
	var created []string
	for _, label := range loci.StandardBlockLabels {
		if label == skip {
			continue
		}
		if _, err := s.findOwnedBlock(ctx, tx, id, label); err == nil {
			continue
		}
		rec, err := s.insertBlock(ctx, tx, id, loci.BlockSpec{Label: label, Limit: loci.DefaultBlockLimit}, false, now)
		if err != nil {
			return nil, err
		}
		created = append(created, rec.ID)
	}
	return created, nil
}

// CreateAgent creates an agent and its blocks.
func (s *Service) CreateAgent(ctx context.Context, in loci.AgentCreate) (_ *loci.Agent, _ []*loci.Block, err error) {
	au, err := s.begin(ctx, loci.OpAgentCreate, loci.Scope{AgentID: in.ID})
	defer au.end(&err)
	if err != nil {
		return nil, nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, nil, err
	}
	specs := in.Blocks
	if specs == nil {
		for _, label := range loci.StandardBlockLabels {
			specs = append(specs, loci.BlockSpec{Label: label})
		}
	}
	for i := range specs {
		if specs[i].Limit == 0 {
			specs[i].Limit = loci.DefaultBlockLimit
		}
	}
	ws := loci.WorkspaceFrom(ctx)
	a := &loci.Agent{Workspace: ws, ID: in.ID, Name: in.Name}
	var blocks []*loci.Block
	err = au.update(func(tx loci.Tx) error {
		blocks = nil // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "agent", in.ID)); err != nil {
			return err
		}
		if _, err := tx.GetAgent(ctx, ws, in.ID); err == nil {
			return loci.Errorf(loci.ECONFLICT, "agent %s already exists", in.ID)
		} else if loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		a.CreatedAt = s.now()
		if err := tx.InsertAgent(ctx, a); err != nil {
			return err
		}
		au.created()
		for _, spec := range specs {
			rec, err := s.insertBlock(ctx, tx, in.ID, spec, false, a.CreatedAt)
			if err != nil {
				return err
			}
			au.touch(rec.ID)
			b, err := blockOf(rec)
			if err != nil {
				return err
			}
			blocks = append(blocks, b)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("create agent: %w", err)
	}
	return a, blocks, nil
}

// GetAgent returns an agent.
func (s *Service) GetAgent(ctx context.Context, id string) (_ *loci.Agent, err error) {
	au, err := s.begin(ctx, loci.OpAgentGet, loci.Scope{AgentID: id})
	defer au.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(id); err != nil {
		return nil, err
	}
	var a *loci.Agent
	err = au.view(func(tx loci.Tx) (err error) {
		a, err = s.getAgent(ctx, tx, id)
		if err == nil {
			au.touch(a.ID) // an agent is keyed by its id
		}
		return err
	})
	return a, err
}

// ListAgents returns the workspace's agents by id: those created and those
// known only by their memories (an agent with only notes).
func (s *Service) ListAgents(ctx context.Context, limit, offset int) (_ []*loci.Agent, _ int, err error) {
	au, err := s.begin(ctx, loci.OpAgentList, loci.Scope{})
	defer au.end(&err)
	if err != nil {
		return nil, 0, err
	}
	limit, offset = pageOf(limit, offset)
	agents := []*loci.Agent{}
	var total int
	err = au.view(func(tx loci.Tx) error {
		list, n, err := tx.ListKnownAgents(ctx, loci.WorkspaceFrom(ctx), limit, offset)
		agents, total = append(agents[:0], list...), n
		for _, a := range list {
			au.touch(a.ID)
		}
		au.count(n)
		return err
	})
	return agents, total, err
}

// DeleteAgent deletes an agent and everything it owns: its records of
// every kind, its shared blocks' links, and the adds queued in the
// background for it, pending or done (eventforget.go). ENOTFOUND when
// there was none of these.
func (s *Service) DeleteAgent(ctx context.Context, id string) (err error) {
	au, err := s.begin(ctx, loci.OpAgentDelete, loci.Scope{AgentID: id})
	defer au.end(&err)
	if err != nil {
		return err
	}
	if err := checkAgentID(id); err != nil {
		return err
	}
	ws := loci.WorkspaceFrom(ctx)
	return au.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "agent", id)); err != nil {
			return err
		}
		// The adds queued for the agent go first: a pending one would
		// write to it again (one a worker holds rolls back).
		events, err := forgetEvents(ctx, tx, ws, []loci.EventFilter{{AgentID: &id}}, func(*loci.QueuedEvent) bool { return true })
		if err != nil {
			return err
		}
		// Every record of the agent, of every kind; the links to its
		// shared blocks go with them (foreign keys).
		all := loci.RecordFilter{Workspace: ws, AgentID: &id}
		// Their ids, for the audit entry (it keeps maxAuditIDs).
		scan := all
		scan.Order, scan.Limit = loci.OrderNone, maxAuditIDs
		if err := tx.ScanRecords(ctx, scan, func(r *loci.Record) error {
			au.touch(r.ID)
			return nil
		}); err != nil {
			return err
		}
		n, err := tx.DeleteRecords(ctx, all)
		if err != nil {
			return err
		}
		au.count(n)
		// The agent row and its links to other agents' shared blocks.
		err = tx.DeleteAgent(ctx, ws, id)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			if n > 0 || events > 0 {
				return nil
			}
			return errAgentNotFound(id)
		}
		return err
	})
}

// pageOf applies the listing defaults: limit loci.DefaultListLimit, at
// most loci.MaxListLimit.
func pageOf(limit, offset int) (int, int) {
	if limit <= 0 {
		limit = loci.DefaultListLimit
	}
	return min(limit, loci.MaxListLimit), max(offset, 0)
}
