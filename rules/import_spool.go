package rules

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// spool keeps the checked lines between the phases: in memory up to
// limit bytes, then in a temporary file (removed when closed).
type spool struct {
	limit int
	mem   bytes.Buffer
	f     *os.File
	w     *bufio.Writer
	buf   []byte // the frame being written
}

// writeFrame appends an entry's frame (import_frame.go): its length,
// then its payload.
func (s *spool) writeFrame(e *importEntry) error {
	var err error
	if s.buf, err = encodeFrame(s.buf[:0], e); err != nil {
		return err
	}
	var hdr [binary.MaxVarintLen64]byte
	if _, err := s.Write(binary.AppendUvarint(hdr[:0], uint64(len(s.buf)))); err != nil {
		return err
	}
	_, err = s.Write(s.buf)
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

// maxFrameBytes bounds a spooled frame: a line's fields are bounded
// well below it (importcheck.go).
const maxFrameBytes = 1 << 30

// readFrame reads one spooled entry (checked already). A record without
// search text has its text analyzed as a write would.
func readFrame(rd *bufio.Reader) (importEntry, error) {
	n, err := binary.ReadUvarint(rd)
	if err == io.EOF {
		return importEntry{}, io.EOF
	} else if err != nil {
		return importEntry{}, fmt.Errorf("read the spooled import: %w", err)
	} else if n > maxFrameBytes {
		return importEntry{}, errors.New("read the spooled import: malformed entry")
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(rd, p); err != nil {
		return importEntry{}, fmt.Errorf("read the spooled import: %w", err)
	}
	e, err := decodeFrame(p)
	if err != nil {
		return e, err
	}
	if r := e.rec; r != nil && e.noSearchText {
		r.SearchText = searchText(strings.Join(append([]string{r.Key, r.Content}, r.Tags...), " "))
	}
	return e, nil
}
