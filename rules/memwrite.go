package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// What a kind's writes are given by the memories API (memories.go): the
// input checked for its common fields, the edit, the write in progress,
// and the helpers the kinds share.

// memInput is a MemoryInput checked for its common fields.
type memInput struct {
	loci.MemoryInput
	metadata  []byte    // canonical, nil for none
	expiresAt time.Time // zero: never
	// role is the role of the conversation's message the memory came
	// from, kept in its record ("" for none).
	role string
}

// memEdit is the content and tags of a patch (nil: unchanged), with the
// metadata and expiry the memories API applies around the kind's edit.
type memEdit struct {
	content *string
	tags    *[]string
}

// memWrite is one write of the memories API: the service, the
// transaction, the audit entry and the time.
type memWrite struct {
	s   *Service
	tx  loci.Tx
	a   *audited
	ws  string
	now time.Time
}

// normContent is content as a repeat is compared: case and spacing aside.
func normContent(s string) string { return loci.NormalizeContent(s) }

// sameContent finds a live record selected by f, not history, of key key
// ("" for none), whose content is c (case and spacing aside), and returns
// it (nil for none). The content's hash is indexed, so
// it reads the few records that share it, whatever the scope's size; a
// batch sees its own earlier writes, in its transaction.
//
// It first takes the lock its content falls to in f's kind and scope
// (repeatLock), held to the end of the transaction, so that two writes of
// the same content at once take turns: the second reads the first's record
// and is its repeat. On PostgreSQL that is one advisory lock (a statement,
// no index and no row; taken again in a transaction, it is held already);
// on SQLite the one writer already serializes.
func (w *memWrite) sameContent(ctx context.Context, f loci.RecordFilter, key, c string) (*loci.Record, error) {
	h := loci.ContentHash(c)
	if err := w.lock(ctx, repeatLock(f, key, h)); err != nil {
		return nil, err
	}
	f.ContentHash, f.LiveAt = &h, w.now
	if !f.AsOf.IsZero() {
		// What is true now, the lock's now: a repeat that committed
		// while this write waited is valid from before it.
		f.AsOf = w.now
	}
	recs, err := w.tx.FindRecords(ctx, f)
	if err != nil {
		return nil, err
	}
	norm := normContent(c)
	for _, r := range recs {
		// Another agent's record (a keyed fact's slot is the user's,
		// whichever agent) is no repeat for a key bound to an agent: the
		// answer would name it, and a repeat's tags and metadata change it.
		if r.InvalidAt.IsZero() && r.Key == key && normContent(r.Content) == norm && reachable(ctx, r) {
			return r, nil
		}
	}
	return nil, nil
}

// repeat is what an add of the content a record holds brings besides it:
// tags (as the kind normalizes them; none: nil) and metadata (canonical;
// none: nil), with the kind's rules for them: at most maxTags tags, and
// the search text of a content and its tags (nil: the record's stays).
type repeat struct {
	tags     []string
	metadata []byte
	maxTags  int
	search   func(content string, tags []string) string
}

// repeatOf answers an add of the content rec holds (found by sameContent,
// under its lock): NOOP when it brings nothing rec lacks; otherwise an
// UPDATE of rec in place, keeping its value as a version, that adds the
// tags rec lacks (after its own) and sets the metadata keys brought (the
// others stay), so that a repeat never loses what it says and only a
// true repeat changes nothing.
func (w *memWrite) repeatOf(ctx context.Context, rec *loci.Record, r repeat) (*loci.MemoryEvent, error) {
	if len(r.tags) == 0 && len(r.metadata) == 0 {
		return &loci.MemoryEvent{ID: rec.ID, Kind: rec.Kind, Event: loci.EventNoop, Version: rec.Version}, nil
	}
	// It may change the record: as every edit of it, under its lock.
	if err := w.lock(ctx, recordLock(w.ws, rec.ID)); err != nil {
		return nil, err
	}
	cur, err := w.tx.GetRecord(ctx, w.ws, rec.ID)
	if err != nil {
		return nil, err
	}
	next := *cur
	next.Tags = slices.Clone(cur.Tags)
	for _, t := range r.tags {
		if !slices.Contains(next.Tags, t) {
			next.Tags = append(next.Tags, t)
		}
	}
	if next.Metadata, err = mergeMetadata(cur.Metadata, r.metadata); err != nil {
		return nil, err
	}
	if slices.Equal(next.Tags, cur.Tags) && bytes.Equal(next.Metadata, cur.Metadata) {
		return &loci.MemoryEvent{ID: cur.ID, Kind: cur.Kind, Event: loci.EventNoop, Version: cur.Version}, nil
	}
	if len(next.Tags) > r.maxTags {
		return nil, loci.Errorf(loci.EINVALID, "a %s has at most %d tags: with those it holds, this one would have %d", cur.Kind, r.maxTags, len(next.Tags))
	}
	if err := w.keepVersion(ctx, cur); err != nil {
		return nil, err
	}
	if r.search != nil {
		next.SearchText = r.search(next.Content, next.Tags)
	}
	next.UpdatedAt, next.Version = w.now, cur.Version+1
	if err := w.tx.UpdateRecord(ctx, &next, cur.Version); err != nil {
		return nil, err
	}
	return &loci.MemoryEvent{ID: next.ID, Kind: next.Kind, Event: loci.EventUpdate, Version: next.Version}, nil
}

// mergeMetadata returns old with the keys of add set (both canonical;
// nil: none), canonical.
func mergeMetadata(old, add []byte) ([]byte, error) {
	if len(add) == 0 {
		return old, nil
	}
	m := map[string]json.RawMessage{}
	for _, b := range [][]byte{old, add} {
		if len(b) == 0 {
			continue
		}
		var part map[string]json.RawMessage
		if err := json.Unmarshal(b, &part); err != nil {
			return nil, fmt.Errorf("merge metadata: %w", err)
		}
		maps.Copy(m, part)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("merge metadata: %w", err)
	}
	return loci.NormalizeMetadata(buf.Bytes())
}

// repeatStripes is how many locks the repeat checks of one kind, scope and
// key share out between them, by content hash: two writes of one content
// always take the same, two of other contents seldom do, and a batch of a
// thousand adds in one scope holds at most this many locks (PostgreSQL's
// lock table is shared, and sized for about 64 per connection).
const repeatStripes = 32

// repeatLock names the lock of content hash h (hex) in the kind, scope and
// key that f and key select: one of repeatStripes. The scope is the user
// and agent f names (a field f leaves open is "*"); the session is left
// out, so that the kinds whose repeat checks overlap (a fact of no key
// through POST /v1/facts, across sessions, and through /v1/memories, in
// one) take the same lock.
func repeatLock(f loci.RecordFilter, key, h string) string {
	scope := func(p *string) string {
		if p == nil {
			return "*"
		}
		return "=" + *p
	}
	kinds := make([]string, len(f.Kinds))
	for i, k := range f.Kinds {
		kinds[i] = string(k)
	}
	stripe := uint64(0)
	if len(h) >= 8 {
		stripe, _ = strconv.ParseUint(h[:8], 16, 32)
	}
	return lockName(f.Workspace, "repeat", strings.Join(kinds, ","), scope(f.UserID), scope(f.AgentID), key,
		strconv.FormatUint(stripe%repeatStripes, 10))
}

// lock takes the named lock to the end of the transaction and reads the
// clock again: what the write stamps after it (updated_at, valid_at, a
// version's time) is read under the lock, so that the writes the lock
// serializes are timed in the order they commit, as they are numbered.
func (w *memWrite) lock(ctx context.Context, name string) error {
	if err := w.tx.Lock(ctx, name); err != nil {
		return err
	}
	if now := w.s.now(); now.After(w.now) {
		w.now = now
	}
	return nil
}

// errNoTTL refuses a time to live on a kind that takes none.
func errNoTTL(k loci.Kind) error {
	return loci.Errorf(loci.EINVALID, "a %s takes no expires_at or ttl_seconds (notes, passages and facts do)", k)
}

// ownRoute refuses what the memories API does not do for a kind: 400 for an add,
// 409 for an edit, naming the kind's own route.
func ownRoute(code string, k loci.Kind, what string) error {
	d, _ := writesOf(k)
	return loci.Errorf(code, "a %s is not %s through /v1/memories: use %s", k, what, d.route())
}
