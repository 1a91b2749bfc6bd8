package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
)

func (s *Server) passageRoutes() {
	s.handle("POST /v1/agents/{agent_id}/passages", s.handleAddPassage)
	s.handle("GET /v1/agents/{agent_id}/passages", s.handleListPassages)
	s.handle("GET /v1/agents/{agent_id}/passages/search", s.handleSearchPassages)
	s.handle("DELETE /v1/agents/{agent_id}/passages/{id}", s.handleDeletePassage)
}

// addPassageRequest is the body of POST /v1/agents/{agent_id}/passages.
type addPassageRequest struct {
	Content string   `json:"content"`
	Tags    []string `json:"tags"`
}

func (s *Server) handleAddPassage(w http.ResponseWriter, r *http.Request) {
	var req addPassageRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.svc.AddPassage(r.Context(), r.PathValue("agent_id"), req.Content, req.Tags)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, map[string]any{"id": p.ID, "created_at": p.CreatedAt, "tags": p.Tags})
}

func (s *Server) handleListPassages(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 100)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f := loci.PassageFilter{Tag: r.URL.Query().Get("tag"), Limit: limit, Offset: offset}
	passages, total, err := s.svc.ListPassages(r.Context(), r.PathValue("agent_id"), f)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "passages": passages})
}

func (s *Server) handleSearchPassages(w http.ResponseWriter, r *http.Request) {
	limit, _, err := pageParams(r, 10)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	explain, err := queryBool(r, "explain")
	if err != nil {
		s.Error(w, r, err)
		return
	}
	q := r.URL.Query()
	f := loci.PassageFilter{Tag: q.Get("tag"), Limit: limit, Explain: explain}
	res, err := s.svc.SearchPassages(r.Context(), r.PathValue("agent_id"), q.Get("q"), f)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
}

func (s *Server) handleDeletePassage(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.DeletePassage(r.Context(), r.PathValue("agent_id"), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}
