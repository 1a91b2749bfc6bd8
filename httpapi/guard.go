package httpapi

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-memory/loci"
)

// Limits the guard applies to every request.
const (
	// MaxPathValueBytes bounds each path segment value that no domain
	// limit bounds more tightly (maxPathValue). A query parameter
	// value is bounded by loci.MaxQueryBytes, the longest text a query
	// string carries (a search's q).
	MaxPathValueBytes = 1024
	// maxQueryNameBytes bounds a query parameter's name.
	maxQueryNameBytes = 256
	// maxLimitParam bounds a limit parameter, a listing's or a search's.
	maxLimitParam = max(loci.MaxListLimit, loci.MaxSearchLimit)
	// DefaultMaxImportBytes bounds an import body.
	DefaultMaxImportBytes = 1 << 30
	// DefaultStreamIdleTimeout is how long an import waits for more of its
	// body, and an export for its client to take more of the output.
	DefaultStreamIdleTimeout = 30 * time.Second
)

// Observer is told about every request (the metrics package implements
// it).
type Observer interface {
	ObserveRequest(method, route string, status int, d time.Duration)
}

// Option configures a Server.
type Option func(*Server)

// WithAuth turns authentication on even while no key exists. Without it,
// authentication is on while any active key exists (see authenticate).
func WithAuth(required bool) Option { return func(s *Server) { s.authRequired = required } }

// WithAudit turns the audit log on or off (on by default).
func WithAudit(on bool) Option { return func(s *Server) { s.audit = on } }

// WithRateLimit allows each key (each client IP when authentication is
// off) perSecond requests a second with bursts of burst; perSecond <= 0
// turns the limit off (the default).
func WithRateLimit(perSecond float64, burst int) Option {
	return func(s *Server) { s.limiter = newRateLimiter(perSecond, burst) }
}

// WithObserver reports every request to o (metrics).
func WithObserver(o Observer) Option { return func(s *Server) { s.observer = o } }

// WithMetrics serves h at GET /metrics.
func WithMetrics(h http.Handler) Option { return func(s *Server) { s.metrics = h } }

// WithMaxImportBytes bounds the body of POST /v1/import.
func WithMaxImportBytes(n int64) Option { return func(s *Server) { s.maxImportBytes = n } }

// WithStreamIdleTimeout bounds how long POST /v1/import waits for more of
// its body, and GET /v1/export for its client to take more of the output
// (each read or write; the whole may take longer), so that a stalled
// client never holds a transaction. Default DefaultStreamIdleTimeout.
func WithStreamIdleTimeout(d time.Duration) Option { return func(s *Server) { s.streamIdle = d } }

// authenticate returns the principal of the key r presents, or nil while
// authentication is off. It is on when the server was told so (WithAuth)
// and otherwise while any active key exists, decided at every request: a
// key created or revoked, by this process or by another on the same
// database (loci keys create), takes effect at the next request, and
// revoking the last key turns authentication off again.
//
// A request makes one store read to be let in: a request with a key reads
// that key; one without reads whether any key exists. Only a key that is
// not valid makes a second read (whether keys exist at all: if none does,
// authentication is off and the key is ignored).
func (s *Server) authenticate(ctx context.Context, r *http.Request) (*loci.Principal, error) {
	secret := bearer(r)
	if secret != "" || s.authRequired {
		p, err := s.KeyService.Authenticate(ctx, secret)
		if err == nil || s.authRequired || loci.ErrorCode(err) != loci.EUNAUTHORIZED {
			return p, err
		}
		has, herr := s.KeyService.HasKeys(ctx)
		switch {
		case herr != nil:
			return nil, herr
		case has:
			return nil, err
		}
		return nil, nil
	}
	has, err := s.KeyService.HasKeys(ctx)
	if err != nil || !has {
		return nil, err
	}
	return nil, loci.Errorf(loci.EUNAUTHORIZED, "a valid API key is required (Authorization: Bearer <key>)")
}

// answerHook, when set, is told the route and status of every answer: the
// package's tests check that each status a route answered is documented.
var answerHook atomic.Pointer[func(route Route, status int)]

// recorder captures a response's status, for metrics.
type recorder struct {
	http.ResponseWriter
	status int
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// guard wraps the handler of one route with what every route needs, in
// order: input limits on path and query, reading the body (before anything
// waits on the database), authentication, the rate limit, the role the
// route needs, body checks, then the handler; then metrics. The operations
// audit themselves (rules/), and check the agent binding of a key on the
// agent they are given; the guard logs only what it refuses (401, 403, 429).
func (s *Server) guard(route Route, h http.HandlerFunc) http.HandlerFunc {
	pol := route.Policy
	wildcards := patternWildcards(route.Pattern)
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer s.observe(route, rec, r, start)

		if err := checkPathAndQuery(r, wildcards); err != nil {
			s.Error(rec, r, err)
			return
		}
		// Read the body before anything waits on the database: the read
		// deadline runs from the request's start, and a request that waited
		// on storage must not be told its body could not be read. A body
		// that is too large is answered in its turn, after authentication;
		// one that stopped arriving is answered at once: the connection
		// is broken and the request cancelled, so nothing (authentication
		// included) can ask the database for it, and it is the client's
		// fault, never a 5xx.
		hasBody := r.Body != nil && r.Body != http.NoBody
		var body []byte
		var bodyErr error
		if hasBody && !pol.Stream {
			body, bodyErr = readBody(rec, r)
			if bodyErr != nil && loci.ErrorCode(bodyErr) != loci.ETOOLARGE {
				s.Error(rec, r, bodyErr)
				return
			}
		}
		ctx, admitted := s.admit(rec, r, pol)
		if !admitted {
			return
		}
		if hasBody {
			if pol.Stream {
				r.Body = http.MaxBytesReader(rec, r.Body, s.maxImportBytes)
			} else {
				if bodyErr != nil {
					s.Error(rec, r, bodyErr)
					return
				}
				if err := checkBody(body); err != nil {
					s.Error(rec, r, err)
					return
				}
				// The handler decodes these bytes (decode); a handler that
				// reads the body itself (MCP's) reads the same bytes.
				ctx = withBody(ctx, body)
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
		}
		h(rec, r.WithContext(ctx))
	}
}

// admit is the part of the guard that decides who may call the route:
// authentication (unless the route is public), the rate limit and the
// route's role. It answers and logs a refusal itself and reports whether
// the request may go on, with the context that carries its principal.
func (s *Server) admit(rec http.ResponseWriter, r *http.Request, pol Policy) (context.Context, bool) {
	ctx := loci.WithVia(r.Context(), loci.ViaREST)
	// A page of another origin is refused before anything (origin.go).
	if err := checkBrowser(r); err != nil {
		rec.Header().Set("Connection", "close") // its body, unread, is not awaited
		s.refuse(ctx, rec, r, pol, err)
		return ctx, false
	}
	var principal *loci.Principal
	if pol.Role != public {
		var err error
		principal, err = s.authenticate(ctx, r)
		if err != nil {
			if loci.ErrorCode(err) == loci.EUNAUTHORIZED {
				rec.Header().Set("WWW-Authenticate", `Bearer realm="loci"`)
				s.refuse(ctx, rec, r, pol, err)
				return ctx, false
			}
			s.Error(rec, r, err)
			return ctx, false
		}
		if principal != nil {
			ctx = loci.WithPrincipal(loci.WithWorkspace(ctx, principal.Workspace), principal)
		} else if err := checkHostWithoutAuth(r); err != nil {
			rec.Header().Set("Connection", "close")
			s.refuse(ctx, rec, r, pol, err)
			return ctx, false
		}
	}
	if s.limiter != nil {
		who := "ip:" + clientIP(r)
		if principal != nil {
			who = "key:" + principal.KeyID
		}
		if wait, allowed := s.limiter.allow(who); !allowed {
			rec.Header().Set("Retry-After", strconv.Itoa(wait))
			s.refuse(ctx, rec, r, pol, loci.Errorf(loci.ERATELIMIT, "too many requests; retry after %d s", wait))
			return ctx, false
		}
	}
	if principal != nil && !principal.Role.Allows(pol.Role) {
		s.refuse(ctx, rec, r, pol, loci.Errorf(loci.EFORBIDDEN, "this needs the %s role; the key has %s", pol.Role, principal.Role))
		return ctx, false
	}
	return ctx, true
}

// observe reports an answered request to the observer (metrics) and the
// tests' answer hook.
func (s *Server) observe(route Route, rec *recorder, r *http.Request, start time.Time) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if s.observer != nil {
		s.observer.ObserveRequest(r.Method, routeLabel(route), status, time.Since(start))
	}
	if h := answerHook.Load(); h != nil {
		(*h)(route, status)
	}
}

// refuse answers err, a refusal of the request before any operation ran
// (no valid key, a role too low, the rate limit), and logs it: the
// operation the route would have run, the scope its path and query name.
func (s *Server) refuse(ctx context.Context, w http.ResponseWriter, r *http.Request, pol Policy, err error) {
	s.Error(w, r, err)
	if !s.audit || pol.Op == "" {
		return
	}
	e := loci.AuditEntry{Operation: pol.Op, Kind: pol.Kind, Scope: pathQueryScope(r), Status: loci.StatusOf(loci.ErrorCode(err))}
	if aerr := s.AuditService.Audit(context.WithoutCancel(ctx), e); aerr != nil {
		s.logger.Error("audit log write failed", "op", pol.Op, "err", aerr)
	}
}

// routeLabel is a route's metrics label: its pattern without the method.
func routeLabel(rt Route) string { return rt.Pattern }

// bearer returns the key a request presents: "Authorization: Bearer KEY"
// or "X-API-Key: KEY".
func bearer(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, key, ok := strings.Cut(auth, " ")
		// mem0's clients send "Token KEY" (the mem0 API, mem0.go).
		if ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Token") && strings.HasPrefix(r.URL.Path, "/mem0/")) {
			return strings.TrimSpace(key)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("X-API-Key"))
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// patternWildcards returns the names of a pattern's {wildcards}, in order.
func patternWildcards(pattern string) []string {
	var out []string
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return out
		}
		name := strings.TrimSuffix(pattern[i+1:i+j], "...")
		if name != "$" {
			out = append(out, name)
		}
		pattern = pattern[i+j+1:]
	}
}

// checkPathAndQuery applies the input limits every route shares: path
// values and query values are valid UTF-8 without NUL and not too long;
// limit and offset are integers in range.
func checkPathAndQuery(r *http.Request, wildcards []string) error {
	for _, name := range wildcards {
		if err := loci.CheckText(name, r.PathValue(name), maxPathValue(r.Pattern, name)); err != nil {
			return err
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return loci.Errorf(loci.EINVALID, "malformed query string")
	}
	for name, vals := range q {
		if err := loci.CheckText("query parameter name", name, maxQueryNameBytes); err != nil {
			return err
		}
		for _, v := range vals {
			if err := loci.CheckText("query parameter "+strconv.Quote(name), v, loci.MaxQueryBytes); err != nil {
				return err
			}
		}
	}
	for name, max := range map[string]int{"limit": maxLimitParam, "offset": loci.MaxOffset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > max {
				return loci.Errorf(loci.EINVALID, "%s must be an integer from 0 to %d", name, max)
			}
		}
	}
	return nil
}

// pathQueryScope reads the scope a request names in its path or query.
func pathQueryScope(r *http.Request) loci.Scope {
	get := func(name string) string {
		if v := r.PathValue(name); v != "" {
			return v
		}
		return r.URL.Query().Get(name)
	}
	return loci.Scope{AgentID: get("agent_id"), UserID: get("user_id"), SessionID: get("session_id"), TaskID: get("task_id")}
}
