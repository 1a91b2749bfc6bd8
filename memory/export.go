package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// The line types of an export, in the order an export writes them: a
// block link refers to a record, so records come before links.
const (
	lineAgent     = "agent"
	lineUser      = "user"
	lineRecord    = "record"
	lineBlockLink = "block_link"
)

type agentLine struct {
	Type string `json:"type"`
	*loci.Agent
}

type userLine struct {
	Type string `json:"type"`
	*loci.User
}

// recordLine is a record with every field, the analyzed search text (so
// the lexical index is rebuilt exactly) and its kept versions.
type recordLine struct {
	Type string `json:"type"`
	*loci.Record
	SearchText string               `json:"search_text"`
	Versions   []loci.RecordVersion `json:"versions,omitempty"`
}

type linkLine struct {
	Type string `json:"type"`
	loci.BlockLink
}

// Export writes the context's workspace, or one user's records and user
// row, as JSON Lines, in one read transaction, in a stable order.
func (s *Service) Export(ctx context.Context, f loci.ExportFilter, w io.Writer) (int, error) {
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return 0, err
	}
	if f.UserID != "" {
		if err := requireText("user_id", f.UserID, loci.MaxNoteKeyBytes); err != nil {
			return 0, err
		}
	}
	ws := loci.WorkspaceFrom(ctx)
	cw := &countingWriter{w: w}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	n := 0
	err := s.store.View(ctx, func(tx loci.Tx) error {
		// The retry policy may run this twice; what a failed attempt
		// wrote cannot be taken back, so only an attempt that wrote
		// nothing is retried.
		if cw.n > 0 {
			return errStreamUsed
		}
		n = 0
		rf := loci.RecordFilter{Workspace: ws, Order: loci.OrderCreatedAsc}
		if f.UserID == "" {
			agents, _, err := tx.ListAgents(ctx, ws, 0, 0)
			if err != nil {
				return err
			}
			for _, a := range agents {
				if err := enc.Encode(agentLine{lineAgent, a}); err != nil {
					return err
				}
			}
			users, _, err := tx.ListUsers(ctx, ws, 0, 0)
			if err != nil {
				return err
			}
			for _, u := range users {
				if err := enc.Encode(userLine{lineUser, u}); err != nil {
					return err
				}
			}
		} else {
			rf.UserID = &f.UserID
			u, err := tx.GetUser(ctx, ws, f.UserID)
			if err == nil {
				if err := enc.Encode(userLine{lineUser, u}); err != nil {
					return err
				}
			} else if loci.ErrorCode(err) != loci.ENOTFOUND {
				return err
			}
		}
		recs, err := tx.FindRecords(ctx, rf)
		if err != nil {
			return err
		}
		for _, r := range recs {
			versions, err := tx.ListVersions(ctx, r.ID)
			if err != nil {
				return err
			}
			if err := enc.Encode(recordLine{Type: lineRecord, Record: r, SearchText: r.SearchText, Versions: versions}); err != nil {
				return err
			}
			n++
		}
		if f.UserID != "" {
			return nil
		}
		links, err := tx.ListBlockLinks(ctx, ws, "", "")
		if err != nil {
			return err
		}
		for _, l := range links {
			if err := enc.Encode(linkLine{lineBlockLink, l}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

// Import reads an export into the context's workspace in one transaction:
// all of it is stored, or nothing.
func (s *Service) Import(ctx context.Context, r io.Reader) (*loci.ImportResult, error) {
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return nil, err
	}
	ws := loci.WorkspaceFrom(ctx)
	res := &loci.ImportResult{}
	read := false
	err := s.store.Update(ctx, func(tx loci.Tx) error {
		// The retry policy may run this twice, but a failed attempt has
		// consumed the input: it cannot be read again.
		if read {
			return errStreamUsed
		}
		read = true
		*res = loci.ImportResult{}
		dec := json.NewDecoder(r)
		for line := 1; ; line++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				return nil
			} else if err != nil {
				return loci.Errorf(loci.EINVALID, "line %d: malformed JSON", line)
			}
			if err := s.importLine(ctx, tx, ws, raw, res); err != nil {
				if code := loci.ErrorCode(err); code != loci.EINTERNAL {
					return loci.Errorf(code, "line %d: %s", line, loci.ErrorMessage(err))
				}
				return fmt.Errorf("line %d: %w", line, err)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return res, nil
}

// strict decodes raw into v, rejecting unknown fields.
func strict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return loci.Errorf(loci.EINVALID, "field %q has the wrong type", te.Field)
		}
		return loci.Errorf(loci.EINVALID, "%s", err.Error())
	}
	return nil
}

func (s *Service) importLine(ctx context.Context, tx loci.Tx, ws string, raw json.RawMessage, res *loci.ImportResult) error {
	if !utf8.Valid(raw) {
		return loci.Errorf(loci.EINVALID, "not valid UTF-8")
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return loci.Errorf(loci.EINVALID, "each line must be a JSON object with a type")
	}
	switch head.Type {
	case lineAgent:
		l := agentLine{Agent: &loci.Agent{}}
		if err := strict(raw, &l); err != nil {
			return err
		} else if err := requireText("agent id", l.ID, loci.MaxNoteKeyBytes); err != nil {
			return err
		}
		l.Workspace = ws
		if err := tx.InsertAgent(ctx, l.Agent); err != nil {
			return err
		}
		res.Agents++
	case lineUser:
		l := userLine{User: &loci.User{}}
		if err := strict(raw, &l); err != nil {
			return err
		} else if err := requireText("user id", l.ID, loci.MaxNoteKeyBytes); err != nil {
			return err
		}
		_, created, err := tx.EnsureUser(ctx, ws, l.ID, l.CreatedAt)
		if err != nil {
			return err
		} else if !created {
			return loci.Errorf(loci.ECONFLICT, "user %s already exists", l.ID)
		}
		l.Workspace = ws
		if err := tx.UpdateUser(ctx, l.User); err != nil {
			return err
		}
		res.Users++
	case lineRecord:
		l := recordLine{Record: &loci.Record{}}
		if err := strict(raw, &l); err != nil {
			return err
		}
		rec := l.Record
		if err := requireText("record id", rec.ID, 64); err != nil {
			return err
		} else if !rec.Kind.Valid() {
			return loci.Errorf(loci.EINVALID, "record %s: unknown kind %q", rec.ID, rec.Kind)
		} else if rec.Version < 1 || rec.CreatedAt.IsZero() || rec.UpdatedAt.IsZero() {
			return loci.Errorf(loci.EINVALID, "record %s: version, created_at and updated_at are required", rec.ID)
		}
		rec.Workspace, rec.SearchText = ws, l.SearchText
		if err := tx.InsertRecord(ctx, rec); err != nil {
			if loci.ErrorCode(err) == loci.ECONFLICT {
				return loci.Errorf(loci.ECONFLICT, "record %s (or its key) already exists", rec.ID)
			}
			return err
		}
		for _, v := range l.Versions {
			v.RecordID = rec.ID
			if err := tx.InsertVersion(ctx, v); err != nil {
				return err
			}
			res.Versions++
		}
		res.Records++
	case lineBlockLink:
		var l linkLine
		if err := strict(raw, &l); err != nil {
			return err
		} else if err := requireText("agent_id", l.AgentID, loci.MaxNoteKeyBytes); err != nil {
			return err
		}
		if _, err := tx.GetRecord(ctx, ws, l.BlockID); loci.ErrorCode(err) == loci.ENOTFOUND {
			return loci.Errorf(loci.EINVALID, "block link to unknown block %q", l.BlockID)
		} else if err != nil {
			return err
		}
		if err := tx.AttachBlock(ctx, ws, l.BlockID, l.AgentID, l.CreatedAt); err != nil {
			return err
		}
		res.BlockLinks++
	default:
		return loci.Errorf(loci.EINVALID, "unknown line type %q", head.Type)
	}
	return nil
}

// errStreamUsed ends a retried export or import whose first attempt
// already wrote output or read input: a stream cannot be replayed. It is
// not transient, so the retry policy reports it.
var errStreamUsed = errors.New("a storage failure interrupted the stream and it cannot be replayed; run it again")

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
