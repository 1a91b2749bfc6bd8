package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(overviewRoutes)

// overviewRoutes are the overview a person looking after memory starts
// from (the web inspector's): the user list, stats, the timeline of every
// kind, and who the caller's key is. The user list and the workspace's
// stats span agents: a bound key gets its own agent's stats and timeline
// by naming it. Who-am-I reads no memory: it is not audited.
func overviewRoutes() []endpoint {
	kinds := apidoc.Query("kind", "Only these kinds: repeat the parameter or separate kinds by commas.", apidoc.Array(apidoc.Ref("Kind"), ""))
	return []endpoint{
		{pattern: "GET /v1/users", handler: (*Server).handleListUsers,
			op: loci.OpUserList,
			doc: &apidoc.Op{ID: "listUsers", Tag: "overview",
				Desc: "Every user of the workspace: those a session start or an import registered, and every user id a record names. " +
					"Newest first by `created_at`, then by id.",
				Query: []apidoc.Obj{apidoc.QueryString("q", "Only users whose id holds this text, ignoring case."), apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The users.", apidoc.List("users", apidoc.Ref("UserSummary"), "How many users match."))}},
		{pattern: "GET /v1/stats", handler: (*Server).handleStats,
			op: loci.OpStats,
			doc: &apidoc.Op{ID: "stats", Tag: "overview",
				Desc: "Counts per kind, per agent and per user, growth per day, the newest records and the embedding queue, " +
					"of the workspace or of the agent and/or user named. Computed by the database from its indexes. " +
					"A key bound to an agent must name it (`agent_id`).",
				Query: []apidoc.Obj{
					apidoc.QueryString("agent_id", "Only this agent's records."), apidoc.QueryString("user_id", "Only records about this user."),
					apidoc.Query("top", fmt.Sprintf("How many agents and users to list, by size (1-%d).", loci.MaxStatsTop),
						apidoc.Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxStatsTop, "default": loci.DefaultStatsTop}),
					apidoc.Query("days", fmt.Sprintf("How many days of growth, today included (1-%d).", loci.MaxStatsDays),
						apidoc.Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxStatsDays, "default": loci.DefaultStatsDays}),
				},
				OK: apidoc.Okay("The overview.", apidoc.Success(apidoc.Ref("Stats")))}},
		{pattern: "GET /v1/memories", handler: (*Server).handleListMemories,
			op: loci.OpMemoryList,
			doc: &apidoc.Op{ID: "listMemories", Tag: "overview",
				Desc: "The records the scope selects, of every kind or of those named, newest first by `created_at`, then by id; `filters` narrows them before paging, so a page holds `limit` records whenever that many match. Expired records are left out. " +
					"A key bound to an agent must name it (`agent_id`).",
				Query: []apidoc.Obj{
					apidoc.QueryString("agent_id", ""), apidoc.QueryString("user_id", ""), apidoc.QueryString("session_id", ""), apidoc.QueryString("task_id", ""), kinds,
					apidoc.Query("before", "Only records created before this time (RFC 3339).", apidoc.Obj{"type": "string", "format": "date-time"}),
					apidoc.Query("after", "Only records created after this time (RFC 3339).", apidoc.Obj{"type": "string", "format": "date-time"}),
					apidoc.Query("filters", "A filter (URL-encoded JSON, see MemoryFilter), applied before paging.", apidoc.Obj{"type": "string"}),
					apidoc.Limit, apidoc.Offset,
				},
				OK: apidoc.Okay("The memories.", apidoc.List("memories", apidoc.Ref("UserMemory"), "How many records match."))}},
		{pattern: "GET /v1/whoami", handler: (*Server).handleWhoami,
			op: loci.OpKeyWhoami,
			doc: &apidoc.Op{ID: "whoami", Tag: "overview",
				Desc: "With authentication off the caller is trusted: `auth` false, no key, the admin role's rights.",
				OK: apidoc.Okay("The key.", apidoc.Success(apidoc.Object([]string{"auth", "key_id", "role", "agent_id", "workspace"}, apidoc.Obj{
					"auth":      apidoc.Boolean("Whether the server requires a key."),
					"key_id":    apidoc.Str("Empty when authentication is off."),
					"role":      apidoc.Ref("Role"),
					"agent_id":  apidoc.Str("The agent the key is bound to; empty for none."),
					"workspace": apidoc.Str(""),
				})))}},
	}
}

func (s *Server) handleListUsers(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	users, total, err := s.OverviewService.ListUsers(r.Context(), loci.UserFilter{Match: r.URL.Query().Get("q"), Limit: limit, Offset: offset})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "users": users})
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	top, err := queryInt(r, "top", 0)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	days, err := queryInt(r, "days", 0)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if (q.Has("top") && top == 0) || (q.Has("days") && days == 0) {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "top and days must be at least 1"))
		return
	}
	st, err := s.OverviewService.Stats(r.Context(), loci.StatsQuery{AgentID: q.Get("agent_id"), UserID: q.Get("user_id"), Top: top, Days: days})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, st, nil)
}

// queryTime reads an RFC 3339 query parameter, zero when absent.
func queryTime(r *http.Request, name string) (time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time", name)
	}
	return t.UTC(), nil
}

func (s *Server) handleListMemories(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	mq := loci.MemoryQuery{Scope: pathQueryScope(r)}
	var err error
	if mq.Limit, mq.Offset, err = pageParams(r, loci.DefaultListLimit); err != nil {
		s.Error(w, r, err)
		return
	}
	if mq.Before, err = queryTime(r, "before"); err != nil {
		s.Error(w, r, err)
		return
	}
	if mq.After, err = queryTime(r, "after"); err != nil {
		s.Error(w, r, err)
		return
	}
	// kind may be repeated, or a comma-separated list.
	for _, v := range q["kind"] {
		for _, name := range strings.Split(v, ",") {
			k, err := loci.ParseKind(strings.TrimSpace(name))
			if err != nil {
				s.Error(w, r, err)
				return
			}
			mq.Kinds = append(mq.Kinds, k)
		}
	}
	if mq.Filters, err = loci.ParseMemoryFilter([]byte(q.Get("filters"))); err != nil {
		s.Error(w, r, err)
		return
	}
	mems, total, err := s.OverviewService.ListMemories(r.Context(), mq)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "memories": mems})
}

// handleWhoami answers who the request's key is, so that a client (the
// inspector) can show what it may do. With authentication off the caller
// is trusted: no key, and every role's rights.
func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := loci.PrincipalFrom(ctx)
	if p == nil {
		ok(w, http.StatusOK, map[string]any{"auth": false, "key_id": "", "role": loci.RoleAdmin, "agent_id": "", "workspace": loci.WorkspaceFrom(ctx)})
		return
	}
	ok(w, http.StatusOK, map[string]any{"auth": true, "key_id": p.KeyID, "role": p.Role, "agent_id": p.AgentID, "workspace": p.Workspace})
}
