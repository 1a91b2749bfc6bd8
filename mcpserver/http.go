package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// Headers that name the identity of an HTTP session when authentication is
// off (HeaderIdentity), and the query parameters that may stand in for them
// for clients that can only be given a URL.
const (
	AgentHeader = "X-Loci-Agent"
	UserHeader  = "X-Loci-User"
	AgentParam  = "agent"
	UserParam   = "user"
)

// SessionIdleTimeout is how long an HTTP session may stay idle before the
// server closes it; the client then starts a new one.
const SessionIdleTimeout = time.Hour

// IdentityFunc resolves the identity of an HTTP request. It is the hook for
// authentication: KeyIdentity behind a handler that authenticates API keys
// (loci serve mounts /mcp behind the REST API's guard), HeaderIdentity
// where there is no authentication. An error refuses the request:
// EUNAUTHORIZED (401), EFORBIDDEN (403), EINVALID (400).
type IdentityFunc func(r *http.Request) (Identity, error)

// KeyIdentity resolves the identity of a request that was authenticated
// before it reached the handler: the key's principal is in the request's
// context (loci.PrincipalFrom), and the session acts for it, in its
// workspace and with its role. A key bound to an agent acts for that
// agent: the X-Loci-Agent header (or ?agent=) may be omitted, and naming
// another agent is EFORBIDDEN. A key bound to no agent takes the agent
// from the header, as HeaderIdentity does. The user comes from
// X-Loci-User (or ?user=). Without a principal in the context
// (authentication off) it is HeaderIdentity. Never mount it where no
// authentication runs first while keys exist: it trusts the context.
func KeyIdentity(r *http.Request) (Identity, error) {
	p := loci.PrincipalFrom(r.Context())
	if p == nil {
		return HeaderIdentity(r)
	}
	agent, err := headerOrParam(r, AgentHeader, AgentParam)
	if err != nil {
		return Identity{}, err
	}
	if p.AgentID != "" {
		if agent != "" && agent != p.AgentID {
			return Identity{}, loci.Errorf(loci.EFORBIDDEN, "this key is bound to agent %s and cannot open a session for agent %s", p.AgentID, agent)
		}
		agent = p.AgentID
	}
	user, err := headerOrParam(r, UserHeader, UserParam)
	if err != nil {
		return Identity{}, err
	}
	return checkedIdentity(Identity{AgentID: agent, UserID: user, Workspace: p.Workspace, Principal: p})
}

// HeaderIdentity reads the identity from the X-Loci-Agent and X-Loci-User
// headers, or, for clients that cannot send headers, from the agent and
// user query parameters (/mcp?agent=ID&user=ID): for a server without
// authentication, where whoever reaches it may act as any agent. EINVALID
// when no agent is named, or a header and a parameter name different ones.
func HeaderIdentity(r *http.Request) (Identity, error) {
	agent, err := headerOrParam(r, AgentHeader, AgentParam)
	if err != nil {
		return Identity{}, err
	}
	user, err := headerOrParam(r, UserHeader, UserParam)
	if err != nil {
		return Identity{}, err
	}
	return checkedIdentity(Identity{AgentID: agent, UserID: user})
}

// checkedIdentity returns id if it is valid.
func checkedIdentity(id Identity) (Identity, error) {
	if strings.TrimSpace(id.AgentID) == "" {
		return Identity{}, loci.Errorf(loci.EINVALID, "the %s header (or the %s query parameter) is required: it names the agent whose memory this MCP session uses", AgentHeader, AgentParam)
	}
	if err := id.check(); err != nil {
		return Identity{}, err
	}
	return id, nil
}

func headerOrParam(r *http.Request, header, param string) (string, error) {
	h, p := r.Header.Get(header), r.URL.Query().Get(param)
	if h != "" && p != "" && h != p {
		return "", loci.Errorf(loci.EINVALID, "the %s header and the %s query parameter name different ids", header, param)
	} else if h != "" {
		return h, nil
	}
	return p, nil
}

// Handler serves MCP over streamable HTTP (mount it at /mcp). Each session
// gets its own server bound to the identity its opening request resolved
// to, with the tool set that request chose (?tools=all or the X-Loci-Tools
// header; else the handler's, WithTools), and every later request of the session must resolve to the same
// identity: a session cannot be borrowed by another agent.
type Handler struct {
	svc     loci.Service
	resolve IdentityFunc
	cfg     *config
	sdk     *mcp.StreamableHTTPHandler

	mu   sync.Mutex
	pins map[string]*pin // session id → who opened it
}

// pin is the identity a session was opened with, and the server that
// serves it.
type pin struct {
	id      Identity
	srv     *mcp.Server
	created time.Time
}

type identityKey struct{}

// opening is what a request would open a session with.
type opening struct {
	id    Identity
	tools ToolSet
}

// NewHandler returns the streamable HTTP handler of MCP over svc; resolve
// says who each request acts for (HeaderIdentity when auth is off).
func NewHandler(svc loci.Service, resolve IdentityFunc, opts ...Option) *Handler {
	c := newConfig(opts)
	if c.schemas == nil {
		c.schemas = mcp.NewSchemaCache()
	}
	h := &Handler{svc: svc, resolve: resolve, cfg: c, pins: map[string]*pin{}}
	h.sdk = mcp.NewStreamableHTTPHandler(h.server, &mcp.StreamableHTTPOptions{
		Logger:         c.logger,
		SessionTimeout: SessionIdleTimeout,
	})
	return h
}

// ServeHTTP resolves the request's identity, checks it against the
// session's, and hands the request to the SDK.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := h.resolve(r)
	if err != nil {
		h.refuse(w, err)
		return
	}
	tools, err := h.toolSet(r)
	if err != nil {
		h.refuse(w, err)
		return
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		h.mu.Lock()
		p := h.pins[sid]
		h.mu.Unlock()
		if p != nil && !p.id.same(id) {
			h.refuse(w, loci.Errorf(loci.EFORBIDDEN, "this MCP session belongs to another agent or key"))
			return
		}
		if p != nil && r.Method == http.MethodDelete {
			defer h.unpin(sid)
		}
	}
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		if answerUnknownMethod(w, body) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	h.sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, opening{id: id, tools: tools})))
}

// toolSet reads the tool set a request chooses: the X-Loci-Tools header
// or the tools query parameter (/mcp?tools=all), else the handler's
// (WithTools). Only a session's opening request decides: its set is fixed
// for the session.
func (h *Handler) toolSet(r *http.Request) (ToolSet, error) {
	v, err := headerOrParam(r, ToolsHeader, ToolsParam)
	if err != nil {
		return "", err
	}
	if v == "" {
		return h.cfg.tools, nil
	}
	return ParseToolSet(v)
}

// serverMethods are the JSON-RPC requests and notifications the SDK's
// server answers (go-sdk v1.8.0: serverMethodInfos). Check them when
// upgrading the SDK.
var serverMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "subscriptions/listen": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true, "logging/setLevel": true,
	"notifications/initialized": true, "notifications/cancelled": true, "notifications/progress": true,
	"notifications/roots/list_changed": true,
}

// answerUnknownMethod answers a POST whose body is one JSON-RPC request
// for a method the server does not have, as JSON-RPC says: a call gets
// the error -32601 (method not found), a notification is ignored (202).
// The SDK answers both with a plain-text HTTP 400 that clients cannot
// read as a JSON-RPC answer. It reports whether it answered.
func answerUnknownMethod(w http.ResponseWriter, body []byte) bool {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return false // a batch, or not JSON-RPC: the SDK answers it
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || serverMethods[req.Method] {
		return false
	}
	if !req.IsCall() {
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + req.Method,
	}})
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(data)
	return true
}

// server returns a new server for a new session, bound to the identity
// ServeHTTP resolved; the session id it hands out is pinned to it.
func (h *Handler) server(r *http.Request) *mcp.Server {
	o, ok := r.Context().Value(identityKey{}).(opening)
	if !ok {
		return nil // 400 from the SDK; cannot happen through ServeHTTP
	}
	id := o.id
	var srv *mcp.Server
	srv = newServer(h.svc, id, h.cfg, o.tools, func() string {
		sid := rand.Text()
		h.pin(sid, &pin{id: id, srv: srv, created: time.Now()})
		return sid
	})
	return srv
}

// pinGrace is how long a new pin is kept before its session has connected.
const pinGrace = time.Minute

func (h *Handler) pin(sid string, p *pin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// Drop the pins of sessions that have ended (closed by the client, or
	// by the SDK after SessionIdleTimeout), so the map holds live ones only.
	for k, old := range h.pins {
		if time.Since(old.created) > pinGrace && !live(old.srv) {
			delete(h.pins, k)
		}
	}
	h.pins[sid] = p
}

// live reports whether srv still has a session.
func live(srv *mcp.Server) bool {
	for range srv.Sessions() {
		return true
	}
	return false
}

func (h *Handler) unpin(sid string) {
	h.mu.Lock()
	delete(h.pins, sid)
	h.mu.Unlock()
}

// refuse answers a request whose identity was refused, in the REST error
// envelope.
func (h *Handler) refuse(w http.ResponseWriter, err error) {
	code := loci.ErrorCode(err)
	status := loci.StatusOf(code)
	if status == http.StatusInternalServerError {
		h.cfg.logger.Error("mcp identity", "err", err)
	}
	if after, ok := loci.RetryAfter(code); ok {
		w.Header().Set("Retry-After", after)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"success": false, "error": loci.ErrorMessage(err), "code": code})
}
