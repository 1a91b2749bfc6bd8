package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(memoryRoutes)

// memoryRoutes are the routes of the memories API (docs/api.md, "The
// memories API over every kind"): every record of every kind, addressed by
// its id.
func memoryRoutes() []endpoint {
	addAnswer := apidoc.Obj{"oneOf": []apidoc.Obj{apidoc.Ref("MemoryEvent"), apidoc.Ref("MessagesResult")}}
	idNotFound := "404 when absent or expired, and for a record of another agent under a key bound to one."
	return []endpoint{
		{pattern: "POST /v1/memories", handler: (*Server).handleAddMemory,
			op: loci.OpMemoryAdd,
			doc: &apidoc.Op{ID: "addMemory", Tag: "memories",
				Desc: "`kind` defaults to `fact` (category `general_fact`); `passage` and `note` are accepted where their rules hold " +
					"(an agent; a note needs a `key`). Other kinds are written through their own routes (400 names the route). " +
					"201 `ADD`; with a `key` whose current record says something else, 201 `UPDATE` (a fact supersedes its key's " +
					"current version, which needs the editor role; `id` names the new version, `previous_id` the old one); the same " +
					"content (case and spacing aside) already current in the same kind, scope and key: 200 `NOOP` with the existing " +
					"`id`, nothing written, unless it brings `tags` the record lacks or `metadata` keys it does not hold with those values: " +
					"then 201 `UPDATE` of that record in place (the tags are added, the metadata keys set, the others kept; its previous " +
					"value kept as a version). `expires_at` (a future time) or `ttl_seconds` sets a time to live on a note, passage or fact.\n\n" +
					"With `messages` instead of `content`, a conversation becomes memories (MessagesInput). Without a chat model " +
					"(or with `\"infer\": false`) each `user` message becomes one memory about the user, a fact with its role kept in " +
					"its data; `assistant`, `system` and `tool` messages become none (`skipped` says why). With a chat model " +
					"(`loci serve --llm-url --llm-model`) the model proposes short memories and decides, for each, against the " +
					"scope's most similar current memories, whether it is `ADD`, `UPDATE` (history kept), `DELETE` or `NOOP`, " +
					"each written as a hand-written write is. A model that is down, slower than `--llm-timeout` or answers " +
					"something unusable is 503 with Retry-After and nothing written, unless `\"infer\": \"fallback\"`. With a " +
					"`session_id`, every message is also appended to that session. Updates and deletes need the editor role.",
				Body: apidoc.Obj{"oneOf": []apidoc.Obj{apidoc.Ref("MemoryInput"), apidoc.Ref("MessagesInput")}},
				OK: map[int]apidoc.Resp{
					http.StatusCreated: {Desc: "Added (ADD) or updated (UPDATE); for messages, something was written.", Schema: apidoc.Success(addAnswer)},
					http.StatusOK:      {Desc: "The same content is already current (NOOP); for messages, nothing changed.", Schema: apidoc.Success(addAnswer)},
					http.StatusAccepted: {Desc: "Messages with `\"async\": true`: queued; follow the event with GET /v1/events/{event_id}.",
						Schema: apidoc.Success(apidoc.Ref("EventAccepted"))},
				}, Errs: []int{conflict, tooLarge}}},
		{pattern: "POST /v1/memories/batch", handler: (*Server).handleBatchMemories,
			op: loci.OpMemoryBatch,
			doc: &apidoc.Op{ID: "batchMemories", Tag: "memories",
				Desc: fmt.Sprintf("At most %d operations: the adds, then the updates, then the deletes, each in body order; "+
					"`results` holds one event each, in that order. One invalid operation is 400 (or the code of its error) naming it "+
					"as `add[2]`, `update[0]` or `delete[1]`, and nothing is applied. Updates and deletes need the editor role.", loci.MaxBatchOps),
				Body: apidoc.Closed(nil, apidoc.Obj{
					"add":    apidoc.Array(apidoc.Ref("MemoryInput"), "Memories to add."),
					"update": apidoc.Array(apidoc.Ref("MemoryUpdate"), "Patches, each with the `id` it changes."),
					"delete": apidoc.StrList("Ids to delete."),
				}),
				OK: apidoc.Okay("Applied.", apidoc.Success(apidoc.Object([]string{"count", "results"}, apidoc.Obj{
					"count":   apidoc.Integer("How many operations were applied."),
					"results": apidoc.Array(apidoc.Ref("MemoryEvent"), "One event per operation: adds, updates, deletes."),
				}))), Errs: []int{notFound, conflict, tooLarge}}},
		{pattern: "GET /v1/memories/{id}", handler: (*Server).handleGetMemory,
			op: loci.OpMemoryGet,
			doc: &apidoc.Op{ID: "getMemory", Tag: "memories",
				Desc: "Its kind's own fields are in `data`. " + idNotFound,
				OK:   apidoc.Okay("The memory.", apidoc.Success(apidoc.Ref("UserMemory"))), Errs: []int{notFound}}},
		{pattern: "PATCH /v1/memories/{id}", handler: (*Server).handlePatchMemory,
			op: loci.OpMemoryUpdate,
			doc: &apidoc.Op{ID: "patchMemory", Tag: "memories",
				Desc: "`UPDATE` with the new `version`; a keyed fact's new content is a new version of its key (`id` then names the new " +
					"current record, `previous_id` the one patched, kept as history). The same content and fields: `NOOP`, version " +
					"unchanged. Content of working memory, episodes, preferences and sessions is written through their own routes: 409 " +
					"names the route. `metadata: null` clears the metadata. " + idNotFound,
				Body: apidoc.Ref("MemoryPatch"),
				OK:   apidoc.Okay("Updated, or NOOP.", apidoc.Success(apidoc.Ref("MemoryEvent"))), Errs: []int{notFound, conflict, tooLarge}}},
		{pattern: "DELETE /v1/memories/{id}", handler: (*Server).handleDeleteMemory,
			op: loci.OpMemoryDelete,
			doc: &apidoc.Op{ID: "deleteMemory", Tag: "memories",
				Desc: "As the kind's own delete: a session with its messages, a message leaving its session one message less, a fact " +
					"unlinked from its key's other versions, a block with its links; and the adds of messages queued whose results name it " +
					"(their events answer 404). " + idNotFound,
				OK: apidoc.Okay("Deleted.", apidoc.PlainSuccess), Errs: []int{notFound}}},
		{pattern: "GET /v1/memories/{id}/history", handler: (*Server).handleMemoryHistory,
			op: loci.OpMemoryHistory,
			doc: &apidoc.Op{ID: "memoryHistory", Tag: "memories",
				Desc: "Each with `event` (`ADD` for the first, `UPDATE` after), `content`, `metadata` and its time; for a keyed fact, every version of its key. After a delete, 404 like the record. " + idNotFound,
				OK: apidoc.Okay("The versions.", apidoc.Success(apidoc.Object([]string{"id", "count", "versions"}, apidoc.Obj{
					"id":       apidoc.Str(""),
					"count":    apidoc.Integer(""),
					"versions": apidoc.Array(apidoc.Ref("MemoryVersion"), "Newest first."),
				}))), Errs: []int{notFound}}},
	}
}

// memoryInputRequest is a memory to add as the API reads it: times as
// text, so that a malformed one gets a clear message.
type memoryInputRequest struct {
	Content    string          `json:"content"`
	UserID     string          `json:"user_id"`
	AgentID    string          `json:"agent_id"`
	SessionID  string          `json:"session_id"`
	Kind       loci.Kind       `json:"kind"`
	Key        string          `json:"key"`
	Category   string          `json:"category"`
	Tags       []string        `json:"tags"`
	Metadata   json.RawMessage `json:"metadata"`
	ExpiresAt  *string         `json:"expires_at"`
	TTLSeconds *int64          `json:"ttl_seconds"`
}

func (r memoryInputRequest) input() (loci.MemoryInput, error) {
	at, err := expiryTime("expires_at", r.ExpiresAt)
	return loci.MemoryInput{
		Content: r.Content, UserID: r.UserID, AgentID: r.AgentID, SessionID: r.SessionID, Kind: r.Kind, Key: r.Key,
		Category: r.Category, Tags: r.Tags, Metadata: r.Metadata, ExpiresAt: at, TTLSeconds: r.TTLSeconds,
	}, err
}

// memoryPatchRequest is a patch as the API reads it. Metadata is kept
// raw so that null (clear) differs from absent.
type memoryPatchRequest struct {
	ID         string          `json:"id,omitempty"`
	Content    *string         `json:"content"`
	Metadata   json.RawMessage `json:"metadata"`
	Tags       *[]string       `json:"tags"`
	ExpiresAt  json.RawMessage `json:"expires_at"`
	TTLSeconds *int64          `json:"ttl_seconds"`
}

func (r memoryPatchRequest) patch() (loci.MemoryPatch, error) {
	at, none, err := patchExpiry("expires_at", r.ExpiresAt)
	meta := r.Metadata
	if meta != nil && strings.TrimSpace(string(meta)) == "null" {
		meta = json.RawMessage("{}") // null clears: no metadata
	}
	return loci.MemoryPatch{Content: r.Content, Metadata: meta, Tags: r.Tags, ExpiresAt: at, TTLSeconds: r.TTLSeconds, NoExpiry: none}, err
}

// patchExpiry reads the expiry of a patch: a time or a date (expiryTime),
// or null, which removes the time to live (none); absent, neither.
func patchExpiry(field string, raw json.RawMessage) (at *time.Time, none bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil, false, nil
	case string(raw) == "null":
		return nil, true, nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil, false, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time, a date (2026-01-31: the end of that day, UTC) or null (no time to live)", field)
	}
	at, err = expiryTime(field, &v)
	return at, false, err
}

// expiryTime parses an expiry a body may carry: an RFC 3339 time, or a date,
// meaning the end of that day UTC, the day itself included: it expires at the
// next day's midnight.
func expiryTime(field string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	if d, err := time.Parse(time.DateOnly, *v); err == nil {
		end := d.AddDate(0, 0, 1)
		return &end, givenTime(field, end)
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time or a date (2026-01-31: the end of that day, UTC)", field)
	}
	return &t, givenTime(field, t)
}

// optionalTime parses an RFC 3339 time a body may carry.
func optionalTime(field string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return nil, loci.Errorf(loci.EINVALID, "%s must be an RFC 3339 time", field)
	}
	return &t, givenTime(field, t)
}

func (s *Server) handleAddMemory(w http.ResponseWriter, r *http.Request) {
	var req addMemoryRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.Messages != nil {
		s.addMessages(w, r, req) // a conversation (conversations.go)
		return
	} else if err := noContent(req); err != nil {
		s.Error(w, r, err)
		return
	} else if req.Infer != nil || req.Async != nil {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "infer and async are taken with messages (a conversation), not with content"))
		return
	}
	in, err := req.input()
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ev, err := s.MemoryService.AddMemory(r.Context(), in)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	status := http.StatusCreated
	if ev.Event == loci.EventNoop {
		status = http.StatusOK
	}
	okObject(w, status, ev, nil)
}

// batchRequest is the body of POST /v1/memories/batch.
type batchRequest struct {
	Add    []memoryInputRequest `json:"add"`
	Update []memoryPatchRequest `json:"update"`
	Delete []string             `json:"delete"`
}

func (s *Server) handleBatchMemories(w http.ResponseWriter, r *http.Request) {
	var req batchRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	var b loci.MemoryBatch
	for i, a := range req.Add {
		in, err := a.input()
		if err != nil {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "add[%d]: %s", i, loci.ErrorMessage(err)))
			return
		}
		b.Add = append(b.Add, in)
	}
	for i, u := range req.Update {
		p, err := u.patch()
		if err == nil && u.ID == "" {
			err = loci.Errorf(loci.EINVALID, "id is required")
		}
		if err != nil {
			s.Error(w, r, loci.Errorf(loci.EINVALID, "update[%d]: %s", i, loci.ErrorMessage(err)))
			return
		}
		b.Update = append(b.Update, loci.MemoryUpdate{ID: u.ID, MemoryPatch: p})
	}
	b.Delete = req.Delete
	evs, err := s.MemoryService.BatchMemories(r.Context(), b)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(evs), "results": evs})
}

func (s *Server) handleGetMemory(w http.ResponseWriter, r *http.Request) {
	m, err := s.MemoryService.GetMemory(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, m, nil)
}

func (s *Server) handlePatchMemory(w http.ResponseWriter, r *http.Request) {
	var req memoryPatchRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	if req.ID != "" {
		s.Error(w, r, loci.Errorf(loci.EINVALID, "malformed JSON: unknown field id; this body takes content, metadata, tags, expires_at, ttl_seconds"))
		return
	}
	p, err := req.patch()
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ev, err := s.MemoryService.UpdateMemory(r.Context(), r.PathValue("id"), p)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	okObject(w, http.StatusOK, ev, nil)
}

func (s *Server) handleDeleteMemory(w http.ResponseWriter, r *http.Request) {
	if err := s.MemoryService.DeleteMemory(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleMemoryHistory(w http.ResponseWriter, r *http.Request) {
	vs, err := s.MemoryService.MemoryHistory(r.Context(), r.PathValue("id"))
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "count": len(vs), "versions": vs})
}
