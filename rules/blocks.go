package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// blockData is a block's kind-specific data.
type blockData struct {
	Limit    int  `json:"limit"`
	IsShared bool `json:"is_shared"`
}

func errBlockNotFound(label string) error {
	return loci.Errorf(loci.ENOTFOUND, "block %q not found", label)
}

// checkBlockSpec validates a block to create and fills in its default
// limit.
func checkBlockSpec(b *loci.BlockSpec) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.Limit == 0 {
		b.Limit = loci.DefaultBlockLimit
	}
	return nil
}

// insertBlock stores a new block owned by agentID; spec is valid.
func (s *Service) insertBlock(ctx context.Context, tx loci.Tx, agentID string, spec loci.BlockSpec, shared bool, now time.Time) (*loci.Record, error) {
	data, err := json.Marshal(blockData{Limit: spec.Limit, IsShared: shared})
	if err != nil {
		return nil, fmt.Errorf("encode block: %w", err)
	}
	rec := &loci.Record{
		ID: newID(), Workspace: loci.WorkspaceFrom(ctx), Kind: loci.KindBlock,
		Scope: loci.Scope{AgentID: agentID}, Key: spec.Label,
		Content: spec.Content, SearchText: searchText(spec.Label + " " + spec.Content), Data: data,
		CreatedAt: now, UpdatedAt: now, Version: 1,
	}
	if err := tx.InsertRecord(ctx, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

func (s *Service) blockFilter(ctx context.Context) loci.RecordFilter {
	return loci.RecordFilter{Workspace: loci.WorkspaceFrom(ctx), Kinds: []loci.Kind{loci.KindBlock}}
}

// findOwnedBlock returns the agent's own block with that label.
func (s *Service) findOwnedBlock(ctx context.Context, tx loci.Tx, agentID, label string) (*loci.Record, error) {
	f := s.blockFilter(ctx)
	f.AgentID, f.Key = &agentID, &label
	recs, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, err
	} else if len(recs) == 0 {
		return nil, errBlockNotFound(label)
	}
	return recs[0], nil
}

// attachedBlocks returns the shared blocks attached to the agent, by label
// (only those labelled label when it is set).
func (s *Service) attachedBlocks(ctx context.Context, tx loci.Tx, agentID, label string) ([]*loci.Record, error) {
	links, err := tx.ListBlockLinks(ctx, loci.WorkspaceFrom(ctx), "", agentID)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	f := s.blockFilter(ctx)
	for _, l := range links {
		f.IDs = append(f.IDs, l.BlockID)
	}
	if label != "" {
		f.Key = &label
	}
	f.Order = loci.OrderKeyAsc
	return tx.FindRecords(ctx, f)
}

// resolveBlock returns the agent's block with that label: its own, else an
// attached shared one.
func (s *Service) resolveBlock(ctx context.Context, tx loci.Tx, agentID, label string) (*loci.Record, error) {
	rec, err := s.findOwnedBlock(ctx, tx, agentID, label)
	if loci.ErrorCode(err) != loci.ENOTFOUND {
		return rec, err
	}
	recs, err := s.attachedBlocks(ctx, tx, agentID, label)
	if err != nil {
		return nil, err
	} else if len(recs) == 0 {
		return nil, errBlockNotFound(label)
	}
	return recs[0], nil
}

// agentBlocks returns the agent's owned blocks by label, then its attached
// shared blocks by label. ENOTFOUND when the agent is absent.
func (s *Service) agentBlocks(ctx context.Context, tx loci.Tx, agentID string) ([]*loci.Block, error) {
	if _, err := s.getAgent(ctx, tx, agentID); err != nil {
		return nil, err
	}
	f := s.blockFilter(ctx)
	f.AgentID, f.Order = &agentID, loci.OrderKeyAsc
	owned, err := tx.FindRecords(ctx, f)
	if err != nil {
		return nil, err
	}
	attached, err := s.attachedBlocks(ctx, tx, agentID, "")
	if err != nil {
		return nil, err
	}
	blocks := []*loci.Block{}
	for _, rec := range append(owned, attached...) {
		b, err := blockOf(rec)
		if err != nil {
			s.malformed(rec, err)
			continue
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// ListBlocks returns the agent's owned, then attached, blocks.
func (s *Service) ListBlocks(ctx context.Context, agentID string) (_ []*loci.Block, err error) {
	a, err := s.begin(ctx, loci.OpBlockList, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	return s.listBlocks(ctx, a, agentID)
}

// listBlocks reads the agent's blocks for the operation a.
func (s *Service) listBlocks(ctx context.Context, a *audited, agentID string) ([]*loci.Block, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	var blocks []*loci.Block
	err := a.view(func(tx loci.Tx) (err error) {
		blocks, err = s.agentBlocks(ctx, tx, agentID)
		for _, b := range blocks {
			a.touch(b.ID)
		}
		return err
	})
	return blocks, err
}

// GetBlock returns the agent's block with that label.
func (s *Service) GetBlock(ctx context.Context, agentID, label string) (_ *loci.Block, err error) {
	a, err := s.begin(ctx, loci.OpBlockGet, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	} else if err := loci.CheckBlockLabel(label); err != nil {
		return nil, err
	}
	var b *loci.Block
	err = a.view(func(tx loci.Tx) error {
		if _, err := s.getAgent(ctx, tx, agentID); err != nil {
			return err
		}
		rec, err := s.resolveBlock(ctx, tx, agentID, label)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		b, err = blockOf(rec)
		return err
	})
	return b, err
}

// SetBlock creates or replaces a block, compare-and-set when
// w.ExpectedVersion is set.
func (s *Service) SetBlock(ctx context.Context, agentID, label string, w loci.BlockWrite) (_ *loci.Block, _ bool, err error) {
	a, err := s.begin(ctx, loci.OpBlockPut, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, false, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, false, err
	} else if err := loci.CheckBlockLabel(label); err != nil {
		return nil, false, err
	} else if err := w.Validate(); err != nil {
		return nil, false, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var out *loci.Block
	var created bool
	err = a.update(func(tx loci.Tx) error {
		created = false // the retry policy may run this twice
		if err := tx.Lock(ctx, lockName(ws, "block", agentID, label)); err != nil {
			return err
		}
		std, err := s.ensureAgent(ctx, tx, agentID, label)
		if err != nil {
			return err
		}
		rec, err := s.resolveBlock(ctx, tx, agentID, label)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			if w.ExpectedVersion != nil && *w.ExpectedVersion != 0 {
				return loci.Errorf(loci.ECONFLICT, "version conflict: block %q does not exist, expected version %d", label, *w.ExpectedVersion)
			}
			spec := loci.BlockSpec{Label: label, Content: w.Content, Limit: w.Limit}
			if err := checkBlockSpec(&spec); err != nil {
				return err
			}
			created = true
			a.created()
			rec, err = s.insertBlock(ctx, tx, agentID, spec, false, s.now())
		} else if err == nil {
			// Creating needs the creator role (the route's); changing an
			// existing block needs editor.
			if err := loci.Authorize(ctx, loci.RoleEditor); err != nil {
				return err
			}
			rec, err = s.updateBlock(ctx, tx, rec, w)
		}
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		a.touch(std...) // the agent's standard blocks, when it was created
		out, err = blockOf(rec)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("set block: %w", err)
	}
	return out, created, nil
}

// updateBlock writes w over the block rec and returns the new record.
func (s *Service) updateBlock(ctx context.Context, tx loci.Tx, rec *loci.Record, w loci.BlockWrite) (*loci.Record, error) {
	if err := tx.Lock(ctx, recordLock(rec.Workspace, rec.ID)); err != nil {
		return nil, err
	}
	// Read it again under the block's own lock: a consumer of a shared
	// block locks another label name than its owner does.
	rec, err := tx.GetRecord(ctx, rec.Workspace, rec.ID)
	if err != nil {
		return nil, err
	}
	if w.ExpectedVersion != nil && *w.ExpectedVersion != rec.Version {
		return nil, loci.Errorf(loci.ECONFLICT, "version conflict: block %q is at version %d, expected %d", rec.Key, rec.Version, *w.ExpectedVersion)
	}
	var d blockData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("decode block %s: %w", rec.ID, err)
	}
	if (w.Limit == 0 || w.Limit == d.Limit) && normContent(w.Content) == normContent(rec.Content) {
		// A repeat changes nothing: no new version (docs/rules.md).
		return rec, nil
	}
	if w.Limit > 0 {
		d.Limit = w.Limit
	}
	if err := loci.CheckBlockContent(w.Content, d.Limit); err != nil {
		return nil, err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode block: %w", err)
	}
	// Keep the content being replaced, as a note keeps its old values.
	if err := tx.InsertVersion(ctx, loci.RecordVersion{
		RecordID: rec.ID, Version: rec.Version, Content: rec.Content, Data: rec.Data, Metadata: rec.Metadata, UpdatedAt: rec.UpdatedAt,
	}); err != nil {
		return nil, err
	}
	next := *rec
	next.Content, next.SearchText, next.Data = w.Content, searchText(rec.Key+" "+w.Content), data
	next.UpdatedAt, next.Version = s.now(), rec.Version+1
	if w.Content != rec.Content {
		next.Embedding, next.EmbeddingModel = nil, ""
	}
	if err := tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
		return nil, err
	}
	return &next, nil
}

// CreateBlock creates a block owned by the agent, shared or not.
func (s *Service) CreateBlock(ctx context.Context, agentID string, spec loci.BlockSpec, shared bool) (_ *loci.Block, err error) {
	a, err := s.begin(ctx, loci.OpBlockCreate, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	} else if err := checkBlockSpec(&spec); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	var out *loci.Block
	err = a.update(func(tx loci.Tx) error {
		if err := tx.Lock(ctx, lockName(ws, "block", agentID, spec.Label)); err != nil {
			return err
		}
		std, err := s.ensureAgent(ctx, tx, agentID, spec.Label)
		if err != nil {
			return err
		}
		if _, err := s.resolveBlock(ctx, tx, agentID, spec.Label); err == nil {
			return loci.Errorf(loci.ECONFLICT, "agent %s already has a block %q", agentID, spec.Label)
		} else if loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		rec, err := s.insertBlock(ctx, tx, agentID, spec, shared, s.now())
		if err != nil {
			return err
		}
		a.created()
		a.touch(rec.ID)
		a.touch(std...) // the agent's standard blocks, when it was created
		out, err = blockOf(rec)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create block: %w", err)
	}
	return out, nil
}

// getBlockByID returns the block with that id.
func (s *Service) getBlockByID(ctx context.Context, tx loci.Tx, blockID string) (*loci.Record, *blockData, error) {
	rec, err := tx.GetRecord(ctx, loci.WorkspaceFrom(ctx), blockID)
	if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && rec.Kind != loci.KindBlock) {
		return nil, nil, loci.Errorf(loci.ENOTFOUND, "block %s not found", blockID)
	} else if err != nil {
		return nil, nil, err
	}
	var d blockData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, nil, fmt.Errorf("decode block %s: %w", rec.ID, err)
	}
	return rec, &d, nil
}

// AttachBlock attaches a shared block to a consuming agent.
func (s *Service) AttachBlock(ctx context.Context, blockID, agentID string) (err error) {
	// It puts one agent's block into another agent's memory: it spans two
	// agents, so keys bound to an agent are refused.
	a, err := s.begin(ctx, loci.OpBlockAttach, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := loci.RequireText("block_id", blockID, loci.MaxRecordIDBytes); err != nil {
		return err
	} else if err := checkAgentID(agentID); err != nil {
		return err
	}
	ws := loci.WorkspaceFrom(ctx)
	return a.update(func(tx loci.Tx) error {
		rec, d, err := s.getBlockByID(ctx, tx, blockID)
		if err != nil {
			return err
		}
		if !d.IsShared {
			return loci.Errorf(loci.EINVALID, "block %s is not shared", blockID)
		} else if rec.AgentID == agentID {
			return loci.Errorf(loci.EINVALID, "agent %s owns block %s", agentID, blockID)
		}
		if err := tx.Lock(ctx, lockName(ws, "block", agentID, rec.Key)); err != nil {
			return err
		}
		std, err := s.ensureAgent(ctx, tx, agentID, "")
		if err != nil {
			return err
		}
		other, err := s.resolveBlock(ctx, tx, agentID, rec.Key)
		if err == nil && other.ID != rec.ID {
			return loci.Errorf(loci.ECONFLICT, "agent %s already has a block %q", agentID, rec.Key)
		} else if err != nil && loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		a.touch(rec.ID)
		a.touch(std...) // the consumer's standard blocks, when it was created
		return tx.AttachBlock(ctx, ws, blockID, agentID, s.now())
	})
}

// DetachBlock detaches a shared block from an agent.
func (s *Service) DetachBlock(ctx context.Context, blockID, agentID string) (err error) {
	a, err := s.begin(ctx, loci.OpBlockDetach, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return err
	}
	if err := loci.RequireText("block_id", blockID, loci.MaxRecordIDBytes); err != nil {
		return err
	} else if err := checkAgentID(agentID); err != nil {
		return err
	}
	return a.update(func(tx loci.Tx) error {
		rec, _, err := s.getBlockByID(ctx, tx, blockID)
		if err != nil {
			return err
		}
		ok, err := tx.DetachBlock(ctx, loci.WorkspaceFrom(ctx), blockID, agentID)
		if err != nil {
			return err
		} else if !ok {
			return loci.Errorf(loci.ENOTFOUND, "block %s is not attached to agent %s", blockID, agentID)
		}
		a.touch(rec.ID)
		return nil
	})
}

// ListBlockConsumers returns the agents a block is attached to.
func (s *Service) ListBlockConsumers(ctx context.Context, blockID string) (_ []loci.BlockLink, err error) {
	// The call names a block, not an agent: the rule checks a bound key
	// against the block's owner below.
	a, err := s.begin(ctx, loci.OpBlockConsumers, loci.Scope{})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.RequireText("block_id", blockID, loci.MaxRecordIDBytes); err != nil {
		return nil, err
	}
	links := []loci.BlockLink{}
	err = a.view(func(tx loci.Tx) error {
		rec, _, err := s.getBlockByID(ctx, tx, blockID)
		if err != nil {
			return err
		}
		// The consumers are other agents' links: a key bound to an agent
		// sees those of its own agent's blocks only.
		if p := loci.PrincipalFrom(ctx); p != nil && p.AgentID != "" && p.AgentID != rec.AgentID {
			return loci.Errorf(loci.EFORBIDDEN, "this key is bound to agent %s and cannot reach block %s of agent %s", p.AgentID, blockID, rec.AgentID)
		}
		l, err := tx.ListBlockLinks(ctx, loci.WorkspaceFrom(ctx), blockID, "")
		links = append(links[:0], l...)
		// The block read; the count is its consumers'.
		a.touchRecord(rec)
		a.count(len(links))
		return err
	})
	return links, err
}

// BlockHistory returns every content the agent's block has had, the
// current one first.
func (s *Service) BlockHistory(ctx context.Context, agentID, label string) (_ []loci.BlockVersion, err error) {
	a, err := s.begin(ctx, loci.OpBlockHistory, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	} else if err := loci.CheckBlockLabel(label); err != nil {
		return nil, err
	}
	var out []loci.BlockVersion
	err = a.view(func(tx loci.Tx) error {
		out = out[:0] // the retry policy may run this twice
		if _, err := s.getAgent(ctx, tx, agentID); err != nil {
			return err
		}
		rec, err := s.resolveBlock(ctx, tx, agentID, label)
		if err != nil {
			return err
		}
		a.touch(rec.ID)
		cur, err := blockOf(rec)
		if err != nil {
			return err
		}
		out = append(out, loci.BlockVersion{Version: cur.Version, Content: cur.Content, Limit: cur.Limit, UpdatedAt: cur.UpdatedAt})
		versions, err := tx.ListVersions(ctx, rec.ID)
		if err != nil {
			return err
		}
		for _, v := range versions {
			var d blockData
			if err := json.Unmarshal(v.Data, &d); err != nil {
				return fmt.Errorf("decode block version: %w", err)
			}
			out = append(out, loci.BlockVersion{Version: v.Version, Content: v.Content, Limit: d.Limit, UpdatedAt: v.UpdatedAt})
		}
		return nil
	})
	return out, err
}

// Prompt renders the agent's blocks for its system prompt.
func (s *Service) Prompt(ctx context.Context, agentID string) (_ string, err error) {
	a, err := s.begin(ctx, loci.OpAgentPrompt, loci.Scope{AgentID: agentID})
	defer a.end(&err)
	if err != nil {
		return "", err
	}
	blocks, err := s.listBlocks(ctx, a, agentID)
	if err != nil {
		return "", err
	}
	return renderPrompt(blocks), nil
}

// renderPrompt renders blocks as "### {label}\n{content}", a blank line
// between them, leaving out the blocks with no content (an empty heading tells
// the model nothing).
func renderPrompt(blocks []*loci.Block) string {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if strings.TrimSpace(b.Content) != "" {
			parts = append(parts, "### "+b.Label+"\n"+b.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}

func blockOf(rec *loci.Record) (*loci.Block, error) {
	var d blockData
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return nil, fmt.Errorf("decode block %s: %w", rec.ID, err)
	}
	return &loci.Block{
		ID: rec.ID, Label: rec.Key, Content: rec.Content, IsShared: d.IsShared, OwnerAgentID: rec.AgentID,
		Limit: d.Limit, Version: rec.Version, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, Metadata: ownMetadata(rec),
	}, nil
}
