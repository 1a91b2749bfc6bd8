package rules

import (
	"context"

	"github.com/loci-memory/loci"
)

// blockKind is how the memories API reaches core memory blocks: edited
// in place under the block's character limit, each content kept as a
// version; created through the agent's routes (a label, a limit, sharing).
type blockKind struct{ defaultRules }

var _ = registerKind(loci.KindBlock, blockKind{})

func (blockKind) route() string { return "PUT /v1/agents/{agent_id}/blocks/{label}" }
func (blockKind) ttl() bool     { return false }

func (blockKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindBlock, "added")
}

func (blockKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	if p.tags != nil {
		return nil, loci.Errorf(loci.EINVALID, "a block has no tags")
	}
	if normContent(*p.content) == normContent(rec.Content) {
		return &loci.MemoryEvent{ID: rec.ID, Kind: loci.KindBlock, Event: loci.EventNoop, Version: rec.Version}, nil
	}
	next, err := w.s.updateBlock(ctx, w.tx, rec, loci.BlockWrite{Content: *p.content})
	if err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: next.ID, Kind: loci.KindBlock, Event: loci.EventUpdate, Version: next.Version}, nil
}

// remove deletes the block; its links to consuming agents go with it.
func (blockKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

// linkable: a block link points at a block.
func (blockKind) linkable() bool { return true }

func (blockKind) importLimits() importLimits {
	// A block's limit is in characters.
	return importLimits{maxContent: loci.MaxBlockLimit * 4, maxConfidence: 100, expiry: expiryNever}
}

func (blockKind) checkImportScope(rec *loci.Record) error {
	return firstError(need(rec, "agent_id", rec.AgentID), need(rec, "key", rec.Key))
}

func (blockKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d blockData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if d.Limit < 0 || d.Limit > loci.MaxBlockLimit {
		return nil, loci.Errorf(loci.EINVALID, "%s: a block's limit must be from 0 to %d", field, loci.MaxBlockLimit)
	}
	return &d, nil
}
