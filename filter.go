package loci

import "slices"

// Match reports whether r is selected by f, ignoring f's Order, Limit and
// Offset. It is the filter's meaning in Go, the same as the backends' SQL,
// for indexes that filter in memory (the conformance suite checks that
// the two agree).
func (f *RecordFilter) Match(r *Record) bool {
	return f.matchFields(r) && f.Where.Match(r)
}

// MatchFields is Match for a record whose metadata is already decoded
// (meta, DecodeMetadataFields of r.Metadata), for indexes that filter many
// records.
func (f *RecordFilter) MatchFields(r *Record, meta MetadataFields) bool {
	return f.matchFields(r) && f.Where.MatchFields(r, meta)
}

// matchFields is Match without f.Where.
func (f *RecordFilter) matchFields(r *Record) bool {
	if r.Workspace != f.Workspace {
		return false
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, r.Kind) {
		return false
	}
	if f.IDs != nil && !slices.Contains(f.IDs, r.ID) {
		return false
	}
	if !eqPtr(f.AgentID, r.AgentID) || !eqPtr(f.SessionID, r.SessionID) || !eqPtr(f.TaskID, r.TaskID) ||
		!eqPtr(f.Key, r.Key) || !eqPtr(f.Category, r.Category) || !eqPtr(f.ActionType, r.ActionType) ||
		!eqPtr(f.Outcome, r.Outcome) {
		return false
	}
	if f.UserID != nil && r.UserID != *f.UserID && !(f.OrGlobalUser && r.UserID == "") {
		return false
	}
	for _, t := range f.Tags {
		if !slices.Contains(r.Tags, t) {
			return false
		}
	}
	if !f.CreatedAfter.IsZero() && !r.CreatedAt.After(f.CreatedAfter) {
		return false
	}
	if !f.CreatedBefore.IsZero() && !r.CreatedAt.Before(f.CreatedBefore) {
		return false
	}
	if f.ContentHash != nil && ContentHash(r.Content) != *f.ContentHash {
		return false
	}
	if f.Keyed && r.Key == "" {
		return false
	}
	if !f.LiveAt.IsZero() && r.Expired(f.LiveAt) && !slices.Contains(f.Lasting, r.Kind) {
		return false
	}
	if !f.ExpiredAt.IsZero() && (r.ExpiresAt.IsZero() || r.ExpiresAt.After(f.ExpiredAt)) {
		return false
	}
	if !f.AsOf.IsZero() && !r.ValidAtTime(f.AsOf) {
		return false
	}
	if len(f.Review) > 0 && !slices.Contains(f.Review, r.Review) {
		return false
	}
	if f.MinConfidence != nil && r.Confidence < *f.MinConfidence {
		return false
	}
	if f.MaxConfidence != nil && r.Confidence >= *f.MaxConfidence {
		return false
	}
	return true
}

func eqPtr(want *string, got string) bool { return want == nil || *want == got }
