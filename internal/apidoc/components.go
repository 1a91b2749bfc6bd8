package apidoc

import (
	"fmt"

	"github.com/loci-memory/loci"
)

// KindNames are the names of the kinds, in loci.Kinds order.
func KindNames() []string {
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
// API answers them, and the request bodies, gathered from one function per
// group of kinds (each a table of schemas).
func schemas() Obj {
	all := Obj{}
	for _, part := range []Obj{
		commonSchemas(),
		noteSchemas(),
		blockSchemas(),
		passageSchemas(),
		sessionSchemas(),
		workingEpisodeSchemas(),
		factSchemas(),
		preferenceMemorySchemas(),
		memoryUserSchemas(),
		overviewSchemas(),
		searchSchemas(),
		operationSchemas(),
		conversationSchemas(),
	} {
		for name, s := range part {
			if _, dup := all[name]; dup {
				panic("apidoc: schema " + name + " declared twice")
			}
			all[name] = s
		}
	}
	return all
}

// commonSchemas are the component schemas of the error envelope and the
// enumerations the others use.
func commonSchemas() Obj {
	return Obj{
		"Success": Object([]string{"success"}, Obj{"success": Obj{"const": true}}),
		"ErrorEnvelope": WithDesc(Object([]string{"success", "error", "code"}, Obj{
			"success": Obj{"const": false},
			"error":   Str("A human-readable message."),
			"code":    enum("The machine-readable error code; it determines the HTTP status.", errorCodes...),
		}), "Every failure is answered in this envelope."),

		"Kind":    enum("A kind of memory.", KindNames()...),
		"Role":    enum("An API key's role; each includes the ones before it.", roleNames()...),
		"Outcome": enum("An episode's outcome.", loci.Outcomes...),
		"FactCategory": WithDesc(Obj{"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$", "examples": loci.FactCategories},
			"A fact's category: any name of a-z, 0-9 and _ starting with a letter (at most 64 bytes). The ten examples are the documented vocabulary; "+loci.CategoryGeneralFact+" is the default of POST /v1/memories."),
		"FactStatus": enum("What a fact is now, or at the `as_of` a listing or search asked about: current (true), disputed (true, but contradicted and not resolved), "+
			"future (its valid_at is to come), superseded (replaced by superseded_by), invalidated (no longer true, not replaced).",
			loci.FactCurrent, loci.FactDisputed, loci.FactFuture, loci.FactSuperseded, loci.FactInvalidated),
		"PreferenceSource": enum("How a preference was learned.", loci.SourceExplicit, loci.SourceImplicit, loci.SourceDecision),
		"Tier": enum("What to do with a preference: high (80-100) apply, medium (50-79) confirm first, low (<50) do not apply.",
			loci.TierHigh, loci.TierMedium, loci.TierLow),
		"MaintenanceTask": enum("A maintenance task.", loci.MaintenanceTasks...),
		"Action":          enum("Whether a write created the record or updated an existing one.", loci.ActionCreated, loci.ActionUpdated),
	}
}

// noteSchemas are the component schemas of notes.
func noteSchemas() Obj {
	return Obj{
		"Note": WithDesc(Object([]string{"key", "value", "updated_at"}, Obj{
			"metadata":   ownMetadata(),
			"key":        Str("The note's key, unique per agent."),
			"value":      AnyJSON("The value: a string or any JSON."),
			"updated_at": Timestamp(""),
		}), "An agent's key-value memory."),
		"NoteVersion": Object([]string{"value", "version", "updated_at"}, Obj{
			"value":      AnyJSON("The value the note had."),
			"version":    Integer("1 for the first value, +1 per update."),
			"updated_at": Timestamp("When the note took this value."),
		}),
		"RememberResult": Object([]string{"message", "action", "key", "updated_at"}, Obj{
			"message":    Str(`"Remembered: {key}".`),
			"action":     Ref("Action"),
			"key":        Str(""),
			"updated_at": Timestamp(""),
		}),
	}
}

// blockSchemas are the component schemas of agents and blocks.
func blockSchemas() Obj {
	return Obj{
		"Agent": Object([]string{"id", "name", "created_at"}, Obj{
			"id":         Str(""),
			"name":       Str("A display name; may be empty."),
			"created_at": Timestamp(""),
		}),
		"Block": WithDesc(Object([]string{"id", "label", "content", "is_shared", "owner_agent_id", "limit", "version", "created_at", "updated_at"}, Obj{
			"metadata":       ownMetadata(),
			"id":             Str(""),
			"label":          Str("Unique among the agent's own blocks."),
			"content":        Str(""),
			"is_shared":      Boolean("Whether other agents may be attached to it."),
			"owner_agent_id": Str(""),
			"limit":          Integer("The most characters the content may hold."),
			"version":        Integer("1 on create, +1 per update; for expected_version."),
			"created_at":     Timestamp(""),
			"updated_at":     Timestamp(""),
		}), "A core memory block, rendered into the agent's prompt."),
		"BlockVersion": Object([]string{"version", "content", "limit", "updated_at"}, Obj{
			"version":    Integer("1 for the first content, +1 per update."),
			"content":    Str("The content the block had."),
			"limit":      Integer("The block's limit at that version."),
			"updated_at": Timestamp("When the block took this content."),
		}),
		"BlockSpec": Closed([]string{"label"}, Obj{
			"label":   Str(""),
			"content": Str(""),
			"limit":   Integer(fmt.Sprintf("Characters; default %d, at most %d.", loci.DefaultBlockLimit, loci.MaxBlockLimit)),
		}),
		"BlockLink": Object([]string{"block_id", "agent_id", "created_at"}, Obj{
			"block_id":   Str(""),
			"agent_id":   Str("The consumer agent."),
			"created_at": Timestamp("When it was attached."),
		}),
	}
}

// passageSchemas are the component schemas of passages.
func passageSchemas() Obj {
	return Obj{
		"Passage": WithDesc(Object([]string{"id", "agent_id", "content", "tags", "created_at"}, Obj{
			"metadata":   ownMetadata(),
			"id":         Str(""),
			"agent_id":   Str(""),
			"content":    Str(""),
			"tags":       Nullable(StrList("")),
			"created_at": Timestamp(""),
		}), "An archival passage of an agent."),
		"PassageResult": Obj{"allOf": []Obj{Ref("Passage"), scored()}},
	}
}

// sessionSchemas are the component schemas of sessions.
func sessionSchemas() Obj {
	return Obj{
		"Message": Object([]string{"role", "content"}, Obj{
			"role":       Str("e.g. user, assistant, system."),
			"content":    Str(""),
			"created_at": Timestamp("Absent when unknown."),
		}),
		"Session": WithDesc(Object([]string{"session_id", "user_id", "context", "summary", "messages", "message_count", "is_persistent", "confidence", "created_at", "updated_at"}, Obj{
			"metadata":      ownMetadata(),
			"session_id":    Str(""),
			"user_id":       Str(""),
			"context":       AnyJSON("A JSON object; {} when none was given."),
			"summary":       Str(""),
			"messages":      Nullable(Array(Ref("Message"), "In order.")),
			"message_count": Integer(""),
			"is_persistent": Boolean("A persistent session never expires."),
			"expires_at":    Timestamp("Absent when the session does not expire."),
			"confidence":    Number(fmt.Sprintf("0-%d.", loci.MaxSessionConfidence)),
			"created_at":    Timestamp(""),
			"updated_at":    Timestamp(""),
		}), "A conversation session with its messages."),
		"SessionSummary": Object([]string{"session_id", "updated_at", "summary", "message_count"}, Obj{
			"metadata":      ownMetadata(),
			"session_id":    Str(""),
			"updated_at":    Timestamp(""),
			"summary":       Str(""),
			"message_count": Integer(""),
		}),
		"ContextSession": Object([]string{"session_id", "is_persistent", "confidence", "message_count", "updated_at"}, Obj{
			"session_id":    Str(""),
			"summary":       Str(""),
			"context":       AnyJSON(""),
			"is_persistent": Boolean(""),
			"confidence":    Number(""),
			"message_count": Integer(""),
			"expires_at":    Timestamp(""),
			"updated_at":    Timestamp(""),
		}),
	}
}

// workingEpisodeSchemas are the component schemas of working memory and
// episodes.
func workingEpisodeSchemas() Obj {
	return Obj{
		"WorkingEntry": WithDesc(Object([]string{"task_id", "agent_id", "key", "value", "updated_at", "expires_at"}, Obj{
			"metadata":   ownMetadata(),
			"task_id":    Str(""),
			"agent_id":   Str(""),
			"user_id":    Str("Absent when none was given."),
			"key":        Str(""),
			"value":      AnyJSON(""),
			"created_at": Timestamp(""),
			"updated_at": Timestamp(""),
			"expires_at": Timestamp("24 hours after the last write."),
		}), "A task's short-lived working memory entry."),
		"Episode": WithDesc(Object([]string{"id", "user_id", "agent_id", "action_type", "action_description", "outcome", "confidence_score", "created_at", "expires_at"}, Obj{
			"metadata":           ownMetadata(),
			"id":                 Str(""),
			"user_id":            Str(""),
			"agent_id":           Str(""),
			"action_type":        Str(""),
			"action_description": Str(""),
			"context":            AnyJSON("A JSON object."),
			"outcome":            Ref("Outcome"),
			"outcome_details":    AnyJSON("A JSON object."),
			"confidence_score":   Nullable(Number("0-1; null when not given.")),
			"user_feedback":      Ref("EpisodeFeedback"),
			"created_at":         Timestamp(""),
			"expires_at":         Timestamp("30 days after it was recorded."),
		}), "A past action of an agent and its outcome."),
		"ScoredEpisode": Obj{"allOf": []Obj{Ref("Episode"), scored()}},
		"EpisodeInput": Closed([]string{"user_id", "agent_id", "action_type", "action_description", "outcome"}, Obj{
			"user_id":            Str(""),
			"agent_id":           Str(""),
			"action_type":        Str(""),
			"action_description": Str(""),
			"context":            AnyJSON("A JSON object."),
			"outcome":            Ref("Outcome"),
			"outcome_details":    AnyJSON("A JSON object."),
			"confidence_score":   Number("0-1."),
		}),
		"EpisodeFeedback": Closed(nil, Obj{
			"rating":      Number(""),
			"comment":     Str(""),
			"corrections": AnyJSON("Any JSON."),
		}),
	}
}

// factSchemas are the component schemas of long-term facts and maintenance.
func factSchemas() Obj {
	return Obj{
		"Fact": WithDesc(Object([]string{"id", "category", "fact", "keywords", "relevance_score", "access_count", "is_validated", "contradiction_count", "created_at", "updated_at", "valid_at", "status"}, Obj{
			"metadata":            ownMetadata(),
			"id":                  Str(""),
			"user_id":             Str("Absent for a global fact."),
			"agent_id":            Str("The agent that stored it, when one did."),
			"category":            Ref("FactCategory"),
			"fact":                Str(""),
			"keywords":            Nullable(StrList("")),
			"evidence":            AnyJSON(""),
			"relevance_score":     Number("0-1; validate adds 0.1, contradict takes 0.2, decay multiplies by 0.9."),
			"access_count":        Integer("How often searches returned it."),
			"last_accessed_at":    Timestamp(""),
			"is_validated":        Boolean(""),
			"validated_at":        Timestamp(""),
			"contradiction_count": Integer(""),
			"created_at":          Timestamp(""),
			"updated_at":          Timestamp(""),
			"key":                 Str("The slot the fact fills, per user (or global), e.g. home_city; absent for a fact without one."),
			"valid_at":            Timestamp("When it became (or becomes) true."),
			"invalid_at":          Timestamp("When it stopped being true; absent while it still is."),
			"superseded_by":       Str("The fact of its key that replaced it."),
			"supersedes":          Str("The fact of its key it replaced."),
			"status":              Ref("FactStatus"),
		}), "A long-term fact, about a user or global. A fact with a `key` supersedes the one of its key that was true at its `valid_at`, which is kept as history."),
		"ScoredFact": Obj{"allOf": []Obj{Ref("Fact"), scored()}},
		"FactInput": Closed([]string{"category", "fact"}, Obj{
			"user_id":  Str("Omit for a global fact."),
			"agent_id": Str(""),
			"category": Ref("FactCategory"),
			"fact":     Str(""),
			"keywords": StrList(""),
			"evidence": AnyJSON("Any JSON."),
			"key":      Str("A slot per user (or global), e.g. home_city: the new fact supersedes the one of this key true at its valid_at. " + fmt.Sprintf("At most %d bytes.", loci.MaxFactKeyBytes)),
			"valid_at": Timestamp("When the fact became (or becomes) true; default now. A future time is allowed: the fact is not current until then."),
		}),
		"MaintenanceResult": Object([]string{"created", "updated", "deleted", "ids"}, Obj{
			"created": Integer(""),
			"updated": Integer(""),
			"deleted": Integer(""),
			"ids":     Nullable(StrList("The records the task changed (or would change on a dry run).")),
		}),
	}
}

// preferenceMemorySchemas are the component schemas of preferences and the
// memories API's filters and inputs.
func preferenceMemorySchemas() Obj {
	return Obj{
		"Preference": WithDesc(Object([]string{"user_id", "type", "value", "learned_from", "first_observed", "observation_count", "source", "confidence", "stored_confidence", "peak", "tier", "is_persistent", "flagged_for_removal", "last_used_at", "created_at", "updated_at"}, Obj{
			"metadata":            ownMetadata(),
			"user_id":             Str(""),
			"session_id":          Str("Set for a session-scoped decision."),
			"type":                Str("e.g. tone, format; unique per user (and session)."),
			"value":               AnyJSON(""),
			"context":             Str(""),
			"learned_from":        Str(""),
			"first_observed":      WithDesc(Obj{"type": "string", "format": "date"}, "YYYY-MM-DD."),
			"observation_count":   Integer(""),
			"source":              Ref("PreferenceSource"),
			"confidence":          Integer("Effective confidence, 0-100, after ageing."),
			"stored_confidence":   Integer("Confidence as stored, before ageing."),
			"peak":                Integer("The most confidence use can restore."),
			"tier":                Ref("Tier"),
			"is_persistent":       Boolean(""),
			"flagged_for_removal": Boolean("Set when an explicit preference was contradicted."),
			"last_used_at":        Timestamp(""),
			"created_at":          Timestamp(""),
			"updated_at":          Timestamp(""),
		}), "A user's preference with its confidence."),
		"Metadata": WithDesc(Obj{"type": "object", "maxProperties": loci.MaxMetadataKeys,
			"propertyNames": Obj{"minLength": 1, "maxLength": loci.MaxMetadataKeyBytes, "pattern": "^[^.\\u0000-\\u001F\\u007F-\\u009F]+$"},
		}, fmt.Sprintf("A JSON object the client owns. Keys are 1-%d bytes of any characters but `.` and control characters "+
			"(`topicName`, `Ünïcode`, `user-agent`), at every level; values are any JSON: strings, numbers, booleans, null, arrays, and "+
			"objects nested up to %d levels (the metadata object is the first). At most %d keys at the top level, %s in all, counted as "+
			"the compact JSON's UTF-8 bytes with `&`, `<` and `>` unescaped (413 past it, 400 for anything else). Integers are returned "+
			"exactly as sent. Returned wherever the record is, kept by history, export and import; never searched as text.",
			loci.MaxMetadataKeyBytes, loci.MaxMetadataDepth, loci.MaxMetadataKeys, Bytes(loci.MaxMetadataBytes))),
		"MemoryFilter": WithDesc(Obj{"type": "object"}, "A filter: `{\"and\": [F, …]}`, `{\"or\": [F, …]}`, `{\"not\": F}`, `{\"FIELD\": VALUE}` "+
			"(equality) or `{\"FIELD\": {\"OP\": VALUE}}` with OP one of eq ne in nin gt gte lt lte contains icontains; several members of one object all hold. "+
			"`{}` always holds wherever it stands: `{\"and\": []}` holds, `{\"or\": []}` does not, `{\"not\": {}}` does not. "+
			"FIELD is `metadata.PATH` (a nested value by its keys: `metadata.food.kind`), kind, category, tags, key, user_id, agent_id, session_id, "+
			"created_at, updated_at (an RFC 3339 time or a date, `2026-01-31`, meaning its midnight UTC). "+
			"`contains` on a string asks for a substring (case-sensitive), on an array (tags, an array in metadata) for an element equal to the value; "+
			"`icontains` is the same without case. A record without the field matches only ne and nin. "+
			"An unknown field or operator, or a value of the wrong type, is 400. A filter never widens a scope the key or the other parameters narrow."),
		"MemoryInput": Closed([]string{"content"}, Obj{
			"content":     Str("The memory's text (a note's value)."),
			"user_id":     Str(""),
			"agent_id":    Str("Required for a passage or a note."),
			"session_id":  Str(""),
			"kind":        WithDesc(Obj{"type": "string", "enum": loci.AddedKinds(), "default": "fact"}, "Other kinds are written through their own routes."),
			"key":         Str("A fact's slot (a new content supersedes), a note's key."),
			"category":    WithDesc(Obj{"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$", "default": loci.CategoryGeneralFact}, "A fact's category."),
			"tags":        StrList("A fact's keywords, a passage's tags."),
			"metadata":    Ref("Metadata"),
			"expires_at":  Expiry("A future time after which the memory is answered nowhere (notes, passages, facts); an RFC 3339 time, or a date (YYYY-MM-DD): the end of that day, UTC.", false),
			"ttl_seconds": WithDesc(Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxTTLSeconds}, "A time to live from now, instead of expires_at."),
		}),
		"MemoryPatch": Closed(nil, Obj{
			"content":     Str(""),
			"metadata":    Obj{"anyOf": []Obj{Ref("Metadata"), {"type": "null"}}, "description": "null clears it."},
			"tags":        StrList(""),
			"expires_at":  Expiry("An RFC 3339 time, or a date (YYYY-MM-DD): the end of that day, UTC; null removes the time to live.", true),
			"ttl_seconds": Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxTTLSeconds},
		}),
	}
}

// memoryUserSchemas are the component schemas of the memories API's
// answers, and of users.
func memoryUserSchemas() Obj {
	return Obj{
		"MemoryUpdate": Closed([]string{"id"}, Obj{
			"id":          Str("The memory to change."),
			"content":     Str(""),
			"metadata":    Obj{"anyOf": []Obj{Ref("Metadata"), {"type": "null"}}, "description": "null clears it."},
			"tags":        StrList(""),
			"expires_at":  Expiry("An RFC 3339 time, or a date (YYYY-MM-DD): the end of that day, UTC; null removes the time to live.", true),
			"ttl_seconds": Obj{"type": "integer", "minimum": 1, "maximum": loci.MaxTTLSeconds},
		}),
		"MemoryEvent": WithDesc(Object([]string{"id", "kind", "event"}, Obj{
			"id":          Str("The memory written (for a keyed fact's new version, the new record)."),
			"kind":        Ref("Kind"),
			"event":       enum("", loci.EventAdd, loci.EventUpdate, loci.EventNoop, loci.EventDelete),
			"version":     Integer("The record's version after the write."),
			"previous_id": Str("The record a keyed fact's new version superseded."),
		}), "What one write did."),
		"MemoryVersion": WithDesc(Object([]string{"id", "version", "event", "content", "updated_at", "current"}, Obj{
			"id":         Str("The record of this version (a keyed fact's versions are records of their own)."),
			"version":    Integer(""),
			"event":      enum("", loci.EventAdd, loci.EventUpdate),
			"content":    Str(""),
			"metadata":   Ref("Metadata"),
			"updated_at": Timestamp(""),
			"current":    Boolean("Whether this is what the memory says now."),
		}), "One value a memory has had."),
		"UserMemory": WithDesc(Object([]string{"id", "kind", "content", "confidence", "access_count", "created_at", "updated_at"}, Obj{
			"id":               Str(""),
			"kind":             Ref("Kind"),
			"agent_id":         Str(""),
			"session_id":       Str(""),
			"task_id":          Str(""),
			"key":              Str(""),
			"content":          Str("The record's text."),
			"data":             AnyJSON("Kind-specific fields."),
			"tags":             StrList(""),
			"metadata":         Ref("Metadata"),
			"version":          Integer("1 when written, +1 per change."),
			"category":         Str(""),
			"action_type":      Str(""),
			"outcome":          Str(""),
			"confidence":       Number(""),
			"access_count":     Integer(""),
			"created_at":       Timestamp(""),
			"updated_at":       Timestamp(""),
			"expires_at":       Timestamp(""),
			"valid_at":         Timestamp("A fact: when it became true."),
			"invalid_at":       Timestamp("A fact: when it stopped being true (history)."),
			"review":           enum("Why it waits for review, when it does.", loci.ReviewDisputed, loci.ReviewFlaggedForRemoval),
			"user_id":          Str("The user the record is about; absent for global and agent-only records."),
			"last_accessed_at": Timestamp("When a search last returned the record; absent when never."),
			"history": Boolean("In a forget's answer: a past version of the record (`version`, with the content, data, metadata and time it had), " +
				"removed from the record's history; the record, whose current value did not match, stays. Absent otherwise."),
		}), "Any record about a user, of any kind."),
		"ReviewItem": WithDesc(Obj{"oneOf": []Obj{
			{"allOf": []Obj{Ref("Fact"), Object([]string{"kind", "reason"}, Obj{
				"kind": Obj{"const": string(loci.KindFact)}, "reason": Obj{"const": loci.ReviewDisputed},
			})}},
			{"allOf": []Obj{Ref("Preference"), Object([]string{"kind", "reason"}, Obj{
				"kind": Obj{"const": string(loci.KindPreference)}, "reason": Obj{"const": loci.ReviewFlaggedForRemoval},
			})}},
		}}, "Something of a user's memory that waits for a person: a disputed fact (`kind` fact, `reason` disputed, the fact's fields; "+
			"resolve with POST /v1/facts/{id}/resolve) or a preference flagged for removal (`kind` preference, `reason` flagged_for_removal, "+
			"the preference's fields; resolve with POST /v1/users/{user_id}/preferences/{type}/resolve)."),
	}
}

// overviewSchemas are the component schemas of the overview.
func overviewSchemas() Obj {
	return Obj{
		"UserSummary": WithDesc(Object([]string{"user_id", "created_at", "updated_at", "memories"}, Obj{
			"user_id":    Str(""),
			"created_at": Timestamp("When loci first heard of the user: its registration (a session start, an import) or its oldest record, the earlier."),
			"updated_at": Timestamp("The latest write about the user."),
			"memories":   Integer("How many records about the user there are."),
		}), "A user of the workspace: registered, or named by a record."),
		"ScopeCount": Object([]string{"id", "count"}, Obj{
			"id":    Str("An agent or user id."),
			"count": Integer("How many records it holds."),
		}),
		"DayCount": Object([]string{"date", "count", "total"}, Obj{
			"date":  Obj{"type": "string", "format": "date", "description": "A UTC day, YYYY-MM-DD."},
			"count": Integer("Records created that day that still exist."),
			"total": Integer("Records at the end of that day (of those that still exist)."),
		}),
		"Stats": WithDesc(Object([]string{"total", "kinds", "agents", "users", "top_agents", "top_users", "growth", "newest", "embeddings", "at"}, Obj{
			"agent_id":   Str("The agent the overview is narrowed to, when one was named."),
			"user_id":    Str("The user the overview is narrowed to, when one was named."),
			"total":      Integer("How many records there are."),
			"kinds":      MapOf(Obj{"type": "integer"}, "How many records of each kind (every kind, 0 when none)."),
			"agents":     Integer("How many distinct agents the records name."),
			"users":      Integer("How many distinct users the records name."),
			"top_agents": Array(Ref("ScopeCount"), "The agents with the most records, most first."),
			"top_users":  Array(Ref("ScopeCount"), "The users with the most records, most first."),
			"growth":     Array(Ref("DayCount"), "One entry per day, oldest first, today last."),
			"newest":     Array(Ref("UserMemory"), "The most recently created records, newest first."),
			"embeddings": Object([]string{"model", "pending"}, Obj{
				"model":   Str("The embedder's model; empty when the server has none (lexical search only)."),
				"pending": Integer("Records waiting for an embedding by that model (the embedding queue)."),
			}),
			"at": Timestamp("When the overview was computed."),
		}), "An overview of the workspace's memory, or of one agent's or user's."),
	}
}

// searchSchemas are the component schemas of search and its explanation.
func searchSchemas() Obj {
	return Obj{
		"SignalScore": Object([]string{"rank", "score"}, Obj{
			"rank": Integer("The result's 1-based rank among the signal's candidates."),
			"score": Number("The score the signal ranked by: for lexical, BM25 scaled to the best match (1) plus what `context` and `session` " +
				"added; for vector, cosine similarity; for date, BM25 times the closeness to the periods the query names."),
		}),
		"Explanation": WithDesc(Object([]string{"signals", "fused", "recency", "score"}, Obj{
			"signals": MapOf(Ref("SignalScore"), "Each signal that found the result: `lexical`, `vector`, and `date` (the lexical matches "+
				"written in the periods the query names, such as \"in May 2023\" or \"last week\")."),
			"fused":      Number("The weighted reciprocal rank fusion of the signals, 0-1 (1: first in every signal)."),
			"recency":    Number("0.5^(age/half-life) of the record's last update, 0-1."),
			"confidence": Number("The kind's confidence or relevance on 0-1; absent for kinds without one."),
			"context": Number("What the messages next to the result in its conversation lent its lexical score, on the scale of the best " +
				"lexical match (1); a message that asks a question lends more to the one after it, its answer."),
			"session": Number("Its conversation's share of its lexical score: the strength of the conversation's best matches, weighted."),
			"date": Number("How close the result was written to a period the query names, 0-1: 1 inside it, less shortly after; " +
				"the score is multiplied by 1 plus a weight times this."),
			"mmr_rank": Integer("The position diversity re-ranking gave, when it ran."),
			"rank": Number("What the results are ordered by: `fused` times the blend of `recency` and `confidence`, and times 1 plus a weight " +
				"times `date`."),
			"words": Number("The share of the query's words, each weighted by its IDF in the scope searched, that the record holds, 0-1 " +
				"(a word naming the record's speaker or user counts as held, and the words of a period the query names as far as the record " +
				"was written in it); or, when more, what a matching message next to it in its conversation lends it (0.3 of its share, 0.9 " +
				"from a question to its answer). 1 for a query with no word left to search."),
			"meaning": Number("In hybrid mode, the cosine similarity of the record's embedding to the query's, at least 0."),
			"score":   Number("The result's score, its relevance: the greater of `words` and `meaning`, 0-1."),
		}), "How a search result's score and rank were made."),
		"Retrieval": WithDesc(Object([]string{"mode", "model"}, Obj{
			"mode": enum("`lexical`: by words only (BM25 over stemmed words); `hybrid`: by meaning and by words, with the embedding model `model`.",
				loci.RetrievalLexical, loci.RetrievalHybrid),
			"model": Nullable(Str("The embedding model; null when lexical.")),
		}), "How the search ranked: a search is lexical when no embedding model is configured, or when the model did not answer for this query."),
		"SearchResult": WithDesc(Object([]string{"id", "kind", "content", "scope", "created_at", "updated_at", "score"}, Obj{
			"id":      Str(""),
			"kind":    Ref("Kind"),
			"key":     Str("The record's key, for kinds that have one."),
			"content": Str("The record's text."),
			"scope": Object(nil, Obj{
				"agent_id": Str(""), "user_id": Str(""), "session_id": Str(""), "task_id": Str(""),
			}),
			"tags":       StrList(""),
			"metadata":   WithDesc(Ref("Metadata"), "The record's metadata; {} when it has none."),
			"created_at": Timestamp(""),
			"updated_at": Timestamp(""),
			"score":      Number(ScoreDesc),
			"match":      enum(MatchDesc, loci.MatchScope),
			"explain":    Ref("Explanation"),
		}), "A record found by a search across kinds."),
	}
}

// operationSchemas are the component schemas of operations: API keys,
// the audit log and imports.
func operationSchemas() Obj {
	return Obj{
		"APIKey": Object([]string{"id", "workspace", "role", "created_at"}, Obj{
			"id":         Str(""),
			"workspace":  Str(""),
			"name":       Str(""),
			"role":       Ref("Role"),
			"agent_id":   Str("The agent the key is bound to, if any."),
			"created_at": Timestamp(""),
			"revoked_at": Timestamp("Absent while the key is active."),
		}),
		"AuditEntry": WithDesc(Object([]string{"id", "time", "operation", "workspace", "record_ids", "count", "status"}, Obj{
			"id":         Str(""),
			"time":       Timestamp(""),
			"key_id":     Str("Absent when authentication is off."),
			"role":       Ref("Role"),
			"operation":  Str(`e.g. "note.recall".`),
			"workspace":  Str(""),
			"agent_id":   Str(""),
			"user_id":    Str(""),
			"session_id": Str(""),
			"task_id":    Str(""),
			"kind":       Ref("Kind"),
			"record_ids": Nullable(StrList("The ids of the records the operation read, created, changed or deleted; never content.")),
			"count":      Integer("How many records the operation returned or changed."),
			"status":     Integer("The outcome as an HTTP status, whatever the interface (a refusal: 401, 403, 429)."),
			"dry_run":    Boolean("The operation only said what it would change (forget, maintenance)."),
			"via":        enum("The interface the operation came through.", loci.ViaREST, loci.ViaMCP, loci.ViaCLI, loci.ViaLibrary),
		}), "One entry of the access log: every operation writes one, whatever the interface (in its own transaction when it writes)."),
		"ImportResult": Object([]string{"agents", "users", "records", "versions", "block_links", "skipped"}, Obj{
			"agents":      Integer("Agents created (those already there are kept)."),
			"users":       Integer("Users created (those already there are kept)."),
			"records":     Integer("Records stored."),
			"versions":    Integer("Kept versions stored with them."),
			"block_links": Integer("Block links attached."),
			"skipped":     Integer("Records already stored with the same id, kind, version and updated_at: left as they were."),
		}),
	}
}

// ScoreDesc describes a search result's score.
const ScoreDesc = "The result's relevance to the query, 0-1, the same whatever the query and the scope (1: an exact, complete match): " +
	"the share of the query's words (weighted by their IDF) the record holds, or in hybrid mode its similarity to the query when more " +
	"(see `explain`). Results are ordered by rank, which also weighs recency, confidence and conversational context, so a score may " +
	"be below the next result's; `threshold` drops those below it."

// MatchDesc describes a search result's match.
const MatchDesc = "`scope` when the query had no word left to search (only question words, pronouns and the like: \"what do you know " +
	"about me?\") and the search answered the scope's memories, most important first (score 1)."

// ownMetadata is a record's metadata in its kind's own answers.
func ownMetadata() Obj {
	return WithDesc(Ref("Metadata"), "The record's metadata (set through the memories routes); absent when it has none.")
}

// scored is the part a search adds to an object: its metadata, its score,
// how it matched and, when asked, the score's explanation.
func scored() Obj {
	return Object([]string{"metadata", "score"}, Obj{
		"metadata": WithDesc(Ref("Metadata"), "The record's metadata; {} when it has none."),
		"score":    Number(ScoreDesc), "match": enum(MatchDesc, loci.MatchScope), "explain": Ref("Explanation"),
	})
}
