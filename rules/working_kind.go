package rules

import (
	"context"
	"time"

	"github.com/loci-memory/loci"
)

// workingKind is how the memories API reaches working memory: read and
// deleted by id (one key of a task); written through the task's route,
// which holds the task's 50 KB and its 24 h expiry.
type workingKind struct{ defaultRules }

var _ = registerKind(loci.KindWorking, workingKind{})

func (workingKind) route() string { return "PUT /v1/tasks/{task_id}/working/{key}" }
func (workingKind) ttl() bool     { return false }

// expiresByDelete: expire deletes a working record past its expiry as it is.
func (workingKind) expiresByDelete() bool { return true }

func (workingKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindWorking, "added")
}

func (workingKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindWorking, "edited")
}

func (workingKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

func (workingKind) importLimits() importLimits {
	return importLimits{maxContent: loci.MaxWorkingTaskBytes, maxConfidence: 100, dataRequired: true, expiry: expiryRequired}
}

func (workingKind) checkImportScope(rec *loci.Record) error {
	return firstError(need(rec, "task_id", rec.TaskID), need(rec, "key", rec.Key))
}

func (workingKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d workingData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if isNull(d.Value) {
		return nil, loci.Errorf(loci.EINVALID, "%s of a working memory entry must hold its value", field)
	}
	return &d, nil
}

// workingBytes is what a stored working value counts toward its task's
// limit, as SetWorking counts the values beside the one it writes.
func workingBytes(r *loci.Record) int { return valueBytes([]byte(r.Content)) }

// taskGroup names r's task among the groups import counts.
func taskGroup(r *loci.Record) string { return "working\x00" + r.TaskID }

// holdImport reads the live working bytes r's task holds.
func (workingKind) holdImport(h *importHold, ir *importRules, r *loci.Record) {
	task := r.TaskID
	h.hold(taskGroup(r), []string{"working", task}, func(ctx context.Context, tx loci.Tx, ws string, now time.Time) (int, error) {
		live, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindWorking}, TaskID: &task, LiveAt: now})
		if err != nil {
			return 0, err
		}
		n := 0
		for _, w := range live {
			n += workingBytes(w)
		}
		return n, nil
	})
}

// tallyImport counts a new, live working value toward its task's total
// (one already stored is counted among those held).
func (workingKind) tallyImport(ir *importRules, e *importEntry) error {
	r := e.rec
	if e.present || r.Expired(ir.now) {
		return nil
	}
	ir.counts[taskGroup(r)] += workingBytes(r)
	if total := ir.counts[taskGroup(r)]; total > ir.workingLimit {
		return lineError(e.line, loci.Errorf(loci.EINVALID, "the working memory of task %q would total %d bytes, more than %d",
			r.TaskID, total, ir.workingLimit))
	}
	return nil
}
