package httpapi

import (
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(userRoutes)

// userRoutes are the routes of everything about a user: a user's context,
// memories of every kind, review queue, forgetting and deletion. Free to bound
// keys, except those that span every agent's records of a user.
func userRoutes() []endpoint {
	kinds := apidoc.Obj{}
	for _, k := range apidoc.KindNames() {
		kinds[k] = apidoc.Array(apidoc.Ref("UserMemory"), "")
	}
	return []endpoint{
		{pattern: "GET /v1/users/{user_id}/context", handler: (*Server).handleUserContext,
			op: loci.OpUserContext,
			doc: &apidoc.Op{ID: "userContext", Tag: "users",
				Desc: "The last 5 sessions that are persistent or unexpired, by confidence descending. Creates the user with empty defaults if new (`created`).",
				OK: apidoc.Okay("The user's context.", apidoc.Success(apidoc.Object([]string{"user_id", "created", "defaults", "preferences", "sessions"}, apidoc.Obj{
					"user_id":     apidoc.Str(""),
					"created":     apidoc.Boolean("Whether this call created the user."),
					"defaults":    apidoc.AnyJSON("The user's standing defaults, a JSON object."),
					"preferences": apidoc.Nullable(apidoc.Array(apidoc.Ref("Preference"), "")),
					"sessions":    apidoc.Nullable(apidoc.Array(apidoc.Ref("ContextSession"), "")),
				})))}},
		{pattern: "GET /v1/users/{user_id}/memories", handler: (*Server).handleUserMemories,
			op: loci.OpUserMemories,
			doc: &apidoc.Op{ID: "userMemories", Tag: "users",
				Desc:  "Grouped by kind; every kind is present, empty when the user has none of it. Facts true at `as_of` (default now), or every version with `include_history`.",
				Query: []apidoc.Obj{apidoc.AsOf, apidoc.IncludeHistory},
				OK: apidoc.Okay("The user's memories.", apidoc.Success(apidoc.Object([]string{"user_id", "count", "memories"}, apidoc.Obj{
					"user_id":  apidoc.Str(""),
					"count":    apidoc.Integer("How many records in all."),
					"memories": apidoc.Object(apidoc.KindNames(), kinds),
				})))}},
		{pattern: "GET /v1/users/{user_id}/review", handler: (*Server).handleReviewQueue,
			op: loci.OpUserReview,
			doc: &apidoc.Op{ID: "reviewQueue", Tag: "users",
				Desc: "The user's facts contradicted and not yet resolved, and preferences flagged for removal (an explicit contradiction), " +
					"most recently changed first. Each item is the fact's or the preference's fields with `kind` and `reason`.",
				Query: []apidoc.Obj{apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The items.", apidoc.List("items", apidoc.Ref("ReviewItem"), "How many items wait in all."))}},
		{pattern: "POST /v1/users/{user_id}/forget", handler: (*Server).handleForgetUserMemories,
			op: loci.OpUserForget,
			doc: &apidoc.Op{ID: "forgetUserMemories", Tag: "users",
				Desc: "Deletes the user's records that hold every word of `query` (in any text they hold and answer: content, a session's context, " +
					"a fact's evidence, an episode's feedback, a preference's value and context; every version of a keyed fact, of which exactly " +
					"the matching versions go) or whose id is in `ids`, and answers them. A past value a record keeps in its history (an edited memory's) " +
					"that holds the words is removed from that history whatever the current value says, and answered with `history: true`; " +
					"the record stays when its current value does not hold them. `filters` narrows either, or alone selects the user's records it matches. " +
					"Agent-scoped memory (every record of an agent and no user: agents' notes, blocks and passages, and what a chat model wrote " +
					"about an agent) is not searched unless `include_agents` is true: then `query` also matches those records of every agent, and " +
					"what matches is deleted too (a whole note or block; needs the editor role and a `query`; `dry_run` previews it). " +
					"The adds of messages sent with `\"async\": true` that hold what is forgotten go with it, pending or done (their events answer 404): " +
					"those whose results name a record deleted or a past value removed, and, for a `query` without `filters`, the user's " +
					"(with `include_agents`, also those of no user) whose messages or results hold every word.",
				Body: apidoc.Closed(nil, apidoc.Obj{
					"query": apidoc.Str("Text to match."), "ids": apidoc.StrList("Record ids."), "dry_run": apidoc.Boolean("Answer without deleting."),
					"include_agents": apidoc.Boolean("Also match agents' own memory (every record of an agent and no user: notes, blocks, passages, what a chat model wrote about an agent) against `query`. Default false."),
					"filters":        apidoc.WithDesc(apidoc.Ref("MemoryFilter"), "Only what the filter selects; alone, every record of the user it selects."),
				}),
				OK: apidoc.Okay("What was (or would be) deleted.", apidoc.Success(apidoc.Object([]string{"dry_run", "count", "deleted", "agents_searched"}, apidoc.Obj{
					"dry_run": apidoc.Boolean(""), "count": apidoc.Integer(""), "deleted": apidoc.Nullable(apidoc.Array(apidoc.Ref("UserMemory"), "")),
					"agents_searched": apidoc.Boolean("Whether agents' own memory was searched (`include_agents`)."),
					"notice":          apidoc.Str("Present when they were not: agent-scoped memory is searched only with `include_agents`."),
				})))}},
		{pattern: "DELETE /v1/users/{user_id}", handler: (*Server).handleDeleteUser,
			op: loci.OpUserDelete,
			doc: &apidoc.Op{ID: "deleteUser", Tag: "users",
				Desc: "Every record of the user, of every kind; every record of the user's sessions that carries no user (a message appended " +
					"without one, what a chat model wrote about the agent from the user's conversation); the adds of messages queued for the user, " +
					"pending or done; and the user. Agent-scoped memory that names the user elsewhere (agents' notes, blocks and passages, which " +
					"carry no user) is not deleted: `POST /v1/users/{user_id}/forget` with `include_agents` reaches it.",
				OK: apidoc.Okay("Deleted.", apidoc.DeletedCount)}},
	}
}

func (s *Server) handleUserContext(w http.ResponseWriter, r *http.Request) {
	c, err := s.UserMemoryService.UserContext(r.Context(), r.PathValue("user_id"))
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
	mems, err := s.UserMemoryService.UserMemories(r.Context(), r.PathValue("user_id"), loci.UserMemoryQuery{AsOf: asOf, IncludeHistory: history})
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
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	mems, err := s.UserMemoryService.ForgetUserMemories(r.Context(), r.PathValue("user_id"), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	out := map[string]any{"dry_run": req.DryRun, "count": len(mems), "deleted": mems, "agents_searched": req.IncludeAgents}
	if !req.IncludeAgents {
		out["notice"] = forgetNotice
	}
	ok(w, http.StatusOK, out)
}

// forgetNotice says, in a forget's answer, what it did not search.
const forgetNotice = "agent-scoped memory (records of an agent and no user: notes, blocks, passages, what a chat model wrote about an agent) " +
	"was not searched; " +
	"set include_agents to true (editor) to forget what they hold too"

func (s *Server) handleDeleteUser(w http.ResponseWriter, r *http.Request) {
	n, err := s.UserMemoryService.DeleteUser(r.Context(), r.PathValue("user_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": n})
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
