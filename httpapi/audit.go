package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/loci-memory/loci"
)

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
	entries, total, err := s.AuditService.FindAudit(r.Context(), f)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "entries": entries})
}
