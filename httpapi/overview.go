package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// overviewRoutes registers the overview a person looking after memory
// starts from (the web inspector's): the user list, stats, the timeline of
// every kind, and who the caller's key is.
func (s *Server) overviewRoutes() {
	s.handle("GET /v1/users", s.handleListUsers)
	s.handle("GET /v1/stats", s.handleStats)
	s.handle("GET /v1/memories", s.handleListMemories)
	s.handle("GET /v1/whoami", s.handleWhoami)
}

func (s *Server) handleListUsers(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, 100)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	users, total, err := s.svc.ListUsers(r.Context(), loci.UserFilter{Match: r.URL.Query().Get("q"), Limit: limit, Offset: offset})
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
	st, err := s.svc.Stats(r.Context(), loci.StatsQuery{AgentID: q.Get("agent_id"), UserID: q.Get("user_id"), Top: top, Days: days})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, objectFields(st))
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
	if mq.Limit, mq.Offset, err = pageParams(r, 100); err != nil {
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
	mems, total, err := s.svc.ListMemories(r.Context(), mq)
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
