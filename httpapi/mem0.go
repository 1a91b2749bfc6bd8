package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loci-memory/loci"
)

// The mem0 API (docs/api.md, "The mem0 API"): the subset of mem0's
// platform REST API that mem0's official clients use, so that
// `new MemoryClient({apiKey, host: "http://HOST:8420/mem0"})` (npm mem0ai)
// works unchanged against loci. It is a translation of shapes over
// loci's services, nothing more: an add is an add of messages
// (loci.ConversationService, as POST /v1/memories with messages: without a
// chat model each user message becomes one memory about the user, the
// others none; with one the model reads them; infer and async_mode are
// honoured) and answers exactly what it stored; mem0's run_id is loci's
// session_id; mem0's
// filters are translated into loci's filter language where they map, and
// refused (400, naming what does not map) where they do not.
//
// Answers are mem0's shapes (bare JSON, no success envelope); errors are
// loci's envelope with mem0's statuses (400, 401, 403, 404, 413), which the
// client raises as its ValidationError, AuthenticationError,
// MemoryNotFoundError and MemoryQuotaExceededError.

var _ = addRoutes(mem0Routes)

// mem0Routes are the mem0 API's routes. Their shapes are mem0's, described
// by mem0, so they are left out of the OpenAPI document; each refuses the
// query parameters it does not take itself.
func mem0Routes() []endpoint {
	why := "mem0's platform API (the framework adapters), described by mem0, not by this API"
	route := func(pattern string, op *loci.Operation, takes []string, h func(*Server, http.ResponseWriter, *http.Request)) endpoint {
		return endpoint{pattern: pattern, op: op, undocumented: why,
			handler: func(s *Server, w http.ResponseWriter, r *http.Request) {
				if err := checkQuery(r, takes); err != nil {
					s.Error(w, r, err)
					return
				}
				h(s, w, r)
			}}
	}
	routes := []endpoint{
		route("GET /mem0/v1/ping/{$}", loci.OpMem0Ping, nil, (*Server).handleMem0Ping),
		route("POST /mem0/v3/memories/add/{$}", loci.OpMem0Add, nil, (*Server).handleMem0Add),
		route("POST /mem0/v3/memories/search/{$}", loci.OpMem0Search, nil, (*Server).handleMem0Search),
		route("POST /mem0/v3/memories/{$}", loci.OpMem0List, []string{"page", "page_size"}, (*Server).handleMem0List),
		route("GET /mem0/v1/memories/{id}/{$}", loci.OpMem0Get, nil, (*Server).handleMem0Get),
		route("PUT /mem0/v1/memories/{id}/{$}", loci.OpMem0Update, nil, (*Server).handleMem0Update),
		route("DELETE /mem0/v1/memories/{id}/{$}", loci.OpMem0Delete, []string{"delete_linked"}, (*Server).handleMem0Delete),
		route("DELETE /mem0/v1/memories/{$}", loci.OpMem0DeleteAll, []string{"user_id", "agent_id", "run_id", "app_id"}, (*Server).handleMem0DeleteAll),
		route("GET /mem0/v1/memories/{id}/history/{$}", loci.OpMem0History, nil, (*Server).handleMem0History),
		route("PUT /mem0/v1/batch/{$}", loci.OpMem0BatchUpdate, nil, (*Server).handleMem0BatchUpdate),
		route("DELETE /mem0/v1/batch/{$}", loci.OpMem0BatchDelete, nil, (*Server).handleMem0BatchDelete),
	}
	for _, n := range mem0NotServed {
		method, path, _ := strings.Cut(n.pattern, " ")
		op := loci.OpMem0NotServedWrite
		switch method {
		case http.MethodGet:
			op = loci.OpMem0NotServedRead
		case http.MethodDelete:
			op = loci.OpMem0NotServedDelete
		}
		path = strings.TrimSuffix(strings.TrimPrefix(path, "/mem0"), "{$}")
		routes = append(routes, endpoint{pattern: n.pattern, op: op, undocumented: why,
			handler: func(s *Server, w http.ResponseWriter, r *http.Request) {
				// A body that is not a JSON object is bad input whatever
				// the call: 400, as on every route.
				if len(bytes.TrimSpace(bodyOf(r))) > 0 {
					var body map[string]json.RawMessage
					if err := decode(r, &body); err != nil {
						s.Error(w, r, err)
						return
					}
				}
				s.Error(w, r, loci.Errorf(loci.ENOTIMPLEMENTED, "mem0's %s (%s %s) is not implemented by loci: %s", n.call, method, path, n.why))
			}})
	}
	return routes
}

// mem0NotServed are the calls of mem0's clients that loci does not serve:
// each answers 501 not_implemented naming the call, never 404, so that a
// client says what is missing rather than "not found".
var mem0NotServed = []struct{ pattern, call, why string }{
	{"GET /mem0/v1/entities/{$}", "users()", mem0NoEntities},
	{"DELETE /mem0/v1/entities/{type}/{id}/{$}", "deleteUser()", mem0NoEntities},
	{"DELETE /mem0/v2/entities/{type}/{id}/{$}", "deleteUsers()", mem0NoEntities},
	{"GET /mem0/v2/entities/{type}/{id}/profile/{$}", "getProfile()", mem0NoModel},
	{"POST /mem0/v2/profiles/jobs/{$}", "generateProfile() / sampleProfiles()", mem0NoModel},
	{"GET /mem0/v2/profiles/jobs/{id}/{$}", "getProfileJob()", mem0NoModel},
	{"GET /mem0/v2/profiles/settings/{$}", "getProfileSettings()", mem0NoModel},
	{"POST /mem0/v2/profiles/settings/{$}", "updateProfileSettings()", mem0NoModel},
	{"POST /mem0/v1/feedback/{$}", "feedback()", "loci keeps no feedback on mem0 memories; rate an episode with POST /v1/episodes/{id}/feedback"},
	{"POST /mem0/v1/exports/{$}", "createMemoryExport()", mem0NoExports},
	{"POST /mem0/v1/exports/get/{$}", "getMemoryExport()", mem0NoExports},
	{"GET /mem0/api/v1/orgs/organizations/{org}/projects/{project}/{$}", "getProject()", mem0NoProjects},
	{"PATCH /mem0/api/v1/orgs/organizations/{org}/projects/{project}/{$}", "updateProject()", mem0NoProjects},
	{"GET /mem0/api/v1/webhooks/projects/{project}/{$}", "getWebhooks()", mem0NoWebhooks},
	{"POST /mem0/api/v1/webhooks/projects/{project}/{$}", "createWebhook()", mem0NoWebhooks},
	{"PUT /mem0/api/v1/webhooks/{id}/{$}", "updateWebhook()", mem0NoWebhooks},
	{"DELETE /mem0/api/v1/webhooks/{id}/{$}", "deleteWebhook()", mem0NoWebhooks},
}

const (
	mem0NoEntities = "loci lists no users or entities through the mem0 API; list users with GET /v1/users and delete one's memories with " +
		"deleteAll({user_id}) or DELETE /v1/users/{user_id}"
	mem0NoModel    = "loci builds no profiles (it calls no model for them); GET /v1/users/{user_id}/memories lists what it holds about a user"
	mem0NoExports  = "export a workspace or a user with GET /v1/export (JSON Lines)"
	mem0NoProjects = "loci has no projects: an API key's workspace is the project"
	mem0NoWebhooks = "loci sends no webhooks"
)

// handleMem0Ping answers the client's ping on construction: the key is
// valid (the guard checked it).
func (s *Server) handleMem0Ping(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "org_id": nil, "project_id": nil, "user_email": nil})
}

// mem0Message is one message of an add.
type mem0Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name,omitempty"`
}

// mem0AddRequest is the body of an add, as the client sends it.
type mem0AddRequest struct {
	Messages       json.RawMessage `json:"messages"`
	UserID         string          `json:"user_id"`
	AgentID        string          `json:"agent_id"`
	RunID          string          `json:"run_id"`
	AppID          string          `json:"app_id"`
	Metadata       json.RawMessage `json:"metadata"`
	Infer          *bool           `json:"infer"`
	AsyncMode      *bool           `json:"async_mode"`
	OutputFormat   string          `json:"output_format"`
	Version        string          `json:"version"`
	ExpirationDate *string         `json:"expiration_date"`
	// Refused: they ask a model for something loci does not do.
	CustomCategories       json.RawMessage `json:"custom_categories"`
	CustomInstructions     json.RawMessage `json:"custom_instructions"`
	AgentCustomInstruction json.RawMessage `json:"agent_custom_instructions"`
	StructuredDataSchema   json.RawMessage `json:"structured_data_schema"`
	Includes               json.RawMessage `json:"includes"`
	Excludes               json.RawMessage `json:"excludes"`
	Timestamp              json.RawMessage `json:"timestamp"`
	Immutable              *bool           `json:"immutable"`
}

// refused names the first field of an add that loci does not take.
func (q mem0AddRequest) refused() error {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"custom_categories", q.CustomCategories != nil}, {"custom_instructions", q.CustomInstructions != nil},
		{"agent_custom_instructions", q.AgentCustomInstruction != nil}, {"structured_data_schema", q.StructuredDataSchema != nil},
		{"includes", q.Includes != nil}, {"excludes", q.Excludes != nil},
	} {
		if f.set {
			return loci.Errorf(loci.EINVALID, "%s is not supported: loci takes no instructions for reading messages", f.name)
		}
	}
	if q.Timestamp != nil {
		return loci.Errorf(loci.EINVALID, "timestamp is not supported: loci records when a memory is added")
	}
	if q.Immutable != nil && *q.Immutable {
		return loci.Errorf(loci.EINVALID, "immutable is not supported")
	}
	if q.AppID != "" {
		return errMem0AppID()
	}
	return nil
}

func errMem0AppID() error {
	return loci.Errorf(loci.EINVALID, "app_id does not map to loci: an API key's workspace is the app; scope by user_id, agent_id or run_id")
}

// messages returns the messages of an add: a string (one message from
// the user) or an array of {role, content, name?} with text content.
func (q mem0AddRequest) messages() ([]loci.ChatMessage, error) {
	raw := bytes.TrimSpace(q.Messages)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, loci.Errorf(loci.EINVALID, "messages is required: a string or an array of {role, content}")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []loci.ChatMessage{{Role: loci.MessageRoleUser, Content: text}}, nil
	}
	var msgs []mem0Message
	if raw[0] != '[' {
		return nil, loci.Errorf(loci.EINVALID, "messages must be a string or an array of {role, content}")
	}
	if err := decodeJSON(raw, &msgs, "messages"); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, loci.Errorf(loci.EINVALID, "messages is empty")
	}
	out := make([]loci.ChatMessage, len(msgs))
	for i, m := range msgs {
		out[i] = loci.ChatMessage{Role: m.Role, Name: m.Name}
		if json.Unmarshal(m.Content, &out[i].Content) != nil {
			return nil, loci.Errorf(loci.EINVALID, "messages[%d]: content must be text (loci stores no images or files)", i)
		}
	}
	return out, nil
}

// mem0Expiration is an expiry as mem0 answers it: a date, the last day the
// memory lasts, when it ends at a midnight UTC (as a date given ends:
// expiryTime), so that the date sent comes back; else the time.
func mem0Expiration(t time.Time) string {
	t = t.UTC()
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.AddDate(0, 0, -1).Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// mem0Date parses a listing's start_date or end_date: a date (its
// midnight, UTC) or an RFC 3339 time.
func mem0Date(field string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	if t, err := time.Parse(time.DateOnly, *v); err == nil {
		return &t, nil
	}
	return optionalTime(field, v)
}

func (s *Server) handleMem0Add(w http.ResponseWriter, r *http.Request) {
	var req mem0AddRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if err := req.refused(); err != nil {
		s.Error(w, r, err)
		return
	}
	msgs, err := req.messages()
	if err != nil {
		s.Error(w, r, err)
		return
	}
	at, err := expiryTime("expiration_date", req.ExpirationDate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// A key bound to an agent adds its own agent's memories, as it
	// searches, lists and deletes them.
	in := loci.MessagesInput{Messages: msgs, UserID: req.UserID, AgentID: boundScope(r, loci.Scope{AgentID: req.AgentID}).AgentID, SessionID: req.RunID,
		Metadata: req.Metadata, ExpiresAt: at, Async: req.AsyncMode != nil && *req.AsyncMode}
	if req.Infer != nil && !*req.Infer {
		in.Infer = loci.InferOff
	}
	res, err := s.ConversationService.AddMessages(r.Context(), in)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if res.Status == loci.EventPending {
		writeJSON(w, http.StatusOK, []map[string]any{{"message": "Memory processing has been queued for background execution",
			"status": res.Status, "event_id": res.EventID}})
		return
	}
	out, err := s.mem0Events(r, res.Results)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// mem0Events lists what an add of messages wrote or found, in mem0's
// shape: each memory as it is now (a deleted one as it was), with its
// event and the text written.
func (s *Server) mem0Events(r *http.Request, evs []loci.MessageEvent) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(evs))
	for _, ev := range evs {
		var mm map[string]any
		if ev.Event == loci.EventDelete {
			mm = map[string]any{"id": ev.ID, "memory": ev.Content, "kind": ev.Kind}
		} else {
			m, err := s.MemoryService.GetMemory(r.Context(), ev.ID)
			if err != nil {
				return nil, err
			}
			mm = mem0Memory(m)
		}
		mm["event"] = ev.Event
		mm["data"] = map[string]any{"memory": ev.Content}
		if ev.Previous != "" {
			mm["previous_memory"] = ev.Previous
		}
		out = append(out, mm)
	}
	return out, nil
}

// mem0BatchError renames the operation a batch error names (add[2]) as
// the mem0 request names it (messages[2]).
func mem0BatchError(err error, op, as string) error {
	msg := loci.ErrorMessage(err)
	if rest, ok := strings.CutPrefix(msg, op+"["); ok {
		return loci.Errorf(loci.ErrorCode(err), "%s[%s", as, rest)
	}
	return err
}

// mem0Memory is a loci memory in mem0's shape.
func mem0Memory(m *loci.UserMemory) map[string]any {
	orNull := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	var meta any
	if len(m.Metadata) > 0 {
		meta = m.Metadata
	}
	cats := []string{}
	if m.Category != "" {
		cats = append(cats, m.Category)
	}
	var exp any
	if !m.ExpiresAt.IsZero() {
		exp = mem0Expiration(m.ExpiresAt)
	}
	return map[string]any{
		"id": m.ID, "memory": m.Content, "kind": m.Kind,
		"user_id": orNull(m.UserID), "agent_id": orNull(m.AgentID), "app_id": nil, "run_id": orNull(m.SessionID),
		"metadata": meta, "categories": cats, "created_at": m.CreatedAt, "updated_at": m.UpdatedAt, "expiration_date": exp,
	}
}

// mem0SearchRequest is the body of a search.
type mem0SearchRequest struct {
	Query         string          `json:"query"`
	Filters       json.RawMessage `json:"filters"`
	TopK          *int            `json:"top_k"`
	OutputFormat  string          `json:"output_format"`
	Metadata      json.RawMessage `json:"metadata"`
	Categories    []string        `json:"categories"`
	KeywordSearch *bool           `json:"keyword_search"`
	LatestOnly    *bool           `json:"latest_only"`
	Rerank        *bool           `json:"rerank"`
	Threshold     *float64        `json:"threshold"`
	ShowExpired   *bool           `json:"show_expired"`
	Fields        []string        `json:"fields"`
	ReferenceDate *string         `json:"reference_date"`
	Source        string          `json:"source"`
	Version       string          `json:"version"`
}

// mem0SearchFields are the fields of a search result, which fields may
// name.
var mem0SearchFields = []string{"id", "memory", "kind", "user_id", "agent_id", "app_id", "run_id", "metadata", "categories",
	"created_at", "updated_at", "expiration_date", "score", "match"}

func (s *Server) handleMem0Search(w http.ResponseWriter, r *http.Request) {
	var req mem0SearchRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.OutputFormat != "" && req.OutputFormat != "v1.1" {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "output_format must be v1.1"))
		return
	}
	for i, f := range req.Fields {
		if !slices.Contains(mem0SearchFields, f) {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "fields[%d]: unknown field %q: a result has %s", i, f, strings.Join(mem0SearchFields, ", ")))
			return
		}
	}
	q, err := mem0Common(req.Filters, req.Metadata, req.Categories, req.LatestOnly, req.ShowExpired)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	sc := boundScope(r, q.scope)
	sq := loci.SearchQuery{Query: req.Query, UserID: sc.UserID, AgentID: sc.AgentID, SessionID: sc.SessionID, Filters: q.raw, Kinds: mem0Kinds()}
	if req.Threshold != nil {
		sq.Threshold = *req.Threshold
		if err := loci.ValidateThreshold(sq.Threshold); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	if req.ReferenceDate != nil {
		sq.ReferenceDate = *req.ReferenceDate
		if _, err := loci.ParseReferenceDate(sq.ReferenceDate); err != nil || strings.TrimSpace(sq.ReferenceDate) == "" {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "reference_date must be an RFC 3339 time (2026-01-31T09:00:00Z) or a date (2026-01-31)"))
			return
		}
	}
	if req.TopK != nil {
		if *req.TopK < 1 || *req.TopK > loci.MaxSearchLimit {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "top_k must be from 1 to %d", loci.MaxSearchLimit))
			return
		}
		sq.Limit = *req.TopK
	}
	res, err := s.SearchService.Search(r.Context(), sq)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	out := make([]map[string]any, 0, len(res.Results))
	for _, hit := range res.Results {
		m, err := s.MemoryService.GetMemory(r.Context(), hit.ID)
		if loci.ErrorCode(err) == loci.ENOTFOUND {
			continue // deleted since
		} else if err != nil {
			s.Error(w, r, err)
			return
		}
		mm := mem0Memory(m)
		mm["score"] = hit.Score
		if hit.Match != "" {
			mm["match"] = hit.Match
		}
		if len(req.Fields) > 0 {
			picked := make(map[string]any, len(req.Fields))
			for _, f := range req.Fields {
				if v, ok := mm[f]; ok {
					picked[f] = v
				}
			}
			mm = picked
		}
		out = append(out, mm)
	}
	ans := map[string]any{"results": out, "retrieval": res.Retrieval}
	if req.Rerank != nil && *req.Rerank {
		// loci calls no reranking model: the order is its own ranking's.
		ans["rerank"] = "not available"
	}
	writeJSON(w, http.StatusOK, ans)
}

// mem0ListRequest is the body of a get all.
type mem0ListRequest struct {
	Filters     json.RawMessage `json:"filters"`
	StartDate   *string         `json:"start_date"`
	EndDate     *string         `json:"end_date"`
	LatestOnly  *bool           `json:"latest_only"`
	Categories  []string        `json:"categories"`
	ShowExpired *bool           `json:"show_expired"`
	Version     string          `json:"version"`
}

func (s *Server) handleMem0List(w http.ResponseWriter, r *http.Request) {
	var req mem0ListRequest
	if len(bytes.TrimSpace(bodyOf(r))) > 0 {
		if err := decode(r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	page, size := 1, 100
	for _, p := range []struct {
		name string
		v    *int
		max  int
	}{{"page", &page, loci.MaxOffset}, {"page_size", &size, loci.MaxListLimit}} {
		if raw := r.URL.Query().Get(p.name); raw != "" {
			n, err := strconv.Atoi(raw)
			if err != nil || n < 1 || n > p.max {
				s.Error(w, r, loci.Errorf(loci.EINVALID, "%s must be an integer from 1 to %d", p.name, p.max))
				return
			}
			*p.v = n
		}
	}
	if (page-1)*size > loci.MaxOffset {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "page is past the last one a listing reaches"))
		return
	}
	q, err := mem0Common(req.Filters, nil, req.Categories, req.LatestOnly, req.ShowExpired)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	mq := loci.MemoryQuery{Scope: boundScope(r, q.scope), Kinds: mem0Kinds(), Filters: q.parsed, Limit: size, Offset: (page - 1) * size}
	for _, d := range []struct {
		name string
		v    *string
		at   *time.Time
	}{{"start_date", req.StartDate, &mq.After}, {"end_date", req.EndDate, &mq.Before}} {
		if d.v == nil {
			continue
		}
		t, err := mem0Date(d.name, d.v)
		if err != nil {
			s.Error(w, r, err)
			return
		}
		*d.at = *t
	}
	if !mq.After.IsZero() {
		mq.After = mq.After.Add(-time.Microsecond) // start_date is inclusive, After exclusive
	}
	mems, total, err := s.OverviewService.ListMemories(r.Context(), mq)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	out := make([]map[string]any, 0, len(mems))
	for _, m := range mems {
		out = append(out, mem0Memory(m))
	}
	link := func(p int) any {
		if p < 1 || (p-1)*size >= total {
			return nil
		}
		return fmt.Sprintf("/mem0/v3/memories/?page=%d&page_size=%d", p, size)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": total, "next": link(page + 1), "previous": link(page - 1), "results": out})
}

// mem0Kinds are the kinds the mem0 API's search and get all read: every kind
// but those whose records are a conversation (loci.KindTraits.Conversation:
// sessions). An add with a run_id appends its messages to that
// session's conversation, for loci's own routes; mem0 keeps no
// conversation, and its memories are what was learnt from one, not what
// was said (an assistant's reply is no memory about the user). Delete all
// of a run deletes its conversation too.
func mem0Kinds() []loci.Kind {
	return loci.KindsWhere(func(t loci.KindTraits) bool { return !t.Conversation })
}

// boundScope is sc read with the request's key: a key bound to an agent
// adds, searches, lists and deletes its own agent's memories, as if it
// named it.
func boundScope(r *http.Request, sc loci.Scope) loci.Scope {
	if p := loci.PrincipalFrom(r.Context()); p != nil && p.AgentID != "" && sc.AgentID == "" {
		sc.AgentID = p.AgentID
	}
	return sc
}

func (s *Server) handleMem0Get(w http.ResponseWriter, r *http.Request) {
	m, err := s.MemoryService.GetMemory(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, mem0Memory(m))
}

// mem0UpdateRequest is the body of an update.
type mem0UpdateRequest struct {
	Text           *string         `json:"text"`
	Metadata       json.RawMessage `json:"metadata"`
	Timestamp      json.RawMessage `json:"timestamp"`
	ExpirationDate json.RawMessage `json:"expiration_date"`
}

func (s *Server) handleMem0Update(w http.ResponseWriter, r *http.Request) {
	var req mem0UpdateRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Timestamp != nil {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "timestamp is not supported: loci records when a memory changes"))
		return
	}
	// expiration_date null (the client's expirationDate: null) removes it.
	at, none, err := patchExpiry("expiration_date", req.ExpirationDate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Text == nil && req.Metadata == nil && at == nil && !none {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "give text, metadata or expiration_date"))
		return
	}
	meta := req.Metadata
	if meta != nil && strings.TrimSpace(string(meta)) == "null" {
		meta = json.RawMessage("{}")
	}
	ev, err := s.MemoryService.UpdateMemory(r.Context(), r.PathValue("id"), loci.MemoryPatch{Content: req.Text, Metadata: meta, ExpiresAt: at, NoExpiry: none})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	m, err := s.MemoryService.GetMemory(r.Context(), ev.ID)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	mm := mem0Memory(m)
	mm["event"] = ev.Event
	writeJSON(w, http.StatusOK, mm)
}

func (s *Server) handleMem0Delete(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("delete_linked"); v != "" && v != "false" {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "delete_linked is not supported: a fact's earlier versions are kept as its history"))
		return
	}
	if err := s.MemoryService.DeleteMemory(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"message": "Memory deleted successfully!"})
}

// handleMem0DeleteAll deletes every memory of the user, agent and/or run
// named, a thousand at a time, each thousand in one transaction.
func (s *Server) handleMem0DeleteAll(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("app_id") != "" {
		s.Error(w, r, errMem0AppID())
		return
	}
	sc := loci.Scope{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), SessionID: q.Get("run_id")}
	if sc == (loci.Scope{}) {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "name the memories to delete: user_id, agent_id and/or run_id"))
		return
	}
	sc = boundScope(r, sc)
	deleted := 0
	for {
		mems, _, err := s.OverviewService.ListMemories(r.Context(), loci.MemoryQuery{Scope: sc, Limit: loci.MaxBatchOps})
		if err != nil {
			s.Error(w, r, err)
			return
		}
		if len(mems) == 0 {
			break
		}
		ids := make([]string, len(mems))
		for i, m := range mems {
			ids[i] = m.ID
		}
		if _, err := s.MemoryService.BatchMemories(r.Context(), loci.MemoryBatch{Delete: ids}); err != nil {
			s.Error(w, r, err)
			return
		}
		deleted += len(ids)
	}
	writeJSON(w, http.StatusOK, map[string]any{"message": "Memories deleted successfully!", "count": deleted})
}

func (s *Server) handleMem0History(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	m, err := s.MemoryService.GetMemory(r.Context(), id)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	vs, err := s.MemoryService.MemoryHistory(r.Context(), id)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	cats := []string{}
	if m.Category != "" {
		cats = append(cats, m.Category)
	}
	var userID any
	if m.UserID != "" {
		userID = m.UserID
	}
	out := make([]map[string]any, 0, len(vs))
	var old any
	for i := len(vs) - 1; i >= 0; i-- { // oldest first, as mem0 answers
		v := vs[i]
		var meta any
		if len(v.Metadata) > 0 {
			meta = v.Metadata
		}
		out = append(out, map[string]any{
			"id": fmt.Sprintf("%s-v%d", v.ID, v.Version), "memory_id": id, "input": []any{},
			"old_memory": old, "new_memory": v.Content, "event": v.Event, "user_id": userID, "categories": cats,
			"metadata": meta, "created_at": v.UpdatedAt, "updated_at": v.UpdatedAt,
		})
		old = v.Content
	}
	writeJSON(w, http.StatusOK, out)
}

// mem0BatchRequest is the body of a batch update or delete.
type mem0BatchRequest struct {
	Memories []struct {
		MemoryID string          `json:"memory_id"`
		Text     *string         `json:"text"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"memories"`
}

func (s *Server) mem0Batch(w http.ResponseWriter, r *http.Request, update bool) {
	var req mem0BatchRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if len(req.Memories) == 0 {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "memories is required: a non-empty array"))
		return
	}
	var b loci.MemoryBatch
	for i, m := range req.Memories {
		if m.MemoryID == "" {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "memories[%d]: memory_id is required", i))
			return
		}
		if !update {
			if m.Text != nil || m.Metadata != nil {
				s.Error(w, r, loci.Errorf(loci.EINVALID, "memories[%d]: a delete takes memory_id only", i))
				return
			}
			b.Delete = append(b.Delete, m.MemoryID)
			continue
		}
		if m.Text == nil && m.Metadata == nil {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "memories[%d]: give text or metadata", i))
			return
		}
		b.Update = append(b.Update, loci.MemoryUpdate{ID: m.MemoryID, MemoryPatch: loci.MemoryPatch{Content: m.Text, Metadata: m.Metadata}})
	}
	evs, err := s.MemoryService.BatchMemories(r.Context(), b)
	if err != nil {
		op := "delete"
		if update {
			op = "update"
		}
		s.Error(w, r, mem0BatchError(err, op, "memories"))
		return
	}
	verb := "deleted"
	if update {
		verb = "updated"
	}
	writeJSON(w, http.StatusOK, map[string]any{"message": fmt.Sprintf("Successfully %s %d memories", verb, len(evs))})
}

func (s *Server) handleMem0BatchUpdate(w http.ResponseWriter, r *http.Request) {
	s.mem0Batch(w, r, true)
}
func (s *Server) handleMem0BatchDelete(w http.ResponseWriter, r *http.Request) {
	s.mem0Batch(w, r, false)
}
