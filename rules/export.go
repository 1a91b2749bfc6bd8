package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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
// the lexical index is rebuilt exactly, an empty one included) and its
// kept versions. Export always writes the search text; an import line
// without one (a file written by hand) has its text analyzed.
type recordLine struct {
	Type string `json:"type"`
	*loci.Record
	SearchText *string              `json:"search_text"`
	Versions   []loci.RecordVersion `json:"versions,omitempty"`
}

type linkLine struct {
	Type string `json:"type"`
	loci.BlockLink
}

// Export writes the context's workspace, or one user's records and user
// row, as JSON Lines, from one snapshot of the store, in a stable order. It
// returns how many records it wrote; its audit entry notes their ids.
func (s *Service) Export(ctx context.Context, f loci.ExportFilter, w io.Writer) (n int, err error) {
	a, err := s.begin(ctx, loci.OpExport, loci.Scope{UserID: f.UserID})
	// A stream that fails midway has sent records: the entry keeps them.
	defer a.endPartial(&err)
	if err != nil {
		return 0, err
	}
	if err := loci.Authorize(ctx, loci.RoleAdmin); err != nil {
		return 0, err
	}
	if f.UserID != "" {
		if err := loci.RequireText("user_id", f.UserID, loci.MaxUserIDBytes); err != nil {
			return 0, err
		}
	}
	ws := loci.WorkspaceFrom(ctx)
	cw := &countingWriter{w: w}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	// One snapshot: agents, users, records, their kept versions and block
	// links are read in separate statements, and must agree.
	err = a.snapshot(func(tx loci.Tx) error {
		// The retry policy may run this twice; what a failed attempt
		// wrote cannot be taken back, so only an attempt that wrote
		// nothing is retried.
		if cw.n > 0 {
			return errStreamUsed
		}
		n = 0
		// An expired record is in no export (docs/rules.md, "Expiry hides at
		// once, maintenance deletes later"), but for the kinds still read once
		// past their expiry (an ended session). The versions of a keyed
		// fact's timeline that name an expired one left out are written as
		// maintenance will leave them, naming it no more (unlinkExpired).
		now := s.now()
		rf := loci.RecordFilter{Workspace: ws, LiveAt: now, Lasting: readExpiredKinds(), Order: loci.OrderCreatedAsc}
		if f.UserID != "" {
			rf.UserID = &f.UserID
		}
		if err := exportAccounts(ctx, tx, ws, f.UserID, enc); err != nil {
			return err
		}
		recs, err := tx.FindRecords(ctx, rf)
		if err != nil {
			return err
		}
		gone, err := expiredFacts(ctx, tx, rf.UserID, ws, now)
		if err != nil {
			return err
		}
		for _, r := range recs {
			versions, err := tx.ListVersions(ctx, r.ID)
			if err != nil {
				return err
			}
			if r, err = unlinkExpired(r, gone); err != nil {
				return err
			}
			if err := enc.Encode(recordLine{Type: lineRecord, Record: r, SearchText: &r.SearchText, Versions: versions}); err != nil {
				return err
			}
			a.touch(r.ID)
			n++
		}
		if f.UserID != "" {
			return nil
		}
		return exportBlockLinks(ctx, tx, ws, enc)
	})
	// n, not the ids noted: a retry that finds the stream used forgets
	// the ids its first attempt noted, not what it wrote.
	a.count(n)
	if err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

// expiredFacts returns the ids of the keyed facts of workspace ws (of
// user userID, when set) expired at now, which an export leaves out, and
// which maintenance's expire deletes, unlinking their neighbours
// (unlinkForgottenFacts).
func expiredFacts(ctx context.Context, tx loci.Tx, userID *string, ws string, now time.Time) (map[string]bool, error) {
	recs, err := tx.FindRecords(ctx, loci.RecordFilter{
		Workspace: ws, Kinds: []loci.Kind{loci.KindFact}, UserID: userID, Keyed: true, ExpiredAt: now, Order: loci.OrderNone,
	})
	if err != nil {
		return nil, err
	}
	gone := make(map[string]bool, len(recs))
	for _, r := range recs {
		gone[r.ID] = true
	}
	return gone, nil
}

// unlinkExpired returns r, a fact of a key's timeline that names an
// expired version (gone, which the export leaves out), as maintenance's
// expire leaves it once it has deleted that version: the link dropped,
// its validity kept (unlinkForgottenFacts); its version and updated_at
// are the stored ones. Any other record is returned as it is.
func unlinkExpired(r *loci.Record, gone map[string]bool) (*loci.Record, error) {
	if len(gone) == 0 || r.Kind != loci.KindFact || r.Key == "" {
		return r, nil
	}
	var d factData
	if err := decodeData(r, &d); err != nil {
		return nil, err
	}
	if !gone[d.SupersededBy] && !gone[d.Supersedes] {
		return r, nil
	}
	if gone[d.SupersededBy] {
		d.SupersededBy = ""
	}
	if gone[d.Supersedes] {
		d.Supersedes = ""
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encode fact: %w", err)
	}
	next := *r
	next.Data = data
	return &next, nil
}

// exportAccounts writes the agents and users of workspace ws, or user
// userID's row alone (none if it has none) when userID is given.
func exportAccounts(ctx context.Context, tx loci.Tx, ws, userID string, enc *json.Encoder) error {
	if userID != "" {
		u, err := tx.GetUser(ctx, ws, userID)
		if err == nil {
			return enc.Encode(userLine{lineUser, u})
		} else if loci.ErrorCode(err) != loci.ENOTFOUND {
			return err
		}
		return nil
	}
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
	return nil
}

// exportBlockLinks writes the block links of workspace ws.
func exportBlockLinks(ctx context.Context, tx loci.Tx, ws string, enc *json.Encoder) error {
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
	if dec.More() {
		return loci.Errorf(loci.EINVALID, "unexpected data after the object")
	}
	return nil
}

// errStreamUsed ends a retried export whose first attempt already wrote
// output: a stream cannot be replayed. It is not transient, so the retry
// policy reports it.
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
