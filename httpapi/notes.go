package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
)

func (s *Server) noteRoutes() {
	s.handle("PUT /v1/agents/{agent_id}/notes/{key}", s.handleRemember)
	s.handle("GET /v1/agents/{agent_id}/notes/{key}", s.handleRecall)
	s.handle("GET /v1/agents/{agent_id}/notes", s.handleRecallAll)
	s.handle("DELETE /v1/agents/{agent_id}/notes/{key}", s.handleForget)
	s.handle("GET /v1/agents/{agent_id}/notes/{key}/history", s.handleHistory)
	// An empty key (".../notes/") is bad input, answered 400 invalid by the
	// same handlers (their key is ""), not an unknown route.
	s.handle("PUT /v1/agents/{agent_id}/notes/{$}", s.handleRemember)
	s.handle("GET /v1/agents/{agent_id}/notes/{$}", s.handleRecall)
	s.handle("DELETE /v1/agents/{agent_id}/notes/{$}", s.handleForget)
}

// rememberRequest is the body of PUT /v1/agents/{agent_id}/notes/{key}.
type rememberRequest struct {
	Value json.RawMessage `json:"value"`
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	var req rememberRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.svc.Remember(r.Context(), r.PathValue("agent_id"), r.PathValue("key"), req.Value)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status := http.StatusOK
	if res.Action == loci.ActionCreated {
		status = http.StatusCreated
	}
	ok(w, status, map[string]any{
		"message":    "Remembered: " + res.Key,
		"action":     res.Action,
		"key":        res.Key,
		"updated_at": res.UpdatedAt,
	})
}

func (s *Server) handleRecall(w http.ResponseWriter, r *http.Request) {
	n, err := s.svc.Recall(r.Context(), r.PathValue("agent_id"), r.PathValue("key"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"key": n.Key, "value": n.Value, "updated_at": n.UpdatedAt})
}

func (s *Server) handleRecallAll(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 100)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	notes, err := s.svc.RecallAll(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(notes), "memories": page(notes, limit, offset)})
}

func (s *Server) handleForget(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.Forget(r.Context(), r.PathValue("agent_id"), r.PathValue("key")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	versions, err := s.svc.History(r.Context(), r.PathValue("agent_id"), r.PathValue("key"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"key": r.PathValue("key"), "count": len(versions), "versions": versions})
}
