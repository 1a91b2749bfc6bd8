package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
)

// preferenceRoutes registers preferences, session start and the privacy queries
// (API.md "Preferences, sessions and conversations").
func (s *Server) preferenceRoutes() {
	s.handle("POST /v1/users/{user_id}/preferences", s.handleObservePreference)
	s.handle("GET /v1/users/{user_id}/preferences", s.handleListPreferences)
	s.handle("POST /v1/users/{user_id}/preferences/{type}/use", s.handleUsePreference)
	s.handle("POST /v1/users/{user_id}/preferences/{type}/confirm", s.handleConfirmPreference)
	s.handle("POST /v1/users/{user_id}/preferences/{type}/contradict", s.handleContradictPreference)
	s.handle("POST /v1/users/{user_id}/preferences/{type}/resolve", s.handleResolvePreference)
	s.handle("DELETE /v1/users/{user_id}/preferences", s.handleClearPreferences)
	s.handle("DELETE /v1/users/{user_id}/preferences/{type}", s.handleDeletePreference)
	s.handle("GET /v1/users/{user_id}/context", s.handleUserContext)
	s.handle("GET /v1/users/{user_id}/memories", s.handleUserMemories)
	s.handle("GET /v1/users/{user_id}/review", s.handleReviewQueue)
	s.handle("POST /v1/users/{user_id}/forget", s.handleForgetUserMemories)
	s.handle("DELETE /v1/users/{user_id}", s.handleDeleteUser)
}

// preferenceRequest is the body of POST /v1/users/{user_id}/preferences.
type preferenceRequest struct {
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
	Source    string          `json:"source"`
	SessionID string          `json:"session_id,omitempty"`
	Context   string          `json:"context,omitempty"`
}

func (s *Server) handleObservePreference(w http.ResponseWriter, r *http.Request) {
	var req preferenceRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, created, err := s.svc.ObservePreference(r.Context(), loci.PreferenceInput{
		UserID: r.PathValue("user_id"), Type: req.Type, Value: req.Value, Source: req.Source,
		SessionID: req.SessionID, Context: req.Context,
	})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status, action := http.StatusOK, loci.ActionUpdated
	if created {
		status, action = http.StatusCreated, loci.ActionCreated
	}
	fields := objectFields(p)
	fields["action"] = action
	ok(w, status, fields)
}

func (s *Server) handleListPreferences(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 100)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	prefs, err := s.svc.ListPreferences(r.Context(), r.PathValue("user_id"), r.URL.Query().Get("session_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(prefs), "preferences": page(prefs, limit, offset)})
}

func (s *Server) handleUsePreference(w http.ResponseWriter, r *http.Request) {
	p, err := s.svc.UsePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"))
	s.answerPreference(w, r, p, err)
}

func (s *Server) handleConfirmPreference(w http.ResponseWriter, r *http.Request) {
	p, err := s.svc.ConfirmPreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"))
	s.answerPreference(w, r, p, err)
}

// contradictRequest is the body of POST .../preferences/{type}/contradict.
type contradictRequest struct {
	Source string `json:"source"`
}

func (s *Server) handleContradictPreference(w http.ResponseWriter, r *http.Request) {
	var req contradictRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.svc.ContradictPreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"), req.Source)
	s.answerPreference(w, r, p, err)
}

func (s *Server) answerPreference(w http.ResponseWriter, r *http.Request, p *loci.Preference, err error) {
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(p))
}

func (s *Server) handleClearPreferences(w http.ResponseWriter, r *http.Request) {
	n, err := s.svc.ClearPreferences(r.Context(), r.PathValue("user_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

func (s *Server) handleDeletePreference(w http.ResponseWriter, r *http.Request) {
	n, err := s.svc.DeletePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

func (s *Server) handleUserContext(w http.ResponseWriter, r *http.Request) {
	c, err := s.svc.UserContext(r.Context(), r.PathValue("user_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{
		"user_id": c.User.ID, "created": c.Created, "defaults": c.User.Defaults,
		"preferences": c.Preferences, "sessions": c.Sessions,
	})
}

// handleUserMemories answers everything about the user, grouped by kind
// (every kind present, empty when the user has none of it).
func (s *Server) handleUserMemories(w http.ResponseWriter, r *http.Request) {
	asOf, err := parseTime("as_of", r.URL.Query().Get("as_of"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	history, err := queryBool(r, "include_history")
	if err != nil {
		s.Error(w, r, err)
		return
	}
	mems, err := s.svc.UserMemories(r.Context(), r.PathValue("user_id"), loci.UserMemoryQuery{AsOf: asOf, IncludeHistory: history})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	byKind := map[loci.Kind][]*loci.UserMemory{}
	for _, k := range loci.Kinds {
		byKind[k] = []*loci.UserMemory{}
	}
	for _, m := range mems {
		byKind[m.Kind] = append(byKind[m.Kind], m)
	}
	ok(w, http.StatusOK, map[string]any{"user_id": r.PathValue("user_id"), "count": len(mems), "memories": byKind})
}

func (s *Server) handleForgetUserMemories(w http.ResponseWriter, r *http.Request) {
	var req loci.ForgetRequest
	if err := decode(w, r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	mems, err := s.svc.ForgetUserMemories(r.Context(), r.PathValue("user_id"), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"dry_run": req.DryRun, "count": len(mems), "deleted": mems})
}

func (s *Server) handleDeleteUser(w http.ResponseWriter, r *http.Request) {
	n, err := s.svc.DeleteUser(r.Context(), r.PathValue("user_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}
