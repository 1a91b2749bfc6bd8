package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(blockRoutes)

// blockRoutes are the routes of core memory blocks and the prompt they render.
// Attaching puts one agent's shared block into another agent's memory: it
// spans two agents, so bound keys are denied. Detaching changes only the
// consumer the path names. Listing consumers names the block by id: the rule
// lets a bound key list those of its own agent's blocks only.
func blockRoutes() []endpoint {
	withAction := apidoc.Success(apidoc.Ref("Block"), apidoc.ActionField)
	return []endpoint{
		{pattern: "GET /v1/agents/{agent_id}/blocks", handler: (*Server).handleListBlocks,
			op: loci.OpBlockList,
			doc: &apidoc.Op{ID: "listBlocks", Tag: "blocks",
				Desc: "Owned blocks and attached shared ones.",
				OK:   apidoc.Okay("The blocks.", apidoc.List("blocks", apidoc.Ref("Block"), "")), Errs: []int{notFound}}},
		{pattern: "POST /v1/agents/{agent_id}/blocks", handler: (*Server).handleCreateBlock,
			op: loci.OpBlockCreate,
			doc: &apidoc.Op{ID: "createBlock", Tag: "blocks",
				Desc: "With `shared: true` other agents may then be attached to it.",
				Body: apidoc.Closed([]string{"label"}, apidoc.Obj{
					"label":   apidoc.Str(""),
					"content": apidoc.Str(""),
					"shared":  apidoc.Boolean(""),
					"limit":   apidoc.Integer(fmt.Sprintf("Characters; default %d, at most %d.", loci.DefaultBlockLimit, loci.MaxBlockLimit)),
				}),
				OK: apidoc.Created("Created.", apidoc.Success(apidoc.Ref("Block"))), Errs: []int{notFound, conflict, tooLarge}}},
		{pattern: "GET /v1/agents/{agent_id}/blocks/{label}", handler: (*Server).handleGetBlock,
			op: loci.OpBlockGet,
			doc: &apidoc.Op{ID: "getBlock", Tag: "blocks",
				OK: apidoc.Okay("The block.", apidoc.Success(apidoc.Ref("Block"))), Errs: []int{notFound}}},
		{pattern: "PUT /v1/agents/{agent_id}/blocks/{label}", handler: (*Server).handleSetBlock,
			op: loci.OpBlockPut,
			doc: &apidoc.Op{ID: "setBlock", Tag: "blocks",
				Desc: "409 when `expected_version` is given and stale; 413 when the content is over the block's limit.",
				Body: apidoc.Closed([]string{"content"}, apidoc.Obj{
					"content":          apidoc.Str(""),
					"expected_version": apidoc.Integer("Compare-and-set: the version the caller last read."),
					"limit":            apidoc.Integer("Characters; sets the block's limit."),
				}),
				OK: apidoc.Upsert(withAction), Errs: []int{notFound, conflict, tooLarge}}},
		{pattern: "GET /v1/agents/{agent_id}/blocks/{label}/history", handler: (*Server).handleBlockHistory,
			op: loci.OpBlockHistory,
			doc: &apidoc.Op{ID: "blockHistory", Tag: "blocks",
				Desc: "The current content first, then each earlier one, newest first. An attached shared block answers the shared block's history.",
				OK: apidoc.Okay("The versions.", apidoc.Success(apidoc.Object([]string{"label", "count", "versions"}, apidoc.Obj{
					"label": apidoc.Str(""), "count": apidoc.Integer(""), "versions": apidoc.Array(apidoc.Ref("BlockVersion"), "The current content first."),
				}))), Errs: []int{notFound}}},
		{pattern: "PUT /v1/blocks/{block_id}/consumers/{agent_id}", handler: (*Server).handleAttachBlock,
			op: loci.OpBlockAttach,
			doc: &apidoc.Op{ID: "attachBlock", Tag: "blocks",
				Desc: "Idempotent. 409 when the agent already holds another block with the shared block's label.",
				OK: apidoc.Okay("Attached.", apidoc.Success(apidoc.Object([]string{"block_id", "agent_id"}, apidoc.Obj{
					"block_id": apidoc.Str(""), "agent_id": apidoc.Str(""),
				}))), Errs: []int{notFound, conflict}}},
		{pattern: "DELETE /v1/blocks/{block_id}/consumers/{agent_id}", handler: (*Server).handleDetachBlock,
			op: loci.OpBlockDetach,
			doc: &apidoc.Op{ID: "detachBlock", Tag: "blocks",
				OK: apidoc.Okay("Detached.", apidoc.PlainSuccess), Errs: []int{notFound}}},
		{pattern: "GET /v1/blocks/{block_id}/consumers", handler: (*Server).handleListConsumers,
			op: loci.OpBlockConsumers,
			doc: &apidoc.Op{ID: "listBlockConsumers", Tag: "blocks",
				OK: apidoc.Okay("The consumers.", apidoc.Success(apidoc.Object([]string{"block_id", "count", "consumers"}, apidoc.Obj{
					"block_id": apidoc.Str(""), "count": apidoc.Integer(""), "consumers": apidoc.Array(apidoc.Ref("BlockLink"), ""),
				}))), Errs: []int{notFound}}},
		{pattern: "GET /v1/agents/{agent_id}/prompt", handler: (*Server).handlePrompt,
			op: loci.OpAgentPrompt,
			doc: &apidoc.Op{ID: "agentPrompt", Tag: "blocks",
				Desc: "Every block with content as `### {label}\\n{content}`, a blank line between, owned blocks first by label; empty blocks are left out (an agent whose blocks are all empty has an empty prompt).",
				OK:   map[int]apidoc.Resp{http.StatusOK: {Desc: "The prompt.", Schema: apidoc.Obj{"type": "string"}, Media: "text/plain"}},
				Errs: []int{notFound}}},
	}
}

func (s *Server) handleListBlocks(w http.ResponseWriter, r *http.Request) {
	blocks, err := s.BlockService.ListBlocks(r.Context(), r.PathValue("agent_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(blocks), "blocks": blocks})
}

func (s *Server) handleGetBlock(w http.ResponseWriter, r *http.Request) {
	b, err := s.BlockService.GetBlock(r.Context(), r.PathValue("agent_id"), r.PathValue("label"))
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
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Content == nil {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "content is required"))
		return
	}
	b, created, err := s.BlockService.SetBlock(r.Context(), r.PathValue("agent_id"), r.PathValue("label"),
		loci.BlockWrite{Content: *req.Content, ExpectedVersion: req.ExpectedVersion, Limit: req.Limit})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	written(w, created, blockFields(b))
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
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	b, err := s.BlockService.CreateBlock(r.Context(), r.PathValue("agent_id"),
		loci.BlockSpec{Label: req.Label, Content: req.Content, Limit: req.Limit}, req.Shared)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, blockFields(b))
}

func (s *Server) handleAttachBlock(w http.ResponseWriter, r *http.Request) {
	blockID, agentID := r.PathValue("block_id"), r.PathValue("agent_id")
	if err := s.BlockService.AttachBlock(r.Context(), blockID, agentID); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"block_id": blockID, "agent_id": agentID})
}

func (s *Server) handleDetachBlock(w http.ResponseWriter, r *http.Request) {
	if err := s.BlockService.DetachBlock(r.Context(), r.PathValue("block_id"), r.PathValue("agent_id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleListConsumers(w http.ResponseWriter, r *http.Request) {
	links, err := s.BlockService.ListBlockConsumers(r.Context(), r.PathValue("block_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"block_id": r.PathValue("block_id"), "count": len(links), "consumers": links})
}

func (s *Server) handleBlockHistory(w http.ResponseWriter, r *http.Request) {
	versions, err := s.BlockService.BlockHistory(r.Context(), r.PathValue("agent_id"), r.PathValue("label"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"label": r.PathValue("label"), "count": len(versions), "versions": versions})
}

func (s *Server) handlePrompt(w http.ResponseWriter, r *http.Request) {
	text, err := s.BlockService.Prompt(r.Context(), r.PathValue("agent_id"))
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
	return withMetadata(map[string]any{
		"id": b.ID, "label": b.Label, "content": b.Content, "is_shared": b.IsShared,
		"owner_agent_id": b.OwnerAgentID, "limit": b.Limit, "version": b.Version,
		"created_at": b.CreatedAt, "updated_at": b.UpdatedAt,
	}, b.Metadata)
}

// withMetadata adds a record's metadata to the fields of its kind's
// answer, when it has any (docs/records.md, "Metadata").
func withMetadata(fields map[string]any, meta json.RawMessage) map[string]any {
	if len(meta) > 0 {
		fields["metadata"] = meta
	}
	return fields
}
