package apidoc

import (
	"net/http"

	"github.com/loci-memory/loci"
)

// Query parameter constructors.
func query(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

func queryRequired(name, desc string, schema obj) obj {
	q := query(name, desc, schema)
	q["required"] = true
	return q
}

func qstr(name, desc string) obj { return query(name, desc, obj{"type": "string"}) }

func param(name string) obj { return obj{"$ref": "#/components/parameters/" + name} }

var (
	asOf           = query("as_of", "Only what was true at this time (RFC 3339); default now.", obj{"type": "string", "format": "date-time"})
	includeHistory = query("include_history", "Every version, superseded and invalidated facts too (marked by `status`); `as_of` then only says which version is current.",
		obj{"type": "boolean", "default": false})
	limit       = param("Limit")
	searchLimit = param("SearchLimit")
	offset      = param("Offset")
	explain     = query("explain", "Explain each result's score (`explain` on each result).", obj{"type": "boolean", "default": false})
)

// ranked is the answer of a ranked search: results of schema item, best
// first, their count and how many records wait for their embedding.
func ranked(item obj) map[int]resp {
	return okay("Ranked results.", success(object([]string{"count", "results", "pending_embeddings"}, obj{
		"count":   integer("How many results are answered."),
		"results": array(item, "Best first."),
		"pending_embeddings": integer("How many records searched still wait for their embedding: " +
			"they are found lexically only until it is made."),
	})))
}

// One-status success maps.
func created(desc string, schema obj) map[int]resp {
	return map[int]resp{http.StatusCreated: {desc: desc, schema: schema}}
}

func okay(desc string, schema obj) map[int]resp {
	return map[int]resp{http.StatusOK: {desc: desc, schema: schema}}
}

// upsert answers 201 when the write created the record, 200 when it updated it.
func upsert(schema obj) map[int]resp {
	return map[int]resp{
		http.StatusCreated: {desc: "Created (`action` is `created`).", schema: schema},
		http.StatusOK:      {desc: "Updated (`action` is `updated`).", schema: schema},
	}
}

var (
	plainSuccess = ref("Success")
	actionField  = object([]string{"action"}, obj{"action": ref("Action")})
	deletedCount = success(object([]string{"deleted"}, obj{"deleted": integer("How many records were deleted.")}))
)

const (
	nf   = http.StatusNotFound
	conf = http.StatusConflict
	big  = http.StatusRequestEntityTooLarge
)

// operations is every documented route. Each must be registered by the
// server, and each registered route must be here (httpapi's tests).
func operations() []op {
	var ops []op
	for _, group := range [][]op{noteOps(), agentOps(), passageOps(), sessionOps(), lifecycleOps(), preferenceOps(), searchOps(), adminOps(), operationsOps(), overviewOps()} {
		ops = append(ops, group...)
	}
	return ops
}

func noteOps() []op {
	return []op{
		{method: "PUT", path: "/v1/agents/{agent_id}/notes/{key}", id: "remember", tag: "notes",
			summary: "Remember a note",
			desc:    "Creates or replaces the note. An empty or whitespace-only key or value is 400 and nothing is stored. A key is at most 256 bytes, a value 64 KiB. The path `/v1/agents/{agent_id}/notes/` (empty key) answers 400 for PUT, GET and DELETE.",
			body:    closed([]string{"value"}, obj{"value": anyJSON("A string or any JSON.")}),
			ok:      upsert(success(ref("RememberResult"))), errs: []int{big}},
		{method: "GET", path: "/v1/agents/{agent_id}/notes/{key}", id: "recall", tag: "notes",
			summary: "Recall a note", desc: `404 with "error": "Memory not found" when absent.`,
			ok: okay("The note.", success(ref("Note"))), errs: []int{nf}},
		{method: "GET", path: "/v1/agents/{agent_id}/notes", id: "recallAll", tag: "notes",
			summary: "Recall every note of an agent", desc: "By key. An agent with none (or unknown) gets count 0; `count` is the total, the page holds at most `limit`.",
			query: []obj{limit, offset},
			ok:    okay("The notes.", list("memories", ref("Note"), "How many notes the agent has."))},
		{method: "DELETE", path: "/v1/agents/{agent_id}/notes/{key}", id: "forget", tag: "notes",
			summary: "Forget a note", ok: okay("Deleted.", plainSuccess), errs: []int{nf}},
		{method: "GET", path: "/v1/agents/{agent_id}/notes/{key}/history", id: "noteHistory", tag: "notes",
			summary: "Every value a note has had", desc: "Newest first: the current value is the first version.",
			ok: okay("The versions.", success(object([]string{"key", "count", "versions"}, obj{
				"key":      str(""),
				"count":    integer(""),
				"versions": array(ref("NoteVersion"), "Current first."),
			}))), errs: []int{nf}},
	}
}

func agentOps() []op {
	withAction := success(ref("Block"), actionField)
	return []op{
		{method: "POST", path: "/v1/agents", id: "createAgent", tag: "agents",
			summary: "Create an agent",
			desc:    "Without `blocks` the agent gets the standard blocks `personality`, `relationships` and `current_state`, empty; with `blocks` (even empty) exactly those.",
			body: closed([]string{"id"}, obj{
				"id":     str("At most 256 bytes."),
				"name":   str(""),
				"blocks": array(ref("BlockSpec"), "The agent's initial blocks."),
			}),
			ok: created("Created.", success(object([]string{"id", "name", "created_at", "blocks"}, obj{
				"id": str(""), "name": str(""), "created_at": timestamp(""),
				"blocks": array(ref("Block"), ""),
			}))), errs: []int{conf}},
		{method: "GET", path: "/v1/agents", id: "listAgents", tag: "agents",
			summary: "List agents", query: []obj{limit, offset},
			ok: okay("The agents.", list("agents", ref("Agent"), "How many agents there are."))},
		{method: "GET", path: "/v1/agents/{agent_id}", id: "getAgent", tag: "agents",
			summary: "Get an agent", ok: okay("The agent.", success(ref("Agent"))), errs: []int{nf}},
		{method: "DELETE", path: "/v1/agents/{agent_id}", id: "deleteAgent", tag: "agents",
			summary: "Delete an agent and everything it owns",
			desc:    "Cascades to the agent's notes, blocks (and the links of its shared blocks), passages and other records.",
			ok:      okay("Deleted.", plainSuccess), errs: []int{nf}},
		{method: "GET", path: "/v1/agents/{agent_id}/blocks", id: "listBlocks", tag: "blocks",
			summary: "List an agent's blocks", desc: "Owned blocks and attached shared ones.",
			ok: okay("The blocks.", list("blocks", ref("Block"), "")), errs: []int{nf}},
		{method: "POST", path: "/v1/agents/{agent_id}/blocks", id: "createBlock", tag: "blocks",
			summary: "Create a block", desc: "With `shared: true` other agents may then be attached to it.",
			body: closed([]string{"label"}, obj{
				"label":   str(""),
				"content": str(""),
				"shared":  boolean(""),
				"limit":   integer("Characters; default 5000, at most 200000."),
			}),
			ok: created("Created.", success(ref("Block"))), errs: []int{nf, conf, big}},
		{method: "GET", path: "/v1/agents/{agent_id}/blocks/{label}", id: "getBlock", tag: "blocks",
			summary: "Get a block", ok: okay("The block.", success(ref("Block"))), errs: []int{nf}},
		{method: "PUT", path: "/v1/agents/{agent_id}/blocks/{label}", id: "setBlock", tag: "blocks",
			summary: "Create or replace a block's content",
			desc:    "409 when `expected_version` is given and stale; 413 when the content is over the block's limit.",
			body: closed([]string{"content"}, obj{
				"content":          str(""),
				"expected_version": integer("Compare-and-set: the version the caller last read."),
				"limit":            integer("Characters; sets the block's limit."),
			}),
			ok: upsert(withAction), errs: []int{nf, conf, big}},
		{method: "GET", path: "/v1/agents/{agent_id}/blocks/{label}/history", id: "blockHistory", tag: "blocks",
			summary: "Every content a block has had",
			desc:    "The current content first, then each earlier one, newest first. An attached shared block answers the shared block's history.",
			ok: okay("The versions.", success(object([]string{"label", "count", "versions"}, obj{
				"label": str(""), "count": integer(""), "versions": array(ref("BlockVersion"), "The current content first."),
			}))), errs: []int{nf}},
		{method: "PUT", path: "/v1/blocks/{block_id}/consumers/{agent_id}", id: "attachBlock", tag: "blocks",
			summary: "Attach a shared block to an agent", desc: "Idempotent. 409 when the agent already holds another block with the shared block's label.",
			ok: okay("Attached.", success(object([]string{"block_id", "agent_id"}, obj{
				"block_id": str(""), "agent_id": str(""),
			}))), errs: []int{nf, conf}},
		{method: "DELETE", path: "/v1/blocks/{block_id}/consumers/{agent_id}", id: "detachBlock", tag: "blocks",
			summary: "Detach a shared block from an agent", ok: okay("Detached.", plainSuccess), errs: []int{nf}},
		{method: "GET", path: "/v1/blocks/{block_id}/consumers", id: "listBlockConsumers", tag: "blocks",
			summary: "The agents a shared block is attached to",
			ok: okay("The consumers.", success(object([]string{"block_id", "count", "consumers"}, obj{
				"block_id": str(""), "count": integer(""), "consumers": array(ref("BlockLink"), ""),
			}))), errs: []int{nf}},
		{method: "GET", path: "/v1/agents/{agent_id}/prompt", id: "agentPrompt", tag: "blocks",
			summary: "The agent's blocks as prompt text",
			desc:    "Every block as `### {label}\\n{content}`, a blank line between, owned blocks first by label.",
			ok:      map[int]resp{http.StatusOK: {desc: "The prompt.", schema: obj{"type": "string"}, media: "text/plain"}},
			errs:    []int{nf}},
	}
}

func passageOps() []op {
	return []op{
		{method: "POST", path: "/v1/agents/{agent_id}/passages", id: "addPassage", tag: "passages",
			summary: "Add an archival passage", desc: "Content at most 64 KiB; at most 32 tags of 64 bytes.",
			body: closed([]string{"content"}, obj{"content": str(""), "tags": strList("")}),
			ok: created("Added.", success(object([]string{"id", "created_at", "tags"}, obj{
				"id": str(""), "created_at": timestamp(""), "tags": nullable(strList("The normalized tags.")),
			}))), errs: []int{nf}},
		{method: "GET", path: "/v1/agents/{agent_id}/passages", id: "listPassages", tag: "passages",
			summary: "List passages, newest first", query: []obj{qstr("tag", "Only passages with this tag."), limit, offset},
			ok: okay("The passages.", list("passages", ref("Passage"), "How many passages match."))},
		{method: "GET", path: "/v1/agents/{agent_id}/passages/search", id: "searchPassages", tag: "passages",
			summary: "Search passages",
			desc:    "Hybrid retrieval over the agent's passages; `tag` filters before ranking. A passage is found lexically as soon as it is written.",
			query:   []obj{queryRequired("q", "The query text.", obj{"type": "string"}), qstr("tag", "Only passages with this tag."), searchLimit, explain},
			ok:      ranked(ref("PassageResult"))},
		{method: "DELETE", path: "/v1/agents/{agent_id}/passages/{id}", id: "deletePassage", tag: "passages",
			summary: "Delete a passage", ok: okay("Deleted.", plainSuccess), errs: []int{nf}},
	}
}

func sessionOps() []op {
	message := closed([]string{"role", "content"}, obj{
		"role": str(""), "content": str("At most 64 KiB."), "created_at": timestamp("Defaults to now."),
	})
	withAction := success(ref("Session"), actionField)
	return []op{
		{method: "PUT", path: "/v1/sessions/{session_id}", id: "putSession", tag: "sessions",
			summary: "Store or replace a session",
			desc:    "A session id is unique in the workspace: 409 when the session exists for another user.",
			body: closed([]string{"user_id"}, obj{
				"user_id":       str(""),
				"context":       anyJSON("A JSON object."),
				"summary":       str(""),
				"messages":      array(message, "Replaces the session's messages."),
				"is_persistent": boolean(""),
				"expires_at":    timestamp("Omit for none."),
				"confidence":    number("0-100."),
			}),
			ok: upsert(withAction), errs: []int{conf}},
		{method: "POST", path: "/v1/sessions/{session_id}/messages", id: "appendMessage", tag: "sessions",
			summary: "Append a message to a session", body: message,
			ok: created("Appended.", success(object([]string{"session_id", "index", "message_count", "updated_at"}, obj{
				"session_id": str(""), "index": integer("The new message's position, from 0."),
				"message_count": integer(""), "updated_at": timestamp(""),
			}))), errs: []int{nf}},
		{method: "GET", path: "/v1/sessions/{session_id}", id: "getSession", tag: "sessions",
			summary: "Get a session with its messages", ok: okay("The session.", success(ref("Session"))), errs: []int{nf}},
		{method: "DELETE", path: "/v1/sessions/{session_id}", id: "deleteSession", tag: "sessions",
			summary: "Delete a session", desc: "200 whether or not it existed.",
			ok: okay("Deleted.", success(object([]string{"deleted"}, obj{"deleted": boolean("Whether it existed.")})))},
		{method: "GET", path: "/v1/users/{user_id}/sessions", id: "listUserSessions", tag: "sessions",
			summary: "List a user's sessions (metadata only)", query: []obj{limit, offset},
			ok: okay("The sessions.", list("sessions", ref("SessionSummary"), "How many sessions the user has."))},
	}
}

func lifecycleOps() []op {
	scope := []obj{qstr("agent_id", "Only this agent's entries."), qstr("user_id", "Only this user's entries.")}
	withAction := success(ref("WorkingEntry"), actionField)
	episodeFilters := []obj{
		queryRequired("user_id", "", obj{"type": "string"}), queryRequired("agent_id", "", obj{"type": "string"}),
		qstr("action_type", ""),
		query("outcome", "", ref("Outcome")),
	}
	return []op{
		{method: "PUT", path: "/v1/tasks/{task_id}/working/{key}", id: "setWorking", tag: "working",
			summary: "Set a working memory value", desc: "Expires 24 hours after the last write. 413 when the task's values would pass 50 KB.",
			body: closed([]string{"value", "agent_id"}, obj{
				"value": anyJSON("Any JSON."), "agent_id": str(""), "user_id": str(""),
			}),
			ok: upsert(withAction), errs: []int{big}},
		{method: "GET", path: "/v1/tasks/{task_id}/working/{key}", id: "getWorking", tag: "working",
			summary: "Get a working memory value", desc: "404 when absent or expired.", query: scope,
			ok: okay("The entry.", success(ref("WorkingEntry"))), errs: []int{nf}},
		{method: "GET", path: "/v1/tasks/{task_id}/working", id: "listWorking", tag: "working",
			summary: "Get a task's working memory", query: scope,
			desc: "`values` maps each key to its value (the most recent when several agents or users wrote it); `working` holds the entries with their scope.",
			ok: okay("The task's working memory.", success(object([]string{"task_id", "count", "values", "working"}, obj{
				"task_id": str(""),
				"count":   integer("How many distinct keys."),
				"values":  mapOf(anyJSON(""), "Key to value."),
				"working": nullable(array(ref("WorkingEntry"), "")),
			})))},
		{method: "DELETE", path: "/v1/tasks/{task_id}/working", id: "clearWorking", tag: "working",
			summary: "Clear a task's working memory", query: scope, ok: okay("Cleared.", deletedCount)},
		{method: "POST", path: "/v1/episodes", id: "recordEpisode", tag: "episodes",
			summary: "Record an episode", desc: "Kept 30 days.", body: ref("EpisodeInput"),
			ok: created("Recorded.", success(object([]string{"id", "created_at", "expires_at"}, obj{
				"id": str(""), "created_at": timestamp(""), "expires_at": timestamp(""),
			})))},
		{method: "GET", path: "/v1/episodes/search", id: "searchEpisodes", tag: "episodes",
			summary: "Similar past episodes",
			desc:    "Hybrid retrieval over the unexpired episodes of the user and agent; the outcome and action type filter before ranking, and `confidence_score` weighs in. `q` must contain at least one word.",
			query:   append([]obj{queryRequired("q", "The query text.", obj{"type": "string"})}, append(append([]obj{}, episodeFilters...), searchLimit, explain)...),
			ok:      ranked(ref("ScoredEpisode"))},
		{method: "GET", path: "/v1/episodes", id: "recentEpisodes", tag: "episodes",
			summary: "Recent episodes, newest first", desc: "Unexpired only.",
			query: append(append([]obj{}, episodeFilters...), limit, offset),
			ok:    okay("The episodes.", list("episodes", ref("Episode"), "How many episodes match."))},
		{method: "POST", path: "/v1/episodes/{id}/feedback", id: "episodeFeedback", tag: "episodes",
			summary: "Attach user feedback to an episode", body: ref("EpisodeFeedback"),
			ok: okay("The episode.", success(ref("Episode"))), errs: []int{nf}},
		{method: "GET", path: "/v1/episodes/{id}", id: "getEpisode", tag: "episodes",
			summary: "One episode", desc: "404 when absent or expired.",
			ok: okay("The episode.", success(ref("Episode"))), errs: []int{nf}},
		{method: "DELETE", path: "/v1/episodes/{id}", id: "deleteEpisode", tag: "episodes",
			summary: "Delete an episode", desc: "Expired or not; 404 when absent.",
			ok: okay("Deleted.", plainSuccess), errs: []int{nf}},
		{method: "POST", path: "/v1/facts", id: "storeFact", tag: "facts",
			summary: "Store a fact",
			desc: "Without `user_id` the fact is global. Relevance starts at 1.0. With a `key`, the new fact supersedes the fact of that key " +
				"(per user, or global; whichever agent stored it) that is true at its `valid_at`: that one is kept as history with `invalid_at` " +
				"set to this `valid_at` and `superseded_by` naming the new fact (superseding needs the editor role). A `valid_at` before a later " +
				"version of the key places the new fact in the history, ending where that version begins. Answers the stored fact.",
			body: ref("FactInput"),
			ok:   created("Stored.", success(ref("Fact")))},
		{method: "GET", path: "/v1/facts/search", id: "searchFacts", tag: "facts",
			summary: "Search facts",
			desc: "Hybrid retrieval over the facts in scope; the category and validity filters apply before ranking, and `relevance_score` weighs in. " +
				"Only facts true at `as_of` (default now) are searched, unless `include_history`; then a version of a key never ranks above the " +
				"version true at `as_of`. Bumps `access_count` and `last_accessed_at` of what it returns.",
			query: []obj{
				qstr("user_id", "The user's facts; without it, global facts only."),
				queryRequired("q", "The query text.", obj{"type": "string"}),
				query("category", "", ref("FactCategory")),
				query("include_global", "With user_id: also global facts.", obj{"type": "boolean", "default": false}),
				asOf, includeHistory, searchLimit, explain,
			},
			ok: ranked(ref("ScoredFact"))},
		{method: "GET", path: "/v1/facts", id: "factsByKeyword", tag: "facts",
			summary: "Facts with a keyword, by relevance",
			desc: "Without `keyword`, every fact in scope: those true at `as_of` (default now), or every version with `include_history`. " +
				"`status=disputed`: only the facts contradicted and not yet resolved. Bumps `access_count` and `last_accessed_at` of what it returns.",
			query: []obj{
				qstr("user_id", "The user's facts; without it, global facts only."), qstr("keyword", ""),
				query("category", "", ref("FactCategory")),
				query("include_global", "With user_id: also global facts.", obj{"type": "boolean", "default": false}),
				asOf, includeHistory,
				query("status", "Only disputed facts.", obj{"type": "string", "enum": []string{loci.FactDisputed}}),
				limit, offset,
			},
			ok: okay("The facts.", list("facts", ref("Fact"), "How many facts match."))},
		{method: "GET", path: "/v1/facts/{id}", id: "getFact", tag: "facts",
			summary: "One fact", desc: "Whatever its status (history included); does not count as an access.",
			ok: okay("The fact.", success(ref("Fact"))), errs: []int{nf}},
		{method: "DELETE", path: "/v1/facts/{id}", id: "deleteFact", tag: "facts",
			summary: "Delete a fact",
			desc: "One fact, global facts included (editor). The versions of its key that named it (superseded_by, supersedes) no longer do; " +
				"the one it superseded stays ended.",
			ok: okay("Deleted.", plainSuccess), errs: []int{nf}},
		{method: "GET", path: "/v1/facts/{id}/history", id: "factHistory", tag: "facts",
			summary: "Every version of a fact's key", desc: "Every fact of the key and its slot (user or global), newest `valid_at` first; a fact without a key is its own history.",
			ok: okay("The versions.", list("facts", ref("Fact"), "How many versions.")), errs: []int{nf}},
		{method: "POST", path: "/v1/facts/{id}/invalidate", id: "invalidateFact", tag: "facts",
			summary: "Mark a fact no longer true",
			desc: "It is kept as history with `invalid_at` (default now; a future time ends it then); a dispute ends. 400 when `at` is before " +
				"its `valid_at`; 409 when it already ended at or before `at`.",
			body:         closed(nil, obj{"at": timestamp("When it stopped (or stops) being true; default now.")}),
			bodyOptional: true,
			ok:           okay("The fact.", success(ref("Fact"))), errs: []int{nf, conf}},
		{method: "POST", path: "/v1/facts/{id}/resolve", id: "resolveFact", tag: "facts",
			summary: "Resolve a disputed fact",
			desc:    "`keep: true` clears the dispute; `keep: false` invalidates the fact now (kept as history). 409 when it is not disputed.",
			body:    closed([]string{"keep"}, obj{"keep": boolean("Whether the fact stands.")}),
			ok:      okay("The fact.", success(ref("Fact"))), errs: []int{nf, conf}},
		{method: "POST", path: "/v1/facts/{id}/validate", id: "validateFact", tag: "facts",
			summary: "Validate a fact", desc: "Relevance +0.1 (at most 1.0); marks it validated. 409 for a fact that is no longer true: history does not change.",
			ok: okay("The fact.", success(ref("Fact"))), errs: []int{nf, conf}},
		{method: "POST", path: "/v1/facts/{id}/contradict", id: "contradictFact", tag: "facts",
			summary: "Contradict a fact",
			desc:    "Relevance -0.2 (at least 0.0); contradiction_count +1; the fact is disputed until resolved (it appears in its user's review queue). 409 for a fact that is no longer true.",
			ok:      okay("The fact.", success(ref("Fact"))), errs: []int{nf, conf}},
		{method: "POST", path: "/v1/maintenance", id: "maintain", tag: "admin",
			summary: "Run maintenance", desc: "An empty body runs every task. `tasks` maps each task run to what it changed.",
			body: closed(nil, obj{
				"tasks":   array(ref("MaintenanceTask"), "Absent or empty: all."),
				"dry_run": boolean("Report without changing anything."),
			}), bodyOptional: true,
			ok: okay("What each task changed.", success(object([]string{"dry_run", "tasks"}, obj{
				"dry_run": boolean(""), "tasks": mapOf(ref("MaintenanceResult"), "Task name to result."),
			})))},
	}
}

func preferenceOps() []op {
	session := qstr("session_id", "The session, for session-scoped decisions.")
	pref := success(ref("Preference"))
	kinds := obj{}
	for _, k := range kindNames() {
		kinds[k] = array(ref("UserMemory"), "")
	}
	return []op{
		{method: "POST", path: "/v1/users/{user_id}/preferences", id: "observePreference", tag: "preferences",
			summary: "Observe a preference",
			desc:    "explicit sets 100 and persistent; implicit starts at 40, +15 per repeat, at most 85; decision is session-scoped and not persistent.",
			body: closed([]string{"type", "value", "source"}, obj{
				"type": str(""), "value": anyJSON(""), "source": ref("PreferenceSource"),
				"session_id": str("Required for a decision."), "context": str(""),
			}),
			ok: upsert(success(ref("Preference"), actionField))},
		{method: "GET", path: "/v1/users/{user_id}/preferences", id: "listPreferences", tag: "preferences",
			summary: "List a user's preferences", query: []obj{session, limit, offset},
			ok: okay("The preferences.", list("preferences", ref("Preference"), "How many preferences the user has."))},
		{method: "POST", path: "/v1/users/{user_id}/preferences/{type}/use", id: "usePreference", tag: "preferences",
			summary: "Record a use of a preference", desc: "+5 confidence, up to its peak.", query: []obj{session},
			ok: okay("The preference.", pref), errs: []int{nf}},
		{method: "POST", path: "/v1/users/{user_id}/preferences/{type}/confirm", id: "confirmPreference", tag: "preferences",
			summary: "Confirm a preference", desc: "Confidence 100.", query: []obj{session},
			ok: okay("The preference.", pref), errs: []int{nf}},
		{method: "POST", path: "/v1/users/{user_id}/preferences/{type}/contradict", id: "contradictPreference", tag: "preferences",
			summary: "Contradict a preference", desc: "-30 for an implicit preference; 0 and flagged for removal for an explicit one (it then waits in the user's review queue).",
			query: []obj{session},
			body:  closed([]string{"source"}, obj{"source": ref("PreferenceSource")}),
			ok:    okay("The preference.", pref), errs: []int{nf}},
		{method: "POST", path: "/v1/users/{user_id}/preferences/{type}/resolve", id: "resolvePreference", tag: "preferences",
			summary: "Resolve a preference flagged for removal",
			desc: "`keep: true` clears the flag (the confidence stays as the contradiction left it; confirm sets 100); `keep: false` forgets the preference. " +
				"Answers the preference as kept, or as it was when forgotten, with `kept`. 409 when it is not flagged for removal.",
			query: []obj{session},
			body:  closed([]string{"keep"}, obj{"keep": boolean("Whether the preference stays.")}),
			ok: okay("The preference.", success(ref("Preference"), object([]string{"kept"}, obj{
				"kept": boolean("Whether it was kept (false: it is forgotten)."),
			}))), errs: []int{nf, conf}},
		{method: "DELETE", path: "/v1/users/{user_id}/preferences", id: "clearPreferences", tag: "preferences",
			summary: "Clear a user's preferences", ok: okay("Cleared.", deletedCount)},
		{method: "DELETE", path: "/v1/users/{user_id}/preferences/{type}", id: "deletePreference", tag: "preferences",
			summary: "Forget one preference", ok: okay("Deleted.", deletedCount), errs: []int{nf}},
		{method: "GET", path: "/v1/users/{user_id}/context", id: "userContext", tag: "users",
			summary: "Session start: a user's preferences and recent sessions",
			desc:    "The last 5 sessions that are persistent or unexpired, by confidence descending. Creates the user with empty defaults if new (`created`).",
			ok: okay("The user's context.", success(object([]string{"user_id", "created", "defaults", "preferences", "sessions"}, obj{
				"user_id":     str(""),
				"created":     boolean("Whether this call created the user."),
				"defaults":    anyJSON("The user's standing defaults, a JSON object."),
				"preferences": nullable(array(ref("Preference"), "")),
				"sessions":    nullable(array(ref("ContextSession"), "")),
			})))},
		{method: "GET", path: "/v1/users/{user_id}/review", id: "reviewQueue", tag: "users",
			summary: "What waits for review",
			desc: "The user's facts contradicted and not yet resolved, and preferences flagged for removal (an explicit contradiction), " +
				"most recently changed first. Each item is the fact's or the preference's fields with `kind` and `reason`.",
			query: []obj{limit, offset},
			ok:    okay("The items.", list("items", ref("ReviewItem"), "How many items wait in all."))},
		{method: "GET", path: "/v1/users/{user_id}/memories", id: "userMemories", tag: "users",
			summary: "Everything remembered about a user",
			desc:    "Grouped by kind; every kind is present, empty when the user has none of it. Facts true at `as_of` (default now), or every version with `include_history`.",
			query:   []obj{asOf, includeHistory},
			ok: okay("The user's memories.", success(object([]string{"user_id", "count", "memories"}, obj{
				"user_id":  str(""),
				"count":    integer("How many records in all."),
				"memories": object(kindNames(), kinds),
			})))},
		{method: "POST", path: "/v1/users/{user_id}/forget", id: "forgetUserMemories", tag: "users",
			summary: "Forget what matches", desc: "Deletes the user's records that match `query` or whose id is in `ids`, and answers them.",
			body: closed(nil, obj{
				"query": str("Text to match."), "ids": strList("Record ids."), "dry_run": boolean("Answer without deleting."),
			}),
			ok: okay("What was (or would be) deleted.", success(object([]string{"dry_run", "count", "deleted"}, obj{
				"dry_run": boolean(""), "count": integer(""), "deleted": nullable(array(ref("UserMemory"), "")),
			})))},
		{method: "DELETE", path: "/v1/users/{user_id}", id: "deleteUser", tag: "users",
			summary: "Delete everything about a user", ok: okay("Deleted.", deletedCount)},
	}
}

func searchOps() []op {
	return []op{
		{method: "POST", path: "/v1/search", id: "search", tag: "search",
			summary: "Hybrid search across kinds",
			desc: "Ranks the records in scope by BM25 and vector similarity fused (reciprocal rank fusion), then by recency and the kind's confidence. " +
				"Conversation messages gain from the messages next to them (most, the answer after a matching question) and from their " +
				"conversation's best matches; dates a query names (\"on 1 February, 2023\", \"in May\", \"last week\") lift the records " +
				"written then. Every scope field that is set narrows the search to records with exactly that value; `kinds` and `tags` narrow it further; " +
				"filters apply before ranking. A query is text, never query syntax. A record is found lexically as soon as it is written, " +
				"and by vector once its embedding is made (`pending_embeddings`).",
			body: closed([]string{"query"}, obj{
				"query":      str("The query text; at most 4096 bytes."),
				"agent_id":   str("Only this agent's records."),
				"user_id":    str("Only this user's records."),
				"session_id": str("Only this session's records."),
				"kinds":      array(ref("Kind"), "Only these kinds."),
				"tags":       strList("Only records carrying every one of these tags."),
				"limit":      withDesc(obj{"type": "integer", "minimum": 0, "maximum": 1000, "default": 10}, "The most results; 0 means the default."),
				"explain":    boolean("Explain each result's score."),
			}),
			ok: ranked(ref("SearchResult"))},
	}
}

func adminOps() []op {
	return []op{
		{method: "POST", path: "/v1/keys", id: "createKey", tag: "admin",
			summary: "Create an API key", desc: "The secret is answered once, as `api_key`. The first key turns authentication on.",
			body: closed([]string{"role"}, obj{
				"role": ref("Role"), "agent_id": str("Bind the key to one agent."), "name": str("A label for people."),
			}),
			ok: created("Created.", success(object([]string{"id", "api_key", "role", "workspace", "created_at"}, obj{
				"id": str(""), "api_key": str("The secret; not shown again."), "role": ref("Role"),
				"agent_id": str(""), "name": str(""), "workspace": str(""), "created_at": timestamp(""),
			})))},
		{method: "GET", path: "/v1/keys", id: "listKeys", tag: "admin",
			summary: "List the workspace's active keys",
			ok: okay("The keys.", success(object([]string{"count", "keys"}, obj{
				"count": integer(""), "keys": nullable(array(ref("APIKey"), "Never the secrets.")),
			})))},
		{method: "DELETE", path: "/v1/keys/{id}", id: "revokeKey", tag: "admin",
			summary: "Revoke an API key", ok: okay("Revoked.", plainSuccess), errs: []int{nf}},
		{method: "GET", path: "/v1/audit", id: "audit", tag: "admin",
			summary: "The access log", desc: "Newest first.",
			query: []obj{
				qstr("agent_id", ""), qstr("user_id", ""), qstr("key_id", ""), qstr("operation", `e.g. "note.recall".`),
				query("since", "Only entries at or after this time.", obj{"type": "string", "format": "date-time"}),
				limit, offset,
			},
			ok: okay("The entries.", list("entries", ref("AuditEntry"), "How many entries match."))},
		{method: "GET", path: "/v1/export", id: "export", tag: "admin",
			summary: "Export the workspace as JSON Lines",
			desc:    "One JSON object per line, each with a `type`: `agent`, `user`, `record` (with its versions) or `block_link`. Lossless: POST /v1/import restores it.",
			query:   []obj{qstr("user_id", "Only this user's records and user row.")},
			ok:      map[int]resp{http.StatusOK: {desc: "The export.", schema: obj{"type": "string"}, media: "application/x-ndjson"}}},
		{method: "POST", path: "/v1/import", id: "import", tag: "admin",
			summary: "Import JSON Lines written by export",
			desc: "The body is at most 1 GiB by default (loci serve --max-import-bytes; a larger declared Content-Length is 413 " +
				"at once) and must keep arriving (nothing for 30 s fails it). Every line is read and checked, as strictly as the " +
				"API checks a write, before anything is written: a refused line is 400 (or 409: a record already stored with " +
				"other content, an id or key twice) naming its line, and nothing is imported. The lines are then written in " +
				"batches of 2000, each its own transaction: a storage failure in the middle (503, 507) leaves the batches " +
				"before it, and the same import run again completes it, skipping the records already stored with the same " +
				"id, kind, version and updated_at (`skipped`) and keeping agents and users already there.",
			body: obj{"type": "string"}, bodyMedia: "application/x-ndjson",
			ok: created("Imported.", success(ref("ImportResult"))), errs: []int{conf}},
	}
}

func operationsOps() []op {
	status := func(v string) obj {
		return success(object([]string{"status"}, obj{"status": obj{"const": v}}))
	}
	return []op{
		{method: "GET", path: "/healthz", id: "health", tag: "operations",
			summary: "Liveness", ok: okay("The process is up.", status("ok"))},
		{method: "GET", path: "/readyz", id: "ready", tag: "operations",
			summary: "Readiness: storage reachable",
			desc: "503 `unavailable` when the storage does not answer within 2 s; 507 `storage_full` while writes fail " +
				"for a full disk (reported for a minute after such a failure).",
			ok: okay("Ready.", status("ready"))},
		{method: "GET", path: "/metrics", id: "metrics", tag: "operations",
			summary: "Prometheus metrics", desc: "404 when the server runs without metrics.",
			ok:   map[int]resp{http.StatusOK: {desc: "The Prometheus text exposition.", schema: obj{"type": "string"}, media: "text/plain"}},
			errs: []int{nf}},
		{method: "GET", path: "/v1/openapi.json", id: "openapi", tag: "operations",
			summary: "This document",
			ok:      okay("The OpenAPI 3.1 document.", obj{"type": "object"})},
	}
}

func overviewOps() []op {
	kinds := query("kind", "Only these kinds: repeat the parameter or separate kinds by commas.", array(ref("Kind"), ""))
	return []op{
		{method: "GET", path: "/v1/users", id: "listUsers", tag: "overview",
			summary: "List users, newest first",
			desc: "Every user of the workspace: those a session start or an import registered, and every user id a record names. " +
				"Newest first by `created_at`, then by id.",
			query: []obj{qstr("q", "Only users whose id holds this text, ignoring case."), limit, offset},
			ok:    okay("The users.", list("users", ref("UserSummary"), "How many users match."))},
		{method: "GET", path: "/v1/stats", id: "stats", tag: "overview",
			summary: "An overview of the memory",
			desc: "Counts per kind, per agent and per user, growth per day, the newest records and the embedding queue, " +
				"of the workspace or of the agent and/or user named. Computed by the database from its indexes. " +
				"A key bound to an agent must name it (`agent_id`).",
			query: []obj{
				qstr("agent_id", "Only this agent's records."), qstr("user_id", "Only records about this user."),
				query("top", "How many agents and users to list, by size (1-100).", obj{"type": "integer", "minimum": 1, "maximum": 100, "default": 10}),
				query("days", "How many days of growth, today included (1-366).", obj{"type": "integer", "minimum": 1, "maximum": 366, "default": 30}),
			},
			ok: okay("The overview.", success(ref("Stats")))},
		{method: "GET", path: "/v1/memories", id: "listMemories", tag: "overview",
			summary: "Memories of every kind, newest first (a timeline)",
			desc: "The records the scope selects, of every kind or of those named, newest first by `created_at`, then by id. " +
				"A key bound to an agent must name it (`agent_id`).",
			query: []obj{
				qstr("agent_id", ""), qstr("user_id", ""), qstr("session_id", ""), qstr("task_id", ""), kinds,
				query("before", "Only records created before this time (RFC 3339).", obj{"type": "string", "format": "date-time"}),
				query("after", "Only records created after this time (RFC 3339).", obj{"type": "string", "format": "date-time"}),
				limit, offset,
			},
			ok: okay("The memories.", list("memories", ref("UserMemory"), "How many records match."))},
		{method: "GET", path: "/v1/whoami", id: "whoami", tag: "overview",
			summary: "The caller's key: its role and bound agent",
			desc:    "With authentication off the caller is trusted: `auth` false, no key, the admin role's rights.",
			ok: okay("The key.", success(object([]string{"auth", "key_id", "role", "agent_id", "workspace"}, obj{
				"auth":      boolean("Whether the server requires a key."),
				"key_id":    str("Empty when authentication is off."),
				"role":      ref("Role"),
				"agent_id":  str("The agent the key is bound to; empty for none."),
				"workspace": str(""),
			})))},
	}
}
