package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
)

// itemIDFields are the fields, in order of preference, that identify an
// item of a listed response; the first present is logged.
var itemIDFields = []string{"id", "key", "label", "type", "session_id"}

// writeAudit appends the one audit entry of a request: who, the operation,
// the scope, the kind, the ids and count read from the JSON response (or
// set by a streaming handler), never content.
func (s *Server) writeAudit(r *http.Request, pol Policy, p *loci.Principal, sc loci.Scope, wildcards []string, rec *recorder, status int, ar *auditResult) {
	ctx := context.WithoutCancel(r.Context())
	e := loci.AuditEntry{Operation: pol.Op, Scope: sc, Kind: pol.Kind, Status: status}
	if p != nil {
		ctx = loci.WithPrincipal(loci.WithWorkspace(ctx, p.Workspace), p)
	}
	if ar.set {
		e.RecordIDs, e.Count = ar.ids, ar.count
	} else {
		e.RecordIDs, e.Count = responseIDs(rec)
		if status < 300 && len(e.RecordIDs) == 0 {
			// Nothing in the answer (a delete): the record the path names.
			for _, name := range wildcards {
				if !isScopeField(name) {
					if v := r.PathValue(name); v != "" {
						e.RecordIDs = append(e.RecordIDs, v)
					}
				}
			}
			if e.Count == 0 {
				e.Count = len(e.RecordIDs)
			}
		}
	}
	if len(e.RecordIDs) > maxAuditIDs {
		e.RecordIDs = e.RecordIDs[:maxAuditIDs]
	}
	if err := s.svc.Audit(ctx, e); err != nil {
		s.logger.Error("audit log write failed", "op", pol.Op, "err", err)
	}
}

func isScopeField(name string) bool {
	for _, f := range scopeFields {
		if name == f {
			return true
		}
	}
	return false
}

// responseIDs reads the ids and the count of a captured JSON answer: the
// top-level id or key, the id-like field of each object in a top-level
// array, and the top-level count (else the number of ids).
func responseIDs(rec *recorder) ([]string, int) {
	if !rec.json || rec.buf.Len() == 0 {
		return nil, 0
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(rec.buf.Bytes(), &top) != nil {
		return nil, 0
	}
	if ok, _ := top["success"]; string(ok) != "true" {
		return nil, 0
	}
	var ids []string
	for _, f := range []string{"id", "key"} {
		var v string
		if raw, ok := top[f]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
			ids = append(ids, v)
			break
		}
	}
	for _, raw := range top {
		if len(raw) == 0 || raw[0] != '[' {
			continue
		}
		var items []map[string]json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		for _, it := range items {
			for _, f := range itemIDFields {
				var v string
				if raw, ok := it[f]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
					ids = append(ids, v)
					break
				}
			}
		}
	}
	count := len(ids)
	for _, f := range []string{"count", "deleted"} {
		var n int
		if raw, ok := top[f]; ok && json.Unmarshal(raw, &n) == nil {
			count = n
			break
		}
	}
	return ids, count
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := loci.AuditFilter{
		AgentID: q.Get("agent_id"), UserID: q.Get("user_id"), KeyID: q.Get("key_id"), Operation: q.Get("operation"),
		Limit: 100,
	}
	if v := q.Get("limit"); v != "" {
		f.Limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" {
		f.Offset, _ = strconv.Atoi(v)
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "since must be an RFC 3339 time"))
			return
		}
		f.Since = t
	}
	entries, total, err := s.svc.FindAudit(r.Context(), f)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// The entries' own ids are not logged as record ids of this read.
	setAuditResult(r, nil, len(entries))
	ok(w, http.StatusOK, map[string]any{"count": total, "entries": entries})
}
