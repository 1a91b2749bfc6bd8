package memory

import (
	"context"

	"github.com/loci-memory/loci"
)

// episodeDoor is how the memories door reaches episodes: read and deleted
// by id; recorded, and given feedback, through their own routes (an
// outcome, a confidence, the cap per user and agent, 30 days of life).
type episodeDoor struct{}

func (episodeDoor) route() string {
	return "POST /v1/episodes (feedback: POST /v1/episodes/{id}/feedback)"
}
func (episodeDoor) ttl() bool { return false }

func (episodeDoor) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindEpisode, "added")
}

func (episodeDoor) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindEpisode, "edited")
}

func (episodeDoor) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}
