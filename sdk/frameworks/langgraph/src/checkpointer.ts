/**
 * LociCheckpointSaver: a LangGraph.js checkpointer that keeps each thread in
 * one loci session.
 *
 * The mapping: thread `T` is the loci session `{prefix}T` (default prefix
 * `langgraph:`) of the saver's user (`userId`, default `langgraph`). Each
 * `put` appends one message (role `checkpoint`) holding the checkpoint
 * namespace, its id, its parent's id and the serialized checkpoint and
 * metadata; each `putWrites` appends one message (role `writes`) holding the
 * task's writes. A record over what one message holds (64 KiB) is split
 * over several messages (role `part`) written before it, so checkpoints
 * have no size limit of their own; a record whose parts are not all there
 * (a write cut short) is ignored. Appends are atomic on the server, so
 * tasks that write at once lose nothing.
 *
 * Reads fetch the thread's session (one request) and answer as LangGraph's
 * MemorySaver does; `list` without a thread_id reads every session of the
 * user that carries the prefix. `deleteThread` deletes the session.
 */

import { Client, LociError } from "@loci-memory/client";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  PendingWrite,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";

/** What one loci message holds: its content is at most 64 KiB. */
const MAX_MESSAGE_BYTES = 64 << 10;
/** UTF-16 units of a part: JSON escapes make at most 6 bytes of one, so a part always fits. */
const PART_UNITS = 10_000;
const MAX_SESSION_ID_BYTES = 256;

export interface LociCheckpointSaverOptions {
  /** The loci client to use (default: `new Client({ baseUrl, apiKey })`). */
  client?: Client;
  /** Where loci listens (default: $LOCI_URL, else http://127.0.0.1:8420). */
  baseUrl?: string;
  /** loci's API key (default: $LOCI_API_KEY); leave unset while authentication is off. */
  apiKey?: string;
  /** The loci user whose sessions hold the threads (default `langgraph`). */
  userId?: string;
  /** Put before a thread id to make its session id (default `langgraph:`). */
  prefix?: string;
  /** LangGraph's serializer (default: its JsonPlusSerializer). */
  serde?: SerializerProtocol;
}

/** A serialized value as kept in a message: UTF-8 text as is, other bytes as base64. */
type Blob = { type: string; text: string } | { type: string; base64: string };

interface CheckpointRecord {
  ns: string;
  id: string;
  parent?: string;
  /** The checkpoint without its channel_values: those are in `values`. */
  checkpoint: Blob;
  metadata: Blob;
  /** The values of the channels this checkpoint changed (its newVersions), null for a channel it emptied. */
  values?: { channel: string; version: string; value: Blob | null }[];
}

interface WritesRecord {
  ns: string;
  checkpoint_id: string;
  task_id: string;
  task_path: string;
  writes: { idx: number; channel: string; value: Blob }[];
}

/** One stored write: [taskId, channel, value, taskPath]. */
type StoredWrite = [string, string, Blob, string];

/** A thread as read from its session: per namespace, its checkpoints and their writes. */
interface Thread {
  id: string;
  /** ns → checkpoint id → record (a later put of the same id replaces it). */
  checkpoints: Map<string, Map<string, CheckpointRecord>>;
  /** JSON [ns, checkpoint id] → "taskId,idx" → write. */
  writes: Map<string, Map<string, StoredWrite>>;
  /** JSON [ns, channel, version] → the channel's value at that version (null: none). */
  values: Map<string, Blob | null>;
}

export class LociCheckpointSaver extends BaseCheckpointSaver {
  readonly client: Client;
  readonly userId: string;
  readonly prefix: string;
  /** Per thread: its session was seen to be this user's, or created (see ensureSession). */
  private readonly ready = new Map<string, Promise<void>>();

  constructor(options: LociCheckpointSaverOptions = {}) {
    super(options.serde);
    this.client = options.client ?? new Client({ baseUrl: options.baseUrl, apiKey: options.apiKey });
    this.userId = options.userId ?? "langgraph";
    this.prefix = options.prefix ?? "langgraph:";
    if (typeof this.userId !== "string" || this.userId.trim() === "") throw new Error("userId must be a non-empty string");
    if (typeof this.prefix !== "string") throw new Error("prefix must be a string");
  }

  /** The loci session that holds a thread. */
  sessionId(threadId: string): string {
    return this.prefix + threadId;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id;
    if (threadId === undefined) return undefined;
    checkKey("thread_id", threadId);
    checkKey("checkpoint_ns", config.configurable?.checkpoint_ns ?? "", true);
    const checkpointId = getCheckpointId(config);
    if (checkpointId) checkKey("checkpoint_id", checkpointId);
    const thread = await this.readThread(threadId);
    return thread && this.tupleIn(thread, config);
  }

  /** getTuple on a thread already read. */
  private async tupleIn(thread: Thread, config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const ns: string = config.configurable?.checkpoint_ns ?? "";
    let checkpointId: string | undefined = getCheckpointId(config);
    checkKey("checkpoint_ns", ns, true);
    const checkpoints = thread.checkpoints.get(ns);
    if (!checkpoints) return undefined;
    if (checkpointId) {
      checkKey("checkpoint_id", checkpointId);
      const rec = checkpoints.get(checkpointId);
      return rec && this.tuple(thread, rec, config);
    }
    checkpointId = [...checkpoints.keys()].sort().reverse()[0];
    const rec = checkpointId === undefined ? undefined : checkpoints.get(checkpointId);
    return rec && this.tuple(thread, rec, { configurable: { thread_id: thread.id, checkpoint_id: checkpointId, checkpoint_ns: ns } });
  }

  /**
   * The walk up a checkpoint's ancestors that rebuilds DeltaChannel
   * values: LangGraph's own (BaseCheckpointSaver's), on the thread read
   * once rather than once per ancestor.
   */
  override async getDeltaChannelHistory(options: { config: RunnableConfig; channels: string[] }) {
    const threadId = options.config.configurable?.thread_id;
    if (threadId === undefined || options.channels.length === 0) return super.getDeltaChannelHistory(options);
    checkKey("thread_id", threadId);
    const thread = await this.readThread(threadId);
    const view = {
      getTuple: (config: RunnableConfig) =>
        thread && config.configurable?.thread_id === threadId ? this.tupleIn(thread, config) : this.getTuple(config),
    };
    return BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(view as unknown as BaseCheckpointSaver, options);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    let { limit } = options ?? {};
    const { before, filter } = options ?? {};
    const threadId = config.configurable?.thread_id;
    const wantNs: string | undefined = config.configurable?.checkpoint_ns;
    const wantId: string | undefined = config.configurable?.checkpoint_id;
    const beforeId: string | undefined = before?.configurable?.checkpoint_id;
    if (threadId !== undefined) checkKey("thread_id", threadId);
    if (wantNs !== undefined) checkKey("checkpoint_ns", wantNs, true);
    if (wantId) checkKey("checkpoint_id", wantId);
    if (beforeId) checkKey("checkpoint_id", beforeId);
    if (limit !== undefined && (typeof limit !== "number" || Number.isNaN(limit))) throw new Error("limit must be a number");
    if (filter !== undefined && (filter === null || typeof filter !== "object")) throw new Error("filter must be an object");
    const threadIds = threadId !== undefined ? [threadId] : await this.threadIds();
    for (const id of threadIds) {
      const thread = await this.readThread(id);
      if (!thread) continue;
      for (const [ns, checkpoints] of thread.checkpoints) {
        if (wantNs !== undefined && ns !== wantNs) continue;
        for (const cpId of [...checkpoints.keys()].sort().reverse()) {
          if (wantId && cpId !== wantId) continue;
          if (beforeId && cpId >= beforeId) continue;
          const rec = checkpoints.get(cpId)!;
          const metadata = (await this.load(rec.metadata)) as Record<string, unknown>;
          if (filter && !Object.entries(filter).every(([k, v]) => metadata?.[k] === v)) continue;
          if (limit !== undefined) {
            if (limit <= 0) return;
            limit -= 1;
          }
          yield await this.tuple(thread, rec, { configurable: { thread_id: id, checkpoint_ns: ns, checkpoint_id: cpId } }, metadata);
        }
      }
    }
  }

  /**
   * Store a checkpoint. As LangGraph's database savers do, only the values
   * of the channels in newVersions are stored with it; a checkpoint's
   * channel_values are read back from the values stored at the versions
   * its channel_versions name, so an unchanged channel is not stored again.
   */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id;
    const ns: string = config.configurable?.checkpoint_ns ?? "";
    if (threadId === undefined) {
      throw new Error(
        'Failed to put checkpoint. The passed RunnableConfig is missing a required "thread_id" field in its "configurable" property.',
      );
    }
    checkKey("thread_id", threadId);
    checkKey("checkpoint_ns", ns, true);
    checkKey("checkpoint_id", checkpoint?.id);
    this.checkSessionId(threadId);
    const parent: string | undefined = config.configurable?.checkpoint_id;
    const { channel_values: channelValues, ...rest } = copyCheckpoint(checkpoint);
    const [[ct, cv], [mt, mv]] = await Promise.all([this.serde.dumpsTyped(rest), this.serde.dumpsTyped(metadata)]);
    const values: NonNullable<CheckpointRecord["values"]> = [];
    for (const [channel, version] of Object.entries(newVersions ?? {})) {
      if (Object.prototype.hasOwnProperty.call(channelValues ?? {}, channel)) {
        const [t, v] = await this.serde.dumpsTyped((channelValues as Record<string, unknown>)[channel]);
        values.push({ channel, version: String(version), value: blob(t, v) });
      } else {
        values.push({ channel, version: String(version), value: null });
      }
    }
    const rec: CheckpointRecord = { ns, id: checkpoint.id, checkpoint: blob(ct, cv), metadata: blob(mt, mv), values };
    if (parent !== undefined) rec.parent = parent;
    await this.append(threadId, "checkpoint", rec);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = config.configurable?.thread_id;
    const ns: string = config.configurable?.checkpoint_ns ?? "";
    const checkpointId: string | undefined = config.configurable?.checkpoint_id;
    if (threadId === undefined) {
      throw new Error('Failed to put writes. The passed RunnableConfig is missing a required "thread_id" field in its "configurable" property.');
    }
    if (checkpointId === undefined) {
      throw new Error('Failed to put writes. The passed RunnableConfig is missing a required "checkpoint_id" field in its "configurable" property.');
    }
    checkKey("thread_id", threadId);
    checkKey("checkpoint_ns", ns, true);
    checkKey("checkpoint_id", checkpointId);
    checkKey("task_id", taskId);
    if (!Array.isArray(writes)) throw new Error("writes must be an array of [channel, value]");
    this.checkSessionId(threadId);
    const rec: WritesRecord = { ns, checkpoint_id: checkpointId, task_id: taskId, task_path: taskPath ?? "", writes: [] };
    for (const [i, w] of writes.entries()) {
      if (!Array.isArray(w) || typeof w[0] !== "string") throw new Error(`writes[${i}] must be [channel, value]`);
      const [channel, value] = w;
      const [t, v] = await this.serde.dumpsTyped(value);
      rec.writes.push({ idx: WRITES_IDX_MAP[channel] || i, channel, value: blob(t, v) });
    }
    await this.append(threadId, "writes", rec);
  }

  async deleteThread(threadId: string): Promise<void> {
    checkKey("thread_id", threadId);
    this.checkSessionId(threadId);
    await this.readThread(threadId); // never another user's
    await this.client.deleteSession(this.sessionId(threadId));
    this.ready.delete(threadId);
  }

  /** The tuple of one stored checkpoint, with its pending writes and parent. */
  private async tuple(thread: Thread, rec: CheckpointRecord, config: RunnableConfig, metadata?: unknown): Promise<CheckpointTuple> {
    const checkpoint = (await this.load(rec.checkpoint)) as Checkpoint;
    const channelValues: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(checkpoint.channel_versions ?? {})) {
      const value = thread.values.get(JSON.stringify([rec.ns, channel, String(version)]));
      if (value) channelValues[channel] = await this.load(value);
    }
    checkpoint.channel_values = channelValues;
    if (checkpoint.v < 4 && rec.parent !== undefined) await this.migratePendingSends(thread, checkpoint, rec.ns, rec.parent);
    const out: CheckpointTuple = {
      config,
      checkpoint,
      metadata: (metadata ?? (await this.load(rec.metadata))) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(thread, rec.ns, rec.id),
    };
    if (rec.parent !== undefined) {
      out.parentConfig = { configurable: { thread_id: thread.id, checkpoint_ns: rec.ns, checkpoint_id: rec.parent } };
    }
    return out;
  }

  /** A checkpoint's writes in writesSortKey order, as MemorySaver answers them. */
  private async pendingWrites(thread: Thread, ns: string, checkpointId: string): Promise<CheckpointPendingWrite[]> {
    const stored = thread.writes.get(JSON.stringify([ns, checkpointId]));
    if (!stored) return [];
    const keyed = [...stored.entries()].map(([key, w]) => {
      const comma = key.lastIndexOf(",");
      return { key: writesSortKey(w[3], key.slice(0, comma), Number(key.slice(comma + 1))), w };
    });
    keyed.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(keyed.map(async ({ w }) => [w[0], w[1], await this.load(w[2])] as CheckpointPendingWrite));
  }

  /** Checkpoints before version 4 kept pending sends as their parent's TASKS writes. */
  private async migratePendingSends(thread: Thread, checkpoint: Checkpoint, ns: string, parentId: string) {
    const parentWrites = thread.writes.get(JSON.stringify([ns, parentId]));
    const sends = await Promise.all(
      [...(parentWrites?.values() ?? [])].filter((w) => w[1] === TASKS).map((w) => this.load(w[2])),
    );
    const mutable = checkpoint as { channel_values: Record<string, unknown>; channel_versions: Record<string, string | number> };
    mutable.channel_values ??= {};
    mutable.channel_values[TASKS] = sends;
    mutable.channel_versions ??= {};
    const versions = Object.values(mutable.channel_versions);
    mutable.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private load(b: Blob): Promise<unknown> {
    return this.serde.loadsTyped(b.type, "text" in b ? b.text : fromBase64(b.base64));
  }

  private checkSessionId(threadId: string) {
    if (utf8Bytes(this.sessionId(threadId)) > MAX_SESSION_ID_BYTES) {
      throw new Error(`thread_id is too long: its loci session id (prefix and thread_id) must be at most ${MAX_SESSION_ID_BYTES} bytes`);
    }
  }

  /** The ids of the user's threads: their sessions that carry the prefix. */
  private async threadIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; ) {
      const page = await this.client.listSessions(this.userId, { limit: 100, offset });
      const sessions = page.sessions ?? [];
      for (const s of sessions) if (s.session_id.startsWith(this.prefix)) ids.push(s.session_id.slice(this.prefix.length));
      offset += sessions.length;
      if (sessions.length === 0 || offset >= page.count) break;
    }
    return ids;
  }

  /** A thread as its session holds it, or undefined when it has none. */
  private async readThread(threadId: string): Promise<Thread | undefined> {
    let session;
    try {
      session = await this.client.getSession(this.sessionId(threadId));
    } catch (err) {
      if (err instanceof LociError && err.code === "not_found") return undefined;
      throw err;
    }
    if (session.user_id !== this.userId) {
      throw new Error(`loci session ${JSON.stringify(this.sessionId(threadId))} belongs to another user than ${JSON.stringify(this.userId)}`);
    }
    const thread: Thread = { id: threadId, checkpoints: new Map(), writes: new Map(), values: new Map() };
    const parts = new Map<string, string[]>();
    for (const m of session.messages ?? []) {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(m.content);
      } catch {
        continue; // not written by this saver
      }
      if (m.role === "part") {
        const p = rec as { ref: string; i: number; data: string };
        const list = parts.get(p.ref) ?? [];
        list[p.i] = p.data;
        parts.set(p.ref, list);
        continue;
      }
      if (typeof rec.ref === "string" && typeof rec.parts === "number") {
        const list = parts.get(rec.ref) ?? [];
        parts.delete(rec.ref);
        if (list.length !== rec.parts || list.some((d) => d === undefined)) continue; // cut short
        try {
          rec = JSON.parse(list.join(""));
        } catch {
          continue;
        }
      }
      if (m.role === "checkpoint" && typeof rec.ns === "string" && typeof rec.id === "string" && isBlob(rec.checkpoint) && isBlob(rec.metadata)) {
        const c = rec as unknown as CheckpointRecord;
        let byId = thread.checkpoints.get(c.ns);
        if (!byId) thread.checkpoints.set(c.ns, (byId = new Map()));
        byId.set(c.id, c);
        for (const v of c.values ?? []) thread.values.set(JSON.stringify([c.ns, v.channel, v.version]), v.value);
      } else if (m.role === "writes" && typeof rec.ns === "string" && typeof rec.checkpoint_id === "string" && Array.isArray(rec.writes)) {
        const w = rec as unknown as WritesRecord;
        const key = JSON.stringify([w.ns, w.checkpoint_id]);
        const before = thread.writes.get(key);
        const now = new Map(before ?? []);
        for (const { idx, channel, value } of w.writes) {
          const inner = `${w.task_id},${idx}`;
          // As MemorySaver: a regular write (idx >= 0) is kept as first
          // written, a special one (idx < 0) replaced.
          if (idx >= 0 && before?.has(inner)) continue;
          now.set(inner, [w.task_id, channel, value, w.task_path]);
        }
        thread.writes.set(key, now);
      }
    }
    return thread;
  }

  /** Append one record to a thread's session, creating the session first if need be. */
  private async append(threadId: string, role: "checkpoint" | "writes", rec: CheckpointRecord | WritesRecord) {
    const messages = splitRecord(role, rec);
    const sessionId = this.sessionId(threadId);
    for (let attempt = 0; ; attempt++) {
      await this.ensureSession(threadId);
      try {
        for (const m of messages) await this.client.appendMessage(sessionId, m.role, m.content);
        return;
      } catch (err) {
        // Deleted meanwhile (deleteThread): create it again, once.
        if (attempt > 0 || !(err instanceof LociError && err.code === "not_found")) throw err;
        this.ready.delete(threadId);
      }
    }
  }

  /**
   * The thread's session exists and is this user's: checked (and created
   * when absent) once per saver and thread. LangGraph writes a thread's
   * first checkpoints without waiting for each other, so every write waits
   * for this one check rather than each creating the session (a second
   * create would replace the first one's messages).
   */
  private ensureSession(threadId: string): Promise<void> {
    let ready = this.ready.get(threadId);
    if (!ready) {
      ready = (async () => {
        const thread = await this.readThread(threadId);
        if (!thread) await this.client.putSession(this.sessionId(threadId), this.userId, { summary: `LangGraph thread ${threadId}` });
      })();
      this.ready.set(threadId, ready);
      ready.catch(() => this.ready.delete(threadId));
    }
    return ready;
  }
}

/** A record as messages: one, or its parts and then a message naming them. */
function splitRecord(role: string, rec: unknown): { role: string; content: string }[] {
  const content = JSON.stringify(rec);
  if (utf8Bytes(content) <= MAX_MESSAGE_BYTES) return [{ role, content }];
  const ref = crypto.randomUUID();
  const out: { role: string; content: string }[] = [];
  for (let i = 0, at = 0; at < content.length; i++, at += PART_UNITS) {
    out.push({ role: "part", content: JSON.stringify({ ref, i, data: content.slice(at, at + PART_UNITS) }) });
  }
  out.push({ role, content: JSON.stringify({ ref, parts: out.length }) });
  return out;
}

function isBlob(v: unknown): v is Blob {
  const b = v as { type?: unknown; text?: unknown; base64?: unknown } | null;
  return !!b && typeof b.type === "string" && (typeof b.text === "string" || typeof b.base64 === "string");
}

function blob(type: string, value: Uint8Array | string): Blob {
  if (typeof value === "string") return { type, text: value };
  try {
    return { type, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(value) };
  } catch {
    return { type, base64: toBase64(value) };
  }
}

/** As MemorySaver: an id is a non-empty string (the namespace may be empty). */
function checkKey(field: string, value: unknown, allowEmpty = false): asserts value is string {
  if (typeof value !== "string") {
    throw new Error(`Invalid configurable value for key "${field}": expected a string identifier (got ${value === null ? "null" : typeof value}).`);
  }
  if (!allowEmpty && value === "") throw new Error(`Invalid configurable value for key "${field}": it must not be empty.`);
}

function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}
