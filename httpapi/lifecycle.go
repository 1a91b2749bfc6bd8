package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
)

// lifecycleRoutes registers working memory, episodes, facts and
// maintenance (API.md "Working, episodic and long-term memory").
func (s *Server) lifecycleRoutes() {
	s.handle("PUT /v1/tasks/{task_id}/working/{key}", s.handleSetWorking)
	s.handle("GET /v1/tasks/{task_id}/working/{key}", s.handleGetWorking)
	s.handle("GET /v1/tasks/{task_id}/working", s.handleListWorking)
	s.handle("DELETE /v1/tasks/{task_id}/working", s.handleClearWorking)
	s.handle("POST /v1/episodes", s.handleRecordEpisode)
	s.handle("GET /v1/episodes/search", s.handleSearchEpisodes)
	s.handle("GET /v1/episodes", s.handleRecentEpisodes)
	s.handle("POST /v1/episodes/{id}/feedback", s.handleEpisodeFeedback)
	s.handle("POST /v1/facts", s.handleStoreFact)
	s.handle("GET /v1/facts/search", s.handleSearchFacts)
	s.handle("GET /v1/facts", s.handleFactsByKeyword)
	s.handle("POST /v1/facts/{id}/validate", s.handleValidateFact)
	s.handle("POST /v1/facts/{id}/contradict", s.handleContradictFact)
	s.handle("POST /v1/maintenance", s.handleMaintain)
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
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	e, created, err := s.svc.SetWorking(r.Context(), loci.WorkingInput{
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
	e, err := s.svc.GetWorking(r.Context(), r.PathValue("task_id"), r.PathValue("key"), workingFilterOf(r))
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
	entries, err := s.svc.ListWorking(r.Context(), r.PathValue("task_id"), workingFilterOf(r))
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
	n, err := s.svc.ClearWorking(r.Context(), r.PathValue("task_id"), workingFilterOf(r))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

func (s *Server) handleRecordEpisode(w http.ResponseWriter, r *http.Request) {
	var req loci.EpisodeInput
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	ep, err := s.svc.RecordEpisode(r.Context(), req)
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
	res, err := s.svc.SearchEpisodes(r.Context(), q)
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
	eps, total, err := s.svc.RecentEpisodes(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "episodes": eps})
}

func (s *Server) handleEpisodeFeedback(w http.ResponseWriter, r *http.Request) {
	var req loci.EpisodeFeedback
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	ep, err := s.svc.AddEpisodeFeedback(r.Context(), r.PathValue("id"), req)
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
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	validAt, err := parseTime("valid_at", req.ValidAt)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.svc.StoreFact(r.Context(), loci.FactInput{
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
	res, err := s.svc.SearchFacts(r.Context(), q)
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
	facts, total, err := s.svc.FactsByKeyword(r.Context(), q)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "facts": facts})
}

func (s *Server) handleValidateFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.svc.ValidateFact(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(f))
}

func (s *Server) handleContradictFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.svc.ContradictFact(r.Context(), r.PathValue("id"))
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
		if err := decode(w, r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	rep, err := s.svc.Maintain(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"dry_run": rep.DryRun, "tasks": rep.Tasks})
}
