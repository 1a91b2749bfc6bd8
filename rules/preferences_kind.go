package rules

import (
	"context"
	"time"

	"github.com/loci-memory/loci"
)

// preferenceKind is how the memories API reaches preferences: read and
// deleted by id, given metadata and a time to live; observed, used,
// confirmed and contradicted through their own routes, which keep the
// confidence framework (docs/rules.md, "Preferences: contradiction by
// case, decay computed at read time").
type preferenceKind struct{ defaultRules }

var _ = registerKind(loci.KindPreference, preferenceKind{})

func (preferenceKind) route() string { return "POST /v1/users/{user_id}/preferences" }
func (preferenceKind) ttl() bool     { return false }

func (preferenceKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindPreference, "added")
}

func (preferenceKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindPreference, "edited")
}

func (preferenceKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

func (preferenceKind) importLimits() importLimits {
	return importLimits{maxContent: maxImportContentBytes, maxConfidence: 100, expiry: expiryNever}
}

func (preferenceKind) checkImportScope(rec *loci.Record) error {
	return firstError(need(rec, "user_id", rec.UserID), need(rec, "key", rec.Key))
}

func (preferenceKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d prefData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if d.ObservationCount < 0 || d.ObservationCount > maxImportInt || d.Peak < 0 || d.Peak > 100 {
		return nil, loci.Errorf(loci.EINVALID, "%s: observation_count or peak is out of range", field)
	}
	if d.Source != "" && learnedFrom[d.Source] == "" {
		return nil, loci.Errorf(loci.EINVALID, "%s: source must be explicit, implicit or decision", field)
	}
	return &d, nil
}

// confidence01 is a preference's confidence, kept on 0..100.
func (preferenceKind) confidence01(r *loci.Record) (float64, bool) { return r.Confidence / 100, true }

// reviewItem asks about a preference flagged for removal.
func (preferenceKind) reviewItem(it *loci.ReviewItem, r *loci.Record, now time.Time) (err error) {
	it.Preference, err = prefOf(r, now)
	return err
}
