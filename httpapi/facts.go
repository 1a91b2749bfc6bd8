package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

// factRoutes are what issue 13 adds to long-term memory: one fact, its
// history, invalidation, disputes, and one episode (API.md "Additions of
// v1.1"). A fact is named by id and is not owned by an agent (its agent_id
// says who stored it), so these are free to bound keys, like validate and
// contradict; deleting one, global facts included, needs editor. An
// episode named by id only cannot be checked against a bound key's agent:
// denied, like feedback.
func factRoutes() []endpoint {
	return []endpoint{
		{pattern: "GET /v1/facts/{id}", handler: (*Server).handleGetFact,
			op: loci.OpFactGet,
			doc: &apidoc.Op{ID: "getFact", Tag: "facts",
				Desc: "Whatever its status (history included); does not count as an access.",
				OK:   apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/facts/{id}", handler: (*Server).handleDeleteFact,
			op: loci.OpFactDelete,
			doc: &apidoc.Op{ID: "deleteFact", Tag: "facts",
				Desc: "One fact, global facts included (editor). The versions of its key that named it (superseded_by, supersedes) no longer do; " +
					"the one it superseded stays ended.",
				OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
		{pattern: "GET /v1/facts/{id}/history", handler: (*Server).handleFactHistory,
			op: loci.OpFactHistory,
			doc: &apidoc.Op{ID: "factHistory", Tag: "facts",
				Desc: "Every fact of the key and its slot (user or global), newest `valid_at` first; a fact without a key is its own history.",
				OK:   apidoc.Okay("The versions.", apidoc.List("facts", apidoc.Ref("Fact"), "How many versions.")), Errs: []int{notFound}}},
		{pattern: "POST /v1/facts/{id}/invalidate", handler: (*Server).handleInvalidateFact,
			op: loci.OpFactInvalidate,
			doc: &apidoc.Op{ID: "invalidateFact", Tag: "facts",
				Desc: "It is kept as history with `invalid_at` (default now; a future time ends it then); a dispute ends. 400 when `at` is before " +
					"its `valid_at`; 409 when it already ended at or before `at`.",
				Body:         apidoc.Closed(nil, apidoc.Obj{"at": apidoc.Timestamp("When it stopped (or stops) being true; default now.")}),
				BodyOptional: true,
				OK:           apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound, conflict}}},
		{pattern: "POST /v1/facts/{id}/resolve", handler: (*Server).handleResolveFact,
			op: loci.OpFactResolve,
			doc: &apidoc.Op{ID: "resolveFact", Tag: "facts",
				Desc: "`keep: true` clears the dispute; `keep: false` invalidates the fact now (kept as history). 409 when it is not disputed.",
				Body: apidoc.Closed([]string{"keep"}, apidoc.Obj{"keep": apidoc.Boolean("Whether the fact stands.")}),
				OK:   apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound, conflict}}},
		{pattern: "GET /v1/episodes/{id}", handler: (*Server).handleGetEpisode,
			op: loci.OpEpisodeGet,
			doc: &apidoc.Op{ID: "getEpisode", Tag: "episodes",
				Desc: "404 when absent or expired.",
				OK:   apidoc.Okay("The episode.", apidoc.Success(apidoc.Ref("Episode"))), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/episodes/{id}", handler: (*Server).handleDeleteEpisode,
			op: loci.OpEpisodeDelete,
			doc: &apidoc.Op{ID: "deleteEpisode", Tag: "episodes",
				Desc: "Expired or not; 404 when absent.",
				OK:   apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
	}
}

func (s *Server) handleGetFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.FactService.GetFact(r.Context(), r.PathValue("id"))
	s.answerFact(w, r, f, err)
}

func (s *Server) answerFact(w http.ResponseWriter, r *http.Request, f *loci.Fact, err error) {
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(f))
}

func (s *Server) handleDeleteFact(w http.ResponseWriter, r *http.Request) {
	if err := s.FactService.DeleteFact(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleFactHistory(w http.ResponseWriter, r *http.Request) {
	facts, err := s.FactService.FactHistory(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(facts), "facts": facts})
}

// invalidateRequest is the optional body of POST /v1/facts/{id}/invalidate.
type invalidateRequest struct {
	At string `json:"at,omitempty"`
}

func (s *Server) handleInvalidateFact(w http.ResponseWriter, r *http.Request) {
	var req invalidateRequest
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	at, err := parseTime("at", req.At)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.FactService.InvalidateFact(r.Context(), r.PathValue("id"), at)
	s.answerFact(w, r, f, err)
}

// resolveRequest is the body of the resolve routes: keep is required.
type resolveRequest struct {
	Keep *bool `json:"keep"`
}

// readResolve reads a resolve body.
func readResolve(w http.ResponseWriter, r *http.Request) (bool, error) {
	var req resolveRequest
	if err := decode(r, &req); err != nil {
		return false, err
	}
	if req.Keep == nil {
		return false, loci.Errorf(loci.EINVALID, "keep is required: true keeps it, false does not")
	}
	return *req.Keep, nil
}

func (s *Server) handleResolveFact(w http.ResponseWriter, r *http.Request) {
	keep, err := readResolve(w, r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.FactService.ResolveFact(r.Context(), r.PathValue("id"), keep)
	s.answerFact(w, r, f, err)
}

func (s *Server) handleGetEpisode(w http.ResponseWriter, r *http.Request) {
	ep, err := s.EpisodeService.GetEpisode(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(ep))
}

func (s *Server) handleDeleteEpisode(w http.ResponseWriter, r *http.Request) {
	if err := s.EpisodeService.DeleteEpisode(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
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
	fields := objectFields(p)
	fields["kept"] = keep
	ok(w, http.StatusOK, fields)
}

// handleReviewQueue answers what of the user's memory waits for review.
func (s *Server) handleReviewQueue(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 0)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	items, total, err := s.ReviewService.ReviewQueue(r.Context(), loci.ReviewQuery{UserID: r.PathValue("user_id"), Limit: limit, Offset: offset})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "items": items})
}
