package memory

import (
	"context"

	"github.com/loci-memory/loci"
)

// workingDoor is how the memories door reaches working memory: read and
// deleted by id (one key of a task); written through the task's route,
// which holds the task's 50 KB and its 24 h expiry.
type workingDoor struct{}

func (workingDoor) route() string { return "PUT /v1/tasks/{task_id}/working/{key}" }
func (workingDoor) ttl() bool     { return false }

func (workingDoor) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindWorking, "added")
}

func (workingDoor) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindWorking, "edited")
}

func (workingDoor) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}
