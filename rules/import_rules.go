package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// importRules applies to an import the rules that span records, as the API
// applies them to a write, and refuses what later reads would disagree
// with:
//
//   - a session's message_count is the number of its messages in the file,
//     each message's index is given once and is below the session's next
//     index (or a later append gives it again), and every message has its
//     session in the file;
//   - a task's live working values total at most the working limit, what
//     the workspace holds already included;
//   - a user and agent have at most the episode cap of episodes, what the
//     workspace holds already included.
//
// It takes the checked lines in input order (collectImport); a working or
// episode line over its limit is refused when it is met, the session rules
// when every line has been seen (check). It keeps one tally per session,
// task and user+agent, and 8 bytes per message.
type importRules struct {
	now          time.Time
	workingLimit int
	episodeCap   int
	seed         maphash.Seed

	sessions map[string]*sessionTally // by sessionRef
	indexes  []uint64                 // per message: its session and index, hashed
	// counts is, per group of records a kind's limit spans (named by the
	// kind: a task's live working bytes, a user and agent's episodes),
	// what the group totals, held ones included.
	counts map[string]int
}

// sessionTally is what the file holds of one session (a user's session id).
type sessionTally struct {
	line     int // the session record's line; 0: none (yet)
	count    int // its message_count
	next     int // the index its next message gets
	messages int
	// The first message's line, and the line of the message of the
	// highest index.
	firstLine, maxIndex, maxLine int
}

func (s *Service) newImportRules(seed maphash.Seed) *importRules {
	return &importRules{
		now: s.now(), workingLimit: s.keep.workingLimitOr(), episodeCap: s.keep.episodeCapOr(), seed: seed,
		sessions: map[string]*sessionTally{}, counts: map[string]int{},
	}
}

// sessionRef names a session as its messages name it: user and session id.
func sessionRef(r *loci.Record) string { return r.UserID + "\x00" + r.SessionID }

// importHold is what holdImportRules reads of the workspace: each kind's
// holdImport adds, once per group its limits span (a task, a user and
// agent) that the import has not counted yet, a read of what the
// workspace holds of the group.
type importHold struct {
	ir    *importRules
	seen  map[string]bool
	reads []heldRead
}

// heldRead is the read of what the workspace holds of one group: read
// returns what it counts toward the group's limit; lock names, after the
// workspace, the lock a write to the group takes (its kind's, as the
// API's writes take it).
type heldRead struct {
	group string
	lock  []string
	read  func(ctx context.Context, tx loci.Tx, ws string, now time.Time) (int, error)
}

// hold adds read, the read of group, whose writes take lock, unless the
// import counts the group already or reads it already.
func (h *importHold) hold(group string, lock []string, read func(ctx context.Context, tx loci.Tx, ws string, now time.Time) (int, error)) {
	if _, ok := h.ir.counts[group]; ok || h.seen[group] {
		return
	}
	h.seen[group] = true
	h.reads = append(h.reads, heldRead{group, lock, read})
}

// recheckImport checks again, in the transaction tx that writes them
// and under the locks the API's writes take, the limits the new records
// of entries (those not stored already, stored) count toward: what the
// workspace holds now (a write that committed since the import read the
// group included) and what they add. A record over its limit fails the
// batch, as a line over it fails the import before any is written.
func (s *Service) recheckImport(ctx context.Context, tx loci.Tx, ws string, entries []importEntry, stored map[string]*loci.Record) error {
	ir := s.newImportRules(maphash.MakeSeed())
	h := &importHold{ir: ir, seen: map[string]bool{}}
	var fresh []*importEntry
	for i := range entries {
		e := &entries[i]
		if e.rec == nil || stored[e.rec.ID] != nil {
			continue
		}
		if rules, ok := importOf(e.rec.Kind); ok {
			rules.holdImport(h, ir, e.rec)
			fresh = append(fresh, e)
		}
	}
	if len(h.reads) == 0 {
		return nil
	}
	locks := make([]string, len(h.reads))
	for i, hr := range h.reads {
		locks[i] = lockName(append([]string{ws}, hr.lock...)...)
	}
	slices.Sort(locks)
	for _, l := range locks {
		if err := tx.Lock(ctx, l); err != nil {
			return err
		}
	}
	for _, hr := range h.reads {
		n, err := hr.read(ctx, tx, ws, ir.now)
		if err != nil {
			return err
		}
		ir.counts[hr.group] = n
	}
	for _, e := range fresh {
		e := *e
		e.present = false
		if err := ir.add(&e); err != nil {
			return err
		}
	}
	return nil
}

// holdImportRules adds to ir what the workspace holds of the groups that
// entries name for the first time, as their kinds read it (holdImport):
// the live working bytes of each task, the episodes of each user and
// agent.
func (s *Service) holdImportRules(ctx context.Context, ws string, ir *importRules, entries []importEntry) error {
	h := &importHold{ir: ir, seen: map[string]bool{}}
	for i := range entries {
		r := entries[i].rec
		if r == nil {
			continue
		}
		if rules, ok := importOf(r.Kind); ok {
			rules.holdImport(h, ir, r)
		}
	}
	if len(h.reads) == 0 {
		return nil
	}
	held := make([]int, len(h.reads))
	err := s.store.View(ctx, func(tx loci.Tx) error {
		for i, hr := range h.reads {
			n, err := hr.read(ctx, tx, ws, ir.now)
			if err != nil {
				return err
			}
			held[i] = n
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, hr := range h.reads {
		ir.counts[hr.group] = held[i]
	}
	return nil
}

// add tallies one checked line as its kind says (tallyImport), and
// refuses a working value or an episode over its limit.
func (ir *importRules) add(e *importEntry) error {
	rules, ok := importOf(e.rec.Kind)
	if !ok {
		return nil
	}
	return rules.tallyImport(ir, e)
}

func (ir *importRules) session(r *loci.Record) *sessionTally {
	t := ir.sessions[sessionRef(r)]
	if t == nil {
		t = &sessionTally{}
		ir.sessions[sessionRef(r)] = t
	}
	return t
}

// indexHash hashes a message's user, session id and index.
func (ir *importRules) indexHash(r *loci.Record, index int) uint64 {
	var h maphash.Hash
	h.SetSeed(ir.seed)
	h.WriteString(r.UserID)
	h.WriteByte(0)
	h.WriteString(r.SessionID)
	h.WriteByte(0)
	var n [20]byte
	h.Write(strconv.AppendInt(n[:0], int64(index), 10))
	return h.Sum64()
}

// check applies the session rules once every line is tallied, and refuses
// the earliest line that breaks one.
func (ir *importRules) check(sp *spool) error {
	line, refused := 0, error(nil)
	refuse := func(l int, err error) {
		if line == 0 || l < line {
			line, refused = l, err
		}
	}
	for ref, t := range ir.sessions {
		user, id, _ := strings.Cut(ref, "\x00")
		switch {
		case t.line == 0:
			refuse(t.firstLine, loci.Errorf(loci.EINVALID, "a message of session %q of user %q, which is not in the file", id, user))
		case t.messages != t.count:
			refuse(t.line, loci.Errorf(loci.EINVALID, "session %q has message_count %d, but the file holds %d of its messages", id, t.count, t.messages))
		case t.messages > 0 && t.maxIndex >= t.next:
			refuse(t.maxLine, loci.Errorf(loci.EINVALID, "message index %d of session %q is not below the session's next index %d", t.maxIndex, id, t.next))
		}
	}
	if err := ir.checkIndexes(sp, refuse); err != nil {
		return err
	}
	if refused != nil {
		return lineError(line, refused)
	}
	return nil
}

// checkIndexes refuses a message index given twice in one session: it
// compares hashes, and reads the spool again to name the lines only when
// two are equal.
func (ir *importRules) checkIndexes(sp *spool, refuse func(int, error)) error {
	dups := duplicates(ir.indexes)
	ir.indexes = nil
	if len(dups) == 0 {
		return nil
	}
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for {
		e, err := readFrame(rd)
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		r := e.rec
		if r == nil || !isMessage(r) {
			continue
		}
		var d messageData
		if json.Unmarshal(r.Data, &d) != nil || !dups[ir.indexHash(r, d.Index)] {
			continue
		}
		k := fmt.Sprintf("%s\x00%d", sessionRef(r), d.Index)
		if first, ok := seen[k]; ok {
			refuse(e.line, loci.Errorf(loci.EINVALID, "message index %d of session %q is also on line %d", d.Index, r.SessionID, first))
			continue
		}
		seen[k] = e.line
	}
}
