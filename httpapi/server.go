// Package httpapi is loci's REST transport: the route table and the /v1
// handlers (docs/api.md), the mem0 API, the error envelope, health
// endpoints and the OpenAPI document. Its Go client is package
// httpclient.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
	"github.com/loci-memory/loci/internal/wire"
)

// Server routes HTTP requests to loci's services. It holds one field per
// service interface (WTF Dial's http.Server holds its DialService,
// UserService…); each route group calls only its own, so a test may
// replace one (set the field after NewServer: handlers read it at each
// request).
type Server struct {
	AgentService        loci.AgentService
	AuditService        loci.AuditService
	BlockService        loci.BlockService
	ConversationService loci.ConversationService
	EpisodeService      loci.EpisodeService
	ExportService       loci.ExportService
	FactService         loci.FactService
	KeyService          loci.KeyService
	MaintenanceService  loci.MaintenanceService
	MemoryService       loci.MemoryService
	NoteService         loci.NoteService
	OverviewService     loci.OverviewService
	PassageService      loci.PassageService
	PingService         loci.PingService
	PreferenceService   loci.PreferenceService
	RetrievalService    loci.RetrievalService
	ReviewService       loci.ReviewService
	SearchService       loci.SearchService
	SessionService      loci.SessionService
	UserMemoryService   loci.UserMemoryService
	WorkingService      loci.WorkingService

	logger *slog.Logger
	mux    *http.ServeMux
	routes []Route

	// Security and operations (guard.go).
	authRequired   bool
	audit          bool
	limiter        *rateLimiter
	observer       Observer
	metrics        http.Handler
	maxImportBytes int64
	streamIdle     time.Duration
	mcpHandler     http.Handler // served at /mcp (mcp.go)
	inspector      http.Handler // served at / and /ui/ (inspector.go)

	// draining: the server is shutting down (Drain).
	draining atomic.Bool
	// drained ends, at Drain, the requests that would otherwise last as
	// long as their client stays (MCP's event streams).
	drained    context.Context
	endStreams context.CancelFunc
}

// Route is one registered endpoint: its method, path pattern and the
// policy its entry in the route table (routes.go) sets.
type Route struct {
	Method  string // GET, PUT, POST, DELETE
	Pattern string // the path pattern, e.g. /v1/agents/{agent_id}/notes/{key}
	Policy  Policy
}

// String returns the pattern the route was registered with:
// "METHOD /path", or the path alone for a route of every method.
func (rt Route) String() string {
	if rt.Method == "" {
		return rt.Pattern
	}
	return rt.Method + " " + rt.Pattern
}

// Routes returns every registered endpoint, in registration order.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// NewServer returns a handler for svc, split into the server's service
// fields (wiring: no handler depends on the whole of loci.Service): each
// field of an interface svc implements is set to svc. By
// default authentication is on once a key exists, the audit log is on and
// there is no rate limit.
func NewServer(svc loci.Service, logger *slog.Logger, opts ...Option) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{logger: logger, mux: http.NewServeMux(), audit: true, maxImportBytes: DefaultMaxImportBytes,
		streamIdle: DefaultStreamIdleTimeout}
	s.drained, s.endStreams = context.WithCancel(context.Background())
	s.setServices(svc)
	for _, o := range opts {
		o(s)
	}
	s.register()
	return s
}

// setServices fills each service field from svc: every exported field
// of an interface type that svc implements (wire.Services), so that a
// kind's service is wired by declaring its field, not by a line here too.
func (s *Server) setServices(svc loci.Service) {
	if svc == nil {
		return
	}
	wire.Services(s, svc)
}

var _ = addRoutes(operationRoutes)

// operationRoutes are the health endpoints. /healthz never touches the
// storage; /readyz checks it.
func operationRoutes() []endpoint {
	status := func(v string) apidoc.Obj {
		return apidoc.Success(apidoc.Object([]string{"status"}, apidoc.Obj{"status": apidoc.Obj{"const": v}}))
	}
	return []endpoint{
		{pattern: "GET /healthz", handler: (*Server).handleHealth,
			op: loci.OpHealth,
			doc: &apidoc.Op{ID: "health", Tag: "operations", NoStorage: true,
				OK: apidoc.Okay("The process is up.", status("ok"))}},
		{pattern: "GET /readyz", handler: (*Server).handleReady,
			op: loci.OpReady,
			doc: &apidoc.Op{ID: "ready", Tag: "operations",
				Desc: "200 `ready` while the storage answers reads, with how searches rank in `retrieval` (chosen at start: `hybrid` with the " +
					"embedding model found or configured, else `lexical`) and the state of writes in `writes`: `ok`, or " +
					"`storage_full` after a write failed for a full disk, until a write succeeds again at least 2 s after the failure " +
					"(a small write may fit where the next will not), at most a minute. " +
					"503 `unavailable` when the storage does not answer within 2 s.",
				OK: apidoc.Okay("Ready: reads are served.", apidoc.Success(apidoc.Object([]string{"status", "writes"}, apidoc.Obj{
					"status": apidoc.Obj{"const": "ready"},
					"writes": apidoc.WithDesc(apidoc.Obj{"type": "string", "enum": []string{writesOK, writesFull}},
						"`ok`: writes are accepted; `storage_full`: the last write failed for a full disk (reads still work; "+
							"writes answer 507 until space is freed)"),
					"retrieval": apidoc.Ref("Retrieval"),
				})))}},
	}
}

// noRoute answers a request that no route matches, in the error envelope
// (docs/api.md, "Errors"): 405 (code invalid) with an Allow header when routes
// serve its path with other methods, else 404 not_found.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodPut} {
		probe := *r
		probe.Method = m
		if _, pattern := s.mux.Handler(&probe); pattern != "/" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		s.Error(w, r, loci.Errorf(loci.ENOTFOUND, "no such endpoint: the API is described at /v1/openapi.json"))
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeJSON(w, http.StatusMethodNotAllowed, map[string]any{
		"success": false, "code": loci.EINVALID,
		"error": fmt.Sprintf("method %s is not allowed here; allowed: %s", r.Method, strings.Join(allow, ", ")),
	})
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		// A request that arrives while the server drains is refused with
		// an answer, and its connection closed, so that its client goes
		// elsewhere instead of sending more on a connection about to close.
		w.Header().Set("Connection", "close")
		s.Error(w, r, loci.Errorf(loci.EUNAVAILABLE, "the server is shutting down: nothing was done; retry (on another server)"))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Drain makes the server refuse every request from now on, with 503
// unavailable, Retry-After and "Connection: close", while requests already
// being handled finish: the first step of a graceful shutdown. A client
// that sends on a keep-alive connection during the drain gets an answer
// and closes it, so that none is cut when the connections close. An event
// stream that lasts as long as its client holds it (GET /mcp) ends now,
// as its client is told a stream may end, so that the drain does not wait
// for the client to let go.
func (s *Server) Drain() {
	s.draining.Store(true)
	s.endStreams()
}

// untilDrained returns a context of r's that also ends when the server
// drains, and its cancel.
func (s *Server) untilDrained(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.drained, cancel)
	return ctx, func() { stop(); cancel() }
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "status": "ok"})
}

// readyTimeout bounds /readyz's check of the storage, so that a database
// that does not answer makes it answer 503 at once rather than hang.
const readyTimeout = 2 * time.Second

// The states of writes /readyz reports.
const (
	writesOK   = "ok"
	writesFull = "storage_full"
)

// handleReady answers 200 while the storage answers reads, with how
// searches rank ("retrieval") and the state of writes ("writes": "ok" or
// "storage_full"); 503 unavailable when it
// does not answer within readyTimeout. A full disk does not make the
// server unready: reads are served.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	writes := writesOK
	if err := s.PingService.Ping(ctx); err != nil {
		if loci.ErrorCode(err) == loci.ESTORAGEFULL {
			writes = writesFull
		} else {
			s.logger.Error("readiness", "err", err)
			s.Error(w, r, loci.WrapError(err, loci.EUNAVAILABLE, "storage unreachable: the database does not answer"))
			return
		}
	}
	ans := map[string]any{"success": true, "status": "ready", "writes": writes}
	if s.RetrievalService != nil {
		ans["retrieval"] = s.RetrievalService.Retrieval()
	}
	writeJSON(w, http.StatusOK, ans)
}

// Error writes err in the error envelope; internal errors are logged with
// their chain and shown as "internal error".
func (s *Server) Error(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := loci.ErrorCode(err), loci.ErrorMessage(err)
	if code == loci.EINTERNAL && r.Context().Err() != nil &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The client went away (or its connection broke) while the
		// request ran: its fault, not the server's, and no error to log.
		s.logger.Info("request cancelled by its client", "method", r.Method, "path", r.URL.Path)
		code, msg = loci.EINVALID, "the request was cancelled before it was answered"
	}
	if code == loci.EINTERNAL {
		s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	status := loci.StatusOf(code)
	if after, ok := loci.RetryAfter(code); ok {
		w.Header().Set("Retry-After", after)
	}
	if code == loci.EUNAVAILABLE || code == loci.ESTORAGEFULL {
		s.logger.Warn("storage trouble", "method", r.Method, "path", r.URL.Path, "code", code, "err", err)
	}
	writeJSON(w, status, map[string]any{"success": false, "error": msg, "code": code})
}

// writeJSON writes v as the answer, encoded before its status is sent: a
// value that does not encode answers 500, never a status with no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		enc.Encode(map[string]any{"success": false, "error": "the answer could not be encoded: " + err.Error(), "code": loci.EINTERNAL})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// ok writes a success response: fields beside "success": true.
func ok(w http.ResponseWriter, status int, fields map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["success"] = true
	writeJSON(w, status, fields)
}

// written answers a write that creates or replaces one thing: 201 with
// action "created", or 200 with action "updated", beside its fields.
func written(w http.ResponseWriter, created bool, fields map[string]any) {
	status, action := writtenStatus(created)
	fields["action"] = action
	ok(w, status, fields)
}

// writtenStatus is the status and action of a write that created (201,
// "created") or replaced (200, "updated") one thing.
func writtenStatus(created bool) (int, string) {
	if created {
		return http.StatusCreated, loci.ActionCreated
	}
	return http.StatusOK, loci.ActionUpdated
}

// okObject writes a success response for one object: v, which encodes as
// a JSON object, with "success": true and extra (nil: nothing else)
// beside its fields. v is encoded once and its fields are answered as it
// wrote them, never decoded again: a number (an integer in metadata past
// 2^53) is answered exactly as it was stored.
func okObject(w http.ResponseWriter, status int, v any, extra map[string]any) {
	var obj bytes.Buffer
	enc := json.NewEncoder(&obj)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"success": false, "error": "internal error", "code": loci.EINTERNAL})
		return
	}
	fields := map[string]any{"success": true}
	maps.Copy(fields, extra)
	head, _ := json.Marshal(fields) // {"success":true,...}: plain values
	body := bytes.TrimSpace(obj.Bytes())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(head[:len(head)-1])
	if len(body) > 2 { // not {}
		w.Write([]byte{','})
		w.Write(body[1:])
	} else {
		w.Write([]byte{'}'})
	}
	w.Write([]byte{'\n'})
}
