package apidoc

import (
	"github.com/loci-memory/loci"
)

func kindNames() []string {
	out := make([]string, len(loci.Kinds))
	for i, k := range loci.Kinds {
		out[i] = string(k)
	}
	return out
}

func roleNames() []string {
	out := make([]string, len(loci.Roles))
	for i, r := range loci.Roles {
		out[i] = string(r)
	}
	return out
}

// errorCodes are the codes of the error envelope, in the order of their
// HTTP statuses.
var errorCodes = []string{
	loci.EINVALID, loci.EUNAUTHORIZED, loci.EFORBIDDEN, loci.ENOTFOUND, loci.ECONFLICT,
	loci.ETOOLARGE, loci.ERATELIMIT, loci.EINTERNAL,
}

// schemas are the reusable component schemas: the domain objects as the
// API answers them, and the request bodies.
func schemas() obj {
	return obj{
		"Success": object([]string{"success"}, obj{"success": obj{"const": true}}),
		"ErrorEnvelope": withDesc(object([]string{"success", "error", "code"}, obj{
			"success": obj{"const": false},
			"error":   str("A human-readable message."),
			"code":    enum("The machine-readable error code; it determines the HTTP status.", errorCodes...),
		}), "Every failure is answered in this envelope."),

		"Kind":         enum("A kind of memory.", kindNames()...),
		"Role":         enum("An API key's role; each includes the ones before it.", roleNames()...),
		"Outcome":      enum("An episode's outcome.", loci.Outcomes...),
		"FactCategory": enum("A fact's category.", loci.FactCategories...),
		"FactStatus": enum("What a fact is now: current (true), disputed (true, but contradicted and not resolved), "+
			"future (its valid_at is to come), superseded (replaced by superseded_by), invalidated (no longer true, not replaced).",
			loci.FactCurrent, loci.FactDisputed, loci.FactFuture, loci.FactSuperseded, loci.FactInvalidated),
		"PreferenceSource": enum("How a preference was learned.", loci.SourceExplicit, loci.SourceImplicit, loci.SourceDecision),
		"Tier": enum("What to do with a preference: high (80-100) apply, medium (50-79) confirm first, low (<50) do not apply.",
			loci.TierHigh, loci.TierMedium, loci.TierLow),
		"MaintenanceTask": enum("A maintenance task.", loci.MaintenanceTasks...),
		"Action":          enum("Whether a write created the record or updated an existing one.", loci.ActionCreated, loci.ActionUpdated),

		// Notes (seed 000).
		"Note": withDesc(object([]string{"key", "value", "updated_at"}, obj{
			"key":        str("The note's key, unique per agent."),
			"value":      anyJSON("The value: a string or any JSON."),
			"updated_at": timestamp(""),
		}), "An agent's key-value memory."),
		"NoteVersion": object([]string{"value", "version", "updated_at"}, obj{
			"value":      anyJSON("The value the note had."),
			"version":    integer("1 for the first value, +1 per update."),
			"updated_at": timestamp("When the note took this value."),
		}),
		"RememberResult": object([]string{"message", "action", "key", "updated_at"}, obj{
			"message":    str(`"Remembered: {key}".`),
			"action":     ref("Action"),
			"key":        str(""),
			"updated_at": timestamp(""),
		}),

		// Agents and blocks (seed 002).
		"Agent": object([]string{"id", "name", "created_at"}, obj{
			"id":         str(""),
			"name":       str("A display name; may be empty."),
			"created_at": timestamp(""),
		}),
		"Block": withDesc(object([]string{"id", "label", "content", "is_shared", "owner_agent_id", "limit", "version", "created_at", "updated_at"}, obj{
			"id":             str(""),
			"label":          str("Unique among the agent's own blocks."),
			"content":        str(""),
			"is_shared":      boolean("Whether other agents may be attached to it."),
			"owner_agent_id": str(""),
			"limit":          integer("The most characters the content may hold."),
			"version":        integer("1 on create, +1 per update; for expected_version."),
			"created_at":     timestamp(""),
			"updated_at":     timestamp(""),
		}), "A core memory block, rendered into the agent's prompt."),
		"BlockVersion": object([]string{"version", "content", "limit", "updated_at"}, obj{
			"version":    integer("1 for the first content, +1 per update."),
			"content":    str("The content the block had."),
			"limit":      integer("The block's limit at that version."),
			"updated_at": timestamp("When the block took this content."),
		}),
		"BlockSpec": closed([]string{"label"}, obj{
			"label":   str(""),
			"content": str(""),
			"limit":   integer("Characters; default 5000, at most 200000."),
		}),
		"BlockLink": object([]string{"block_id", "agent_id", "created_at"}, obj{
			"block_id":   str(""),
			"agent_id":   str("The consumer agent."),
			"created_at": timestamp("When it was attached."),
		}),

		// Passages (seed 002).
		"Passage": withDesc(object([]string{"id", "agent_id", "content", "tags", "created_at"}, obj{
			"id":         str(""),
			"agent_id":   str(""),
			"content":    str(""),
			"tags":       nullable(strList("")),
			"created_at": timestamp(""),
		}), "An archival passage of an agent."),
		"PassageResult": obj{"allOf": []obj{ref("Passage"), scored("Relevance; higher is better.")}},

		// Sessions (seeds 001 and 004).
		"Message": object([]string{"role", "content"}, obj{
			"role":       str("e.g. user, assistant, system."),
			"content":    str(""),
			"created_at": timestamp("Absent when unknown."),
		}),
		"Session": withDesc(object([]string{"session_id", "user_id", "context", "summary", "messages", "message_count", "is_persistent", "confidence", "created_at", "updated_at"}, obj{
			"session_id":    str(""),
			"user_id":       str(""),
			"context":       anyJSON("A JSON object; {} when none was given."),
			"summary":       str(""),
			"messages":      nullable(array(ref("Message"), "In order.")),
			"message_count": integer(""),
			"is_persistent": boolean("A persistent session never expires."),
			"expires_at":    timestamp("Absent when the session does not expire."),
			"confidence":    number("0-100."),
			"created_at":    timestamp(""),
			"updated_at":    timestamp(""),
		}), "A conversation session with its messages."),
		"SessionSummary": object([]string{"session_id", "updated_at", "summary", "message_count"}, obj{
			"session_id":    str(""),
			"updated_at":    timestamp(""),
			"summary":       str(""),
			"message_count": integer(""),
		}),
		"ContextSession": object([]string{"session_id", "is_persistent", "confidence", "message_count", "updated_at"}, obj{
			"session_id":    str(""),
			"summary":       str(""),
			"context":       anyJSON(""),
			"is_persistent": boolean(""),
			"confidence":    number(""),
			"message_count": integer(""),
			"expires_at":    timestamp(""),
			"updated_at":    timestamp(""),
		}),

		// Working, episodic and long-term memory (seed 003).
		"WorkingEntry": withDesc(object([]string{"task_id", "agent_id", "key", "value", "updated_at", "expires_at"}, obj{
			"task_id":    str(""),
			"agent_id":   str(""),
			"user_id":    str("Absent when none was given."),
			"key":        str(""),
			"value":      anyJSON(""),
			"created_at": timestamp(""),
			"updated_at": timestamp(""),
			"expires_at": timestamp("24 hours after the last write."),
		}), "A task's short-lived working memory entry."),
		"Episode": withDesc(object([]string{"id", "user_id", "agent_id", "action_type", "action_description", "outcome", "confidence_score", "created_at", "expires_at"}, obj{
			"id":                 str(""),
			"user_id":            str(""),
			"agent_id":           str(""),
			"action_type":        str(""),
			"action_description": str(""),
			"context":            anyJSON("A JSON object."),
			"outcome":            ref("Outcome"),
			"outcome_details":    anyJSON("A JSON object."),
			"confidence_score":   nullable(number("0-1; null when not given.")),
			"user_feedback":      ref("EpisodeFeedback"),
			"created_at":         timestamp(""),
			"expires_at":         timestamp("30 days after it was recorded."),
		}), "A past action of an agent and its outcome."),
		"ScoredEpisode": obj{"allOf": []obj{ref("Episode"), scored("Similarity; higher is better.")}},
		"EpisodeInput": closed([]string{"user_id", "agent_id", "action_type", "action_description", "outcome"}, obj{
			"user_id":            str(""),
			"agent_id":           str(""),
			"action_type":        str(""),
			"action_description": str(""),
			"context":            anyJSON("A JSON object."),
			"outcome":            ref("Outcome"),
			"outcome_details":    anyJSON("A JSON object."),
			"confidence_score":   number("0-1."),
		}),
		"EpisodeFeedback": closed(nil, obj{
			"rating":      number(""),
			"comment":     str(""),
			"corrections": anyJSON("Any JSON."),
		}),
		"Fact": withDesc(object([]string{"id", "category", "fact", "keywords", "relevance_score", "access_count", "is_validated", "contradiction_count", "created_at", "updated_at", "valid_at", "status"}, obj{
			"id":                  str(""),
			"user_id":             str("Absent for a global fact."),
			"agent_id":            str("The agent that stored it, when one did."),
			"category":            ref("FactCategory"),
			"fact":                str(""),
			"keywords":            nullable(strList("")),
			"evidence":            anyJSON(""),
			"relevance_score":     number("0-1; validate adds 0.1, contradict takes 0.2, decay multiplies by 0.9."),
			"access_count":        integer("How often searches returned it."),
			"last_accessed_at":    timestamp(""),
			"is_validated":        boolean(""),
			"validated_at":        timestamp(""),
			"contradiction_count": integer(""),
			"created_at":          timestamp(""),
			"updated_at":          timestamp(""),
			"key":                 str("The slot the fact fills, per user (or global), e.g. home_city; absent for a fact without one."),
			"valid_at":            timestamp("When it became (or becomes) true."),
			"invalid_at":          timestamp("When it stopped being true; absent while it still is."),
			"superseded_by":       str("The fact of its key that replaced it."),
			"supersedes":          str("The fact of its key it replaced."),
			"status":              ref("FactStatus"),
		}), "A long-term fact, about a user or global. A fact with a `key` supersedes the one of its key that was true at its `valid_at`, which is kept as history."),
		"ScoredFact": obj{"allOf": []obj{ref("Fact"), scored("Relevance to the query; higher is better.")}},
		"FactInput": closed([]string{"category", "fact"}, obj{
			"user_id":  str("Omit for a global fact."),
			"agent_id": str(""),
			"category": ref("FactCategory"),
			"fact":     str(""),
			"keywords": strList(""),
			"evidence": anyJSON("Any JSON."),
			"key":      str("A slot per user (or global), e.g. home_city: the new fact supersedes the one of this key true at its valid_at. At most 200 bytes."),
			"valid_at": timestamp("When the fact became (or becomes) true; default now. A future time is allowed: the fact is not current until then."),
		}),
		"MaintenanceResult": object([]string{"created", "updated", "deleted", "ids"}, obj{
			"created": integer(""),
			"updated": integer(""),
			"deleted": integer(""),
			"ids":     nullable(strList("The records the task changed (or would change on a dry run).")),
		}),

		// Preferences and users (seeds 001 and 004).
		"Preference": withDesc(object([]string{"user_id", "type", "value", "learned_from", "first_observed", "observation_count", "source", "confidence", "stored_confidence", "peak", "tier", "is_persistent", "flagged_for_removal", "last_used_at", "created_at", "updated_at"}, obj{
			"user_id":             str(""),
			"session_id":          str("Set for a session-scoped decision."),
			"type":                str("e.g. tone, format; unique per user (and session)."),
			"value":               anyJSON(""),
			"context":             str(""),
			"learned_from":        str(""),
			"first_observed":      withDesc(obj{"type": "string", "format": "date"}, "YYYY-MM-DD."),
			"observation_count":   integer(""),
			"source":              ref("PreferenceSource"),
			"confidence":          integer("Effective confidence, 0-100, after ageing."),
			"stored_confidence":   integer("Confidence as stored, before ageing."),
			"peak":                integer("The most confidence use can restore."),
			"tier":                ref("Tier"),
			"is_persistent":       boolean(""),
			"flagged_for_removal": boolean("Set when an explicit preference was contradicted."),
			"last_used_at":        timestamp(""),
			"created_at":          timestamp(""),
			"updated_at":          timestamp(""),
		}), "A user's preference with its confidence."),
		"UserMemory": withDesc(object([]string{"id", "kind", "content", "confidence", "access_count", "created_at", "updated_at"}, obj{
			"id":               str(""),
			"kind":             ref("Kind"),
			"agent_id":         str(""),
			"session_id":       str(""),
			"task_id":          str(""),
			"key":              str(""),
			"content":          str("The record's text."),
			"data":             anyJSON("Kind-specific fields."),
			"tags":             strList(""),
			"category":         str(""),
			"action_type":      str(""),
			"outcome":          str(""),
			"confidence":       number(""),
			"access_count":     integer(""),
			"created_at":       timestamp(""),
			"updated_at":       timestamp(""),
			"expires_at":       timestamp(""),
			"valid_at":         timestamp("A fact: when it became true."),
			"invalid_at":       timestamp("A fact: when it stopped being true (history)."),
			"review":           enum("Why it waits for review, when it does.", loci.ReviewDisputed, loci.ReviewFlaggedForRemoval),
			"user_id":          str("The user the record is about; absent for global and agent-only records."),
			"last_accessed_at": timestamp("When a search last returned the record; absent when never."),
		}), "Any record about a user, of any kind."),
		"ReviewItem": withDesc(obj{"oneOf": []obj{
			{"allOf": []obj{ref("Fact"), object([]string{"kind", "reason"}, obj{
				"kind": obj{"const": string(loci.KindFact)}, "reason": obj{"const": loci.ReviewDisputed},
			})}},
			{"allOf": []obj{ref("Preference"), object([]string{"kind", "reason"}, obj{
				"kind": obj{"const": string(loci.KindPreference)}, "reason": obj{"const": loci.ReviewFlaggedForRemoval},
			})}},
		}}, "Something of a user's memory that waits for a person: a disputed fact (`kind` fact, `reason` disputed, the fact's fields; "+
			"resolve with POST /v1/facts/{id}/resolve) or a preference flagged for removal (`kind` preference, `reason` flagged_for_removal, "+
			"the preference's fields; resolve with POST /v1/users/{user_id}/preferences/{type}/resolve)."),

		// The overview.
		"UserSummary": withDesc(object([]string{"user_id", "created_at", "updated_at", "memories"}, obj{
			"user_id":    str(""),
			"created_at": timestamp("When loci first heard of the user: its registration (a session start, an import) or its oldest record, the earlier."),
			"updated_at": timestamp("The latest write about the user."),
			"memories":   integer("How many records about the user there are."),
		}), "A user of the workspace: registered, or named by a record."),
		"ScopeCount": object([]string{"id", "count"}, obj{
			"id":    str("An agent or user id."),
			"count": integer("How many records it holds."),
		}),
		"DayCount": object([]string{"date", "count", "total"}, obj{
			"date":  obj{"type": "string", "format": "date", "description": "A UTC day, YYYY-MM-DD."},
			"count": integer("Records created that day that still exist."),
			"total": integer("Records at the end of that day (of those that still exist)."),
		}),
		"Stats": withDesc(object([]string{"total", "kinds", "agents", "users", "top_agents", "top_users", "growth", "newest", "embeddings", "at"}, obj{
			"agent_id":   str("The agent the overview is narrowed to, when one was named."),
			"user_id":    str("The user the overview is narrowed to, when one was named."),
			"total":      integer("How many records there are."),
			"kinds":      mapOf(obj{"type": "integer"}, "How many records of each kind (every kind, 0 when none)."),
			"agents":     integer("How many distinct agents the records name."),
			"users":      integer("How many distinct users the records name."),
			"top_agents": array(ref("ScopeCount"), "The agents with the most records, most first."),
			"top_users":  array(ref("ScopeCount"), "The users with the most records, most first."),
			"growth":     array(ref("DayCount"), "One entry per day, oldest first, today last."),
			"newest":     array(ref("UserMemory"), "The most recently created records, newest first."),
			"embeddings": object([]string{"model", "pending"}, obj{
				"model":   str("The embedder's model; empty when the server has none (lexical search only)."),
				"pending": integer("Records waiting for an embedding by that model (the embedding queue)."),
			}),
			"at": timestamp("When the overview was computed."),
		}), "An overview of the workspace's memory, or of one agent's or user's."),

		// Search.
		"SignalScore": object([]string{"rank", "score"}, obj{
			"rank": integer("The result's 1-based rank among the signal's candidates."),
			"score": number("The score the signal ranked by: for lexical, BM25 scaled to the best match (1) plus what `context` and `session` " +
				"added; for vector, cosine similarity; for date, BM25 times the closeness to the periods the query names."),
		}),
		"Explanation": withDesc(object([]string{"signals", "fused", "recency", "score"}, obj{
			"signals": mapOf(ref("SignalScore"), "Each signal that found the result: `lexical`, `vector`, and `date` (the lexical matches "+
				"written in the periods the query names, such as \"in May 2023\" or \"last week\")."),
			"fused":      number("The weighted reciprocal rank fusion of the signals, 0-1 (1: first in every signal)."),
			"recency":    number("0.5^(age/half-life) of the record's last update, 0-1."),
			"confidence": number("The kind's confidence or relevance on 0-1; absent for kinds without one."),
			"context": number("What the messages next to the result in its conversation lent its lexical score, on the scale of the best " +
				"lexical match (1); a message that asks a question lends more to the one after it, its answer."),
			"session": number("Its conversation's share of its lexical score: the strength of the conversation's best matches, weighted."),
			"date": number("How close the result was written to a period the query names, 0-1: 1 inside it, less shortly after; " +
				"the score is multiplied by 1 plus a weight times this."),
			"mmr_rank": integer("The position diversity re-ranking gave, when it ran."),
			"score":    number("The final score."),
		}), "How a search result's score was made."),
		"SearchResult": withDesc(object([]string{"id", "kind", "content", "scope", "created_at", "updated_at", "score"}, obj{
			"id":      str(""),
			"kind":    ref("Kind"),
			"key":     str("The record's key, for kinds that have one."),
			"content": str("The record's text."),
			"scope": object(nil, obj{
				"agent_id": str(""), "user_id": str(""), "session_id": str(""), "task_id": str(""),
			}),
			"tags":       strList(""),
			"created_at": timestamp(""),
			"updated_at": timestamp(""),
			"score":      number("Higher is better."),
			"explain":    ref("Explanation"),
		}), "A record found by a search across kinds."),

		// Operations.
		"APIKey": object([]string{"id", "workspace", "role", "created_at"}, obj{
			"id":         str(""),
			"workspace":  str(""),
			"name":       str(""),
			"role":       ref("Role"),
			"agent_id":   str("The agent the key is bound to, if any."),
			"created_at": timestamp(""),
			"revoked_at": timestamp("Absent while the key is active."),
		}),
		"AuditEntry": withDesc(object([]string{"id", "time", "operation", "workspace", "record_ids", "count", "status"}, obj{
			"id":         str(""),
			"time":       timestamp(""),
			"key_id":     str("Absent when authentication is off."),
			"role":       ref("Role"),
			"operation":  str(`e.g. "note.recall".`),
			"workspace":  str(""),
			"agent_id":   str(""),
			"user_id":    str(""),
			"session_id": str(""),
			"task_id":    str(""),
			"kind":       ref("Kind"),
			"record_ids": nullable(strList("The ids of the records the operation read, created, changed or deleted; never content.")),
			"count":      integer("How many records the operation returned or changed."),
			"status":     integer("The outcome as an HTTP status, whatever the interface (a refusal: 401, 403, 429)."),
			"dry_run":    boolean("The operation only said what it would change (forget, maintenance)."),
			"via":        enum("The interface the operation came through.", loci.ViaREST, loci.ViaMCP, loci.ViaCLI, loci.ViaLibrary),
		}), "One entry of the access log: every operation writes one, whatever the interface (in its own transaction when it writes)."),
		"ImportResult": object([]string{"agents", "users", "records", "versions", "block_links", "skipped"}, obj{
			"agents":      integer("Agents created (those already there are kept)."),
			"users":       integer("Users created (those already there are kept)."),
			"records":     integer("Records stored."),
			"versions":    integer("Kept versions stored with them."),
			"block_links": integer("Block links attached."),
			"skipped":     integer("Records already stored with the same id, kind, version and updated_at: left as they were."),
		}),
	}
}

// scored is the part a search adds to an object: its score and, when
// asked, the score's explanation.
func scored(desc string) obj {
	return object([]string{"score"}, obj{"score": number(desc), "explain": ref("Explanation")})
}
