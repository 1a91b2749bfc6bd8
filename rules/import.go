package rules

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/loci-memory/loci"
)

// How an import reads, checks and writes.
const (
	// Lines are checked in chunks, in parallel.
	importChunkLines = 512
	importChunkBytes = 1 << 20
	// Each write transaction stores at most this many lines (and bytes),
	// so that an import never holds the writer (SQLite) or a connection
	// in a transaction (PostgreSQL) for long (about a second): other
	// writes interleave. A batch's records land all over the indexes of
	// agent, user and content key, so each commit writes about a page of
	// each per record until a batch outnumbers those pages: SQLite
	// imported 1M passages over 10k agents at 13,000 records/s with
	// batches of 5,000, and 23,000 with 25,000 (its WAL written once
	// for several records a page).
	importBatchLines = 25000
	importBatchBytes = 32 << 20
	// The checked lines wait for the writes in memory up to this size,
	// then in a temporary file.
	importSpoolMemory = 8 << 20
)

// Import reads an export (JSON Lines) into the context's workspace in two
// phases. First it reads the whole input, outside any transaction, and
// checks every line as strictly as the API checks a write (a refused line
// is reported with its number and nothing is written), keeping the checked
// lines in memory or, past a few MB, in a temporary file. Then it writes
// them in batches of at most importBatchLines lines, each batch its own
// transaction. A storage failure in the middle of the writes leaves the
// batches before it stored; running the same import again completes it:
// records already present with the same id, kind, version and updated_at
// are skipped (counted as such), agents and users already present are
// kept, block links are attached once. A record present with other
// content is a conflict.
//
// An import is audited once, when it ends (not per batch): one entry
// queued with the ids and count of the records it wrote and skipped; when
// it fails after some batches were stored, the entry keeps what they
// stored.
func (s *Service) Import(ctx context.Context, r io.Reader) (_ *loci.ImportResult, err error) {
	a, err := s.begin(ctx, loci.OpImport, loci.Scope{})
	defer a.endPartial(&err)
	if err != nil {
		return nil, err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	sp := &spool{limit: importSpoolMemory}
	defer sp.close()
	plan, err := s.checkImport(ctx, ws, r, sp)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	res, err := s.writeImport(ctx, ws, sp, plan, a)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	a.created()
	return res, nil
}

// importEntry is one checked line.
type importEntry struct {
	line     int
	typ      string
	agent    *loci.Agent
	user     *loci.User
	rec      *loci.Record
	versions []loci.RecordVersion
	link     *loci.BlockLink
	// size is the line's size (its spooled frame's, once read back),
	// which bounds a write's batch.
	size int
	// noSearchText: the line had no search text (a file written by
	// hand), which is analyzed when the record is read back to be
	// written (readFrame), beside the writes.
	noSearchText bool
	// present: the record is already stored, the same (phase 1 saw it).
	present bool
	// What the rules that span records need (import_rules.go), decoded
	// by the check: a session's message_count and next index, a
	// message's index.
	messageCount, nextIndex, messageIndex int
}

// importChunk is a run of consecutive lines, checked by one worker.
type importChunk struct {
	seq     int
	first   int // the number of lines[0]
	lines   [][]byte
	entries []importEntry
	err     error
}

// importLink is a block link and its line, attached after every record.
type importLink struct {
	line int
	link loci.BlockLink
}

// importPlan is what the check learned for the writes.
type importPlan struct {
	checkPresent bool // the workspace held records: look for them
	// keyedKinds: the kinds of which the workspace held keyed records:
	// look for the holders of their keys.
	keyedKinds map[loci.Kind]bool
	idHashes   []uint64
	keyHashes  []uint64
	blocks     map[string]bool
	links      []importLink
	seed       maphash.Seed
	rules      *importRules
}

// lineError is the error of a line: its domain code, "line N: message".
func lineError(line int, err error) error {
	return relabel(err, "line %d: %s", line, loci.ErrorMessage(err))
}

// relabel returns err with a new message: a domain error keeps its code
// and cause; another error is wrapped.
func relabel(err error, format string, args ...any) error {
	var e *loci.Error
	if errors.As(err, &e) {
		return &loci.Error{Code: e.Code, Message: fmt.Sprintf(format, args...), Err: e.Err}
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}

// checkImport is the first phase: it reads all of r, checks each line in
// parallel, looks for records already stored (when the workspace holds
// any), and spools the checked lines in order. It returns the first
// refused line's error, by line number.
func (s *Service) checkImport(ctx context.Context, ws string, r io.Reader, sp *spool) (*importPlan, error) {
	plan, err := s.newImportPlan(ctx, ws)
	if err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(1, runtime.GOMAXPROCS(0))
	chunks := make(chan *importChunk, workers)
	checked := make(chan *importChunk, workers)
	// At most this many chunks are read but not yet collected, however
	// unevenly the workers go: memory stays bounded.
	inflight := make(chan struct{}, 4*workers)
	readDone := make(chan error, 1)
	go func() {
		defer close(chunks)
		readDone <- readImportChunks(ctx, r, chunks, inflight)
	}()
	checkChunks(ctx, workers, chunks, checked, func(c *importChunk) {
		c.check()
		// The records already stored, looked for by each worker: a
		// read per chunk, and one per new keyed line.
		if plan.checkPresent {
			if err := s.findPresent(ctx, ws, plan, c.entries); err != nil {
				c.err = err // its lines come before the chunk's refused one
			}
		}
	})

	// Collect in input order, so the first refused line is reported.
	pending := map[int]*importChunk{}
	next := 0
	var firstErr error
	for c := range checked {
		pending[c.seq] = c
		for c := pending[next]; c != nil; c = pending[next] {
			delete(pending, next)
			next++
			<-inflight
			if firstErr == nil {
				if firstErr = s.collectImport(ctx, ws, c, plan, sp); firstErr != nil {
					cancel()
				}
			}
		}
	}
	if firstErr != nil {
		// The reader may still wait on a stalled input: it ends with it.
		return nil, firstErr
	}
	if err := <-readDone; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.checkImportDuplicates(plan, sp); err != nil {
		return nil, err
	}
	if err := plan.rules.check(sp); err != nil {
		return nil, err
	}
	if err := s.checkImportLinks(ctx, ws, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// newImportPlan starts the plan of an import into ws: records already
// stored are looked for only when the workspace holds any, and keys
// already held only in the kinds of which it holds keyed records.
func (s *Service) newImportPlan(ctx context.Context, ws string) (*importPlan, error) {
	plan := &importPlan{blocks: map[string]bool{}, keyedKinds: map[loci.Kind]bool{}, seed: maphash.MakeSeed()}
	err := s.store.View(ctx, func(tx loci.Tx) error {
		some, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Limit: 1})
		if err != nil || len(some) == 0 {
			return err
		}
		plan.checkPresent = true
		for _, k := range loci.Kinds {
			some, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{k}, Keyed: true, Limit: 1})
			if err != nil {
				return err
			}
			plan.keyedKinds[k] = len(some) > 0
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plan.rules = s.newImportRules(plan.seed)
	return plan, nil
}

// checkChunks starts workers that check the chunks read from chunks with
// check and send them, checked, to checked, which is closed when they are
// done.
func checkChunks(ctx context.Context, workers int, chunks <-chan *importChunk, checked chan<- *importChunk, check func(*importChunk)) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case c, ok := <-chunks:
					if !ok {
						return
					}
					check(c)
					select {
					case checked <- c:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(checked)
	}()
}

// errImportRead marks a failure to read the input (not a refused line).
type errImportRead struct{ err error }

func (e *errImportRead) Error() string { return "read the import: " + e.err.Error() }
func (e *errImportRead) Unwrap() error { return e.err }

// collectImport takes a checked chunk, in input order (its records
// already looked for among those stored: findPresent): it refuses its
// first bad line, notes what the final checks need, and spools its lines.
func (s *Service) collectImport(ctx context.Context, ws string, c *importChunk, plan *importPlan, sp *spool) error {
	if c.err != nil {
		return c.err
	}
	if plan.checkPresent {
		if err := s.holdImportRules(ctx, ws, plan.rules, c.entries); err != nil {
			return err
		}
	}
	for i := range c.entries {
		e := &c.entries[i]
		switch {
		case e.rec != nil:
			plan.idHashes = append(plan.idHashes, maphash.String(plan.seed, e.rec.ID))
			if keyed(e.rec) {
				plan.keyHashes = append(plan.keyHashes, maphash.String(plan.seed, keyOf(e.rec)))
			}
			if linkable(e.rec) {
				plan.blocks[e.rec.ID] = true
			}
			if err := plan.rules.add(e); err != nil {
				return err
			}
		case e.link != nil:
			// Links are attached after every record, from memory.
			plan.links = append(plan.links, importLink{line: e.line, link: *e.link})
			continue
		}
		if err := sp.writeFrame(e); err != nil {
			return err
		}
	}
	return nil
}

// keyed reports whether r's key must be unique: it has one and is open
// (history, a record with invalid_at set, may share its key).
func keyed(r *loci.Record) bool { return r.Key != "" && r.InvalidAt.IsZero() }

// keyOf is what an open record's key is unique in, as its kind says
// (kindImport.uniqueKey): the kind, scope and key by default.
func keyOf(r *loci.Record) string {
	k, ok := importOf(r.Kind)
	if !ok {
		return defaultRules{}.uniqueKey(r)
	}
	return k.uniqueKey(r)
}

// findPresent marks the entries whose record is already stored, the same;
// one stored with other content is a conflict, and so is a keyed record
// whose key a stored one with another id holds (the write would fail on
// the key, after the batches before it were stored).
func (s *Service) findPresent(ctx context.Context, ws string, plan *importPlan, entries []importEntry) error {
	var ids []string
	for _, e := range entries {
		if e.rec != nil {
			ids = append(ids, e.rec.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	byID := map[string]*loci.Record{}
	holders := map[int][]*loci.Record{} // by entry, of the new keyed ones
	err := s.store.View(ctx, func(tx loci.Tx) error {
		clear(byID)
		clear(holders)
		stored, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: ids, Order: loci.OrderNone})
		if err != nil {
			return err
		}
		for _, r := range stored {
			byID[r.ID] = r
		}
		for i, e := range entries {
			if e.rec == nil || !keyed(e.rec) || !plan.keyedKinds[e.rec.Kind] || byID[e.rec.ID] != nil {
				continue
			}
			if holders[i], err = tx.FindRecords(ctx, keyHoldersOf(ws, e.rec)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		if e.rec == nil {
			continue
		}
		if old := byID[e.rec.ID]; old != nil {
			if !sameRecord(old, e.rec) {
				return lineError(e.line, errPresent(old))
			}
			e.present = true
			continue
		}
		for _, h := range holders[i] {
			if h.ID != e.rec.ID && keyed(h) && keyOf(h) == keyOf(e.rec) {
				return lineError(e.line, errKeyHeld(e.rec, h))
			}
		}
	}
	return nil
}

// keyHoldersOf selects the stored records that may hold r's key, as its
// kind says (kindImport.keyHolders).
func keyHoldersOf(ws string, r *loci.Record) loci.RecordFilter {
	k, ok := importOf(r.Kind)
	if !ok {
		return defaultRules{}.keyHolders(ws, r)
	}
	return k.keyHolders(ws, r)
}

// keyName names r's key in an error, as its kind says (kindImport.keyName).
func keyName(r *loci.Record) string {
	k, ok := importOf(r.Kind)
	if !ok {
		return defaultRules{}.keyName(r)
	}
	return k.keyName(r)
}

func errKeyHeld(r, holder *loci.Record) error {
	return loci.Errorf(loci.ECONFLICT, "%s is held by record %s, stored: "+
		"delete it or import into another workspace", keyName(r), holder.ID)
}

// sameRecord reports whether a stored record is the state an imported one
// describes: the same kind, version and last update.
func sameRecord(stored, imported *loci.Record) bool {
	return stored.Kind == imported.Kind && stored.Version == imported.Version &&
		stored.UpdatedAt.UnixMicro() == imported.UpdatedAt.UnixMicro()
}

func errPresent(old *loci.Record) error {
	return loci.Errorf(loci.ECONFLICT, "record %s already exists with other content (a %s at version %d): "+
		"delete it or import into another workspace", old.ID, old.Kind, old.Version)
}

// checkImportDuplicates refuses a file that holds one record id twice, or
// two records with one key in one scope: it compares hashes, and reads the
// spool again to name the lines only when two hashes are equal.
func (s *Service) checkImportDuplicates(plan *importPlan, sp *spool) error {
	dupIDs := duplicates(plan.idHashes)
	dupKeys := duplicates(plan.keyHashes)
	plan.idHashes, plan.keyHashes = nil, nil
	if len(dupIDs) == 0 && len(dupKeys) == 0 {
		return nil
	}
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	seenID, seenKey := map[string]int{}, map[string]int{}
	for {
		e, err := readFrame(rd)
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if e.rec == nil {
			continue
		}
		if dupIDs[maphash.String(plan.seed, e.rec.ID)] {
			if first, ok := seenID[e.rec.ID]; ok {
				return lineError(e.line, loci.Errorf(loci.ECONFLICT, "record %s is also on line %d", e.rec.ID, first))
			}
			seenID[e.rec.ID] = e.line
		}
		if k := keyOf(e.rec); keyed(e.rec) && dupKeys[maphash.String(plan.seed, k)] {
			if first, ok := seenKey[k]; ok {
				return lineError(e.line, loci.Errorf(loci.ECONFLICT, "%s is also on line %d", keyName(e.rec), first))
			}
			seenKey[k] = e.line
		}
	}
}

// duplicates returns the values that occur more than once in hs (which it
// sorts).
func duplicates(hs []uint64) map[uint64]bool {
	slices.Sort(hs)
	var out map[uint64]bool
	for i := 1; i < len(hs); i++ {
		if hs[i] == hs[i-1] {
			if out == nil {
				out = map[uint64]bool{}
			}
			out[hs[i]] = true
		}
	}
	return out
}

// checkImportLinks refuses a block link to a block that is neither in the
// file nor stored.
func (s *Service) checkImportLinks(ctx context.Context, ws string, plan *importPlan) error {
	for _, l := range plan.links {
		if plan.blocks[l.link.BlockID] {
			continue
		}
		err := s.store.View(ctx, func(tx loci.Tx) error {
			r, err := tx.GetRecord(ctx, ws, l.link.BlockID)
			if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && !linkable(r)) {
				return lineError(l.line, loci.Errorf(loci.EINVALID, "block link to unknown block %q", l.link.BlockID))
			}
			return err
		})
		if err != nil {
			return err
		}
		plan.blocks[l.link.BlockID] = true
	}
	return nil
}
