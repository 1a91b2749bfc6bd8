package memory

import (
	"context"

	"github.com/loci-memory/loci"
)

// findRecords returns the page of records f selects, in f.Order, and how
// many it selects in all. A filter with a condition (f.Where, the filter
// language of API.md v1.2) is applied here, above the backends: the
// selection the rest of f makes is read once, in order, and the condition
// picks the page from it, so the page holds f.Limit records whenever that
// many match.
func findRecords(ctx context.Context, tx loci.Tx, f loci.RecordFilter) ([]*loci.Record, int, error) {
	if f.Where == nil {
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		n, err := tx.CountRecords(ctx, f)
		return recs, n, err
	}
	limit, offset := f.Limit, f.Offset
	scan := f
	scan.Where, scan.Limit, scan.Offset = nil, 0, 0
	var page []*loci.Record
	total := 0
	err := tx.ScanRecords(ctx, scan, func(r *loci.Record) error {
		if !f.Where.Match(r) {
			return nil
		}
		if total >= offset && (limit == 0 || len(page) < limit) {
			page = append(page, r)
		}
		total++
		return nil
	})
	return page, total, err
}
