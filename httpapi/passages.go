package httpapi

import (
	"fmt"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(passageRoutes)

// passageRoutes are the routes of archival passages.
func passageRoutes() []endpoint {
	return []endpoint{
		{pattern: "POST /v1/agents/{agent_id}/passages", handler: (*Server).handleAddPassage,
			op: loci.OpPassageAdd,
			doc: &apidoc.Op{ID: "addPassage", Tag: "passages",
				Desc: fmt.Sprintf("Content at most %s; at most %d tags of %d bytes. ", apidoc.Bytes(loci.MaxPassageBytes), loci.MaxPassageTags, loci.MaxTagBytes) +
					"The same content again (case and spacing aside) is the passage already stored, answered with its id: `event` `NOOP`, " +
					"or `UPDATE` when it brought tags the passage lacked, which are added (its previous value kept as a version).",
				Body: apidoc.Closed([]string{"content"}, apidoc.Obj{"content": apidoc.Str(""), "tags": apidoc.StrList("")}),
				OK: apidoc.Created("Added.", apidoc.Success(apidoc.Object([]string{"id", "created_at", "tags", "event"}, apidoc.Obj{
					"id": apidoc.Str(""), "created_at": apidoc.Timestamp(""), "tags": apidoc.Nullable(apidoc.StrList("The passage's tags, normalized.")),
					"event": apidoc.WithDesc(apidoc.Obj{"type": "string", "enum": []string{loci.EventAdd, loci.EventUpdate, loci.EventNoop}},
						"ADD, or for a repeat NOOP, or UPDATE when it added tags."),
				}))), Errs: []int{notFound}}},
		{pattern: "GET /v1/agents/{agent_id}/passages", handler: (*Server).handleListPassages,
			op: loci.OpPassageList,
			doc: &apidoc.Op{ID: "listPassages", Tag: "passages",
				Query: []apidoc.Obj{apidoc.QueryString("tag", "Only passages with this tag."), apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The passages.", apidoc.List("passages", apidoc.Ref("Passage"), "How many passages match."))}},
		{pattern: "GET /v1/agents/{agent_id}/passages/search", handler: (*Server).handleSearchPassages,
			op: loci.OpPassageSearch,
			doc: &apidoc.Op{ID: "searchPassages", Tag: "passages",
				Desc:  "Hybrid retrieval over the agent's passages; `tag` filters before ranking. A passage is found lexically as soon as it is written.",
				Query: []apidoc.Obj{apidoc.QueryRequired("q", "The query text.", apidoc.Obj{"type": "string"}), apidoc.QueryString("tag", "Only passages with this tag."), apidoc.SearchLimit, apidoc.Explain},
				OK:    apidoc.Ranked(apidoc.Ref("PassageResult"))}},
		{pattern: "DELETE /v1/agents/{agent_id}/passages/{id}", handler: (*Server).handleDeletePassage,
			op: loci.OpPassageDelete,
			doc: &apidoc.Op{ID: "deletePassage", Tag: "passages",
				OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
	}
}

// addPassageRequest is the body of POST /v1/agents/{agent_id}/passages.
type addPassageRequest struct {
	Content string   `json:"content"`
	Tags    []string `json:"tags"`
}

func (s *Server) handleAddPassage(w http.ResponseWriter, r *http.Request) {
	var req addPassageRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.PassageService.AddPassage(r.Context(), r.PathValue("agent_id"), req.Content, req.Tags)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, map[string]any{"id": p.ID, "created_at": p.CreatedAt, "tags": p.Tags, "event": p.Event})
}

func (s *Server) handleListPassages(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f := loci.PassageFilter{Tag: r.URL.Query().Get("tag"), Limit: limit, Offset: offset}
	passages, total, err := s.PassageService.ListPassages(r.Context(), r.PathValue("agent_id"), f)
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
	res, err := s.PassageService.SearchPassages(r.Context(), r.PathValue("agent_id"), q.Get("q"), f)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings, "retrieval": res.Retrieval})
}

func (s *Server) handleDeletePassage(w http.ResponseWriter, r *http.Request) {
	if err := s.PassageService.DeletePassage(r.Context(), r.PathValue("agent_id"), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}
