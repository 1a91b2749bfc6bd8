package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
)

// factRoutes registers what issue 13 adds to long-term memory: one fact,
// its history, invalidation, disputes and the review queue, and one
// episode (API.md "Additions of v1.1").
func (s *Server) factRoutes() {
	s.handle("GET /v1/facts/{id}", s.handleGetFact)
	s.handle("DELETE /v1/facts/{id}", s.handleDeleteFact)
	s.handle("GET /v1/facts/{id}/history", s.handleFactHistory)
	s.handle("POST /v1/facts/{id}/invalidate", s.handleInvalidateFact)
	s.handle("POST /v1/facts/{id}/resolve", s.handleResolveFact)
	s.handle("GET /v1/episodes/{id}", s.handleGetEpisode)
	s.handle("DELETE /v1/episodes/{id}", s.handleDeleteEpisode)
}

func (s *Server) handleGetFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.svc.GetFact(r.Context(), r.PathValue("id"))
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
	if err := s.svc.DeleteFact(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleFactHistory(w http.ResponseWriter, r *http.Request) {
	facts, err := s.svc.FactHistory(r.Context(), r.PathValue("id"))
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
		if err := decode(w, r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	at, err := parseTime("at", req.At)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.svc.InvalidateFact(r.Context(), r.PathValue("id"), at)
	s.answerFact(w, r, f, err)
}

// resolveRequest is the body of the resolve routes: keep is required.
type resolveRequest struct {
	Keep *bool `json:"keep"`
}

// readResolve reads a resolve body.
func readResolve(w http.ResponseWriter, r *http.Request) (bool, error) {
	var req resolveRequest
	if err := decode(w, r, &req); err != nil {
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
	f, err := s.svc.ResolveFact(r.Context(), r.PathValue("id"), keep)
	s.answerFact(w, r, f, err)
}

func (s *Server) handleGetEpisode(w http.ResponseWriter, r *http.Request) {
	ep, err := s.svc.GetEpisode(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(ep))
}

func (s *Server) handleDeleteEpisode(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.DeleteEpisode(r.Context(), r.PathValue("id")); err != nil {
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
	p, err := s.svc.ResolvePreference(r.Context(), r.PathValue("user_id"), r.PathValue("type"), r.URL.Query().Get("session_id"), keep)
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
	items, total, err := s.svc.ReviewQueue(r.Context(), loci.ReviewQuery{UserID: r.PathValue("user_id"), Limit: limit, Offset: offset})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "items": items})
}
