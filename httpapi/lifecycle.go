package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

// lifecycleRoutes are the routes of working, episodic and long-term
// memory (seed 003), and maintenance. The working memory handlers narrow
// a task to the agent_id of the query (the body of a PUT), so a bound key
// names its own agent there. Feedback names an episode by id only: bound
// keys are denied.
func lifecycleRoutes() []endpoint {
	scope := []apidoc.Obj{apidoc.QueryString("agent_id", "Only this agent's entries."), apidoc.QueryString("user_id", "Only this user's entries.")}
	withAction := apidoc.Success(apidoc.Ref("WorkingEntry"), apidoc.ActionField)
	episodeFilters := []apidoc.Obj{
		apidoc.QueryRequired("user_id", "", apidoc.Obj{"type": "string"}), apidoc.QueryRequired("agent_id", "", apidoc.Obj{"type": "string"}),
		apidoc.QueryString("action_type", ""),
		apidoc.Query("outcome", "", apidoc.Ref("Outcome")),
	}
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
		{pattern: "POST /v1/episodes", handler: (*Server).handleRecordEpisode,
			op: loci.OpEpisodeRecord,
			doc: &apidoc.Op{ID: "recordEpisode", Tag: "episodes",
				Desc: "Kept 30 days.", Body: apidoc.Ref("EpisodeInput"),
				OK: apidoc.Created("Recorded.", apidoc.Success(apidoc.Object([]string{"id", "created_at", "expires_at"}, apidoc.Obj{
					"id": apidoc.Str(""), "created_at": apidoc.Timestamp(""), "expires_at": apidoc.Timestamp(""),
				})))}},
		{pattern: "GET /v1/episodes/search", handler: (*Server).handleSearchEpisodes,
			op: loci.OpEpisodeSearch,
			doc: &apidoc.Op{ID: "searchEpisodes", Tag: "episodes",
				Desc:  "Hybrid retrieval over the unexpired episodes of the user and agent; the outcome and action type filter before ranking, and `confidence_score` weighs in. `q` must contain at least one word.",
				Query: append([]apidoc.Obj{apidoc.QueryRequired("q", "The query text.", apidoc.Obj{"type": "string"})}, append(append([]apidoc.Obj{}, episodeFilters...), apidoc.SearchLimit, apidoc.Explain)...),
				OK:    apidoc.Ranked(apidoc.Ref("ScoredEpisode"))}},
		{pattern: "GET /v1/episodes", handler: (*Server).handleRecentEpisodes,
			op: loci.OpEpisodeList,
			doc: &apidoc.Op{ID: "recentEpisodes", Tag: "episodes",
				Desc:  "Unexpired only.",
				Query: append(append([]apidoc.Obj{}, episodeFilters...), apidoc.Limit, apidoc.Offset),
				OK:    apidoc.Okay("The episodes.", apidoc.List("episodes", apidoc.Ref("Episode"), "How many episodes match."))}},
		{pattern: "POST /v1/episodes/{id}/feedback", handler: (*Server).handleEpisodeFeedback,
			op: loci.OpEpisodeFeedback,
			doc: &apidoc.Op{ID: "episodeFeedback", Tag: "episodes",
				Body: apidoc.Ref("EpisodeFeedback"),
				OK:   apidoc.Okay("The episode.", apidoc.Success(apidoc.Ref("Episode"))), Errs: []int{notFound}}},
		{pattern: "POST /v1/facts", handler: (*Server).handleStoreFact,
			op: loci.OpFactAdd,
			doc: &apidoc.Op{ID: "storeFact", Tag: "facts",
				Desc: "Without `user_id` the fact is global. Relevance starts at 1.0. With a `key`, the new fact supersedes the fact of that key " +
					"(per user, or global; whichever agent stored it) that is true at its `valid_at`: that one is kept as history with `invalid_at` " +
					"set to this `valid_at` and `superseded_by` naming the new fact (superseding needs the editor role). A `valid_at` before a later " +
					"version of the key places the new fact in the history, ending where that version begins. Answers the stored fact.",
				Body: apidoc.Ref("FactInput"),
				OK:   apidoc.Created("Stored.", apidoc.Success(apidoc.Ref("Fact")))}},
		{pattern: "GET /v1/facts/search", handler: (*Server).handleSearchFacts,
			op: loci.OpFactSearch,
			doc: &apidoc.Op{ID: "searchFacts", Tag: "facts",
				Desc: "Hybrid retrieval over the facts in scope; the category and validity filters apply before ranking, and `relevance_score` weighs in. " +
					"Only facts true at `as_of` (default now) are searched, unless `include_history`; then a version of a key never ranks above the " +
					"version true at `as_of`. Bumps `access_count` and `last_accessed_at` of what it returns.",
				Query: []apidoc.Obj{
					apidoc.QueryString("user_id", "The user's facts; without it, global facts only."),
					apidoc.QueryRequired("q", "The query text.", apidoc.Obj{"type": "string"}),
					apidoc.Query("category", "", apidoc.Ref("FactCategory")),
					apidoc.Query("include_global", "With user_id: also global facts.", apidoc.Obj{"type": "boolean", "default": false}),
					apidoc.AsOf, apidoc.IncludeHistory, apidoc.SearchLimit, apidoc.Explain,
				},
				OK: apidoc.Ranked(apidoc.Ref("ScoredFact"))}},
		{pattern: "GET /v1/facts", handler: (*Server).handleFactsByKeyword,
			op: loci.OpFactList,
			doc: &apidoc.Op{ID: "factsByKeyword", Tag: "facts",
				Desc: "Without `keyword`, every fact in scope: those true at `as_of` (default now), or every version with `include_history`. " +
					"`status=disputed`: only the facts contradicted and not yet resolved. Bumps `access_count` and `last_accessed_at` of what it returns.",
				Query: []apidoc.Obj{
					apidoc.QueryString("user_id", "The user's facts; without it, global facts only."), apidoc.QueryString("keyword", ""),
					apidoc.Query("category", "", apidoc.Ref("FactCategory")),
					apidoc.Query("include_global", "With user_id: also global facts.", apidoc.Obj{"type": "boolean", "default": false}),
					apidoc.AsOf, apidoc.IncludeHistory,
					apidoc.Query("status", "Only disputed facts.", apidoc.Obj{"type": "string", "enum": []string{loci.FactDisputed}}),
					apidoc.Limit, apidoc.Offset,
				},
				OK: apidoc.Okay("The facts.", apidoc.List("facts", apidoc.Ref("Fact"), "How many facts match."))}},
		{pattern: "POST /v1/facts/{id}/validate", handler: (*Server).handleValidateFact,
			op: loci.OpFactValidate,
			doc: &apidoc.Op{ID: "validateFact", Tag: "facts",
				Desc: "Relevance +0.1 (at most 1.0); marks it validated. 409 for a fact that is no longer true: history does not change.",
				OK:   apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound, conflict}}},
		{pattern: "POST /v1/facts/{id}/contradict", handler: (*Server).handleContradictFact,
			op: loci.OpFactContradict,
			doc: &apidoc.Op{ID: "contradictFact", Tag: "facts",
				Desc: "Relevance -0.2 (at least 0.0); contradiction_count +1; the fact is disputed until resolved (it appears in its user's review queue). 409 for a fact that is no longer true.",
				OK:   apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound, conflict}}},
		{pattern: "POST /v1/maintenance", handler: (*Server).handleMaintain,
			op: loci.OpMaintenance,
			doc: &apidoc.Op{ID: "maintain", Tag: "admin",
				Desc: "An empty body runs every task. `tasks` maps each task run to what it changed.",
				Body: apidoc.Closed(nil, apidoc.Obj{
					"tasks":   apidoc.Array(apidoc.Ref("MaintenanceTask"), "Absent or empty: all."),
					"dry_run": apidoc.Boolean("Report without changing anything."),
				}), BodyOptional: true,
				OK: apidoc.Okay("What each task changed.", apidoc.Success(apidoc.Object([]string{"dry_run", "tasks"}, apidoc.Obj{
					"dry_run": apidoc.Boolean(""), "tasks": apidoc.MapOf(apidoc.Ref("MaintenanceResult"), "Task name to result."),
				})))}},
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
	status, action := http.StatusOK, loci.ActionUpdated
	if created {
		status, action = http.StatusCreated, loci.ActionCreated
	}
	ok(w, status, workingFields(e, map[string]any{"action": action}))
}

func workingFields(e *loci.WorkingEntry, fields map[string]any) map[string]any {
	fields["task_id"], fields["agent_id"], fields["key"] = e.TaskID, e.AgentID, e.Key
	fields["value"], fields["updated_at"], fields["expires_at"] = e.Value, e.UpdatedAt, e.ExpiresAt
	if e.UserID != "" {
		fields["user_id"] = e.UserID
	}
	return fields
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

func (s *Server) handleRecordEpisode(w http.ResponseWriter, r *http.Request) {
	var req loci.EpisodeInput
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	ep, err := s.EpisodeService.RecordEpisode(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, map[string]any{"id": ep.ID, "created_at": ep.CreatedAt, "expires_at": ep.ExpiresAt})
}

// episodeQueryOf reads the query parameters of the episode listings.
func episodeQueryOf(r *http.Request) (loci.EpisodeQuery, error) {
	q := r.URL.Query()
	limit, offset, err := pageParams(r, 0)
	if err != nil {
		return loci.EpisodeQuery{}, err
	}
	explain, err := queryBool(r, "explain")
	return loci.EpisodeQuery{
		UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), Query: q.Get("q"), Outcome: q.Get("outcome"),
		ActionType: q.Get("action_type"), Limit: limit, Offset: offset, Explain: explain,
	}, err
}

func (s *Server) handleSearchEpisodes(w http.ResponseWriter, r *http.Request) {
	q, err := episodeQueryOf(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.EpisodeService.SearchEpisodes(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
}

func (s *Server) handleRecentEpisodes(w http.ResponseWriter, r *http.Request) {
	q, err := episodeQueryOf(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	eps, total, err := s.EpisodeService.RecentEpisodes(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "episodes": eps})
}

func (s *Server) handleEpisodeFeedback(w http.ResponseWriter, r *http.Request) {
	var req loci.EpisodeFeedback
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	ep, err := s.EpisodeService.AddEpisodeFeedback(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(ep))
}

// objectFields returns v's JSON fields as a map, so a single object is
// answered with its fields beside "success".
func objectFields(v any) map[string]any {
	raw, _ := json.Marshal(v)
	m := map[string]any{}
	json.Unmarshal(raw, &m)
	return m
}

// factRequest is the body of POST /v1/facts: loci.FactInput with valid_at
// as text, so that a malformed time gets a clear message.
type factRequest struct {
	UserID   string          `json:"user_id,omitempty"`
	AgentID  string          `json:"agent_id,omitempty"`
	Category string          `json:"category"`
	Fact     string          `json:"fact"`
	Keywords []string        `json:"keywords,omitempty"`
	Evidence json.RawMessage `json:"evidence,omitempty"`
	Key      string          `json:"key,omitempty"`
	ValidAt  string          `json:"valid_at,omitempty"`
}

// handleStoreFact stores a fact and answers it (with its key, validity,
// status and the fact it superseded, if any).
func (s *Server) handleStoreFact(w http.ResponseWriter, r *http.Request) {
	var req factRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	validAt, err := parseTime("valid_at", req.ValidAt)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.FactService.StoreFact(r.Context(), loci.FactInput{
		UserID: req.UserID, AgentID: req.AgentID, Category: req.Category, Fact: req.Fact, Keywords: req.Keywords,
		Evidence: req.Evidence, Key: req.Key, ValidAt: validAt,
	})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, objectFields(f))
}

// factQueryOf reads the query parameters of the fact listings.
func factQueryOf(r *http.Request) (loci.FactQuery, error) {
	q := r.URL.Query()
	limit, offset, err := pageParams(r, 0)
	if err != nil {
		return loci.FactQuery{}, err
	}
	global, err := queryBool(r, "include_global")
	if err != nil {
		return loci.FactQuery{}, err
	}
	history, err := queryBool(r, "include_history")
	if err != nil {
		return loci.FactQuery{}, err
	}
	asOf, err := parseTime("as_of", q.Get("as_of"))
	if err != nil {
		return loci.FactQuery{}, err
	}
	explain, err := queryBool(r, "explain")
	return loci.FactQuery{
		UserID: q.Get("user_id"), Query: q.Get("q"), Keyword: q.Get("keyword"), Category: q.Get("category"),
		IncludeGlobal: global, AsOf: asOf, IncludeHistory: history, Status: q.Get("status"),
		Limit: limit, Offset: offset, Explain: explain,
	}, err
}

func (s *Server) handleSearchFacts(w http.ResponseWriter, r *http.Request) {
	q, err := factQueryOf(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.FactService.SearchFacts(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings})
}

func (s *Server) handleFactsByKeyword(w http.ResponseWriter, r *http.Request) {
	q, err := factQueryOf(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	facts, total, err := s.FactService.FactsByKeyword(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "facts": facts})
}

func (s *Server) handleValidateFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.FactService.ValidateFact(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(f))
}

func (s *Server) handleContradictFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.FactService.ContradictFact(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(f))
}

// handleMaintain runs maintenance; an empty body runs every task.
func (s *Server) handleMaintain(w http.ResponseWriter, r *http.Request) {
	var req loci.MaintenanceRequest
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	rep, err := s.MaintenanceService.Maintain(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"dry_run": rep.DryRun, "tasks": rep.Tasks})
}
