package rules

import (
	"context"

	"github.com/loci-memory/loci"
)

// findRecords returns the page of records f selects, in f.Order, and how many
// it selects in all. A filter with a condition (f.Where, the filter language
// of docs/api.md, "Filters") is applied above the backends: answered from the
// scope's search index (index.Cache.List: the matches counted and the page's
// ids picked in memory, only the page read from the store) or, when the index
// cannot answer (a scope over its budget), by reading the selection the rest
// of f makes once, in order, and picking the page from it. Either way the page
// holds f.Limit records whenever that many match.
func (s *Service) findRecords(ctx context.Context, tx loci.Tx, f loci.RecordFilter) ([]*loci.Record, int, error) {
	if f.Where == nil {
		recs, err := tx.FindRecords(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		n, err := tx.CountRecords(ctx, f)
		return recs, n, err
	}
	if recs, n, ok, err := s.listIndexed(ctx, tx, f); err != nil || ok {
		return recs, n, err
	}
	return scanRecords(ctx, tx, f)
}

// listIndexed answers f from the index of its scope; ok is false when the
// index cannot, or when a page's record as tx reads it is not what the
// index holds (the index was brought up to a later snapshot than tx's by
// a concurrent search): the caller then reads the store.
func (s *Service) listIndexed(ctx context.Context, tx loci.Tx, f loci.RecordFilter) (_ []*loci.Record, _ int, ok bool, _ error) {
	l, err := s.index.List(ctx, tx, f)
	if err != nil || l == nil {
		return nil, 0, false, err
	}
	if len(l.IDs) == 0 {
		return nil, l.Total, true, nil
	}
	got, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: f.Workspace, IDs: l.IDs, Order: loci.OrderNone})
	if err != nil {
		return nil, 0, false, err
	}
	byID := make(map[string]*loci.Record, len(got))
	for _, r := range got {
		byID[r.ID] = r
	}
	recs := make([]*loci.Record, len(l.IDs))
	for i, id := range l.IDs {
		r := byID[id]
		if r == nil || !r.UpdatedAt.Equal(l.Updated[i]) || !f.Match(r) {
			return nil, 0, false, nil
		}
		recs[i] = r
	}
	return recs, l.Total, true, nil
}

// scanRecords is findRecords by reading the store: the selection the rest
// of f makes is read once, in order, and f.Where picks the page from it.
func scanRecords(ctx context.Context, tx loci.Tx, f loci.RecordFilter) ([]*loci.Record, int, error) {
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
