package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(factRoutes)

// factRoutes are the routes of long-term memory: storing a fact, searching and
// listing facts, validating and contradicting one. Without a user_id a fact is
// global. A fact belongs to the agent that stored it (its agent_id; none when
// it names none): these routes are free to bound keys, and a key bound to an
// agent reaches that agent's facts and those of no agent, never another
// agent's, which by id are not found (docs/rules.md, "Memory is isolated by
// workspace and scope"); a key bound to no agent reaches every agent's facts
// of a user.
func factRoutes() []endpoint {
	return []endpoint{
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
	}
}

var _ = addRoutes(factHistoryRoutes)

// factHistoryRoutes are the routes of facts that change over time
// (docs/rules.md, "Facts change over time, and history is kept"): one fact,
// its history, invalidation and disputes. Like validate and contradict they
// are free to bound keys; deleting one, global facts included, needs editor.
func factHistoryRoutes() []endpoint {
	return []endpoint{
		{pattern: "GET /v1/facts/{id}", handler: (*Server).handleGetFact,
			op: loci.OpFactGet,
			doc: &apidoc.Op{ID: "getFact", Tag: "facts",
				Desc: "Whatever its status (history included); does not count as an access. An expired fact is 404, as on every route.",
				OK:   apidoc.Okay("The fact.", apidoc.Success(apidoc.Ref("Fact"))), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/facts/{id}", handler: (*Server).handleDeleteFact,
			op: loci.OpFactDelete,
			doc: &apidoc.Op{ID: "deleteFact", Tag: "facts",
				Desc: "One fact, global facts included (editor). The versions of its key that named it (superseded_by, supersedes) no longer do; " +
					"the one it superseded stays ended. The adds of messages queued whose results name it go too (their events answer 404).",
				OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
		{pattern: "GET /v1/facts/{id}/history", handler: (*Server).handleFactHistory,
			op: loci.OpFactHistory,
			doc: &apidoc.Op{ID: "factHistory", Tag: "facts",
				Desc: "Every fact of the key and its slot (user or global), newest `valid_at` first; a fact without a key is its own history. " +
					"Versions that have expired are left out (an expired fact is 404).",
				OK: apidoc.Okay("The versions.", apidoc.List("facts", apidoc.Ref("Fact"), "How many versions.")), Errs: []int{notFound}}},
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
	okObject(w, http.StatusOK, f, nil)
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

func (s *Server) handleResolveFact(w http.ResponseWriter, r *http.Request) {
	keep, err := readResolve(w, r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	f, err := s.FactService.ResolveFact(r.Context(), r.PathValue("id"), keep)
	s.answerFact(w, r, f, err)
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
	okObject(w, http.StatusCreated, f, nil)
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
	ok(w, http.StatusOK, map[string]any{"count": len(res.Results), "results": res.Results, "pending_embeddings": res.PendingEmbeddings, "retrieval": res.Retrieval})
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
	okObject(w, http.StatusOK, f, nil)
}

func (s *Server) handleContradictFact(w http.ResponseWriter, r *http.Request) {
	f, err := s.FactService.ContradictFact(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, f, nil)
}
