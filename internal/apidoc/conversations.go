package apidoc

import (
	"fmt"

	"github.com/loci-memory/loci"
)

// conversationSchemas are the component schemas of an add of messages
// (POST /v1/memories with messages) and of its event.
func conversationSchemas() Obj {
	result := Obj{
		"results": Array(Ref("MessageEvent"), "Each memory written or found, in order: without a model one per user message; "+
			"with one, the model's decisions (updates, deletes and repeats, then adds)."),
		"skipped": Array(Ref("SkippedMessage"), "The messages that became no memory, and why."),
		"inference": WithDesc(Object([]string{"mode"}, Obj{
			"mode": enum("`rule`: each user message became one memory about the user (no model configured, or `infer: false`); "+
				"`model`: the chat model read the messages; `fallback`: the model failed and the request asked for `infer: \"fallback\"`.",
				loci.InferredByRule, loci.InferredByModel, loci.InferredByFallback),
			"model":  Str("The chat model that read the messages (or failed to)."),
			"reason": Str("Why the model was not used (fallback)."),
		}), "How the memories were chosen."),
		"session": WithDesc(Object([]string{"session_id", "appended", "message_count", "created"}, Obj{
			"session_id":    Str(""),
			"appended":      Integer("Messages appended: every message of the request."),
			"message_count": Integer("Messages the session holds now."),
			"created":       Boolean("The session was started by this add."),
		}), "The session the messages were appended to, when one was named."),
	}
	return Obj{
		"MessagesInput": Closed([]string{"messages"}, Obj{
			"messages": WithDesc(Obj{"type": "array", "minItems": 1, "maxItems": loci.MaxConversationMessages,
				"items": Closed([]string{"role", "content"}, Obj{
					"role":    enum("", loci.MessageRoles...),
					"content": Str(fmt.Sprintf("At most %s.", Bytes(loci.MaxMessageBytes))),
					"name":    Str(fmt.Sprintf("Who spoke, at most %d bytes.", loci.MaxMessageNameBytes)),
				})}, "The conversation, oldest first."),
			"user_id":    Str("Whom the memories are about."),
			"agent_id":   Str("The agent; with a model, memories about the agent are written in its scope, with no user."),
			"session_id": Str("Every message is also appended to this session (started for user_id when it does not exist)."),
			"infer": WithDesc(Obj{"oneOf": []Obj{{"type": "boolean"}, {"type": "string", "enum": []string{"fallback"}}}, "default": true},
				"`true` (the default): the chat model reads the messages when one is configured; `false`: the rule without a model; "+
					"`\"fallback\"`: as true, but a model that fails stores by the rule instead of answering 503."),
			"async":       WithDesc(Obj{"type": "boolean", "default": false}, "Answer 202 with an event at once; GET /v1/events/{event_id} follows it."),
			"metadata":    Ref("Metadata"),
			"expires_at":  Expiry("A future time after which each memory written is answered nowhere; an RFC 3339 time, or a date (YYYY-MM-DD): the end of that day, UTC.", false),
			"ttl_seconds": WithDesc(Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxTTLSeconds}, "A time to live from the request, instead of expires_at."),
		}),
		"MessageEvent": WithDesc(Object([]string{"event", "id", "content", "kind"}, Obj{
			"event":       enum("", loci.EventAdd, loci.EventUpdate, loci.EventDelete, loci.EventNoop),
			"id":          Str("The memory (for an UPDATE of a keyed fact, its new version)."),
			"content":     Str("The text written: the message's, or the model's; for a DELETE or NOOP, what the memory said."),
			"kind":        Ref("Kind"),
			"index":       Integer("The message it came from (without a model)."),
			"role":        Str("The role of that message."),
			"about":       enum("Whom the memory is about (with a model).", loci.AboutUser, loci.AboutAgent),
			"previous":    Str("What the memory said before an UPDATE or a DELETE."),
			"previous_id": Str("The record a keyed fact's new version superseded."),
		}), "One memory an add of messages wrote or found."),
		"SkippedMessage": Object([]string{"index", "role", "reason"}, Obj{
			"index":  Integer(""),
			"role":   Str(""),
			"reason": Str(""),
		}),
		"MessagesResult": WithDesc(Object([]string{"results", "skipped"}, result), "What an add of messages did."),
		"EventAccepted": Object([]string{"event_id", "status"}, Obj{
			"event_id": Str("Follow it with GET /v1/events/{event_id}."),
			"status":   enum("", loci.EventPending),
		}),
		"AsyncEvent": WithDesc(Object([]string{"event_id", "status", "created_at", "updated_at", "attempts"}, Obj{
			"event_id":   Str(""),
			"status":     enum("", loci.EventPending, loci.EventSucceeded, loci.EventFailed),
			"created_at": Timestamp(""),
			"updated_at": Timestamp(""),
			"attempts":   Integer("How many times its work was tried."),
			"results":    result["results"],
			"skipped":    result["skipped"],
			"inference":  result["inference"],
			"session":    result["session"],
			"error":      Str("Why it failed, or why its last try did not succeed (pending again)."),
			"code":       Str("The error's code."),
		}), "An add of messages run in the background; once SUCCEEDED, its results as a synchronous add answers them."),
	}
}
