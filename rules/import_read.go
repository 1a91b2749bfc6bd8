package rules

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/jsoncheck"
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
	deep, err := checkLineJSON(raw)
	if err != nil {
		return e, err
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
		} else if err := checkDepth(deep, "defaults", l.Defaults); err != nil {
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
		if err := checkRecordLine(raw, deep, &e); err != nil {
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

// lineNesting is how many levels of a line hold the deepest of the values
// it brings back: a version's data is in the line's object, its versions
// and the version's object (versions[0].data); a record's data and
// metadata and a user's defaults are in the line's object alone.
const lineNesting = 3

// checkLineJSON refuses a line that no request body could be: invalid
// UTF-8 (a lone surrogate included), malformed JSON, a NUL in a string or
// a member name, an object with a member named twice, a number out of
// float64's range, anywhere in the line (jsoncheck, as httpapi checks a
// body). Nesting counts from each value the line brings back, as it
// counted from the body that wrote it: deep reports a line that nests
// deeper than its values may where they stand, each of which the line's
// check then checks by itself (checkDepth).
func checkLineJSON(raw []byte) (deep bool, err error) {
	depth, ok := jsoncheck.Scan(raw, loci.MaxJSONDepth+lineNesting)
	if ok {
		return depth > loci.MaxJSONDepth+1, nil
	}
	if err := jsoncheck.Refusal(raw, "each line", math.MaxInt); err != nil {
		return false, err
	}
	return true, nil // refused for its depth alone
}

// checkDepth refuses v, a value of a line that checkLineJSON found deep,
// when it nests more than loci.MaxJSONDepth levels, naming it field.
func checkDepth(deep bool, field string, v json.RawMessage) error {
	if !deep {
		return nil
	}
	if _, ok := jsoncheck.Scan(v, loci.MaxJSONDepth); !ok {
		return loci.Errorf(loci.EINVALID, "%s: JSON must not nest more than %d levels deep", field, loci.MaxJSONDepth)
	}
	return nil
}

// checkRecordLine checks raw, a record's line, and keeps in e the record,
// its versions and what its kind's import rules need of its data; deep is
// checkLineJSON's.
func checkRecordLine(raw []byte, deep bool, e *importEntry) error {
	l := recordLine{Record: &loci.Record{}}
	if err := strict(raw, &l); err != nil {
		return err
	}
	if err := checkDepth(deep, "data", l.Data); err != nil {
		return err
	} else if err := checkDepth(deep, "metadata", l.Metadata); err != nil {
		return err
	}
	for i := 0; deep && i < len(l.Versions); i++ {
		v := l.Versions[i]
		if err := checkDepth(deep, fmt.Sprintf("versions[%d].data", i), v.Data); err != nil {
			return err
		} else if err := checkDepth(deep, fmt.Sprintf("versions[%d].metadata", i), v.Metadata); err != nil {
			return err
		}
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
