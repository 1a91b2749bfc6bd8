package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(workingRoutes)

// workingRoutes are the routes of working memory: a task's scratchpad of keyed
// values. The handlers narrow a task to the agent_id of the query (the body of
// a PUT), so a bound key names its own agent there.
func workingRoutes() []endpoint {
	scope := []apidoc.Obj{apidoc.QueryString("agent_id", "Only this agent's entries."), apidoc.QueryString("user_id", "Only this user's entries.")}
	withAction := apidoc.Success(apidoc.Ref("WorkingEntry"), apidoc.ActionField)
	return []endpoint{
		{pattern: "PUT /v1/tasks/{task_id}/working/{key}", handler: (*Server).handleSetWorking,
			op: loci.OpWorkingSet,
			doc: &apidoc.Op{ID: "setWorking", Tag: "working",
				Desc: "Expires 24 hours after the last write. 413 when the task's values would pass 50 KB (51,200 bytes), each value counted as its compact JSON with strings as UTF-8, whatever escapes the request used.",
				Body: apidoc.Closed([]string{"value", "agent_id"}, apidoc.Obj{
					"value": apidoc.AnyJSON("Any JSON."), "agent_id": apidoc.Str(""), "user_id": apidoc.Str(""),
				}),
				OK: apidoc.Upsert(withAction), Errs: []int{tooLarge}}},
		{pattern: "GET /v1/tasks/{task_id}/working/{key}", handler: (*Server).handleGetWorking,
			op: loci.OpWorkingGet,
			doc: &apidoc.Op{ID: "getWorking", Tag: "working",
				Desc: "404 when absent or expired.", Query: scope,
				OK: apidoc.Okay("The entry.", apidoc.Success(apidoc.Ref("WorkingEntry"))), Errs: []int{notFound}}},
		{pattern: "GET /v1/tasks/{task_id}/working", handler: (*Server).handleListWorking,
			op: loci.OpWorkingGetAll,
			doc: &apidoc.Op{ID: "listWorking", Tag: "working",
				Query: scope,
				Desc:  "`values` maps each key to its value (the most recent when several agents or users wrote it); `working` holds the entries with their scope.",
				OK: apidoc.Okay("The task's working memory.", apidoc.Success(apidoc.Object([]string{"task_id", "count", "values", "working"}, apidoc.Obj{
					"task_id": apidoc.Str(""),
					"count":   apidoc.Integer("How many distinct keys."),
					"values":  apidoc.MapOf(apidoc.AnyJSON(""), "Key to value."),
					"working": apidoc.Nullable(apidoc.Array(apidoc.Ref("WorkingEntry"), "")),
				})))}},
		{pattern: "DELETE /v1/tasks/{task_id}/working/{key}", handler: (*Server).handleDeleteWorking,
			op: loci.OpWorkingDelete,
			doc: &apidoc.Op{ID: "deleteWorking", Tag: "working",
				Desc:  "Every agent's and user's entry of the key (narrowed by the query), expired or not; 404 when there is none.",
				Query: scope, OK: apidoc.Okay("Deleted.", apidoc.DeletedCount), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/tasks/{task_id}/working", handler: (*Server).handleClearWorking,
			op: loci.OpWorkingClear,
			doc: &apidoc.Op{ID: "clearWorking", Tag: "working",
				Query: scope, OK: apidoc.Okay("Cleared.", apidoc.DeletedCount)}},
	}
}

// workingRequest is the body of PUT /v1/tasks/{task_id}/working/{key}.
type workingRequest struct {
	Value   json.RawMessage `json:"value"`
	AgentID string          `json:"agent_id"`
	UserID  string          `json:"user_id,omitempty"`
}

// workingFilterOf reads the optional agent_id and user_id query parameters
// that narrow a task's working memory.
func workingFilterOf(r *http.Request) loci.WorkingFilter {
	q := r.URL.Query()
	return loci.WorkingFilter{AgentID: q.Get("agent_id"), UserID: q.Get("user_id")}
}

func (s *Server) handleSetWorking(w http.ResponseWriter, r *http.Request) {
	var req workingRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	e, created, err := s.WorkingService.SetWorking(r.Context(), loci.WorkingInput{
		TaskID: r.PathValue("task_id"), AgentID: req.AgentID, UserID: req.UserID, Key: r.PathValue("key"), Value: req.Value,
	})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	written(w, created, workingFields(e, map[string]any{}))
}

func workingFields(e *loci.WorkingEntry, fields map[string]any) map[string]any {
	fields["task_id"], fields["agent_id"], fields["key"] = e.TaskID, e.AgentID, e.Key
	fields["value"], fields["updated_at"], fields["expires_at"] = e.Value, e.UpdatedAt, e.ExpiresAt
	if e.UserID != "" {
		fields["user_id"] = e.UserID
	}
	return withMetadata(fields, e.Metadata)
}

func (s *Server) handleGetWorking(w http.ResponseWriter, r *http.Request) {
	e, err := s.WorkingService.GetWorking(r.Context(), r.PathValue("task_id"), r.PathValue("key"), workingFilterOf(r))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, workingFields(e, map[string]any{}))
}

// handleListWorking answers the task's working memory as one object,
// key to value (the most recently written value when several agents or
// users wrote the same key), and the entries with their scope.
func (s *Server) handleListWorking(w http.ResponseWriter, r *http.Request) {
	entries, err := s.WorkingService.ListWorking(r.Context(), r.PathValue("task_id"), workingFilterOf(r))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	values := map[string]json.RawMessage{}
	for _, e := range entries {
		if _, seen := values[e.Key]; !seen {
			values[e.Key] = e.Value
		}
	}
	ok(w, http.StatusOK, map[string]any{"task_id": r.PathValue("task_id"), "count": len(values), "values": values, "working": entries})
}

func (s *Server) handleClearWorking(w http.ResponseWriter, r *http.Request) {
	n, err := s.WorkingService.ClearWorking(r.Context(), r.PathValue("task_id"), workingFilterOf(r))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

func (s *Server) handleDeleteWorking(w http.ResponseWriter, r *http.Request) {
	n, err := s.WorkingService.DeleteWorking(r.Context(), r.PathValue("task_id"), r.PathValue("key"), workingFilterOf(r))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}
