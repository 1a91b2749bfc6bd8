/**
 * The loci client: one method per REST operation, on `fetch`.
 *
 * Each method resolves to the server's JSON answer, typed from the OpenAPI
 * document (src/schema.ts, generated), or to text where the server answers
 * text (prompt, export), and rejects with a LociError subclass.
 *
 * Adding an operation is one method: build the path with the `path` tag and
 * call `this.request`, typed by the operation's id.
 */

import { TransportError, errorFromResponse } from "./errors.js";
import type { components, operations } from "./schema.js";

/** The schemas of the OpenAPI document (Note, Block, Fact, …). */
export type Schemas = components["schemas"];

/** An operation's id in the OpenAPI document, e.g. "recall". */
export type OperationId = keyof operations;

type JSONContent<R> = R extends { content: { "application/json": infer T } } ? T : never;
type Responses<O extends OperationId> = operations[O]["responses"];

/** The JSON answer of an operation (its 200 or 201). */
export type Answer<O extends OperationId> = JSONContent<Responses<O>[Extract<keyof Responses<O>, 200 | 201>]>;

/** The query parameters of an operation. */
export type Query<O extends OperationId> = NonNullable<operations[O]["parameters"]["query"]>;

/** The JSON body of an operation. */
export type Body<O extends OperationId> = JSONContent<NonNullable<operations[O]["requestBody"]>>;

/** DEFAULT_URL is where `loci serve` listens by default. */
export const DEFAULT_URL = "http://127.0.0.1:8420";

export const VERSION = "0.1.0";

/** What onRetry is told before each retry. */
export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  attempt: number;
  waitMs: number;
  /** e.g. "503 unavailable", or the connection error. */
  reason: string;
}

export interface ClientOptions {
  /** Default: $LOCI_URL (in Node), else http://127.0.0.1:8420. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`; default: $LOCI_API_KEY (in Node). Leave unset while auth is off. */
  apiKey?: string;
  /** Each request's limit (default 30 s). */
  timeoutMs?: number;
  /** Retries of one request (default 3). */
  maxRetries?: number;
  /** A Retry-After longer than this is thrown at once (default 30 s). */
  maxRetryWaitMs?: number;
  /** The first backoff without Retry-After, doubled each retry (default 250 ms). */
  backoffMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

interface RequestOptions {
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  raw?: string | Uint8Array;
  contentType?: string;
  /** Default: GET, PUT and DELETE are idempotent. */
  idempotent?: boolean;
  /** Resolve to the answer's text rather than its JSON. */
  text?: boolean;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE"]);

/**
 * The query of listMemories: its parameters, with `filters` a filter object
 * (`{ "metadata.topic": { in: ["travel", "food"] } }`, sent as JSON) or its JSON text.
 */
/** AddedMemory is what addMemory answers: the memory's event. */
export type AddedMemory = Extract<Answer<"addMemory">, { id: string }>;

/**
 * AddedMessages is what addMessages answers: the events and the skipped messages, or,
 * queued (`async: true`), the event to follow.
 */
export type AddedMessages = Extract<Answer<"addMemory">, { results: unknown }> | (Schemas["Success"] & Schemas["EventAccepted"]);

export type MemoryListQuery = Omit<Query<"listMemories">, "filters"> & { filters?: Schemas["MemoryFilter"] | string };

function withFilters<Q extends { filters?: unknown }>(query: Q | undefined): Record<string, unknown> | undefined {
  if (query?.filters === undefined || typeof query.filters === "string") return query;
  return { ...query, filters: JSON.stringify(query.filters) };
}

/** path`/v1/agents/${id}/notes/${key}`: the template with each value escaped as one path segment. */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += encodeURIComponent(String(v)) + (strings[i + 1] ?? "");
  });
  return out;
}

function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Client is a client of one loci server.
 *
 * Idempotent requests (GET, PUT, DELETE and search) are retried up to
 * `maxRetries` times on a connection error or a 503, and every request on a
 * 429 (the server refuses it before doing anything), waiting as long as
 * Retry-After asks, or a short backoff. A 507 (StorageFull, a full disk) is
 * never retried.
 */
export class Client {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxRetryWaitMs: number;
  readonly backoffMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(options: ClientOptions = {}) {
    const baseUrl = options.baseUrl ?? environment("LOCI_URL") ?? DEFAULT_URL;
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new TypeError(`baseUrl must start with http:// or https://, got ${JSON.stringify(baseUrl)}`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey ?? environment("LOCI_API_KEY");
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
    this.backoffMs = options.backoffMs ?? 250;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.onRetry = options.onRetry;
  }

  /** One agent's memory, without repeating its id. */
  agent(agentId: string): AgentClient {
    return new AgentClient(this, agentId);
  }

  /** One user's memory, without repeating their id. */
  user(userId: string): UserClient {
    return new UserClient(this, userId);
  }

  // Health.

  /** GET /healthz: the process is alive. */
  health(): Promise<Answer<"health">> {
    return this.request("GET", "/healthz");
  }

  /** GET /readyz: storage is reachable (rejects with Unavailable or ServerError when not). */
  ready(): Promise<Answer<"ready">> {
    return this.request("GET", "/readyz");
  }

  // Notes: an agent's key-value memories.

  /** Store a note (a string or any JSON) under key; `action` is `created` or `updated`. */
  remember(agentId: string, key: string, value: unknown): Promise<Answer<"remember">> {
    return this.request("PUT", path`/v1/agents/${agentId}/notes/${key}`, { body: { value } });
  }

  /** One note; NotFound ("Memory not found") when absent. */
  recall(agentId: string, key: string): Promise<Answer<"recall">> {
    return this.request("GET", path`/v1/agents/${agentId}/notes/${key}`);
  }

  /** The agent's notes: `count` and `memories`. */
  recallAll(agentId: string, query?: Query<"recallAll">): Promise<Answer<"recallAll">> {
    return this.request("GET", path`/v1/agents/${agentId}/notes`, { query });
  }

  /** Delete a note; NotFound when absent. */
  forget(agentId: string, key: string): Promise<Answer<"forget">> {
    return this.request("DELETE", path`/v1/agents/${agentId}/notes/${key}`);
  }

  /** Every value the note has had, the current one first (`versions`). */
  noteHistory(agentId: string, key: string): Promise<Answer<"noteHistory">> {
    return this.request("GET", path`/v1/agents/${agentId}/notes/${key}/history`);
  }

  // Agents and core memory blocks.

  /** Create an agent (Conflict if it exists); without `blocks` it gets the three standard empty blocks. */
  createAgent(agentId: string, options: Omit<Body<"createAgent">, "id"> = {}): Promise<Answer<"createAgent">> {
    return this.request("POST", "/v1/agents", { body: { ...options, id: agentId } });
  }

  /** Every agent: `count` and `agents`. */
  listAgents(query?: Query<"listAgents">): Promise<Answer<"listAgents">> {
    return this.request("GET", "/v1/agents", { query });
  }

  /** One agent; NotFound when absent. */
  getAgent(agentId: string): Promise<Answer<"getAgent">> {
    return this.request("GET", path`/v1/agents/${agentId}`);
  }

  /** Delete an agent and everything it owns; NotFound when absent. */
  deleteAgent(agentId: string): Promise<Answer<"deleteAgent">> {
    return this.request("DELETE", path`/v1/agents/${agentId}`);
  }

  /** The agent's blocks, owned and attached shared ones. */
  listBlocks(agentId: string): Promise<Answer<"listBlocks">> {
    return this.request("GET", path`/v1/agents/${agentId}/blocks`);
  }

  /** One block by label; NotFound when none. */
  getBlock(agentId: string, label: string): Promise<Answer<"getBlock">> {
    return this.request("GET", path`/v1/agents/${agentId}/blocks/${label}`);
  }

  /** Every content the block has had, the current one first (`versions`); NotFound when none. */
  blockHistory(agentId: string, label: string): Promise<Answer<"blockHistory">> {
    return this.request("GET", path`/v1/agents/${agentId}/blocks/${label}/history`);
  }

  /**
   * Create or replace a block. With `expected_version` it is a compare-and-set
   * (Conflict when stale; 0: only if it does not exist yet); TooLarge over the block's limit.
   */
  setBlock(
    agentId: string,
    label: string,
    content: string,
    options: Omit<Body<"setBlock">, "content"> = {},
  ): Promise<Answer<"setBlock">> {
    return this.request("PUT", path`/v1/agents/${agentId}/blocks/${label}`, { body: { ...options, content } });
  }

  /** Create a block (Conflict if the label is taken); `{ shared: true }` makes one other agents can be attached to. */
  createBlock(
    agentId: string,
    label: string,
    content: string,
    options: Omit<Body<"createBlock">, "label" | "content"> = {},
  ): Promise<Answer<"createBlock">> {
    return this.request("POST", path`/v1/agents/${agentId}/blocks`, { body: { ...options, label, content } });
  }

  /** Attach a shared block to another agent (idempotent). */
  attachBlock(blockId: string, agentId: string): Promise<Answer<"attachBlock">> {
    return this.request("PUT", path`/v1/blocks/${blockId}/consumers/${agentId}`);
  }

  /** Detach a shared block from an agent; NotFound if it is not attached. */
  detachBlock(blockId: string, agentId: string): Promise<Answer<"detachBlock">> {
    return this.request("DELETE", path`/v1/blocks/${blockId}/consumers/${agentId}`);
  }

  /** The agents a shared block is attached to (`consumers`). */
  listBlockConsumers(blockId: string): Promise<Answer<"listBlockConsumers">> {
    return this.request("GET", path`/v1/blocks/${blockId}/consumers`);
  }

  /** The agent's core memory rendered as text: every block as `### {label}\n{content}`. */
  prompt(agentId: string): Promise<string> {
    return this.request("GET", path`/v1/agents/${agentId}/prompt`, { text: true });
  }

  // Archival passages.

  /** Store an archival passage; answers its `id`. */
  addPassage(agentId: string, content: string, options: Omit<Body<"addPassage">, "content"> = {}): Promise<Answer<"addPassage">> {
    return this.request("POST", path`/v1/agents/${agentId}/passages`, { body: { ...options, content } });
  }

  /** The agent's passages, newest first. */
  listPassages(agentId: string, query?: Query<"listPassages">): Promise<Answer<"listPassages">> {
    return this.request("GET", path`/v1/agents/${agentId}/passages`, { query });
  }

  /** Ranked passages (`results`, each with a `score`). */
  searchPassages(
    agentId: string,
    q: string,
    query: Omit<Query<"searchPassages">, "q"> = {},
  ): Promise<Answer<"searchPassages">> {
    return this.request("GET", path`/v1/agents/${agentId}/passages/search`, { query: { ...query, q } });
  }

  /** Delete a passage; NotFound when absent. */
  deletePassage(agentId: string, passageId: string): Promise<Answer<"deletePassage">> {
    return this.request("DELETE", path`/v1/agents/${agentId}/passages/${passageId}`);
  }

  // Sessions and conversations.

  /** Store or replace a session (Conflict if the id is another user's). */
  putSession(
    sessionId: string,
    userId: string,
    options: Omit<Body<"putSession">, "user_id"> = {},
  ): Promise<Answer<"putSession">> {
    return this.request("PUT", path`/v1/sessions/${sessionId}`, { body: { ...options, user_id: userId } });
  }

  /** Append one message to a session; NotFound when the session does not exist. */
  appendMessage(sessionId: string, role: string, content: string): Promise<Answer<"appendMessage">> {
    return this.request("POST", path`/v1/sessions/${sessionId}/messages`, { body: { role, content } });
  }

  /** A session with its messages, in order; NotFound when absent. */
  getSession(sessionId: string): Promise<Answer<"getSession">> {
    return this.request("GET", path`/v1/sessions/${sessionId}`);
  }

  /** Delete a session; `deleted` says whether it existed. */
  deleteSession(sessionId: string): Promise<Answer<"deleteSession">> {
    return this.request("DELETE", path`/v1/sessions/${sessionId}`);
  }

  /** The user's sessions, metadata only, newest first. */
  listSessions(userId: string, query?: Query<"listUserSessions">): Promise<Answer<"listUserSessions">> {
    return this.request("GET", path`/v1/users/${userId}/sessions`, { query });
  }

  // Working memory: a task's scratchpad.

  /** Set a value (any JSON); TooLarge when the task's values would pass 50 KB. */
  setWorking(
    taskId: string,
    key: string,
    value: unknown,
    agentId: string,
    options: Omit<Body<"setWorking">, "value" | "agent_id"> = {},
  ): Promise<Answer<"setWorking">> {
    return this.request("PUT", path`/v1/tasks/${taskId}/working/${key}`, {
      body: { ...options, value, agent_id: agentId },
    });
  }

  /** One value; NotFound when absent or expired. */
  getWorking(taskId: string, key: string, query?: Query<"getWorking">): Promise<Answer<"getWorking">> {
    return this.request("GET", path`/v1/tasks/${taskId}/working/${key}`, { query });
  }

  /** The task's values as one object (`values`), and the entries (`working`). */
  listWorking(taskId: string, query?: Query<"listWorking">): Promise<Answer<"listWorking">> {
    return this.request("GET", path`/v1/tasks/${taskId}/working`, { query });
  }

  /** Delete one value of the task; NotFoundError when absent or expired. */
  deleteWorking(taskId: string, key: string, query?: Query<"deleteWorking">): Promise<Answer<"deleteWorking">> {
    return this.request("DELETE", path`/v1/tasks/${taskId}/working/${key}`, { query });
  }

  /** Delete the task's values; `deleted` counts them. */
  clearWorking(taskId: string, query?: Query<"clearWorking">): Promise<Answer<"clearWorking">> {
    return this.request("DELETE", path`/v1/tasks/${taskId}/working`, { query });
  }

  // Episodes: what an agent did for a user and how it went.

  /** Record an episode; `outcome` is `success`, `partial` or `failure`. */
  recordEpisode(
    userId: string,
    agentId: string,
    actionType: string,
    actionDescription: string,
    outcome: Schemas["Outcome"],
    options: Omit<Body<"recordEpisode">, "user_id" | "agent_id" | "action_type" | "action_description" | "outcome"> = {},
  ): Promise<Answer<"recordEpisode">> {
    return this.request("POST", "/v1/episodes", {
      body: {
        ...options,
        user_id: userId,
        agent_id: agentId,
        action_type: actionType,
        action_description: actionDescription,
        outcome,
      },
    });
  }

  /** The user and agent's past episodes most like `q`, best first, unexpired only. */
  searchEpisodes(
    userId: string,
    agentId: string,
    q: string,
    query: Omit<Query<"searchEpisodes">, "q" | "user_id" | "agent_id"> = {},
  ): Promise<Answer<"searchEpisodes">> {
    return this.request("GET", "/v1/episodes/search", { query: { ...query, q, user_id: userId, agent_id: agentId } });
  }

  /** The user and agent's recent episodes, newest first. */
  recentEpisodes(
    userId: string,
    agentId: string,
    query: Omit<Query<"recentEpisodes">, "user_id" | "agent_id"> = {},
  ): Promise<Answer<"recentEpisodes">> {
    return this.request("GET", "/v1/episodes", { query: { ...query, user_id: userId, agent_id: agentId } });
  }

  /** Attach a user's feedback to an episode; answers the episode. */
  episodeFeedback(episodeId: string, feedback: Body<"episodeFeedback"> = {}): Promise<Answer<"episodeFeedback">> {
    return this.request("POST", path`/v1/episodes/${episodeId}/feedback`, { body: feedback });
  }

  /** One episode; NotFound when absent or expired. */
  getEpisode(episodeId: string): Promise<Answer<"getEpisode">> {
    return this.request("GET", path`/v1/episodes/${episodeId}`);
  }

  /** Delete an episode, expired or not; NotFound when absent. */
  deleteEpisode(episodeId: string): Promise<Answer<"deleteEpisode">> {
    return this.request("DELETE", path`/v1/episodes/${episodeId}`);
  }

  // Facts: long-term knowledge, a user's or global.

  /**
   * Store a fact; without `user_id` it is global. With a `key` (a slot such as
   * `home_city`) it supersedes the fact of that key true at `valid_at`
   * (default now), which is kept as history (`supersedes` names it).
   */
  storeFact(
    category: Schemas["FactCategory"],
    fact: string,
    options: Omit<Body<"storeFact">, "category" | "fact"> = {},
  ): Promise<Answer<"storeFact">> {
    return this.request("POST", "/v1/facts", { body: { ...options, category, fact } });
  }

  /**
   * Ranked facts true at `as_of` (default now; `include_history: true`: every
   * version); each access counts (`access_count`, `last_accessed_at`).
   */
  searchFacts(q: string, query: Omit<Query<"searchFacts">, "q"> = {}): Promise<Answer<"searchFacts">> {
    return this.request("GET", "/v1/facts/search", { query: { ...query, q } });
  }

  /**
   * Facts with a keyword (and/or of a category), by relevance; without
   * `keyword`, every fact in scope. Those true at `as_of` (default now), every
   * version with `include_history: true`; `status: "disputed"`: only facts
   * contradicted and not yet resolved.
   */
  listFacts(query?: Query<"factsByKeyword">): Promise<Answer<"factsByKeyword">> {
    return this.request("GET", "/v1/facts", { query });
  }

  /** One fact, whatever its status (history included); not counted as an access. NotFound when absent. */
  getFact(factId: string): Promise<Answer<"getFact">> {
    return this.request("GET", path`/v1/facts/${factId}`);
  }

  /** Delete one fact, global ones too (editor); NotFound when absent. */
  deleteFact(factId: string): Promise<Answer<"deleteFact">> {
    return this.request("DELETE", path`/v1/facts/${factId}`);
  }

  /** Every version of the fact's key in its slot, newest `valid_at` first (`facts`). */
  factHistory(factId: string): Promise<Answer<"factHistory">> {
    return this.request("GET", path`/v1/facts/${factId}/history`);
  }

  /**
   * No longer true from `at` (default now), kept as history; Invalid when `at`
   * is before its `valid_at`, Conflict when it had already ended. Answers the fact.
   */
  invalidateFact(factId: string, options: Body<"invalidateFact"> = {}): Promise<Answer<"invalidateFact">> {
    return this.request("POST", path`/v1/facts/${factId}/invalidate`, { body: options });
  }

  /**
   * Settle a disputed fact: `keep: true` clears the dispute, `false`
   * invalidates it now (kept as history); Conflict when it is not disputed.
   */
  resolveFact(factId: string, keep: boolean): Promise<Answer<"resolveFact">> {
    return this.request("POST", path`/v1/facts/${factId}/resolve`, { body: { keep } });
  }

  /** Relevance +0.1 (at most 1.0) and validated; answers the fact. */
  validateFact(factId: string): Promise<Answer<"validateFact">> {
    return this.request("POST", path`/v1/facts/${factId}/validate`);
  }

  /** Relevance -0.2 (at least 0.0) and one more contradiction; answers the fact. */
  contradictFact(factId: string): Promise<Answer<"contradictFact">> {
    return this.request("POST", path`/v1/facts/${factId}/contradict`);
  }

  // Preferences, session start and privacy.

  /**
   * Observe a preference: `explicit` sets 100, `implicit` starts at 40 (+15 a
   * repeat, at most 85), `decision` is kept with its session.
   */
  observePreference(
    userId: string,
    type: string,
    value: unknown,
    source: Schemas["PreferenceSource"],
    options: Omit<Body<"observePreference">, "type" | "value" | "source"> = {},
  ): Promise<Answer<"observePreference">> {
    return this.request("POST", path`/v1/users/${userId}/preferences`, { body: { ...options, type, value, source } });
  }

  /** The user's preferences with their effective confidence and tier. */
  listPreferences(userId: string, query?: Query<"listPreferences">): Promise<Answer<"listPreferences">> {
    return this.request("GET", path`/v1/users/${userId}/preferences`, { query });
  }

  /** The preference was applied: +5 up to its peak. */
  usePreference(userId: string, type: string, query?: Query<"usePreference">): Promise<Answer<"usePreference">> {
    return this.request("POST", path`/v1/users/${userId}/preferences/${type}/use`, { query });
  }

  /** The user confirmed the preference: 100. */
  confirmPreference(
    userId: string,
    type: string,
    query?: Query<"confirmPreference">,
  ): Promise<Answer<"confirmPreference">> {
    return this.request("POST", path`/v1/users/${userId}/preferences/${type}/confirm`, { query });
  }

  /** The user contradicted it: -30 (`implicit`), or 0 and flagged for removal (`explicit`). */
  contradictPreference(
    userId: string,
    type: string,
    source: Schemas["PreferenceSource"],
    query?: Query<"contradictPreference">,
  ): Promise<Answer<"contradictPreference">> {
    return this.request("POST", path`/v1/users/${userId}/preferences/${type}/contradict`, { query, body: { source } });
  }

  /**
   * Settle a preference flagged for removal: `keep: true` clears the flag,
   * `false` forgets it; Conflict when it is not flagged. Answers the preference with `kept`.
   */
  resolvePreference(
    userId: string,
    type: string,
    keep: boolean,
    query?: Query<"resolvePreference">,
  ): Promise<Answer<"resolvePreference">> {
    return this.request("POST", path`/v1/users/${userId}/preferences/${type}/resolve`, { query, body: { keep } });
  }

  /** Forget one preference; NotFound when absent. */
  deletePreference(userId: string, type: string): Promise<Answer<"deletePreference">> {
    return this.request("DELETE", path`/v1/users/${userId}/preferences/${type}`);
  }

  /** Forget every preference of the user; `deleted` counts them. */
  clearPreferences(userId: string): Promise<Answer<"clearPreferences">> {
    return this.request("DELETE", path`/v1/users/${userId}/preferences`);
  }

  /** Session start: the preferences to apply and the last 5 live sessions (creates the user if new). */
  userContext(userId: string): Promise<Answer<"userContext">> {
    return this.request("GET", path`/v1/users/${userId}/context`);
  }

  /**
   * "What do you remember about me": everything about the user, by kind; facts
   * true at `as_of` (default now), or every version with `include_history: true`.
   */
  userMemories(userId: string, query?: Query<"userMemories">): Promise<Answer<"userMemories">> {
    return this.request("GET", path`/v1/users/${userId}/memories`, { query });
  }

  /**
   * What waits for a person: the user's disputed facts and preferences flagged
   * for removal, each with `kind` and `reason`, most recently changed first (`items`).
   */
  reviewQueue(userId: string, query?: Query<"reviewQueue">): Promise<Answer<"reviewQueue">> {
    return this.request("GET", path`/v1/users/${userId}/review`, { query });
  }

  /** "Forget that I said X": delete what matches `query` (or the `ids`); `dry_run` only shows it. */
  forgetUserMemories(userId: string, options: Body<"forgetUserMemories"> = {}): Promise<Answer<"forgetUserMemories">> {
    return this.request("POST", path`/v1/users/${userId}/forget`, { body: options });
  }

  /** Delete everything about the user, at once. */
  deleteUser(userId: string): Promise<Answer<"deleteUser">> {
    return this.request("DELETE", path`/v1/users/${userId}`);
  }

  // Overview: users, stats, timeline, the caller.

  /** Every user of the workspace (registered or named by a record), newest first; `q` matches part of the id, ignoring case. */
  listUsers(query?: Query<"listUsers">): Promise<Answer<"listUsers">> {
    return this.request("GET", "/v1/users", { query });
  }

  /**
   * Counts per kind, agent and user, growth per day (`days`), the newest
   * records and the embedding queue, of the workspace or of the agent and/or user named.
   */
  stats(query?: Query<"stats">): Promise<Answer<"stats">> {
    return this.request("GET", "/v1/stats", { query });
  }

  /**
   * A timeline: the records in scope of every kind (or of `kind`, a list),
   * newest first, created between `after` and `before`.
   */
  listMemories(query?: MemoryListQuery): Promise<Answer<"listMemories">> {
    return this.request("GET", "/v1/memories", { query: withFilters(query) });
  }

  // Memories: one API over every kind, by id.

  /**
   * Add a memory: a fact by default (category `general_fact`), or `kind: "passage"` or
   * `"note"` (both need `agent_id`; a note a `key`). `event` is `ADD`; `UPDATE` when `key`
   * held something else (`previous_id` names it); `NOOP` with the existing `id` when the
   * same content (case and spacing aside) is already there. `expires_at` or `ttl_seconds`
   * sets a time to live.
   */
  addMemory(content: string, options: Omit<Schemas["MemoryInput"], "content"> = {}): Promise<AddedMemory> {
    return this.request("POST", "/v1/memories", { body: { ...options, content } });
  }

  /**
   * Add a conversation as memories: `messages` are `{role, content, name?}` with role user,
   * assistant, system or tool. Without a chat model on the server (or with `infer: false`)
   * each user message becomes one memory about the user and the others none (`skipped` says
   * why); with one, the model's `ADD`, `UPDATE`, `DELETE` and `NOOP` decisions are in
   * `results`. `session_id` appends every message to that session. Unavailable (503) when
   * the model fails, unless `infer: "fallback"`. `async: true` queues the add and answers
   * its `event_id` (status `PENDING`): follow it with getEvent.
   */
  addMessages(messages: Schemas["MessagesInput"]["messages"], options: Omit<Schemas["MessagesInput"], "messages"> = {}): Promise<AddedMessages> {
    return this.request("POST", "/v1/memories", { body: { ...options, messages } });
  }

  /**
   * A queued add of messages: `status` PENDING, then SUCCEEDED with the `results` a
   * synchronous add answers, or FAILED with `error`; NotFound when unknown.
   */
  getEvent(eventId: string): Promise<Answer<"getEvent">> {
    return this.request("GET", path`/v1/events/${eventId}`);
  }

  /** One memory of any kind (its kind's own fields in `data`); NotFound when absent or expired. */
  getMemory(id: string): Promise<Answer<"getMemory">> {
    return this.request("GET", path`/v1/memories/${id}`);
  }

  /**
   * Change a memory in place, keeping history: `event` `UPDATE` with the new `version`, or
   * `NOOP` when nothing differs. `metadata: null` clears the metadata (leave it out to keep
   * it). A keyed fact's new content is a new version: `id` names it, `previous_id` the one
   * changed. Conflict for a kind written through its own routes (a session message);
   * NotFound when absent.
   */
  updateMemory(id: string, patch: Body<"patchMemory">): Promise<Answer<"patchMemory">> {
    return this.request("PATCH", path`/v1/memories/${id}`, { body: patch });
  }

  /** Delete a memory of any kind, as its kind's own delete does; NotFound when absent. */
  deleteMemory(id: string): Promise<Answer<"deleteMemory">> {
    return this.request("DELETE", path`/v1/memories/${id}`);
  }

  /**
   * Every value the memory has had, newest first (`versions`, each with `event` `ADD` or
   * `UPDATE`, `content` and `metadata`); NotFound after a delete.
   */
  memoryHistory(id: string): Promise<Answer<"memoryHistory">> {
    return this.request("GET", path`/v1/memories/${id}/history`);
  }

  /**
   * Up to 1000 operations in one transaction: `add` (as addMemory takes), `update` (each
   * with its `id`; `metadata: null` clears it) and `delete` (ids). `results` holds one event
   * each: the adds, then the updates, then the deletes. One bad operation rejects (its
   * message names it, e.g. `add[2]`) and nothing is applied.
   */
  batchMemories(operations: Body<"batchMemories">): Promise<Answer<"batchMemories">> {
    return this.request("POST", "/v1/memories/batch", { body: operations });
  }

  /** The caller's key: `auth` (whether the server requires one), `key_id`, `role`, `agent_id`. */
  whoami(): Promise<Answer<"whoami">> {
    return this.request("GET", "/v1/whoami");
  }

  // Search across kinds.

  /** Hybrid search over every kind in scope; `{ explain: true }` shows each signal's rank and score. */
  search(query: string, options: Omit<Body<"search">, "query"> = {}): Promise<Answer<"search">> {
    return this.request("POST", "/v1/search", { body: { ...options, query }, idempotent: true });
  }

  // Administration (the admin role).

  /** Run maintenance tasks (`consolidate`, `decay`, `prune`, `expire`; all by default). */
  maintain(options: Body<"maintain"> = {}): Promise<Answer<"maintain">> {
    return this.request("POST", "/v1/maintenance", { body: options });
  }

  /** Create an API key; its secret (`api_key`) is answered only this once. */
  createKey(role: Schemas["Role"], options: Omit<Body<"createKey">, "role"> = {}): Promise<Answer<"createKey">> {
    return this.request("POST", "/v1/keys", { body: { ...options, role } });
  }

  /** The workspace's keys, never their secrets. */
  listKeys(): Promise<Answer<"listKeys">> {
    return this.request("GET", "/v1/keys");
  }

  /** Revoke a key; NotFound when absent. */
  revokeKey(keyId: string): Promise<Answer<"revokeKey">> {
    return this.request("DELETE", path`/v1/keys/${keyId}`);
  }

  /** The access log, newest first. */
  audit(query?: Query<"audit">): Promise<Answer<"audit">> {
    return this.request("GET", "/v1/audit", { query });
  }

  /** The workspace (or one user's records) as JSON Lines, for importJsonl. */
  export(query?: Query<"export">): Promise<string> {
    return this.request("GET", "/v1/export", { query, text: true });
  }

  /** Import JSON Lines written by export (a lossless round trip). */
  importJsonl(data: string | Uint8Array): Promise<Answer<"import">> {
    return this.request("POST", "/v1/import", { raw: data, contentType: "application/x-ndjson" });
  }

  // The transport.

  /** Send one request (with retries) and resolve to its decoded answer. */
  async request<T>(method: string, requestPath: string, options: RequestOptions = {}): Promise<T> {
    let url = this.baseUrl + requestPath;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) {
      for (const item of Array.isArray(v) ? v : [v]) {
        if (item !== undefined && item !== null) params.append(k, String(item)); // a list: the parameter repeated
      }
    }
    const search = params.toString();
    if (search) url += "?" + search;
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.apiKey) headers["Authorization"] = `Bearer ${this.apiKey}`;
    let payload: string | Uint8Array | undefined = options.raw;
    if (options.body !== undefined) payload = JSON.stringify(options.body); // leaves out undefined fields
    if (payload !== undefined) headers["Content-Type"] = options.contentType ?? "application/json";
    const idempotent = options.idempotent ?? IDEMPOTENT.has(method);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      let text: string;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      try {
        response = await this.fetchImpl(url, {
          method,
          headers,
          body: payload as BodyInit | undefined,
          signal: controller.signal,
        });
        text = await response.text();
      } catch (cause) {
        const timedOut = controller.signal.aborted;
        const reason = timedOut ? "timed out" : describe(cause);
        const err = new TransportError(`cannot reach loci: ${method} ${url}: ${reason}`, { timedOut, cause });
        if (!idempotent || timedOut || attempt >= this.maxRetries) throw err;
        await this.retry(method, requestPath, attempt, this.backoff(attempt), reason);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (response.ok) {
        if (options.text) return text as T;
        return (text ? JSON.parse(text) : {}) as T;
      }
      const err = errorFromResponse(response.status, text, response.headers);
      const retryable = response.status === 429 || (response.status === 503 && idempotent);
      if (retryable && attempt < this.maxRetries) {
        const waitMs = err.retryAfter !== undefined ? err.retryAfter * 1000 : this.backoff(attempt);
        if (waitMs <= this.maxRetryWaitMs) {
          await this.retry(method, requestPath, attempt, waitMs, `${response.status} ${err.code}`);
          continue;
        }
      }
      throw err;
    }
  }

  private backoff(attempt: number): number {
    return this.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
  }

  private async retry(method: string, requestPath: string, attempt: number, waitMs: number, reason: string) {
    this.onRetry?.({ method, path: requestPath, attempt: attempt + 1, waitMs, reason });
    await sleep(waitMs);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return `${err.message}: ${cause.message}`;
    return err.message || err.name;
  }
  return String(err);
}

type Rest<F> = F extends (first: string, ...rest: infer R) => unknown ? R : never;

/**
 * AgentClient is one agent's memory: the agent-scoped methods of Client with
 * the agent id filled in (`client.agent("writer").remember("tone", "friendly")`).
 */
export class AgentClient {
  constructor(
    readonly client: Client,
    readonly id: string,
  ) {}

  remember(...a: Rest<Client["remember"]>) { return this.client.remember(this.id, ...a); }
  recall(...a: Rest<Client["recall"]>) { return this.client.recall(this.id, ...a); }
  recallAll(...a: Rest<Client["recallAll"]>) { return this.client.recallAll(this.id, ...a); }
  forget(...a: Rest<Client["forget"]>) { return this.client.forget(this.id, ...a); }
  noteHistory(...a: Rest<Client["noteHistory"]>) { return this.client.noteHistory(this.id, ...a); }
  create(...a: Rest<Client["createAgent"]>) { return this.client.createAgent(this.id, ...a); }
  get() { return this.client.getAgent(this.id); }
  delete() { return this.client.deleteAgent(this.id); }
  listBlocks() { return this.client.listBlocks(this.id); }
  getBlock(...a: Rest<Client["getBlock"]>) { return this.client.getBlock(this.id, ...a); }
  blockHistory(...a: Rest<Client["blockHistory"]>) { return this.client.blockHistory(this.id, ...a); }
  setBlock(...a: Rest<Client["setBlock"]>) { return this.client.setBlock(this.id, ...a); }
  createBlock(...a: Rest<Client["createBlock"]>) { return this.client.createBlock(this.id, ...a); }
  /** Attach another agent's shared block to this agent. */
  attachBlock(blockId: string) { return this.client.attachBlock(blockId, this.id); }
  detachBlock(blockId: string) { return this.client.detachBlock(blockId, this.id); }
  prompt() { return this.client.prompt(this.id); }
  addPassage(...a: Rest<Client["addPassage"]>) { return this.client.addPassage(this.id, ...a); }
  listPassages(...a: Rest<Client["listPassages"]>) { return this.client.listPassages(this.id, ...a); }
  searchPassages(...a: Rest<Client["searchPassages"]>) { return this.client.searchPassages(this.id, ...a); }
  deletePassage(...a: Rest<Client["deletePassage"]>) { return this.client.deletePassage(this.id, ...a); }
  setWorking(taskId: string, key: string, value: unknown, options?: Omit<Body<"setWorking">, "value" | "agent_id">) {
    return this.client.setWorking(taskId, key, value, this.id, options);
  }
  getWorking(taskId: string, key: string, query?: Omit<Query<"getWorking">, "agent_id">) {
    return this.client.getWorking(taskId, key, { ...query, agent_id: this.id });
  }
  listWorking(taskId: string, query?: Omit<Query<"listWorking">, "agent_id">) {
    return this.client.listWorking(taskId, { ...query, agent_id: this.id });
  }
  clearWorking(taskId: string, query?: Omit<Query<"clearWorking">, "agent_id">) {
    return this.client.clearWorking(taskId, { ...query, agent_id: this.id });
  }
  search(query: string, options?: Omit<Body<"search">, "query" | "agent_id">) {
    return this.client.search(query, { ...options, agent_id: this.id });
  }
  stats(query?: Omit<Query<"stats">, "agent_id">) { return this.client.stats({ ...query, agent_id: this.id }); }
  listMemories(query?: Omit<MemoryListQuery, "agent_id">) { return this.client.listMemories({ ...query, agent_id: this.id }); }
  addMemory(content: string, options?: Omit<Schemas["MemoryInput"], "content" | "agent_id">) {
    return this.client.addMemory(content, { ...options, agent_id: this.id });
  }
}

/**
 * UserClient is one user's memory: the user-scoped methods of Client with the
 * user id filled in (`client.user("u1").context()`).
 */
export class UserClient {
  constructor(
    readonly client: Client,
    readonly id: string,
  ) {}

  observePreference(...a: Rest<Client["observePreference"]>) { return this.client.observePreference(this.id, ...a); }
  listPreferences(...a: Rest<Client["listPreferences"]>) { return this.client.listPreferences(this.id, ...a); }
  usePreference(...a: Rest<Client["usePreference"]>) { return this.client.usePreference(this.id, ...a); }
  confirmPreference(...a: Rest<Client["confirmPreference"]>) { return this.client.confirmPreference(this.id, ...a); }
  contradictPreference(...a: Rest<Client["contradictPreference"]>) { return this.client.contradictPreference(this.id, ...a); }
  resolvePreference(...a: Rest<Client["resolvePreference"]>) { return this.client.resolvePreference(this.id, ...a); }
  deletePreference(...a: Rest<Client["deletePreference"]>) { return this.client.deletePreference(this.id, ...a); }
  clearPreferences() { return this.client.clearPreferences(this.id); }
  context() { return this.client.userContext(this.id); }
  memories(...a: Rest<Client["userMemories"]>) { return this.client.userMemories(this.id, ...a); }
  reviewQueue(...a: Rest<Client["reviewQueue"]>) { return this.client.reviewQueue(this.id, ...a); }
  forget(...a: Rest<Client["forgetUserMemories"]>) { return this.client.forgetUserMemories(this.id, ...a); }
  delete() { return this.client.deleteUser(this.id); }
  putSession(sessionId: string, options?: Omit<Body<"putSession">, "user_id">) {
    return this.client.putSession(sessionId, this.id, options);
  }
  listSessions(...a: Rest<Client["listSessions"]>) { return this.client.listSessions(this.id, ...a); }
  recordEpisode(...a: Rest<Client["recordEpisode"]>) { return this.client.recordEpisode(this.id, ...a); }
  searchEpisodes(...a: Rest<Client["searchEpisodes"]>) { return this.client.searchEpisodes(this.id, ...a); }
  recentEpisodes(...a: Rest<Client["recentEpisodes"]>) { return this.client.recentEpisodes(this.id, ...a); }
  storeFact(category: Schemas["FactCategory"], fact: string, options?: Omit<Body<"storeFact">, "category" | "fact" | "user_id">) {
    return this.client.storeFact(category, fact, { ...options, user_id: this.id });
  }
  searchFacts(q: string, query?: Omit<Query<"searchFacts">, "q" | "user_id">) {
    return this.client.searchFacts(q, { ...query, user_id: this.id });
  }
  listFacts(query?: Omit<Query<"factsByKeyword">, "user_id">) {
    return this.client.listFacts({ ...query, user_id: this.id });
  }
  search(query: string, options?: Omit<Body<"search">, "query" | "user_id">) {
    return this.client.search(query, { ...options, user_id: this.id });
  }
  stats(query?: Omit<Query<"stats">, "user_id">) { return this.client.stats({ ...query, user_id: this.id }); }
  listMemories(query?: Omit<MemoryListQuery, "user_id">) { return this.client.listMemories({ ...query, user_id: this.id }); }
  addMemory(content: string, options?: Omit<Schemas["MemoryInput"], "content" | "user_id">) {
    return this.client.addMemory(content, { ...options, user_id: this.id });
  }
}
