package rules

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

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
	e := importEntry{size: len(raw)}
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
		if err := checkRecordLine(raw, &e); err != nil {
			return e, err
		}
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

// checkRecordLine checks raw, a record's line, and keeps in e the record,
// its versions and what its kind's import rules need of its data.
func checkRecordLine(raw []byte, e *importEntry) error {
	l := recordLine{Record: &loci.Record{}}
	if err := strict(raw, &l); err != nil {
		return err
	}
	data, err := checkImportRecord(l.Record, deref(l.SearchText), l.Versions)
	if err != nil {
		if l.ID != "" && utf8.ValidString(l.ID) && len(l.ID) <= maxImportIDBytes {
			return relabel(err, "record %s: %s", l.ID, loci.ErrorMessage(err))
		}
		return err
	}
	// A record without search text (a file written by hand) has its
	// text analyzed when it is written (readFrame), beside the writes.
	l.Record.SearchText = deref(l.SearchText)
	e.noSearchText = l.SearchText == nil
	e.rec, e.versions = l.Record, l.Versions
	if k, ok := importOf(l.Record.Kind); ok {
		k.keepImportData(e, data)
	}
	return nil
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
