package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(episodeRoutes)

// episodeRoutes are the routes of episodic memory: what an agent did for a
// user and how it went, kept 30 days. Feedback, reading and deleting name an
// episode by id only, which cannot be checked against a bound key's agent:
// bound keys are denied.
func episodeRoutes() []endpoint {
	episodeFilters := []apidoc.Obj{
		apidoc.QueryRequired("user_id", "", apidoc.Obj{"type": "string"}), apidoc.QueryRequired("agent_id", "", apidoc.Obj{"type": "string"}),
		apidoc.QueryString("action_type", ""),
		apidoc.Query("outcome", "", apidoc.Ref("Outcome")),
	}
	return []endpoint{
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
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings, "retrieval": res.Retrieval})
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
	okObject(w, http.StatusOK, ep, nil)
}

func (s *Server) handleGetEpisode(w http.ResponseWriter, r *http.Request) {
	ep, err := s.EpisodeService.GetEpisode(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, ep, nil)
}

func (s *Server) handleDeleteEpisode(w http.ResponseWriter, r *http.Request) {
	if err := s.EpisodeService.DeleteEpisode(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}
