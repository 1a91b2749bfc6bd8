package httpapi

import (
	"fmt"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(agentRoutes)

// agentRoutes are the routes of agents. Creating and listing span agents:
// bound keys are denied.
func agentRoutes() []endpoint {
	return []endpoint{
		{pattern: "POST /v1/agents", handler: (*Server).handleCreateAgent,
			op: loci.OpAgentCreate,
			doc: &apidoc.Op{ID: "createAgent", Tag: "agents",
				Desc: "Without `blocks` the agent gets the standard blocks `personality`, `relationships` and `current_state`, empty; with `blocks` (even empty) exactly those.",
				Body: apidoc.Closed([]string{"id"}, apidoc.Obj{
					"id":     apidoc.Str(fmt.Sprintf("At most %d bytes.", loci.MaxAgentIDBytes)),
					"name":   apidoc.Str(""),
					"blocks": apidoc.Array(apidoc.Ref("BlockSpec"), "The agent's initial blocks."),
				}),
				OK: apidoc.Created("Created.", apidoc.Success(apidoc.Object([]string{"id", "name", "created_at", "blocks"}, apidoc.Obj{
					"id": apidoc.Str(""), "name": apidoc.Str(""), "created_at": apidoc.Timestamp(""),
					"blocks": apidoc.Array(apidoc.Ref("Block"), ""),
				}))), Errs: []int{conflict}}},
		{pattern: "GET /v1/agents", handler: (*Server).handleListAgents,
			op: loci.OpAgentList,
			doc: &apidoc.Op{ID: "listAgents", Tag: "agents",
				Query: []apidoc.Obj{apidoc.Limit, apidoc.Offset},
				Desc: "By id: the agents created (explicitly, or by a block or passage write) and those known only by their " +
					"memories (an agent with only notes, working entries or episodes; no name, and 404 for its blocks until it has one).",
				OK: apidoc.Okay("The agents.", apidoc.List("agents", apidoc.Ref("Agent"), "How many agents there are."))}},
		{pattern: "GET /v1/agents/{agent_id}", handler: (*Server).handleGetAgent,
			op: loci.OpAgentGet,
			doc: &apidoc.Op{ID: "getAgent", Tag: "agents",
				OK: apidoc.Okay("The agent.", apidoc.Success(apidoc.Ref("Agent"))), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/agents/{agent_id}", handler: (*Server).handleDeleteAgent,
			op: loci.OpAgentDelete,
			doc: &apidoc.Op{ID: "deleteAgent", Tag: "agents",
				Desc: "Cascades to the agent's notes, blocks (and the links of its shared blocks), passages and other records, and to the adds of " +
					"messages queued for it, pending or done. 404 when none of these exists.",
				OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
	}
}

// createAgentRequest is the body of POST /v1/agents.
type createAgentRequest struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Blocks *[]loci.BlockSpec `json:"blocks"`
}

func (s *Server) handleCreateAgent(w http.ResponseWriter, r *http.Request) {
	var req createAgentRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	in := loci.AgentCreate{ID: req.ID, Name: req.Name}
	if req.Blocks != nil {
		in.Blocks = append([]loci.BlockSpec{}, *req.Blocks...)
	}
	a, blocks, err := s.AgentService.CreateAgent(r.Context(), in)
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
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	agents, total, err := s.AgentService.ListAgents(r.Context(), limit, offset)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "agents": agents})
}

func (s *Server) handleGetAgent(w http.ResponseWriter, r *http.Request) {
	a, err := s.AgentService.GetAgent(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"id": a.ID, "name": a.Name, "created_at": a.CreatedAt})
}

func (s *Server) handleDeleteAgent(w http.ResponseWriter, r *http.Request) {
	if err := s.AgentService.DeleteAgent(r.Context(), r.PathValue("agent_id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}
