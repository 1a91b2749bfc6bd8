/**
 * LociStore: LangGraph.js's long-term memory (a `BaseStore`) kept in loci,
 * through loci's memories API.
 *
 * The mapping: every item is one loci note of the store's agent (`agentId`,
 * default `langgraph`):
 * - its loci `key` is `lg:` and the JSON of `[...namespace, key]`, so that a
 *   put of the same namespace and key updates the note (loci keeps its
 *   history) and a get is one keyed read;
 * - its `content` is the item's value as JSON (what loci's hybrid search
 *   ranks: BM25 and vectors over that text), then a line `#` and a digest of
 *   that JSON, so that values differing only in case or spacing, which loci
 *   would take as a repeat, are told apart (contentOf);
 * - its `metadata` holds `lg: true`, the namespace's labels as `ns: {"0":
 *   …, "7": …}` with `n` (its depth), and the value's top-level strings,
 *   numbers and booleans as `v: {<hex of the field name>: …}`, for the
 *   server to filter on by path (`metadata.ns.0`, `metadata.v.<hex>`);
 *   `v.partial` marks a value some of whose fields did not fit there
 *   (metadata holds 4 KB), and such items are always fetched for `filter`
 *   to be checked on the client;
 * - a TTL (`ttl` in minutes, as LangGraph's Python stores take it, per put or
 *   the store's default) is the note's `ttl_seconds`: once past, loci
 *   answers the item nowhere.
 *
 * `search` without `query` lists the namespace prefix newest first (loci's
 * order); with `query` it is loci's hybrid search (POST /v1/search) over
 * the prefix, best first, `score` being loci's. `filter` takes LangGraph's
 * operators ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin) on top-level
 * fields: equality and lists are sent to loci as metadata filters, and
 * every answer is checked with LangGraph's own semantics before paging. A
 * search with a `filter` or a `query` reads at most 1000 candidates.
 * `batch` sends every put of the batch (deletes included) as one loci batch:
 * one transaction, all or nothing; a put of the value an item already holds
 * writes nothing, but sets its TTL anew (a second request).
 */

import { Client, LociError } from "@loci-memory/client";
import { BaseStore, InvalidNamespaceError, validateNamespace } from "@langchain/langgraph-checkpoint";
import type {
  GetOperation,
  Item,
  ListNamespacesOperation,
  Operation,
  OperationResults,
  PutOperation,
  SearchItem,
  SearchOperation,
} from "@langchain/langgraph-checkpoint";

/** Labels a namespace may have here (each is one metadata key). */
export const MAX_NAMESPACE_DEPTH = 8;
/** Candidates one search with a filter or a query reads. */
const MAX_CANDIDATES = 1000;
const PAGE = 1000;
const MAX_META_KEY_BYTES = 64;
const MAX_META_BYTES = 3500; // of loci's 4096, leaving room for the JSON around
/** The most bytes of a query parameter's value loci takes (`filters` on GET /v1/memories). */
const MAX_QUERY_BYTES = 4096;

export interface LociStoreOptions {
  /** The loci client to use (default: `new Client({ baseUrl, apiKey })`). */
  client?: Client;
  /** Where loci listens (default: $LOCI_URL, else http://127.0.0.1:8420). */
  baseUrl?: string;
  /** loci's API key (default: $LOCI_API_KEY); leave unset while authentication is off. */
  apiKey?: string;
  /** The loci agent whose notes hold the items (default `langgraph`). */
  agentId?: string;
  /** Time to live of every put that names none, in minutes (default: none). */
  ttl?: { defaultTtl?: number };
}

/** A put with a time to live: LangGraph's PutOperation and `ttl` in minutes. */
export type LociPutOperation = PutOperation & { ttl?: number };

interface LociMemory {
  id: string;
  key?: string;
  content: string;
  created_at: string;
  updated_at: string;
  metadata?: Record<string, unknown>;
  score?: number;
}

const KEY_PREFIX = "lg:";

function lociKey(namespace: string[], key: string): string {
  return KEY_PREFIX + JSON.stringify([...namespace, key]);
}

/**
 * The note's content: the value as JSON, then a digest of that JSON. loci
 * takes a note added again with the same text, case and spacing aside, as
 * a repeat that changes nothing; the digest (FNV-1a, 64 bits) tells apart
 * values that differ only so ({"name": "Bob"} and {"name": "BOB"}), while
 * the same value again is still a repeat (no new version).
 */
function contentOf(value: Record<string, unknown>): string {
  const json = JSON.stringify(value);
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(json)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return `${json}\n#${h.toString(16).padStart(16, "0")}`;
}

/** The value of a note's content (contentOf's inverse); undefined when it is not one. */
function valueOf(content: string): unknown {
  const at = content.lastIndexOf("\n#");
  if (at < 0) return undefined;
  try {
    return JSON.parse(content.slice(0, at));
  } catch {
    return undefined;
  }
}

function hex(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) || typeof v === "boolean";
}

/**
 * A scalar loci takes as a metadata or filter value: loci refuses a string
 * holding a NUL or half of a surrogate pair (JavaScript strings may hold
 * both). A value's content is its JSON text, where both are escapes, so
 * such a value is stored whole; only the metadata copy is left out.
 */
function lociScalar(v: unknown): v is string | number | boolean {
  return isScalar(v) && (typeof v !== "string" || !/\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(v));
}

const utf8 = new TextEncoder();
const bytes = (s: string) => utf8.encode(s).length;

/** The metadata of an item (see the mapping above). */
function metadataOf(namespace: string[], value: Record<string, unknown>): Record<string, unknown> {
  const ns: Record<string, unknown> = { n: namespace.length };
  namespace.forEach((label, i) => (ns[String(i)] = label));
  const v: Record<string, unknown> = {};
  const meta: Record<string, unknown> = { lg: true, ns, v };
  let size = new TextEncoder().encode(JSON.stringify(meta)).length;
  let partial = false;
  for (const [field, val] of Object.entries(value)) {
    if (!isScalar(val)) continue; // nested values are checked on the client (and never equal a filter's scalar)
    if (!lociScalar(val)) {
      partial = true; // checked on the client
      continue;
    }
    const name = hex(field);
    const cost = new TextEncoder().encode(JSON.stringify(name) + JSON.stringify(val)).length + 2;
    if (name.length > MAX_META_KEY_BYTES || size + cost > MAX_META_BYTES) {
      partial = true;
      continue;
    }
    v[name] = val;
    size += cost;
  }
  if (partial) v.partial = true;
  return meta;
}

/** The loci filter of a namespace prefix. */
function prefixFilter(prefix: string[]): Record<string, unknown>[] {
  return [{ "metadata.lg": true }, ...prefix.map((label, i) => ({ [`metadata.ns.${i}`]: label }))];
}

const OPS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

/** LangGraph's filter semantics (its stores' compareValues), checked on the client. */
function matches(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, want]) => {
    const have = value[field];
    if (want !== null && typeof want === "object" && !Array.isArray(want) && Object.keys(want).some((k) => k.startsWith("$"))) {
      return Object.entries(want as Record<string, unknown>)
        .filter(([op]) => op.startsWith("$"))
        .every(([op, v]) => {
          switch (op) {
            case "$eq":
              return have === v;
            case "$ne":
              return have !== v;
            case "$gt":
              return Number(have) > Number(v);
            case "$gte":
              return Number(have) >= Number(v);
            case "$lt":
              return Number(have) < Number(v);
            case "$lte":
              return Number(have) <= Number(v);
            case "$in":
              return Array.isArray(v) ? v.includes(have) : false;
            case "$nin":
              return Array.isArray(v) ? !v.includes(have) : true;
          }
          return false;
        });
    }
    return have === want;
  });
}

/**
 * The part of a filter loci can apply (a superset of what it selects):
 * equality and lists of scalars on top-level fields. Items whose value did
 * not fit the metadata (v.partial) always pass, to be checked on the client.
 * budget is how many bytes the filter's JSON may take: conditions that do
 * not fit, the longest first, are left to the client.
 */
function serverFilter(filter: Record<string, unknown> | undefined, budget = Infinity): Record<string, unknown> | undefined {
  if (!filter) return undefined;
  const leaves: Record<string, unknown>[] = [];
  for (const [field, want] of Object.entries(filter)) {
    if (hex(field).length > MAX_META_KEY_BYTES) continue;
    const name = `metadata.v.${hex(field)}`;
    if (isScalar(want)) {
      if (lociScalar(want)) leaves.push({ [name]: want });
    } else if (want !== null && typeof want === "object" && !Array.isArray(want)) {
      for (const [op, v] of Object.entries(want as Record<string, unknown>)) {
        if (!OPS.has(op)) {
          if (op.startsWith("$")) throw new LociError(`filter: unknown operator ${op} on ${field}; LangGraph's are ${[...OPS].join(", ")}`, { code: "invalid", status: 400 });
          continue;
        }
        if ((op === "$eq" || op === "$ne") && lociScalar(v)) leaves.push({ [name]: { [op.slice(1)]: v } });
        if ((op === "$in" || op === "$nin") && Array.isArray(v) && v.length > 0 && v.length <= 1000 && v.every(lociScalar)) {
          leaves.push({ [name]: { [op.slice(1)]: v } });
        }
      }
    }
  }
  const pushed = () => (leaves.length === 0 ? undefined : { or: [{ and: leaves }, { "metadata.v.partial": true }] });
  leaves.sort((a, b) => bytes(JSON.stringify(a)) - bytes(JSON.stringify(b)));
  while (leaves.length > 0 && bytes(JSON.stringify(pushed())) > budget) leaves.pop();
  return pushed();
}

/** The filters of a listing of these loci keys, in as few listings as loci's query limit allows. */
function keyFilters(keys: string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const filterOf = (chunk: string[]) => ({ and: [{ "metadata.lg": true }, { key: { in: chunk } }] });
  const base = bytes(JSON.stringify(filterOf([])));
  let chunk: string[] = [];
  let size = base;
  for (const key of keys) {
    const cost = bytes(JSON.stringify(key)) + 1;
    if (chunk.length > 0 && (size + cost > MAX_QUERY_BYTES || chunk.length >= PAGE)) {
      out.push(filterOf(chunk));
      chunk = [];
      size = base;
    }
    chunk.push(key);
    size += cost;
  }
  if (chunk.length > 0) out.push(filterOf(chunk));
  return out;
}

function checkNamespace(namespace: string[], allowEmpty = false) {
  validateNamespace(namespace, { allowEmpty });
  if (namespace.length > MAX_NAMESPACE_DEPTH) {
    throw new InvalidNamespaceError(`A namespace has at most ${MAX_NAMESPACE_DEPTH} labels in LociStore; got ${namespace.length}.`);
  }
}

export class LociStore extends BaseStore {
  readonly client: Client;
  readonly agentId: string;
  readonly defaultTtl: number | undefined;

  constructor(options: LociStoreOptions = {}) {
    super();
    this.client = options.client ?? new Client({ baseUrl: options.baseUrl, apiKey: options.apiKey });
    this.agentId = options.agentId ?? "langgraph";
    this.defaultTtl = options.ttl?.defaultTtl;
  }

  /** put with a time to live in minutes (or the store's default). */
  override async put(namespace: string[], key: string, value: Record<string, any>, index?: false | string[], options?: { ttl?: number }): Promise<void> {
    await this.batch([{ namespace, key, value, index, ttl: options?.ttl } as LociPutOperation]);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = new Array(operations.length).fill(null);
    const puts = new Map<string, LociPutOperation>();
    for (const op of operations) {
      if ("value" in op) {
        checkNamespace(op.namespace);
        if (typeof op.key !== "string" || op.key === "") throw new InvalidNamespaceError("An item's key must be a non-empty string.");
        if (op.value !== null && (typeof op.value !== "object" || Array.isArray(op.value))) {
          throw new LociError("An item's value must be an object (a record), or null to delete it.", { code: "invalid", status: 400 });
        }
        puts.set(lociKey(op.namespace, op.key), op as LociPutOperation); // the last put of a key wins, as in InMemoryStore
      } else if ("key" in op) {
        checkNamespace((op as GetOperation).namespace);
      } else if ("namespacePrefix" in op) {
        checkNamespace((op as SearchOperation).namespacePrefix, true);
      }
    }
    // Reads first, as InMemoryStore answers them: before the batch's puts.
    const gets = operations.map((op, i) => [op, i] as const).filter(([op]) => "key" in op && !("value" in op));
    if (gets.length > 0) {
      const found = await this.fetchKeys(gets.map(([op]) => lociKey((op as GetOperation).namespace, (op as GetOperation).key)));
      for (const [op, i] of gets) results[i] = found.get(lociKey((op as GetOperation).namespace, (op as GetOperation).key)) ?? null;
    }
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i]!;
      if ("namespacePrefix" in op) results[i] = await this.searchOperation(op as SearchOperation);
      else if (!("key" in op) && !("value" in op)) {
        results[i] = await this.listNamespacesOperation(op as ListNamespacesOperation);
      }
    }
    if (puts.size > 0) await this.applyPuts([...puts.values()]);
    return results as OperationResults<Op>;
  }

  /** The items of these loci keys, by key. */
  private async fetchKeys(keys: string[]): Promise<Map<string, Item>> {
    const out = new Map<string, Item>();
    for (const filters of keyFilters([...new Set(keys)])) {
      const page = await this.list(filters, PAGE, 0);
      for (const m of page.memories) {
        const item = this.item(m);
        if (item) out.set(m.key!, item);
      }
    }
    return out;
  }

  private list(filters: Record<string, unknown>, limit: number, offset: number): Promise<{ count: number; memories: LociMemory[] }> {
    return this.client.request("GET", "/v1/memories", {
      query: { kind: "note", agent_id: this.agentId, limit, offset, filters: JSON.stringify(filters) },
    });
  }

  /** Every memory the filter selects, a thousand at a time, at most max. */
  private async listAll(filters: Record<string, unknown>, max = Infinity): Promise<LociMemory[]> {
    const out: LociMemory[] = [];
    for (let offset = 0; out.length < max; offset += PAGE) {
      const page = await this.list(filters, PAGE, offset);
      out.push(...page.memories);
      if (page.memories.length < PAGE || offset + PAGE >= page.count) break;
    }
    return out.slice(0, max);
  }

  /** A loci memory as an item; undefined for a note this store did not write. */
  private item(m: LociMemory, withScore = false): SearchItem | undefined {
    if (!m.key?.startsWith(KEY_PREFIX)) return undefined;
    let path: unknown;
    try {
      path = JSON.parse(m.key.slice(KEY_PREFIX.length));
    } catch {
      return undefined;
    }
    const value = valueOf(m.content);
    if (!Array.isArray(path) || path.length < 2 || value === null || typeof value !== "object") return undefined;
    const item: SearchItem = {
      namespace: path.slice(0, -1) as string[],
      key: path[path.length - 1] as string,
      value: value as Record<string, any>,
      createdAt: new Date(m.created_at),
      updatedAt: new Date(m.updated_at),
    };
    if (withScore) item.score = m.score;
    return item;
  }

  private async searchOperation(op: SearchOperation): Promise<SearchItem[]> {
    const offset = op.offset ?? 0;
    const limit = op.limit ?? 10;
    const scope = prefixFilter(op.namespacePrefix);
    // A search's filters go in its body; a listing's in its query, whose
    // length loci bounds: what does not fit there is checked on the client.
    const pushed = serverFilter(op.filter, op.query ? Infinity : MAX_QUERY_BYTES - bytes(JSON.stringify({ and: [...scope, {}] })));
    const filters = { and: pushed ? [...scope, pushed] : scope };
    if (op.query) {
      const res = await this.client.request<{ results: (LociMemory & { kind: string })[] }>("POST", "/v1/search", {
        body: { query: op.query, agent_id: this.agentId, kinds: ["note"], limit: MAX_CANDIDATES, filters },
      });
      const items = res.results.map((m) => this.item(m, true)).filter((it): it is SearchItem => !!it && matches(it.value, op.filter));
      return items.slice(offset, offset + limit);
    }
    if (!op.filter) {
      const page = await this.list(filters, Math.min(limit, PAGE), offset);
      return page.memories.map((m) => this.item(m)).filter((it): it is SearchItem => !!it);
    }
    const all = await this.listAll(filters, MAX_CANDIDATES);
    const items = all.map((m) => this.item(m)).filter((it): it is SearchItem => !!it && matches(it.value, op.filter));
    return items.slice(offset, offset + limit);
  }

  private async listNamespacesOperation(op: ListNamespacesOperation): Promise<string[][]> {
    const all = await this.listAll({ "metadata.lg": true });
    const seen = new Map<string, string[]>();
    for (const m of all) {
      const it = this.item(m);
      if (it) seen.set(JSON.stringify(it.namespace), it.namespace);
    }
    let namespaces = [...seen.values()];
    const conds = op.matchConditions ?? [];
    namespaces = namespaces.filter((ns) =>
      conds.every(({ matchType, path }) => {
        if (path.length > ns.length) return false;
        const at = matchType === "prefix" ? 0 : ns.length - path.length;
        return path.every((p, i) => p === "*" || ns[at + i] === p);
      }),
    );
    if (op.maxDepth !== undefined) {
      const cut = new Map<string, string[]>();
      for (const ns of namespaces) cut.set(JSON.stringify(ns.slice(0, op.maxDepth)), ns.slice(0, op.maxDepth));
      namespaces = [...cut.values()];
    }
    namespaces.sort((a, b) => a.join(":").localeCompare(b.join(":")));
    const offset = op.offset ?? 0;
    return namespaces.slice(offset, offset + (op.limit ?? namespaces.length));
  }

  /** The puts of a batch, deletes included, as one loci batch (all or nothing). */
  private async applyPuts(puts: LociPutOperation[]): Promise<void> {
    const deletes = puts.filter((p) => p.value === null);
    let ids: Map<string, string> = new Map();
    if (deletes.length > 0) {
      for (const filters of keyFilters(deletes.map((p) => lociKey(p.namespace, p.key)))) {
        const page = await this.list(filters, PAGE, 0);
        for (const m of page.memories) ids.set(m.key!, m.id);
      }
    }
    const add = puts
      .filter((p) => p.value !== null)
      .map((p) => {
        const ttl = p.ttl ?? this.defaultTtl;
        return {
          kind: "note",
          agent_id: this.agentId,
          key: lociKey(p.namespace, p.key),
          content: contentOf(p.value as Record<string, unknown>),
          metadata: metadataOf(p.namespace, p.value as Record<string, unknown>),
          ttl_seconds: ttl === undefined ? undefined : Math.max(1, Math.round(ttl * 60)),
        };
      });
    const del = deletes.map((p) => ids.get(lociKey(p.namespace, p.key))).filter((id): id is string => !!id); // deleting what is not there is nothing
    if (add.length === 0 && del.length === 0) return;
    const refresh: { id: string; ttl_seconds: number }[] = [];
    for (let i = 0; i < add.length + del.length; i += PAGE) {
      // A batch over 1000 puts goes as several loci batches, each all or nothing.
      const a = add.slice(i, i + PAGE);
      const d = del.slice(Math.max(0, i - add.length), Math.max(0, i + PAGE - add.length));
      const res = await this.client.request<{ results: { id: string; event: string }[] }>("POST", "/v1/memories/batch", {
        body: { add: a.length ? a : undefined, delete: d.length ? d : undefined },
      });
      // The same value again is a repeat that writes nothing: its time to live is set anew here.
      a.forEach((op, j) => {
        const ev = res.results[j];
        if (ev?.event === "NOOP" && op.ttl_seconds !== undefined) refresh.push({ id: ev.id, ttl_seconds: op.ttl_seconds });
      });
    }
    if (refresh.length > 0) {
      await this.client.request("POST", "/v1/memories/batch", { body: { update: refresh } });
    }
  }
}
