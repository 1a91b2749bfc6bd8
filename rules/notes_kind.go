package rules

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loci-memory/loci"
)

// noteKind is how the memories API reaches notes: an agent's key-value
// memories, added with a key (the content is the value, as a string).
type noteKind struct{ defaultRules }

var _ = registerKind(loci.KindNote, noteKind{})

func (noteKind) route() string { return "PUT /v1/agents/{agent_id}/notes/{key}" }
func (noteKind) ttl() bool     { return true }

// expiresByDelete: expire deletes a note record past its expiry as it is.
func (noteKind) expiresByDelete() bool { return true }

func (noteKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	if in.AgentID == "" || in.Key == "" {
		return nil, loci.Errorf(loci.EINVALID, "a note needs agent_id and key")
	} else if in.UserID != "" || in.SessionID != "" {
		return nil, loci.Errorf(loci.EINVALID, "a note belongs to its agent alone: no user_id or session_id")
	} else if len(in.Tags) > 0 || in.Category != "" {
		return nil, loci.Errorf(loci.EINVALID, "a note has no tags or category")
	}
	if err := checkNoteKey(in.AgentID, in.Key); err != nil {
		return nil, err
	}
	value, text, err := noteValueOf(in.Content)
	if err != nil {
		return nil, err
	}
	rec, ev, err := w.writeNote(ctx, in.AgentID, in.Key, value, text)
	if err != nil {
		return nil, err
	}
	if ev == loci.EventNoop {
		// The same value: metadata it brings that the note lacks is set.
		return w.repeatOf(ctx, rec, repeat{metadata: in.metadata})
	}
	// The metadata and expiry of the add go with its value.
	if len(in.metadata) > 0 || !in.expiresAt.IsZero() {
		next := *rec
		next.Metadata, next.ExpiresAt = in.metadata, in.expiresAt
		if err := w.tx.UpdateRecord(ctx, &next, rec.Version); err != nil {
			return nil, err
		}
		rec = &next
	}
	return &loci.MemoryEvent{ID: rec.ID, Kind: loci.KindNote, Event: ev, Version: rec.Version}, nil
}

func (noteKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	if p.tags != nil {
		return nil, loci.Errorf(loci.EINVALID, "a note has no tags")
	}
	value, text, err := noteValueOf(*p.content)
	if err != nil {
		return nil, err
	}
	next, ev, err := w.writeNote(ctx, rec.AgentID, rec.Key, value, text)
	if err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: next.ID, Kind: loci.KindNote, Event: ev, Version: next.Version}, nil
}

func (noteKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

// noteValueOf is the note value of a memory's content: a JSON string,
// checked as a note's value is.
func noteValueOf(content string) (json.RawMessage, string, error) {
	raw, err := json.Marshal(content)
	if err != nil {
		return nil, "", fmt.Errorf("encode note value: %w", err)
	}
	return checkNoteValue(raw)
}

func (noteKind) importLimits() importLimits {
	return importLimits{maxContent: loci.MaxNoteValueBytes, maxConfidence: 100, dataRequired: true}
}

func (noteKind) checkImportScope(rec *loci.Record) error {
	return firstError(need(rec, "agent_id", rec.AgentID), need(rec, "key", rec.Key))
}

func (noteKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d noteData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if isNull(d.Value) {
		return nil, loci.Errorf(loci.EINVALID, "%s of a note must hold its value", field)
	}
	// The value a note write accepts: not an empty or blank string.
	if _, _, err := checkNoteValue(d.Value); err != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s of a note: %s", field, loci.ErrorMessage(err))
	}
	return &d, nil
}
