/**
 * @loci-memory/openai-agents: a Session of the OpenAI Agents SDK kept in loci.
 *
 *     import { run } from "@openai/agents";
 *     import { LociSession } from "@loci-memory/openai-agents";
 *     const session = new LociSession({ sessionId: "support-42", userId: "u1" });
 *     await run(agent, "Hello", { session });
 *
 * Each item of the conversation is one message of the loci session
 * (PUT /v1/sessions/{id}, POST /v1/sessions/{id}/messages): its `content`
 * is the item as JSON, exactly as given, its `role` the item's role
 * (`user`, `assistant`, …) or, for items without one, its type
 * (`function_call`, `reasoning`, …). So what was said is searchable in
 * loci and shown in its inspector, and getItems answers the items as they
 * were added.
 */

import { Client, LociError } from "@loci-memory/client";
import { SystemError, UserError, applySessionHistoryMutations } from "@openai/agents-core";
import type { AgentInputItem, Session, SessionHistoryRewriteArgs, SessionHistoryRewriteAwareSession } from "@openai/agents-core";

/** The largest item loci keeps: a message's content is at most 64 KiB of JSON text. */
export const MAX_ITEM_BYTES = 64 << 10;
const MAX_ROLE_BYTES = 64;
const MAX_SESSION_ID_BYTES = 256;

export interface LociSessionOptions {
  /** The loci session's id (default: a new UUID). Unique in the workspace. */
  sessionId?: string;
  /** The user the session belongs to (loci's sessions are a user's). */
  userId: string;
  /** The loci client to use (default: `new Client({ baseUrl, apiKey })`). */
  client?: Client;
  /** Where loci listens (default: $LOCI_URL, else http://127.0.0.1:8420). */
  baseUrl?: string;
  /** loci's API key (default: $LOCI_API_KEY); leave unset while authentication is off. */
  apiKey?: string;
  /** Fields of the session kept in loci when it is created (a summary, whether it persists, …). */
  summary?: string;
  context?: Record<string, unknown>;
  isPersistent?: boolean;
}

/**
 * LociSession is a Session of the OpenAI Agents SDK over one loci session,
 * behaving as the SDK's MemorySession does on the same calls.
 *
 * Errors: bad input (an item that is not JSON or over 64 KiB, a session id
 * loci refuses, a session of another user) is a UserError and changes
 * nothing; loci's other refusals are UserErrors too and its failures
 * (storage unavailable, no answer) SystemErrors, each with the loci error
 * (`@loci-memory/client`'s LociError, with its `code` and `status`) as
 * `cause`.
 */
export class LociSession implements Session, SessionHistoryRewriteAwareSession {
  readonly client: Client;
  readonly userId: string;
  private readonly sessionId: string;
  /** Whether the loci session was seen to be this user's (or absent), so that writes need no check. */
  private verified = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly createFields: { summary?: string; context?: Record<string, unknown>; is_persistent?: boolean };

  constructor(options: LociSessionOptions) {
    const sessionId = options.sessionId ?? crypto.randomUUID();
    if (typeof sessionId !== "string" || sessionId.trim() === "" || utf8Bytes(sessionId) > MAX_SESSION_ID_BYTES) {
      throw new UserError(`sessionId must be a non-empty string of at most ${MAX_SESSION_ID_BYTES} bytes`);
    }
    if (typeof options.userId !== "string" || options.userId.trim() === "") {
      throw new UserError("userId must be a non-empty string: a loci session belongs to a user");
    }
    this.sessionId = sessionId;
    this.userId = options.userId;
    this.client = options.client ?? new Client({ baseUrl: options.baseUrl, apiKey: options.apiKey });
    this.createFields = { summary: options.summary, context: options.context, is_persistent: options.isPersistent };
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The items, oldest first; with limit, the most recent `limit` of them. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const messages = (await this.load())?.messages ?? [];
    const items = messages.map((m, i) => decodeItem(m));
    if (limit === undefined) return items;
    if (limit <= 0) return [];
    return items.slice(Math.max(items.length - limit, 0));
  }

  /**
   * Append items, in order. Every item is checked before anything is
   * written: one that is not JSON or is over 64 KiB is a UserError and
   * none is added. The first add creates the loci session.
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) throw new UserError("addItems takes an array of items");
    const messages = items.map((item, i) => encodeItem(item, i));
    if (messages.length === 0) return;
    return this.serial(() => this.append(messages));
  }

  private async append(messages: { role: string; content: string }[]): Promise<void> {
    if (!this.verified && !(await this.load())) {
      await this.create(messages);
      return;
    }
    for (const [i, m] of messages.entries()) {
      try {
        await this.client.appendMessage(this.sessionId, m.role, m.content);
      } catch (err) {
        // Deleted meanwhile (clearSession elsewhere): create it with the rest.
        if (i === 0 && err instanceof LociError && err.code === "not_found") {
          await this.create(messages);
          return;
        }
        throw wrap(err);
      }
    }
  }

  private async create(messages: { role: string; content: string }[]): Promise<void> {
    await call(() => this.client.putSession(this.sessionId, this.userId, { ...this.createFields, messages }));
    this.verified = true;
  }

  /** Remove and answer the most recent item; undefined when there is none. */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.serial(() => this.pop());
  }

  private async pop(): Promise<AgentInputItem | undefined> {
    const session = await this.load();
    const messages = session?.messages ?? [];
    if (!session || messages.length === 0) return undefined;
    const last = messages.length - 1;
    const item = decodeItem(messages[last]!);
    // loci has no route that removes one message: the session is stored
    // again without its last one, every other field as it was.
    await this.store(session, messages.slice(0, last));
    return item;
  }

  /**
   * Rewrite stored items as the SDK's MemorySession does
   * (`replace_function_call`: the function call of that callId replaced).
   * The session is stored again with the rewritten items; a replacement
   * that is not JSON or too large is a UserError and changes nothing.
   */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    if (!args || !Array.isArray(args.mutations)) throw new UserError("applyHistoryMutations takes { mutations: [...] }");
    if (args.mutations.length === 0) return;
    args.mutations.forEach((m, i) => {
      if (m?.type === "replace_function_call") encodeItem(m.replacement, i);
    });
    return this.serial(async () => {
      const session = await this.load();
      const messages = session?.messages ?? [];
      if (!session || messages.length === 0) return;
      const items = messages.map((m, i) => decodeItem(m));
      const next = applySessionHistoryMutations(items, args.mutations);
      // An item left as it was, where it was, keeps its message's time.
      const stored = next.map((item, i) => {
        const m = encodeItem(item, i);
        return m.content === messages[i]?.content ? { ...m, created_at: messages[i]!.created_at } : m;
      });
      await this.store(session, stored);
    });
  }

  /** Store the session again with these messages, every other field as it was. */
  private async store(
    session: NonNullable<Awaited<ReturnType<LociSession["load"]>>>,
    messages: { role: string; content: string; created_at?: string | undefined }[],
  ): Promise<void> {
    await call(() =>
      this.client.putSession(this.sessionId, this.userId, {
        context: session.context as Record<string, unknown>,
        summary: session.summary,
        is_persistent: session.is_persistent,
        confidence: session.confidence,
        ...(session.expires_at ? { expires_at: session.expires_at } : {}),
        messages: messages.map((m) => ({ role: m.role, content: m.content, ...(m.created_at ? { created_at: m.created_at } : {}) })),
      }),
    );
  }

  /** Remove every item: the loci session is deleted (the next add creates it again). */
  async clearSession(): Promise<void> {
    return this.serial(async () => {
      if (!this.verified && !(await this.load())) return;
      await call(() => this.client.deleteSession(this.sessionId));
    });
  }

  /**
   * Run the changes one after another, in the order they were called, as
   * MemorySession applies them (and so that two first adds do not both
   * create the loci session, the second replacing the first).
   */
  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.queue.then(f, f);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The loci session, or undefined when it does not exist; a UserError when it is another user's. */
  private async load() {
    let session;
    try {
      session = await this.client.getSession(this.sessionId);
    } catch (err) {
      if (err instanceof LociError && err.code === "not_found") return undefined;
      throw wrap(err);
    }
    if (session.user_id !== this.userId) {
      throw new UserError(`loci session ${JSON.stringify(this.sessionId)} belongs to another user`);
    }
    this.verified = true;
    return session;
  }
}

/** One item as a loci message: its JSON text, and its role or type as the message's role. */
function encodeItem(item: unknown, index: number): { role: string; content: string } {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    throw new UserError(`item ${index} must be an object`);
  }
  const rec = item as { role?: unknown; type?: unknown };
  if (typeof rec.role !== "string" && typeof rec.type !== "string") {
    throw new UserError(`item ${index} is not an item: it has neither a role nor a type`);
  }
  let content: string;
  try {
    content = JSON.stringify(item);
  } catch (err) {
    throw new UserError(`item ${index} cannot be stored as JSON: ${(err as Error).message}`);
  }
  if (!sameJSON(item, JSON.parse(content))) {
    throw new UserError(`item ${index} holds a value JSON cannot keep (a function, a Date, a typed array, NaN, …)`);
  }
  if (utf8Bytes(content) > MAX_ITEM_BYTES) {
    throw new UserError(`item ${index} is ${utf8Bytes(content)} bytes of JSON; loci keeps items of at most ${MAX_ITEM_BYTES} bytes`);
  }
  const label = typeof rec.role === "string" ? rec.role : typeof rec.type === "string" ? rec.type : "item";
  const role = label.trim() !== "" && utf8Bytes(label) <= MAX_ROLE_BYTES && !label.includes("\0") ? label : "item";
  return { role, content };
}

/**
 * A message as an item: the item it holds as JSON, or, for a message that
 * something else wrote (loci's REST API, another client: plain text), a
 * message item of its role and text.
 */
function decodeItem(m: { role: string; content: string }): AgentInputItem {
  try {
    const item = JSON.parse(m.content);
    if (item !== null && typeof item === "object" && !Array.isArray(item) && (typeof item.type === "string" || typeof item.role === "string")) {
      return item as AgentInputItem;
    }
  } catch {
    // plain text
  }
  if (m.role === "assistant") {
    return { role: "assistant", status: "completed", content: [{ type: "output_text", text: m.content }] } as AgentInputItem;
  }
  const role = m.role === "system" || m.role === "developer" ? m.role : "user";
  return { role, content: m.content } as AgentInputItem;
}

/**
 * Whether a value survives JSON as it is: plain objects and arrays of
 * strings, finite numbers, booleans and null (an object's undefined
 * fields are left out, as JSON does).
 */
function sameJSON(value: unknown, back: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value === back;
  if (typeof value === "number") return Number.isFinite(value) && Object.is(value, back);
  if (Array.isArray(value)) {
    return Array.isArray(back) && value.length === back.length && value.every((v, i) => sameJSON(v, back[i]));
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if ((proto !== Object.prototype && proto !== null) || back === null || typeof back !== "object" || Array.isArray(back)) return false;
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const backRec = back as Record<string, unknown>;
    return entries.length === Object.keys(backRec).length && entries.every(([k, v]) => k in backRec && sameJSON(v, backRec[k]));
  }
  return false;
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** loci's refusals as UserError, its failures as SystemError, the LociError as cause. */
function wrap(err: unknown): Error {
  if (!(err instanceof LociError)) return err as Error;
  const refusal = err.status !== undefined && err.status < 500;
  const out = refusal ? new UserError(`loci: ${err.message}`) : new SystemError(`loci: ${err.message}`);
  (out as { cause?: unknown }).cause = err;
  return out;
}

async function call<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw wrap(err);
  }
}
