package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
)

func (s *Server) agentRoutes() {
	s.handle("POST /v1/agents", s.handleCreateAgent)
	s.handle("GET /v1/agents", s.handleListAgents)
	s.handle("GET /v1/agents/{agent_id}", s.handleGetAgent)
	s.handle("DELETE /v1/agents/{agent_id}", s.handleDeleteAgent)
	s.handle("GET /v1/agents/{agent_id}/blocks", s.handleListBlocks)
	s.handle("POST /v1/agents/{agent_id}/blocks", s.handleCreateBlock)
	s.handle("GET /v1/agents/{agent_id}/blocks/{label}", s.handleGetBlock)
	s.handle("PUT /v1/agents/{agent_id}/blocks/{label}", s.handleSetBlock)
	s.handle("GET /v1/agents/{agent_id}/blocks/{label}/history", s.handleBlockHistory)
	s.handle("PUT /v1/blocks/{block_id}/consumers/{agent_id}", s.handleAttachBlock)
	s.handle("DELETE /v1/blocks/{block_id}/consumers/{agent_id}", s.handleDetachBlock)
	s.handle("GET /v1/blocks/{block_id}/consumers", s.handleListConsumers)
	s.handle("GET /v1/agents/{agent_id}/prompt", s.handlePrompt)
}

// createAgentRequest is the body of POST /v1/agents.
type createAgentRequest struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Blocks *[]loci.BlockSpec `json:"blocks"`
}

func (s *Server) handleCreateAgent(w http.ResponseWriter, r *http.Request) {
	var req createAgentRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	in := loci.AgentCreate{ID: req.ID, Name: req.Name}
	if req.Blocks != nil {
		in.Blocks = append([]loci.BlockSpec{}, *req.Blocks...)
	}
	a, blocks, err := s.svc.CreateAgent(r.Context(), in)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if blocks == nil {
		blocks = []*loci.Block{}
	}
	ok(w, http.StatusCreated, map[string]any{"id": a.ID, "name": a.Name, "created_at": a.CreatedAt, "blocks": blocks})
}

func (s *Server) handleListAgents(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 100)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	agents, total, err := s.svc.ListAgents(r.Context(), limit, offset)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "agents": agents})
}

func (s *Server) handleGetAgent(w http.ResponseWriter, r *http.Request) {
	a, err := s.svc.GetAgent(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"id": a.ID, "name": a.Name, "created_at": a.CreatedAt})
}

func (s *Server) handleDeleteAgent(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.DeleteAgent(r.Context(), r.PathValue("agent_id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleListBlocks(w http.ResponseWriter, r *http.Request) {
	blocks, err := s.svc.ListBlocks(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(blocks), "blocks": blocks})
}

func (s *Server) handleGetBlock(w http.ResponseWriter, r *http.Request) {
	b, err := s.svc.GetBlock(r.Context(), r.PathValue("agent_id"), r.PathValue("label"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, blockFields(b))
}

// setBlockRequest is the body of PUT /v1/agents/{agent_id}/blocks/{label}.
type setBlockRequest struct {
	Content         *string `json:"content"`
	ExpectedVersion *int    `json:"expected_version"`
	Limit           int     `json:"limit"`
}

func (s *Server) handleSetBlock(w http.ResponseWriter, r *http.Request) {
	var req setBlockRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Content == nil {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "content is required"))
		return
	}
	b, created, err := s.svc.SetBlock(r.Context(), r.PathValue("agent_id"), r.PathValue("label"),
		loci.BlockWrite{Content: *req.Content, ExpectedVersion: req.ExpectedVersion, Limit: req.Limit})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status, action := http.StatusOK, loci.ActionUpdated
	if created {
		status, action = http.StatusCreated, loci.ActionCreated
	}
	fields := blockFields(b)
	fields["action"] = action
	ok(w, status, fields)
}

// createBlockRequest is the body of POST /v1/agents/{agent_id}/blocks.
type createBlockRequest struct {
	Label   string `json:"label"`
	Content string `json:"content"`
	Shared  bool   `json:"shared"`
	Limit   int    `json:"limit"`
}

func (s *Server) handleCreateBlock(w http.ResponseWriter, r *http.Request) {
	var req createBlockRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	b, err := s.svc.CreateBlock(r.Context(), r.PathValue("agent_id"),
		loci.BlockSpec{Label: req.Label, Content: req.Content, Limit: req.Limit}, req.Shared)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, blockFields(b))
}

func (s *Server) handleAttachBlock(w http.ResponseWriter, r *http.Request) {
	blockID, agentID := r.PathValue("block_id"), r.PathValue("agent_id")
	if err := s.svc.AttachBlock(r.Context(), blockID, agentID); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"block_id": blockID, "agent_id": agentID})
}

func (s *Server) handleDetachBlock(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.DetachBlock(r.Context(), r.PathValue("block_id"), r.PathValue("agent_id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleListConsumers(w http.ResponseWriter, r *http.Request) {
	links, err := s.svc.ListBlockConsumers(r.Context(), r.PathValue("block_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"block_id": r.PathValue("block_id"), "count": len(links), "consumers": links})
}

func (s *Server) handleBlockHistory(w http.ResponseWriter, r *http.Request) {
	versions, err := s.svc.BlockHistory(r.Context(), r.PathValue("agent_id"), r.PathValue("label"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"label": r.PathValue("label"), "count": len(versions), "versions": versions})
}

func (s *Server) handlePrompt(w http.ResponseWriter, r *http.Request) {
	text, err := s.svc.Prompt(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(text))
}

// blockFields is a block as the API answers it.
func blockFields(b *loci.Block) map[string]any {
	return map[string]any{
		"id": b.ID, "label": b.Label, "content": b.Content, "is_shared": b.IsShared,
		"owner_agent_id": b.OwnerAgentID, "limit": b.Limit, "version": b.Version,
		"created_at": b.CreatedAt, "updated_at": b.UpdatedAt,
	}
}
