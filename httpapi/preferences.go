package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(preferenceRoutes)

// preferenceRoutes are the routes of a user's preferences: about users, not
// owned by agents, so free to bound keys.
func preferenceRoutes() []endpoint {
	session := apidoc.QueryString("session_id", "The session, for session-scoped decisions.")
	pref := apidoc.Success(apidoc.Ref("Preference"))
	return []endpoint{
		{pattern: "POST /v1/users/{user_id}/preferences", handler: (*Server).handleObservePreference,
			op: loci.OpPreferenceObserve,
			doc: &apidoc.Op{ID: "observePreference", Tag: "preferences",
				Desc: "explicit sets 100 and persistent; implicit starts at 40, +15 per repeat, at most 85; decision is session-scoped and not persistent. " +
					"A creator may observe a new preference and observe a known one again with the same value (its confidence rises, as with a use); " +
					"another value, an explicit observation of an implicit preference (it becomes persistent at 100, as a confirm makes it) " +
					"or a preference flagged for removal needs editor (403).",
				Body: apidoc.Closed([]string{"type", "value", "source"}, apidoc.Obj{
					"type": apidoc.Str(""), "value": apidoc.AnyJSON(""), "source": apidoc.Ref("PreferenceSource"),
					"session_id": apidoc.Str("Required for a decision."), "context": apidoc.Str(""),
				}),
				OK: apidoc.Upsert(apidoc.Success(apidoc.Ref("Preference"), apidoc.ActionField))}},
		{pattern: "GET /v1/users/{user_id}/preferences", handler: (*Server).handleListPreferences,
			op: loci.OpPreferenceList,
			doc: &apidoc.Op{ID: "listPreferences", Tag: "preferences",
				Query: []apidoc.Obj{session, apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The preferences.", apidoc.List("preferences", apidoc.Ref("Preference"), "How many preferences the user has."))}},
		{pattern: "POST /v1/users/{user_id}/preferences/{type}/use", handler: (*Server).handleUsePreference,
			op: loci.OpPreferenceUse,
			doc: &apidoc.Op{ID: "usePreference", Tag: "preferences",
				Desc: "+5 confidence, up to its peak.", Query: []apidoc.Obj{session},
				OK: apidoc.Okay("The preference.", pref), Errs: []int{notFound}}},
		{pattern: "POST /v1/users/{user_id}/preferences/{type}/confirm", handler: (*Server).handleConfirmPreference,
			op: loci.OpPreferenceConfirm,
			doc: &apidoc.Op{ID: "confirmPreference", Tag: "preferences",
				Desc: "Confidence 100.", Query: []apidoc.Obj{session},
				OK: apidoc.Okay("The preference.", pref), Errs: []int{notFound}}},
		{pattern: "POST /v1/users/{user_id}/preferences/{type}/contradict", handler: (*Server).handleContradictPreference,
			op: loci.OpPreferenceContradict,
			doc: &apidoc.Op{ID: "contradictPreference", Tag: "preferences",
				Desc:  "-30 for an implicit preference; 0 and flagged for removal for an explicit one (it then waits in the user's review queue).",
				Query: []apidoc.Obj{session},
				Body:  apidoc.Closed([]string{"source"}, apidoc.Obj{"source": apidoc.Ref("PreferenceSource")}),
				OK:    apidoc.Okay("The preference.", pref), Errs: []int{notFound}}},
		{pattern: "POST /v1/users/{user_id}/preferences/{type}/resolve", handler: (*Server).handleResolvePreference,
			op: loci.OpPreferenceResolve,
			doc: &apidoc.Op{ID: "resolvePreference", Tag: "preferences",
				Desc: "`keep: true` clears the flag (the confidence stays as the contradiction left it; confirm sets 100); `keep: false` forgets the preference. " +
					"Answers the preference as kept, or as it was when forgotten, with `kept`. 409 when it is not flagged for removal.",
				Query: []apidoc.Obj{session},
				Body:  apidoc.Closed([]string{"keep"}, apidoc.Obj{"keep": apidoc.Boolean("Whether the preference stays.")}),
				OK: apidoc.Okay("The preference.", apidoc.Success(apidoc.Ref("Preference"), apidoc.Object([]string{"kept"}, apidoc.Obj{
					"kept": apidoc.Boolean("Whether it was kept (false: it is forgotten)."),
				}))), Errs: []int{notFound, conflict}}},
		{pattern: "DELETE /v1/users/{user_id}/preferences", handler: (*Server).handleClearPreferences,
			op: loci.OpPreferenceClear,
			doc: &apidoc.Op{ID: "clearPreferences", Tag: "preferences",
				OK: apidoc.Okay("Cleared.", apidoc.DeletedCount)}},
		{pattern: "DELETE /v1/users/{user_id}/preferences/{type}", handler: (*Server).handleDeletePreference,
			op: loci.OpPreferenceForget,
			doc: &apidoc.Op{ID: "deletePreference", Tag: "preferences",
				OK: apidoc.Okay("Deleted.", apidoc.DeletedCount), Errs: []int{notFound}}},
	}
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
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, created, err := s.PreferenceService.ObservePreference(r.Context(), loci.PreferenceInput{
		UserID: r.PathValue("user_id"), Type: req.Type, Value: req.Value, Source: req.Source,
		SessionID: req.SessionID, Context: req.Context,
	})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status, action := writtenStatus(created)
	okObject(w, status, p, map[string]any{"action": action})
}

func (s *Server) handleListPreferences(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	prefs, err := s.PreferenceService.ListPreferences(r.Context(), r.PathValue("user_id"), r.URL.Query().Get("session_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(prefs), "preferences": page(prefs, limit, offset)})
}

func (s *Server) handleUsePreference(w http.ResponseWriter, r *http.Request) {
	if err := checkSourceBody(r); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.PreferenceService.UsePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"))
	s.answerPreference(w, r, p, err)
}

func (s *Server) handleConfirmPreference(w http.ResponseWriter, r *http.Request) {
	if err := checkSourceBody(r); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.PreferenceService.ConfirmPreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"))
	s.answerPreference(w, r, p, err)
}

// checkSourceBody checks the body of a preference's use or confirm
// (API.md: {"source"}), which may be empty: a source, when given, is
// implicit or explicit, and nothing else is taken. The rules need none:
// a use is observed, a confirmation explicit.
func checkSourceBody(r *http.Request) error {
	if len(bytes.TrimSpace(bodyOf(r))) == 0 {
		return nil
	}
	var req contradictRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Source != "" && req.Source != loci.SourceImplicit && req.Source != loci.SourceExplicit {
		return loci.Errorf(loci.EINVALID, "source must be implicit or explicit")
	}
	return nil
}

// contradictRequest is the body of POST .../preferences/{type}/contradict.
type contradictRequest struct {
	Source string `json:"source"`
}

func (s *Server) handleContradictPreference(w http.ResponseWriter, r *http.Request) {
	var req contradictRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.PreferenceService.ContradictPreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"), req.Source)
	s.answerPreference(w, r, p, err)
}

func (s *Server) answerPreference(w http.ResponseWriter, r *http.Request, p *loci.Preference, err error) {
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, p, nil)
}

func (s *Server) handleClearPreferences(w http.ResponseWriter, r *http.Request) {
	n, err := s.PreferenceService.ClearPreferences(r.Context(), r.PathValue("user_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

func (s *Server) handleDeletePreference(w http.ResponseWriter, r *http.Request) {
	n, err := s.PreferenceService.DeletePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
}

// handleResolvePreference settles a preference flagged for removal and
// answers it (as kept, or as it was when forgotten) with "kept".
func (s *Server) handleResolvePreference(w http.ResponseWriter, r *http.Request) {
	keep, err := readResolve(w, r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	p, err := s.PreferenceService.ResolvePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"), keep)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, p, map[string]any{"kept": keep})
}
