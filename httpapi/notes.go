package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(noteRoutes)

// noteRoutes are the routes of notes, an agent's key-value memory.
func noteRoutes() []endpoint {
	remember := endpoint{pattern: "PUT /v1/agents/{agent_id}/notes/{key}", handler: (*Server).handleRemember,
		op: loci.OpNoteRemember,
		doc: &apidoc.Op{ID: "remember", Tag: "notes",
			Desc: "Creates or replaces the note. An empty or whitespace-only key or value is 400 and nothing is stored. " +
				fmt.Sprintf("A key is at most %d bytes, a value %s. ", loci.MaxNoteKeyBytes, apidoc.Bytes(loci.MaxNoteValueBytes)) + "The path `/v1/agents/{agent_id}/notes/` (empty key) answers 400 for PUT, GET and DELETE.",
			Body: apidoc.Closed([]string{"value"}, apidoc.Obj{"value": apidoc.AnyJSON("A string or any JSON.")}),
			OK:   apidoc.Upsert(apidoc.Success(apidoc.Ref("RememberResult"))), Errs: []int{tooLarge}}}
	recall := endpoint{pattern: "GET /v1/agents/{agent_id}/notes/{key}", handler: (*Server).handleRecall,
		op: loci.OpNoteRecall,
		doc: &apidoc.Op{ID: "recall", Tag: "notes",
			Desc: `404 with "error": "Memory not found" when absent.`,
			OK:   apidoc.Okay("The note.", apidoc.Success(apidoc.Ref("Note"))), Errs: []int{notFound}}}
	forget := endpoint{pattern: "DELETE /v1/agents/{agent_id}/notes/{key}", handler: (*Server).handleForget,
		op: loci.OpNoteForget,
		doc: &apidoc.Op{ID: "forget", Tag: "notes",
			OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}}
	return []endpoint{
		remember,
		recall,
		{pattern: "GET /v1/agents/{agent_id}/notes", handler: (*Server).handleRecallAll,
			op: loci.OpNoteRecallAll,
			doc: &apidoc.Op{ID: "recallAll", Tag: "notes",
				Desc:  "By key. An agent with none (or unknown) gets count 0; `count` is the total, the page holds at most `limit`.",
				Query: []apidoc.Obj{apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The notes.", apidoc.List("memories", apidoc.Ref("Note"), "How many notes the agent has."))}},
		forget,
		{pattern: "GET /v1/agents/{agent_id}/notes/{key}/history", handler: (*Server).handleHistory,
			op: loci.OpNoteHistory,
			doc: &apidoc.Op{ID: "noteHistory", Tag: "notes",
				Desc: "Newest first: the current value is the first version.",
				OK: apidoc.Okay("The versions.", apidoc.Success(apidoc.Object([]string{"key", "count", "versions"}, apidoc.Obj{
					"key":      apidoc.Str(""),
					"count":    apidoc.Integer(""),
					"versions": apidoc.Array(apidoc.Ref("NoteVersion"), "Current first."),
				}))), Errs: []int{notFound}}},
		emptyKey(remember),
		emptyKey(recall),
		emptyKey(forget),
	}
}

// emptyKey is the variant of a note route for an empty key
// (".../notes/"): bad input, answered 400 invalid by the same handler
// (its key is ""), not an unknown route. The note operation describes it.
func emptyKey(ep endpoint) endpoint {
	ep.pattern = strings.TrimSuffix(ep.pattern, "{key}") + "{$}"
	ep.doc, ep.undocumented = nil, "empty-key variant, described on the note operation"
	return ep
}

// rememberRequest is the body of PUT /v1/agents/{agent_id}/notes/{key}.
type rememberRequest struct {
	Value json.RawMessage `json:"value"`
}

func (s *Server) handleRemember(w http.ResponseWriter, r *http.Request) {
	var req rememberRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.NoteService.Remember(r.Context(), r.PathValue("agent_id"), r.PathValue("key"), req.Value)
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
	n, err := s.NoteService.Recall(r.Context(), r.PathValue("agent_id"), r.PathValue("key"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, withMetadata(map[string]any{"key": n.Key, "value": n.Value, "updated_at": n.UpdatedAt}, n.Metadata))
}

func (s *Server) handleRecallAll(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	notes, total, err := s.NoteService.ListNotes(r.Context(), r.PathValue("agent_id"), limit, offset)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "memories": notes})
}

func (s *Server) handleForget(w http.ResponseWriter, r *http.Request) {
	if err := s.NoteService.Forget(r.Context(), r.PathValue("agent_id"), r.PathValue("key")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	versions, err := s.NoteService.History(r.Context(), r.PathValue("agent_id"), r.PathValue("key"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"key": r.PathValue("key"), "count": len(versions), "versions": versions})
}
