package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// How an import reads, checks and writes.
const (
	// Lines are checked in chunks, in parallel.
	importChunkLines = 512
	importChunkBytes = 1 << 20
	// Each write transaction stores at most this many lines (and bytes),
	// so that an import never holds the writer (SQLite) or a connection
	// in a transaction (PostgreSQL) for long: other writes interleave.
	importBatchLines = 5000
	importBatchBytes = 8 << 20
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
	a, err := s.begin(ctx, "import", "", loci.Scope{}, agentDeny)
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
	// frame is the line as the writes read it back: as given, or
	// re-encoded with what the check added (the search text).
	frame []byte
	// present: the record is already stored, the same (phase 1 saw it).
	present bool
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
	idHashes     []uint64
	keyHashes    []uint64
	blocks       map[string]bool
	links        []importLink
	seed         maphash.Seed
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
	var some []*loci.Record
	err := s.store.View(ctx, func(tx loci.Tx) error {
		var err error
		some, err = tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, Limit: 1})
		return err
	})
	if err != nil {
		return nil, err
	}
	plan := &importPlan{checkPresent: len(some) > 0, blocks: map[string]bool{}, seed: maphash.MakeSeed()}

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
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case c, ok := <-chunks:
					if !ok {
						return
					}
					c.check()
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
	if err := s.checkImportLinks(ctx, ws, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// errImportRead marks a failure to read the input (not a refused line).
type errImportRead struct{ err error }

func (e *errImportRead) Error() string { return "read the import: " + e.err.Error() }
func (e *errImportRead) Unwrap() error { return e.err }

// readImportChunks splits r into chunks of lines, numbered from 1.
func readImportChunks(ctx context.Context, r io.Reader, out chan<- *importChunk, inflight chan struct{}) error {
	br := bufio.NewReaderSize(r, 1<<20)
	c := &importChunk{first: 1}
	size, line := 0, 0
	send := func() bool {
		select {
		case inflight <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		select {
		case out <- c:
		case <-ctx.Done():
			return false
		}
		c = &importChunk{seq: c.seq + 1, first: line + 1}
		size = 0
		return true
	}
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		} else {
			b = append([]byte(nil), b...)
		}
		if len(b) > 0 {
			line++
			c.lines = append(c.lines, b)
			size += len(b)
		}
		if err == io.EOF {
			if len(c.lines) > 0 && !send() {
				return ctx.Err()
			}
			return nil
		} else if err != nil {
			return &errImportRead{err}
		}
		if (len(c.lines) >= importChunkLines || size >= importChunkBytes) && !send() {
			return ctx.Err()
		}
	}
}

// check parses and checks each line of the chunk; it stops at the first
// refused one.
func (c *importChunk) check() {
	for i, raw := range c.lines {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		e, err := checkImportLine(raw)
		if err != nil {
			c.err = lineError(c.first+i, err)
			return
		}
		e.line = c.first + i
		c.entries = append(c.entries, e)
	}
	c.lines = nil
}

// checkImportLine parses one line and checks it as the API checks the
// write it stands for.
func checkImportLine(raw []byte) (importEntry, error) {
	e := importEntry{frame: raw}
	if !utf8.Valid(raw) {
		return e, loci.Errorf(loci.EINVALID, "not valid UTF-8")
	}
	var head struct {
		Type string `json:"type"`
	}
	if typ, ok := lineType(raw); ok {
		head.Type = typ // what export writes: the strict decoding below checks the rest
	} else if err := json.Unmarshal(raw, &head); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return e, loci.Errorf(loci.EINVALID, "malformed JSON")
		}
		return e, loci.Errorf(loci.EINVALID, "each line must be a JSON object with a type")
	}
	e.typ = head.Type
	switch head.Type {
	case lineAgent:
		l := agentLine{Agent: &loci.Agent{}}
		if err := strict(raw, &l); err != nil {
			return e, err
		} else if err := checkAgentID(l.ID); err != nil {
			return e, err
		} else if err := loci.CheckText("name", l.Name, maxImportContentBytes); err != nil {
			return e, err
		} else if err := checkImportTime("created_at", l.CreatedAt, true); err != nil {
			return e, err
		}
		e.agent = l.Agent
	case lineUser:
		l := userLine{User: &loci.User{}}
		if err := strict(raw, &l); err != nil {
			return e, err
		} else if err := loci.RequireText("user id", l.ID, loci.MaxUserIDBytes); err != nil {
			return e, err
		} else if d := bytes.TrimSpace(l.Defaults); len(d) > 0 && (d[0] != '{' || !json.Valid(d)) {
			return e, loci.Errorf(loci.EINVALID, "a user's defaults must be a JSON object")
		} else if err := checkImportTime("created_at", l.CreatedAt, true); err != nil {
			return e, err
		} else if err := checkImportTime("updated_at", l.UpdatedAt, true); err != nil {
			return e, err
		}
		e.user = l.User
	case lineRecord:
		l := recordLine{Record: &loci.Record{}}
		if err := strict(raw, &l); err != nil {
			return e, err
		}
		if err := checkImportRecord(l.Record, deref(l.SearchText), l.Versions); err != nil {
			if l.ID != "" && utf8.ValidString(l.ID) && len(l.ID) <= maxImportIDBytes {
				return e, relabel(err, "record %s: %s", l.ID, loci.ErrorMessage(err))
			}
			return e, err
		}
		// A record without search text (a file written by hand) has its
		// text analyzed when it is written (readFrame), beside the writes.
		l.Record.SearchText = deref(l.SearchText)
		e.rec, e.versions = l.Record, l.Versions
	case lineBlockLink:
		var l linkLine
		if err := strict(raw, &l); err != nil {
			return e, err
		} else if err := loci.RequireText("block_id", l.BlockID, maxImportIDBytes); err != nil {
			return e, err
		} else if err := checkAgentID(l.AgentID); err != nil {
			return e, err
		} else if err := checkImportTime("created_at", l.CreatedAt, true); err != nil {
			return e, err
		}
		e.link = &l.BlockLink
	default:
		return e, loci.Errorf(loci.EINVALID, "unknown line type %q", head.Type)
	}
	return e, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// lineType reads the type of a line that starts as export writes it,
// {"type":"…", without decoding it.
func lineType(raw []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(`{"type":"`))
	if !ok {
		return "", false
	}
	i := bytes.IndexByte(rest, '"')
	if i <= 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return "", false
	}
	return string(rest[:i]), true
}

// collectImport takes a checked chunk, in input order: it refuses its
// first bad line, looks for its records among those stored, notes what the
// final checks need, and spools its lines.
func (s *Service) collectImport(ctx context.Context, ws string, c *importChunk, plan *importPlan, sp *spool) error {
	if c.err != nil {
		return c.err
	}
	if plan.checkPresent {
		if err := s.findPresent(ctx, ws, c.entries); err != nil {
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
			if e.rec.Kind == loci.KindBlock {
				plan.blocks[e.rec.ID] = true
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

// keyOf is what an open record's key is unique in: the kind, scope and key;
// for a fact, its user's (or the global) slot of that key, whichever agent
// wrote it.
func keyOf(r *loci.Record) string {
	if r.Kind == loci.KindFact {
		return strings.Join([]string{string(r.Kind), r.UserID, r.Key}, "\x00")
	}
	return strings.Join([]string{string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID, r.Key}, "\x00")
}

// findPresent marks the entries whose record is already stored, the same;
// one stored with other content is a conflict.
func (s *Service) findPresent(ctx context.Context, ws string, entries []importEntry) error {
	var ids []string
	for _, e := range entries {
		if e.rec != nil {
			ids = append(ids, e.rec.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var stored []*loci.Record
	err := s.store.View(ctx, func(tx loci.Tx) error {
		var err error
		stored, err = tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: ids})
		return err
	})
	if err != nil {
		return err
	}
	byID := make(map[string]*loci.Record, len(stored))
	for _, r := range stored {
		byID[r.ID] = r
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
		}
	}
	return nil
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
				return lineError(e.line, loci.Errorf(loci.ECONFLICT, "the %s key %q of this scope is also on line %d", e.rec.Kind, e.rec.Key, first))
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
			if loci.ErrorCode(err) == loci.ENOTFOUND || (err == nil && r.Kind != loci.KindBlock) {
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

// importBatch is the lines one write transaction stores.
type importBatch struct {
	entries []importEntry
	links   []importLink
}

// writeImport is the second phase: it writes the spooled lines in
// batches, each its own transaction, then the block links. A line that
// fails stops it; what the batches before stored stays, and the error
// says so.
// The ids of the records each batch stored or skipped are noted in a once
// the batch is committed.
func (s *Service) writeImport(ctx context.Context, ws string, sp *spool, plan *importPlan, a *audited) (*loci.ImportResult, error) {
	rd, err := sp.reader()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Decode the next batches while one is written.
	batches := make(chan importBatch, 2)
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
			return res, relabel(err, "%s (the lines before line %d were imported: %d records, "+
				"%d skipped as already there; run the same import again to import the rest)", loci.ErrorMessage(err), first, res.Records, res.Skipped)
		}
	}
	if err := <-readErr; err != nil {
		return res, err
	}
	return res, nil
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
		size += len(e.frame)
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
		var ids []string
		lineOf := map[string]int{}
		for _, e := range b.entries {
			if e.rec != nil {
				ids = append(ids, e.rec.ID)
				lineOf[e.rec.ID] = e.line
			}
		}
		stored := map[string]*loci.Record{}
		if len(ids) > 0 {
			recs, err := tx.FindRecords(ctx, loci.RecordFilter{Workspace: ws, IDs: ids})
			if err != nil {
				return err
			}
			for _, r := range recs {
				stored[r.ID] = r
			}
		}
		var recs []*loci.Record
		var versions []loci.RecordVersion
		for _, e := range b.entries {
			switch {
			case e.agent != nil:
				a := *e.agent
				a.Workspace = ws
				if err := tx.InsertAgent(ctx, &a); loci.ErrorCode(err) == loci.ECONFLICT {
					continue // already there: kept
				} else if err != nil {
					return lineError(e.line, err)
				}
				done.Agents++
			case e.user != nil:
				u := *e.user
				u.Workspace = ws
				if _, created, err := tx.EnsureUser(ctx, ws, u.ID, u.CreatedAt); err != nil {
					return lineError(e.line, err)
				} else if !created {
					continue // already there: kept
				}
				if err := tx.UpdateUser(ctx, &u); err != nil {
					return lineError(e.line, err)
				}
				done.Users++
			case e.rec != nil:
				if old := stored[e.rec.ID]; old != nil {
					if !sameRecord(old, e.rec) {
						return lineError(e.line, errPresent(old))
					}
					done.Skipped++
					touched = append(touched, e.rec.ID)
					continue
				}
				r := *e.rec
				r.Workspace = ws
				recs = append(recs, &r)
				for _, v := range e.versions {
					v.RecordID = r.ID
					versions = append(versions, v)
				}
			}
		}
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

// spool keeps the checked lines between the phases: in memory up to
// limit bytes, then in a temporary file (removed when closed).
type spool struct {
	limit int
	mem   bytes.Buffer
	f     *os.File
	w     *bufio.Writer
}

// writeFrame appends an entry: "LINE TAB TYPE TAB PRESENT TAB JSON\n".
func (s *spool) writeFrame(e *importEntry) error {
	var hdr [40]byte
	h := strconv.AppendInt(hdr[:0], int64(e.line), 10)
	h = append(h, '\t')
	h = append(h, e.typ...)
	h = append(h, '\t')
	if e.present {
		h = append(h, '1')
	} else {
		h = append(h, '0')
	}
	h = append(h, '\t')
	if _, err := s.Write(h); err != nil {
		return err
	}
	if _, err := s.Write(e.frame); err != nil {
		return err
	}
	_, err := s.Write([]byte{'\n'})
	return err
}

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && s.mem.Len()+len(p) <= s.limit {
		return s.mem.Write(p)
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "loci-import-*.jsonl")
		if err != nil {
			return 0, fmt.Errorf("spool the import: %w", err)
		}
		// Unlinked at once where the system allows, so nothing is left
		// behind even if the process dies.
		os.Remove(f.Name())
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<20)
		if _, err := s.w.Write(s.mem.Bytes()); err != nil {
			return 0, fmt.Errorf("spool the import: %w", err)
		}
		s.mem = bytes.Buffer{}
	}
	n, err := s.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("spool the import: %w", err)
	}
	return n, nil
}

// reader returns a reader of everything written, from the start.
func (s *spool) reader() (*bufio.Reader, error) {
	if s.f == nil {
		return bufio.NewReader(bytes.NewReader(s.mem.Bytes())), nil
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("spool the import: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spool the import: %w", err)
	}
	return bufio.NewReaderSize(s.f, 1<<20), nil
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

// readFrame reads one spooled entry and decodes its line (checked
// already).
func readFrame(rd *bufio.Reader) (importEntry, error) {
	var e importEntry
	b, err := rd.ReadBytes('\n')
	if err == io.EOF && len(b) == 0 {
		return e, io.EOF
	} else if err != nil && err != io.EOF {
		return e, fmt.Errorf("read the spooled import: %w", err)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	parts := bytes.SplitN(b, []byte{'\t'}, 4)
	if len(parts) != 4 {
		return e, errors.New("read the spooled import: malformed entry")
	}
	if e.line, err = strconv.Atoi(string(parts[0])); err != nil {
		return e, fmt.Errorf("read the spooled import: %w", err)
	}
	e.typ, e.present, e.frame = string(parts[1]), parts[2][0] == '1', parts[3]
	switch e.typ {
	case lineAgent:
		l := agentLine{Agent: &loci.Agent{}}
		err = json.Unmarshal(e.frame, &l)
		e.agent = l.Agent
	case lineUser:
		l := userLine{User: &loci.User{}}
		err = json.Unmarshal(e.frame, &l)
		e.user = l.User
	case lineRecord:
		l := recordLine{Record: &loci.Record{}}
		err = json.Unmarshal(e.frame, &l)
		if l.SearchText == nil {
			// No search text (not an export's line, which always has
			// one, empty or not): analyze the text as a write would.
			l.Record.SearchText = searchText(strings.Join(append([]string{l.Key, l.Content}, l.Tags...), " "))
		} else {
			l.Record.SearchText = *l.SearchText
		}
		e.rec, e.versions = l.Record, l.Versions
	}
	if err != nil {
		return e, fmt.Errorf("read the spooled import, line %d: %w", e.line, err)
	}
	return e, nil
}
