package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

// Conversations in, memories out: POST /v1/memories with messages instead
// of content (its route is in memories.go; addMessages serves the
// messages), and the events of the adds run in the background.

var _ = addRoutes(conversationRoutes)

// conversationRoutes are the routes of the queue of adds.
func conversationRoutes() []endpoint {
	return []endpoint{
		{pattern: "GET /v1/events/{event_id}", handler: (*Server).handleGetEvent,
			op: loci.OpEventGet,
			doc: &apidoc.Op{ID: "getEvent", Tag: "memories",
				Desc: "The event of an add of messages sent with `\"async\": true`: `status` is `PENDING` until its work is done " +
					"(it survives a restart of the server), then `SUCCEEDED` with the same `results`, `skipped`, `inference` and " +
					"`session` as a synchronous add, or `FAILED` with `error` and `code`. While pending after a failed try (the chat " +
					"model down), `error` says why, and it is tried again. 404 when absent, and for another agent's under a key bound to one. " +
					"Finished events are kept 7 days. An event goes with what it holds (404 since): when a delete or a forget takes a memory its " +
					"results name, when a forget by query matches its messages or results (a pending one then never runs), and when its agent " +
					"or its user is deleted.",
				OK: apidoc.Okay("The event.", apidoc.Success(apidoc.Ref("AsyncEvent"))), Errs: []int{notFound}}},
	}
}

// addMemoryRequest is the body of POST /v1/memories: one memory
// (content) or a conversation (messages, with infer and async).
type addMemoryRequest struct {
	memoryInputRequest
	Messages json.RawMessage `json:"messages"`
	Infer    json.RawMessage `json:"infer"`
	Async    json.RawMessage `json:"async"`
}

// conversation returns the add of messages the body asks for. What only
// one memory takes (content, kind, key, category, tags) is refused beside
// messages.
func (r addMemoryRequest) conversation() (loci.MessagesInput, error) {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"content", r.Content != ""}, {"kind", r.Kind != ""}, {"key", r.Key != ""},
		{"category", r.Category != ""}, {"tags", r.Tags != nil},
	} {
		if f.set {
			return loci.MessagesInput{}, loci.Errorf(loci.EINVALID, "send content (one memory) or messages (a conversation), "+
				"not both: %s is not taken with messages", f.name)
		}
	}
	msgs, err := chatMessages(r.Messages)
	if err != nil {
		return loci.MessagesInput{}, err
	}
	infer, err := inferMode(r.Infer)
	if err != nil {
		return loci.MessagesInput{}, err
	}
	var async bool
	if raw := bytes.TrimSpace(r.Async); len(raw) > 0 && json.Unmarshal(raw, &async) != nil {
		return loci.MessagesInput{}, loci.Errorf(loci.EINVALID, "async must be true or false")
	}
	at, err := expiryTime("expires_at", r.ExpiresAt)
	if err != nil {
		return loci.MessagesInput{}, err
	}
	return loci.MessagesInput{Messages: msgs, UserID: r.UserID, AgentID: r.AgentID, SessionID: r.SessionID,
		Infer: infer, Async: async, Metadata: r.Metadata, ExpiresAt: at, TTLSeconds: r.TTLSeconds}, nil
}

// chatMessages reads messages: an array of {role, content, name?} with
// text content.
func chatMessages(raw json.RawMessage) ([]loci.ChatMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, loci.Errorf(loci.EINVALID, "messages must be an array of {role, content, name?}")
	}
	var items []struct {
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
		Name    *string         `json:"name"`
	}
	if err := decodeJSON(raw, &items, "messages"); err != nil {
		return nil, err
	}
	out := make([]loci.ChatMessage, len(items))
	for i, m := range items {
		if m.Role == nil {
			return nil, loci.Errorf(loci.EINVALID, "messages[%d]: role is required (user, assistant, system or tool)", i)
		}
		if c := bytes.TrimSpace(m.Content); len(c) == 0 || json.Unmarshal(c, &out[i].Content) != nil {
			return nil, loci.Errorf(loci.EINVALID, "messages[%d]: content must be text", i)
		}
		out[i].Role = *m.Role
		if m.Name != nil {
			out[i].Name = *m.Name
		}
	}
	return out, nil
}

// inferMode reads infer: true (or absent), false or "fallback".
func inferMode(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return loci.InferAuto, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return loci.InferAuto, nil
		}
		return loci.InferOff, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s == "fallback" {
		return loci.InferFallback, nil
	}
	return "", loci.Errorf(loci.EINVALID, "infer must be true, false or \"fallback\"")
}

// addMessages serves POST /v1/memories with messages: 201 when it wrote
// something, 200 when nothing changed, 202 when queued.
func (s *Server) addMessages(w http.ResponseWriter, r *http.Request, req addMemoryRequest) {
	in, err := req.conversation()
	if err != nil {
		s.Error(w, r, err)
		return
	}
	res, err := s.ConversationService.AddMessages(r.Context(), in)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	switch {
	case res.Status == loci.EventPending:
		ok(w, http.StatusAccepted, map[string]any{"event_id": res.EventID, "status": res.Status})
	case res.Created():
		okObject(w, http.StatusCreated, res, nil)
	default:
		okObject(w, http.StatusOK, res, nil)
	}
}

// eventFields is an event as GET /v1/events/{event_id} answers it: the
// event's fields and, once it is done, its result's beside them.
func eventFields(e *loci.AsyncEvent) map[string]any {
	out := objectFields(e)
	if e.Result != nil {
		for k, v := range objectFields(e.Result) {
			if k != "event_id" && k != "status" {
				out[k] = v
			}
		}
	}
	return out
}

func (s *Server) handleGetEvent(w http.ResponseWriter, r *http.Request) {
	e, err := s.ConversationService.GetEvent(r.Context(), r.PathValue("event_id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, eventFields(e))
}

// noContent refuses an add that sends neither content nor messages.
func noContent(req addMemoryRequest) error {
	if req.Content == "" && req.Messages == nil {
		return loci.Errorf(loci.EINVALID, "content is required (one memory), or messages (a conversation)")
	}
	return nil
}

// objectFields returns v's JSON fields as a map, each kept as the JSON v
// wrote (never decoded: a metadata integer past 2^53 is answered exactly),
// for an answer that merges two objects (eventFields).
func objectFields(v any) map[string]any {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	raw := map[string]json.RawMessage{}
	json.Unmarshal(buf.Bytes(), &raw)
	m := make(map[string]any, len(raw))
	for k, v := range raw {
		m[k] = v
	}
	return m
}
