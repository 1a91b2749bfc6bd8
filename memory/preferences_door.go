package memory

import (
	"context"

	"github.com/loci-memory/loci"
)

// preferenceDoor is how the memories door reaches preferences: read and
// deleted by id, given metadata and a time to live; observed, used,
// confirmed and contradicted through their own routes, which keep the
// confidence framework of seed 001.
type preferenceDoor struct{}

func (preferenceDoor) route() string { return "POST /v1/users/{user_id}/preferences" }
func (preferenceDoor) ttl() bool     { return false }

func (preferenceDoor) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindPreference, "added")
}

func (preferenceDoor) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindPreference, "edited")
}

func (preferenceDoor) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}
