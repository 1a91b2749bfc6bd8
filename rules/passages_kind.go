package rules

import (
	"context"
	"slices"
	"strings"

	"github.com/loci-memory/loci"
)

// passageKind is how the memories API reaches passages: an agent's
// archival memory, one record per passage, with tags.
type passageKind struct{ defaultRules }

var _ = registerKind(loci.KindPassage, passageKind{})

func (passageKind) route() string { return "POST /v1/agents/{agent_id}/passages" }
func (passageKind) ttl() bool     { return true }

func checkPassageContent(content string) error {
	if err := loci.RequireText("content", content, 0); err != nil {
		return err
	} else if len(content) > loci.MaxPassageBytes {
		return loci.Errorf(loci.ETOOLARGE, "content must be at most %d bytes", loci.MaxPassageBytes)
	}
	return nil
}

func passageSearchText(content string, tags []string) string {
	return searchText(content + " " + strings.Join(tags, " "))
}

// passageRepeat is what a passage's repeat brings: tags (normalized) and
// metadata.
func passageRepeat(tags []string, metadata []byte) repeat {
	return repeat{tags: tags, metadata: metadata, maxTags: loci.MaxPassageTags, search: passageSearchText}
}

// expiresByDelete: expire deletes a passage record past its expiry as it is.
func (passageKind) expiresByDelete() bool { return true }

func (passageKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	if in.AgentID == "" {
		return nil, loci.Errorf(loci.EINVALID, "a passage needs agent_id")
	} else if in.Key != "" || in.Category != "" {
		return nil, loci.Errorf(loci.EINVALID, "a passage has no key or category")
	} else if in.UserID != "" || in.SessionID != "" {
		return nil, loci.Errorf(loci.EINVALID, "a passage belongs to its agent alone: no user_id or session_id")
	}
	if err := checkAgentID(in.AgentID); err != nil {
		return nil, err
	} else if err := checkPassageContent(in.Content); err != nil {
		return nil, err
	}
	tags, err := normalizeTags(in.Tags)
	if err != nil {
		return nil, err
	}
	f := loci.RecordFilter{Workspace: w.ws, Kinds: []loci.Kind{loci.KindPassage}, AgentID: &in.AgentID}
	if old, err := w.sameContent(ctx, f, "", in.Content); err != nil {
		return nil, err
	} else if old != nil {
		return w.repeatOf(ctx, old, passageRepeat(tags, in.metadata))
	}
	std, err := w.s.ensureAgent(ctx, w.tx, in.AgentID, "")
	if err != nil {
		return nil, err
	}
	w.a.touch(std...)
	rec := &loci.Record{
		ID: newID(), Workspace: w.ws, Kind: loci.KindPassage, Scope: loci.Scope{AgentID: in.AgentID},
		Content: in.Content, Tags: tags, SearchText: passageSearchText(in.Content, tags), Metadata: in.metadata,
		CreatedAt: w.now, UpdatedAt: w.now, ExpiresAt: in.expiresAt, Version: 1,
	}
	if err := w.tx.InsertRecord(ctx, rec); err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: rec.ID, Kind: loci.KindPassage, Event: loci.EventAdd, Version: 1}, nil
}

func (passageKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	next := *rec
	if p.content != nil {
		if err := checkPassageContent(*p.content); err != nil {
			return nil, err
		}
		next.Content = *p.content
	}
	if p.tags != nil {
		tags, err := normalizeTags(*p.tags)
		if err != nil {
			return nil, err
		}
		next.Tags = tags
	}
	return w.editInPlace(ctx, rec, &next, passageSearchText(next.Content, next.Tags))
}

func (passageKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

// editInPlace writes next over rec (content and tags changed, searched as
// search), keeping rec as a version; NOOP when neither changed (content
// case and spacing aside).
func (w *memWrite) editInPlace(ctx context.Context, rec, next *loci.Record, search string) (*loci.MemoryEvent, error) {
	if normContent(next.Content) == normContent(rec.Content) && slices.Equal(next.Tags, rec.Tags) {
		return &loci.MemoryEvent{ID: rec.ID, Kind: rec.Kind, Event: loci.EventNoop, Version: rec.Version}, nil
	}
	if err := w.keepVersion(ctx, rec); err != nil {
		return nil, err
	}
	next.SearchText, next.UpdatedAt, next.Version = search, w.now, rec.Version+1
	if next.Content != rec.Content {
		next.Embedding, next.EmbeddingModel = nil, ""
	}
	if err := w.tx.UpdateRecord(ctx, next, rec.Version); err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: next.ID, Kind: next.Kind, Event: loci.EventUpdate, Version: next.Version}, nil
}

func (passageKind) importLimits() importLimits {
	return importLimits{maxContent: loci.MaxPassageBytes, maxConfidence: 100}
}

func (passageKind) checkImportScope(rec *loci.Record) error {
	return need(rec, "agent_id", rec.AgentID)
}
