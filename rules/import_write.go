package rules

import (
	"bufio"
	"context"
	"io"
	"strings"

	"github.com/loci-memory/loci"
)

// importBatch is the lines one write transaction stores.
type importBatch struct {
	entries []importEntry
	links   []importLink
}

// writeImport is the second phase: it writes the spooled lines in
// batches, each its own transaction, then the block links. A line that
// fails stops it; what the batches before stored stays, and the error
// says so, and, for a storage failure, that the same import run again
// completes it.
// The ids of the records each batch stored or skipped are noted in a once
// the batch is committed.
func (s *Service) writeImport(ctx context.Context, ws string, sp *spool, plan *importPlan, a *audited) (*loci.ImportResult, error) {
	rd, err := sp.reader()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Decode the next batch while one is written (one ahead, waiting
	// unbuffered: a batch is tens of MB decoded, and decodes in a few
	// hundredths of its write).
	batches := make(chan importBatch)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		readErr <- readImportBatches(ctx, rd, plan, batches)
	}()
	res := &loci.ImportResult{}
	for b := range batches {
		if err := s.writeImportBatch(ctx, ws, b, res, a); err != nil {
			first := 0
			if len(b.entries) > 0 {
				first = b.entries[0].line
			} else if len(b.links) > 0 {
				first = b.links[0].line
			}
			// Only a storage failure passes when run again: a line refused
			// (a write that took its key or its limit meanwhile) is refused
			// again.
			rest := "the rest were not"
			if storageFailure(err) {
				rest = "run the same import again to import the rest"
			}
			return res, relabel(err, "%s (the lines before line %d were imported: %d records, "+
				"%d skipped as already there; %s)", loci.ErrorMessage(err), first, res.Records, res.Skipped, rest)
		}
	}
	if err := <-readErr; err != nil {
		return res, err
	}
	return res, nil
}

// storageFailure reports whether err is the storage's failure (internal,
// unavailable, full), not a refusal of what was written.
func storageFailure(err error) bool {
	switch loci.ErrorCode(err) {
	case loci.EINTERNAL, loci.EUNAVAILABLE, loci.ESTORAGEFULL:
		return true
	}
	return false
}

// readImportBatches decodes the spooled lines into batches, then the
// links.
func readImportBatches(ctx context.Context, rd *bufio.Reader, plan *importPlan, out chan<- importBatch) error {
	send := func(b importBatch) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var b importBatch
	size := 0
	for {
		e, err := readFrame(rd)
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		b.entries = append(b.entries, e)
		size += e.size
		if len(b.entries) >= importBatchLines || size >= importBatchBytes {
			if !send(b) {
				return ctx.Err()
			}
			b, size = importBatch{}, 0
		}
	}
	if len(b.entries) > 0 && !send(b) {
		return ctx.Err()
	}
	for i := 0; i < len(plan.links); i += importBatchLines {
		if !send(importBatch{links: plan.links[i:min(i+importBatchLines, len(plan.links))]}) {
			return ctx.Err()
		}
	}
	return nil
}

// writeImportBatch stores one batch in one transaction, adds what it
// stored to res and notes in a the ids of the records it stored or
// skipped.
func (s *Service) writeImportBatch(ctx context.Context, ws string, b importBatch, res *loci.ImportResult, a *audited) error {
	var done loci.ImportResult
	var touched []string
	err := s.store.Update(ctx, func(tx loci.Tx) error {
		done, touched = loci.ImportResult{}, touched[:0] // the retry policy may run this twice
		stored, lineOf, err := findStoredImport(ctx, tx, ws, b.entries)
		if err != nil {
			return err
		}
		if err := s.recheckImport(ctx, tx, ws, b.entries, stored); err != nil {
			return err
		}
		var recs []*loci.Record
		var versions []loci.RecordVersion
		for _, e := range b.entries {
			switch {
			case e.agent != nil, e.user != nil:
				if err := importAccount(ctx, tx, ws, &e, &done); err != nil {
					return err
				}
			case e.rec != nil:
				if old := stored[e.rec.ID]; old != nil {
					if !sameRecord(old, e.rec) {
						return lineError(e.line, errPresent(old))
					}
					done.Skipped++
					touched = append(touched, e.rec.ID)
					continue
				}
				r := e.rec // the batch's own (a retry sets the same)
				r.Workspace = ws
				recs = append(recs, r)
				for _, v := range e.versions {
					v.RecordID = r.ID
					versions = append(versions, v)
				}
			}
		}
		if err := insertImported(ctx, tx, b, recs, versions, lineOf); err != nil {
			return err
		}
		done.Records += len(recs)
		for _, r := range recs {
			touched = append(touched, r.ID)
		}
		done.Versions += len(versions)
		for _, l := range b.links {
			link := l.link
			if err := tx.AttachBlock(ctx, ws, link.BlockID, link.AgentID, link.CreatedAt); err != nil {
				return lineError(l.line, err)
			}
			done.BlockLinks++
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Agents += done.Agents
	res.Users += done.Users
	res.Records += done.Records
	res.Versions += done.Versions
	res.BlockLinks += done.BlockLinks
	res.Skipped += done.Skipped
	a.touch(touched...)
	return nil
}

// findStoredImport reads the records of entries already stored in ws, by
// id, and returns them with the line of each entry's record.
func findStoredImport(ctx context.Context, tx loci.Tx, ws string, entries []importEntry) (map[string]*loci.Record, map[string]int, error) {
	var ids []string
	lineOf := map[string]int{}
	for _, e := range entries {
		if e.rec != nil {
			ids = append(ids, e.rec.ID)
			lineOf[e.rec.ID] = e.line
		}
	}
	stored := map[string]*loci.Record{}
	if len(ids) > 0 {
		// In no order: one statement whatever the number of ids
		// (SQLite: not one a batch size, nor a variable an id).
		recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: ids, Order: loci.OrderNone})
		if err != nil {
			return nil, nil, err
		}
		for _, r := range recs {
			stored[r.ID] = r
		}
	}
	return stored, lineOf, nil
}

// importAccount stores e's agent or user in ws, counting it in done; one
// already there is kept.
func importAccount(ctx context.Context, tx loci.Tx, ws string, e *importEntry, done *loci.ImportResult) error {
	if e.agent != nil {
		a := *e.agent
		a.Workspace = ws
		if err := tx.InsertAgent(ctx, &a); loci.ErrorCode(err) == loci.ECONFLICT {
			return nil // already there: kept
		} else if err != nil {
			return lineError(e.line, err)
		}
		done.Agents++
		return nil
	}
	u := *e.user
	u.Workspace = ws
	if _, created, err := tx.EnsureUser(ctx, ws, u.ID, u.CreatedAt); err != nil {
		return lineError(e.line, err)
	} else if !created {
		return nil // already there: kept
	}
	if err := tx.UpdateUser(ctx, &u); err != nil {
		return lineError(e.line, err)
	}
	done.Users++
	return nil
}

// insertImported inserts batch b's new records and their versions, naming
// the line (lineOf a record's id) of what is refused.
func insertImported(ctx context.Context, tx loci.Tx, b importBatch, recs []*loci.Record, versions []loci.RecordVersion, lineOf map[string]int) error {
	if err := tx.InsertRecords(ctx, recs); err != nil {
		if loci.ErrorCode(err) == loci.ECONFLICT {
			// Name the line: the record's id, or its key, is taken.
			for _, r := range recs {
				if strings.Contains(loci.ErrorMessage(err), r.ID) {
					return lineError(lineOf[r.ID], loci.Errorf(loci.ECONFLICT, "record %s (or its key) already exists", r.ID))
				}
			}
			return loci.Errorf(loci.ECONFLICT, "a record of lines %d to %d (or its key) already exists", b.entries[0].line, b.entries[len(b.entries)-1].line)
		}
		return err
	}
	for _, v := range versions {
		if err := tx.InsertVersion(ctx, v); err != nil {
			return lineError(lineOf[v.RecordID], err)
		}
	}
	return nil
}
