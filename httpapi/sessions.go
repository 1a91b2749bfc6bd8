package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(sessionRoutes)

// sessionRoutes are the routes of sessions and conversations: about users,
// not owned by agents.
func sessionRoutes() []endpoint {
	message := apidoc.Closed([]string{"role", "content"}, apidoc.Obj{
		"role": apidoc.Str(""), "content": apidoc.Str("At most " + apidoc.Bytes(loci.MaxMessageBytes) + "."), "created_at": apidoc.Timestamp("Defaults to now."),
	})
	withAction := apidoc.Success(apidoc.Ref("Session"), apidoc.ActionField)
	return []endpoint{
		{pattern: "PUT /v1/sessions/{session_id}", handler: (*Server).handlePutSession,
			op: loci.OpSessionPut,
			doc: &apidoc.Op{ID: "putSession", Tag: "sessions",
				Desc: "A session id is unique in the workspace: 409 when the session exists for another user.",
				Body: apidoc.Closed([]string{"user_id"}, apidoc.Obj{
					"user_id":       apidoc.Str(""),
					"context":       apidoc.AnyJSON("A JSON object."),
					"summary":       apidoc.Str(""),
					"messages":      apidoc.Array(message, "Replaces the session's messages."),
					"is_persistent": apidoc.Boolean(""),
					"expires_at":    apidoc.Expiry("An RFC 3339 time, or a date (YYYY-MM-DD): the end of that day, UTC. Omit for none.", false),
					"confidence":    apidoc.Number(fmt.Sprintf("0-%d.", loci.MaxSessionConfidence)),
				}),
				OK: apidoc.Upsert(withAction), Errs: []int{conflict}}},
		{pattern: "POST /v1/sessions/{session_id}/messages", handler: (*Server).handleAppendMessage,
			op: loci.OpSessionAppend,
			doc: &apidoc.Op{ID: "appendMessage", Tag: "sessions",
				Body: message,
				OK: apidoc.Created("Appended.", apidoc.Success(apidoc.Object([]string{"session_id", "index", "message_count", "updated_at"}, apidoc.Obj{
					"session_id": apidoc.Str(""), "index": apidoc.Integer("The new message's position, from 0."),
					"message_count": apidoc.Integer(""), "updated_at": apidoc.Timestamp(""),
				}))), Errs: []int{notFound}}},
		{pattern: "GET /v1/sessions/{session_id}", handler: (*Server).handleGetSession,
			op: loci.OpSessionGet,
			doc: &apidoc.Op{ID: "getSession", Tag: "sessions",
				OK: apidoc.Okay("The session.", apidoc.Success(apidoc.Ref("Session"))), Errs: []int{notFound}}},
		{pattern: "DELETE /v1/sessions/{session_id}", handler: (*Server).handleDeleteSession,
			op: loci.OpSessionDelete,
			doc: &apidoc.Op{ID: "deleteSession", Tag: "sessions",
				Desc: "200 whether or not it existed.",
				OK:   apidoc.Okay("Deleted.", apidoc.Success(apidoc.Object([]string{"deleted"}, apidoc.Obj{"deleted": apidoc.Boolean("Whether it existed.")})))}},
		{pattern: "GET /v1/users/{user_id}/sessions", handler: (*Server).handleListUserSessions,
			op: loci.OpSessionList,
			doc: &apidoc.Op{ID: "listUserSessions", Tag: "sessions",
				Query: []apidoc.Obj{apidoc.Limit, apidoc.Offset},
				OK:    apidoc.Okay("The sessions.", apidoc.List("sessions", apidoc.Ref("SessionSummary"), "How many sessions the user has."))}},
	}
}

// messageRequest is one message of a session: the body of POST
// /v1/sessions/{session_id}/messages and an item of a PUT's messages.
type messageRequest struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// putSessionRequest is the body of PUT /v1/sessions/{session_id}.
type putSessionRequest struct {
	UserID       string           `json:"user_id"`
	Context      json.RawMessage  `json:"context"`
	Summary      string           `json:"summary"`
	Messages     []messageRequest `json:"messages"`
	IsPersistent bool             `json:"is_persistent"`
	ExpiresAt    *string          `json:"expires_at"`
	Confidence   float64          `json:"confidence"`
}

func (s *Server) handlePutSession(w http.ResponseWriter, r *http.Request) {
	var req putSessionRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	p := loci.SessionPut{
		UserID: req.UserID, Context: req.Context, Summary: req.Summary,
		IsPersistent: req.IsPersistent, Confidence: req.Confidence,
		Messages: make([]loci.Message, len(req.Messages)),
	}
	// A time, or a date: the end of that day, UTC.
	at, err := expiryTime("expires_at", req.ExpiresAt)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if at != nil {
		p.ExpiresAt = *at
	}
	for i, m := range req.Messages {
		p.Messages[i] = loci.Message{Role: m.Role, Content: m.Content, CreatedAt: m.CreatedAt}
	}
	sess, created, err := s.SessionService.PutSession(r.Context(), r.PathValue("session_id"), p)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	written(w, created, sessionFields(sess))
}

func (s *Server) handleAppendMessage(w http.ResponseWriter, r *http.Request) {
	var req messageRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	sum, err := s.SessionService.AppendSessionMessage(r.Context(), r.PathValue("session_id"),
		loci.Message{Role: req.Role, Content: req.Content, CreatedAt: req.CreatedAt})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusCreated, map[string]any{
		"session_id": sum.SessionID, "index": sum.MessageCount - 1,
		"message_count": sum.MessageCount, "updated_at": sum.UpdatedAt,
	})
}

func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.SessionService.GetSession(r.Context(), r.PathValue("session_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, sessionFields(sess))
}

func (s *Server) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	existed, err := s.SessionService.DeleteSession(r.Context(), r.PathValue("session_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"deleted": existed})
}

func (s *Server) handleListUserSessions(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := pageParams(r, loci.DefaultListLimit)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	sessions, total, err := s.SessionService.ListUserSessions(r.Context(), r.PathValue("user_id"), limit, offset)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": total, "sessions": sessions})
}

// sessionFields is a session as the API answers it.
func sessionFields(sess *loci.Session) map[string]any {
	f := map[string]any{
		"session_id": sess.SessionID, "user_id": sess.UserID, "context": sess.Context,
		"summary": sess.Summary, "messages": sess.Messages, "message_count": sess.MessageCount,
		"is_persistent": sess.IsPersistent, "confidence": sess.Confidence,
		"created_at": sess.CreatedAt, "updated_at": sess.UpdatedAt,
	}
	if !sess.ExpiresAt.IsZero() {
		f["expires_at"] = sess.ExpiresAt
	}
	return withMetadata(f, sess.Metadata)
}
