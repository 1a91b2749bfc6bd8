package rules

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/loci-memory/loci"
)

// A checked line is spooled in a compact binary form of what the check
// decoded (and normalized: metadata in canonical form), not as its JSON,
// so the writes read it back without decoding JSON again (a record's
// JSON decodes several times slower than this form). Each frame is its
// length (uvarint), then the line number, type and present flag, then
// the agent, user or record with its versions, field by field: strings
// and bytes as a length and the bytes (bytes that may be nil, and lists,
// as 0 for nil or the length + 1), integers as varints, floats as their
// bits, times in their binary form (time.Time.AppendBinary: instant and
// zone offset).

// Frame type bytes.
const (
	frameAgent  = 'a'
	frameUser   = 'u'
	frameRecord = 'r'
)

// encodeFrame appends the payload of e's frame (without its length) to b.
func encodeFrame(b []byte, e *importEntry) ([]byte, error) {
	w := frameWriter{b: b}
	w.uint(uint64(e.line))
	w.bool(e.present)
	switch {
	case e.agent != nil:
		w.b = append(w.b, frameAgent)
		w.str(e.agent.ID)
		w.str(e.agent.Name)
		w.time(e.agent.CreatedAt)
	case e.user != nil:
		w.b = append(w.b, frameUser)
		w.str(e.user.ID)
		w.bytes(e.user.Defaults)
		w.time(e.user.CreatedAt)
		w.time(e.user.UpdatedAt)
	case e.rec != nil:
		w.b = append(w.b, frameRecord)
		w.record(e.rec, e.noSearchText)
		w.list(e.versions == nil, len(e.versions))
		for i := range e.versions {
			w.version(&e.versions[i])
		}
	default:
		return b, errors.New("spool the import: an entry with nothing to write")
	}
	if w.err != nil {
		return b, fmt.Errorf("spool the import, line %d: %w", e.line, w.err)
	}
	return w.b, nil
}

type frameWriter struct {
	b   []byte
	err error
}

func (w *frameWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *frameWriter) int(v int)     { w.b = binary.AppendVarint(w.b, int64(v)) }

func (w *frameWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *frameWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// bytes writes p, nil kept apart from empty.
func (w *frameWriter) bytes(p []byte) {
	w.list(p == nil, len(p))
	w.b = append(w.b, p...)
}

// list writes the length of a list: 0 for nil, else its length + 1.
func (w *frameWriter) list(isNil bool, n int) {
	if isNil {
		w.uint(0)
	} else {
		w.uint(uint64(n) + 1)
	}
}

func (w *frameWriter) time(t time.Time) {
	at := len(w.b)
	w.b = append(w.b, 0)
	var err error
	if w.b, err = t.AppendBinary(w.b); err != nil && w.err == nil {
		w.err = err
	}
	w.b[at] = byte(len(w.b) - at - 1)
}

func (w *frameWriter) record(r *loci.Record, noSearchText bool) {
	for _, s := range []string{r.ID, r.Workspace, string(r.Kind), r.AgentID, r.UserID, r.SessionID, r.TaskID,
		r.Key, r.Content, r.SearchText, r.Category, r.ActionType, r.Outcome, r.Review, r.EmbeddingModel} {
		w.str(s)
	}
	w.bool(noSearchText)
	w.bytes(r.Data)
	w.bytes(r.Metadata)
	w.list(r.Tags == nil, len(r.Tags))
	for _, t := range r.Tags {
		w.str(t)
	}
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(r.Confidence))
	w.int(r.AccessCount)
	w.int(r.Version)
	for _, t := range []time.Time{r.LastAccessedAt, r.CreatedAt, r.UpdatedAt, r.ExpiresAt, r.ValidAt, r.InvalidAt} {
		w.time(t)
	}
	w.list(r.Embedding == nil, len(r.Embedding))
	for _, f := range r.Embedding {
		w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(f))
	}
}

func (w *frameWriter) version(v *loci.RecordVersion) {
	w.str(v.RecordID)
	w.int(v.Version)
	w.str(v.Content)
	w.bytes(v.Data)
	w.bytes(v.Metadata)
	w.time(v.UpdatedAt)
}

// decodeFrame decodes a frame's payload (without its length) into an
// entry. The entry's strings share one copy of the payload.
func decodeFrame(p []byte) (importEntry, error) {
	r := frameReader{b: p, s: string(p)}
	var e importEntry
	e.size = len(p)
	e.line = int(r.uint())
	e.present = r.bool()
	switch typ := r.byte(); typ {
	case frameAgent:
		e.typ = lineAgent
		e.agent = &loci.Agent{ID: r.str(), Name: r.str(), CreatedAt: r.time()}
	case frameUser:
		e.typ = lineUser
		e.user = &loci.User{ID: r.str(), Defaults: r.bytes(), CreatedAt: r.time(), UpdatedAt: r.time()}
	case frameRecord:
		e.typ = lineRecord
		e.rec, e.noSearchText = r.record()
		if n, isNil := r.list(); !isNil {
			e.versions = make([]loci.RecordVersion, n)
			for i := range e.versions {
				r.version(&e.versions[i])
			}
		}
	default:
		if r.err == nil {
			r.err = fmt.Errorf("unknown entry type %q", typ)
		}
	}
	if r.err == nil && r.off != len(p) {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return e, fmt.Errorf("read the spooled import: malformed entry: %w", r.err)
	}
	return e, nil
}

// frameReader reads a frame's payload: b, and s, the same bytes as a
// string, from which the strings are cut without copying each.
type frameReader struct {
	b   []byte
	s   string
	off int
	err error
}

var errFrameShort = errors.New("entry too short")

func (r *frameReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.off = len(r.b)
}

func (r *frameReader) uint() uint64 {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail(errFrameShort)
		return 0
	}
	r.off += n
	return v
}

func (r *frameReader) int() int {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail(errFrameShort)
		return 0
	}
	r.off += n
	return int(v)
}

func (r *frameReader) byte() byte {
	if r.off >= len(r.b) {
		r.fail(errFrameShort)
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *frameReader) bool() bool { return r.byte() == 1 }

// take returns the offset of the next n bytes, and moves past them.
func (r *frameReader) take(n uint64) (int, bool) {
	if n > uint64(len(r.b)-r.off) {
		r.fail(errFrameShort)
		return 0, false
	}
	at := r.off
	r.off += int(n)
	return at, true
}

func (r *frameReader) str() string {
	n := r.uint()
	at, ok := r.take(n)
	if !ok {
		return ""
	}
	return r.s[at:r.off]
}

// list reads the length of a list, and whether it is nil.
func (r *frameReader) list() (int, bool) {
	n := r.uint()
	if n == 0 {
		return 0, true
	}
	if n-1 > uint64(len(r.b)-r.off) { // every element takes a byte at least
		r.fail(errFrameShort)
		return 0, true
	}
	return int(n - 1), false
}

func (r *frameReader) bytes() []byte {
	n, isNil := r.list()
	if isNil {
		return nil
	}
	at, ok := r.take(uint64(n))
	if !ok {
		return nil
	}
	// A copy, so that the payload is not kept for the few bytes of a
	// record's data (its strings keep the string copy of it).
	return append(make([]byte, 0, n), r.b[at:r.off]...)
}

func (r *frameReader) time() time.Time {
	n := uint64(r.byte())
	at, ok := r.take(n)
	if !ok {
		return time.Time{}
	}
	var t time.Time
	if err := t.UnmarshalBinary(r.b[at:r.off]); err != nil {
		r.fail(err)
	}
	return t
}

func (r *frameReader) record() (*loci.Record, bool) {
	rec := &loci.Record{}
	for _, p := range []*string{&rec.ID, &rec.Workspace, (*string)(&rec.Kind), &rec.AgentID, &rec.UserID, &rec.SessionID, &rec.TaskID,
		&rec.Key, &rec.Content, &rec.SearchText, &rec.Category, &rec.ActionType, &rec.Outcome, &rec.Review, &rec.EmbeddingModel} {
		*p = r.str()
	}
	noSearchText := r.bool()
	rec.Data = r.bytes()
	rec.Metadata = r.bytes()
	if n, isNil := r.list(); !isNil {
		rec.Tags = make([]string, n)
		for i := range rec.Tags {
			rec.Tags[i] = r.str()
		}
	}
	if at, ok := r.take(8); ok {
		rec.Confidence = math.Float64frombits(binary.LittleEndian.Uint64(r.b[at:]))
	}
	rec.AccessCount = r.int()
	rec.Version = r.int()
	for _, p := range []*time.Time{&rec.LastAccessedAt, &rec.CreatedAt, &rec.UpdatedAt, &rec.ExpiresAt, &rec.ValidAt, &rec.InvalidAt} {
		*p = r.time()
	}
	if n, isNil := r.list(); !isNil {
		at, ok := r.take(4 * uint64(n))
		if ok {
			rec.Embedding = make([]float32, n)
			for i := range rec.Embedding {
				rec.Embedding[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[at+4*i:]))
			}
		}
	}
	return rec, noSearchText
}

func (r *frameReader) version(v *loci.RecordVersion) {
	v.RecordID = r.str()
	v.Version = r.int()
	v.Content = r.str()
	v.Data = r.bytes()
	v.Metadata = r.bytes()
	v.UpdatedAt = r.time()
}
