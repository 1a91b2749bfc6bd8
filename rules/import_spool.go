package rules

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/loci-memory/loci"
)

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
