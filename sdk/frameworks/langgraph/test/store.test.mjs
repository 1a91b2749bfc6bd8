// LociStore (LangGraph's BaseStore over loci's memories API) against
// LangGraph's own InMemoryStore: the same scenarios on both, their answers
// compared (scores aside; loci lists newest first, InMemoryStore in insertion
// order, so unranked lists are compared in key order); a StateGraph (no model)
// whose nodes read and write memory through config.store; TTL; bad input,
// refused with nothing changed.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Embeddings } from "@langchain/core/embeddings";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { InMemoryStore, InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { Client, Invalid, LociError } from "@loci-memory/client";

import { LociStore, MAX_NAMESPACE_DEPTH } from "../dist/index.js";
import { Server } from "../../../typescript/test/server.mjs";
import { runExample } from "../../test/readme.mjs";

let server, client;
beforeAll(async () => {
  server = await new Server().start();
  client = new Client({ baseUrl: server.url, maxRetries: 0 });
}, 180_000);
afterAll(() => server?.stop());

/** Words hashed into a small vector: InMemoryStore ranks a query by it (no model, no network). */
class WordEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  vec(text) {
    const v = new Array(64).fill(0);
    for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let h = 0;
      for (const c of w) h = (h * 31 + c.charCodeAt(0)) % 64;
      v[h] += 1;
    }
    return v;
  }
  async embedDocuments(texts) {
    return texts.map((t) => this.vec(t));
  }
  async embedQuery(text) {
    return this.vec(text);
  }
}

let stores = 0;
/** A LociStore of its own agent, so scenarios do not see each other's items. */
function lociStore(options = {}) {
  return new LociStore({ client, agentId: `lg-test-${++stores}`, ...options });
}
const memoryStore = () => new InMemoryStore({ index: { dims: 64, embeddings: new WordEmbeddings(), fields: ["text"] } });

const path = (it) => [...it.namespace, it.key].join("/");
/** An item as compared: what it holds, not when. */
const plain = (it) => (it === null ? null : { namespace: it.namespace, key: it.key, value: it.value });
const byKey = (items) => items.map(plain).sort((a, b) => path(a).localeCompare(path(b)));

/** The scenario, run on a store; every answer it gets, in order. */
async function scenario(store) {
  const out = [];
  const log = (name, v) => out.push([name, v]);
  await store.put(["users", "alex"], "prefs", { theme: "dark", lang: "en", n: 3 });
  await store.put(["users", "alex"], "food", { likes: "pizza", n: 5, tags: ["a", "b"] });
  await store.put(["users", "sam"], "prefs", { theme: "light", lang: "pt", n: 1, "Upper Field": "x", nested: { deep: true } });
  await store.put(["docs"], "d1", { text: "Python tutorial for beginners" });
  await store.put(["docs", "guides"], "d2", { text: "TypeScript guide to generics" });
  await store.put(["docs", "guides"], "d3", { text: "Cooking pasta at home" });

  log("get", plain(await store.get(["users", "alex"], "prefs")));
  log("get missing key", await store.get(["users", "alex"], "nope"));
  log("get missing namespace", await store.get(["users", "zed"], "prefs"));
  const before = await store.get(["users", "alex"], "prefs");
  await store.put(["users", "alex"], "prefs", { theme: "light", lang: "en", n: 4 });
  const after = await store.get(["users", "alex"], "prefs");
  log("update", [plain(after), after.createdAt.getTime() === before.createdAt.getTime(), after.updatedAt >= before.updatedAt]);

  await store.put(["users", "case"], "k", { name: "Bob", note: "a  b" });
  await store.put(["users", "case"], "k", { name: "BOB", note: "a  b" });
  await store.put(["users", "case"], "k", { name: "BOB", note: "a b" });
  log("values that differ only in case or spacing", plain(await store.get(["users", "case"], "k")));
  log("search prefix", byKey(await store.search(["users"])));
  log("search all", byKey(await store.search([], { limit: 100 })));
  log("search exact namespace", byKey(await store.search(["users", "alex"])));
  log("search no match", await store.search(["nobody"]));
  for (const filter of [
    { theme: "light" },
    { n: { $gt: 2 } },
    { n: { $gte: 4, $lte: 5 } },
    { lang: { $in: ["en", "pt"] } },
    { lang: { $nin: ["en"] } },
    { lang: { $ne: "en" } },
    { theme: { $eq: "light" }, lang: "pt" },
    { "Upper Field": "x" },
    { tags: ["a", "b"] },
    { nested: { deep: true } },
    { missing: { $ne: 1 } },
    { n: "4" },
  ]) {
    log(`filter ${JSON.stringify(filter)}`, byKey(await store.search(["users"], { filter, limit: 100 })));
  }
  const all = await store.search([], { limit: 100 });
  const pages = [...(await store.search([], { limit: 4 })), ...(await store.search([], { limit: 4, offset: 4 }))];
  log("pages", [pages.length, byKey(pages).map(path).join(), byKey(all).map(path).join()]);
  log("filtered pages", [
    (await store.search(["users"], { filter: { n: { $gt: 0 } }, limit: 2 })).length,
    (await store.search(["users"], { filter: { n: { $gt: 0 } }, limit: 2, offset: 2 })).length,
  ]);

  const ranked = await store.search(["docs"], { query: "python tutorial" });
  log("query: best", plain(ranked[0]));
  log("query: filtered", plain((await store.search(["docs"], { query: "guide generics", filter: { text: "TypeScript guide to generics" } }))[0]));

  log("namespaces", await store.listNamespaces());
  log("namespaces prefix", await store.listNamespaces({ prefix: ["users"] }));
  log("namespaces suffix", await store.listNamespaces({ suffix: ["guides"] }));
  log("namespaces wildcard", await store.listNamespaces({ prefix: ["*", "alex"] }));
  log("namespaces depth", await store.listNamespaces({ maxDepth: 1 }));
  log("namespaces paged", await store.listNamespaces({ limit: 2, offset: 1 }));

  await store.delete(["users", "sam"], "prefs");
  log("deleted", await store.get(["users", "sam"], "prefs"));
  await store.delete(["users", "sam"], "prefs"); // deleting what is not there is nothing

  const results = await store.batch([
    { namespace: ["b"], key: "k1", value: { v: 1 } },
    { namespace: ["b"], key: "k1" }, // read before the batch's puts
    { namespace: ["b"], key: "k2", value: { v: 2 } },
    { namespace: ["b"], key: "k2", value: { v: 3 } }, // the last put of a key wins
    { namespacePrefix: ["b"], limit: 10 },
    { matchConditions: [{ matchType: "prefix", path: ["b"] }], limit: 10, offset: 0 },
    { namespace: ["docs"], key: "d1", value: null },
  ]);
  log("batch", [results[0], results[1], results[2], results[4].length, results[5], results[6]]);
  log("after batch", [plain(await store.get(["b"], "k1")), plain(await store.get(["b"], "k2")), await store.get(["docs"], "d1")]);
  return out;
}

describe("LociStore answers as InMemoryStore does", () => {
  it("on the same scenario", async () => {
    const want = await scenario(memoryStore());
    const got = await scenario(lociStore());
    for (let i = 0; i < want.length; i++) expect([got[i]?.[0], got[i]?.[1]]).toEqual(want[i]);
    expect(got.length).toBe(want.length);
  });

  it("on values loci's metadata cannot hold, long filters and many keys at once", async () => {
    const run = async (store) => {
      const out = [];
      const log = (name, v) => out.push([name, v]);
      const odd = { nul: "a\u0000b", lone: "x\ud800y", low: "\udc00", pair: "🦜", n: 1 };
      await store.put(["odd"], "k", odd);
      await store.put(["odd"], "other", { nul: "a", lone: "x", n: 2 });
      log("get", plain(await store.get(["odd"], "k")));
      for (const filter of [
        { nul: "a\u0000b" },
        { lone: "x\ud800y" },
        { nul: { $in: ["a\u0000b", "z"] } },
        { lone: { $ne: "x\ud800y" } },
        { low: { $eq: "\udc00" } },
        { pair: "🦜" },
      ]) {
        log(`filter ${JSON.stringify(filter)}`, byKey(await store.search(["odd"], { filter })));
      }
      const long = "l".repeat(5000);
      await store.put(["long"], "k", { text: long, n: 1 });
      await store.put(["long"], "short", { text: "s", n: 2 });
      for (const filter of [
        { text: long },
        { text: { $in: ["s", long] } },
        { text: { $nin: [long] } },
        { text: { $ne: long }, n: 2 },
        { text: "é".repeat(3000) },
      ]) {
        log(`filter ${JSON.stringify(filter).slice(0, 40)}`, byKey(await store.search(["long"], { filter })));
      }
      // Many keys of 200 bytes read and deleted in one batch: their filters pass loci's 4 KB query limit many times over.
      const keys = Array.from({ length: 60 }, (_, i) => `${i}`.padStart(200, "k"));
      await store.batch(keys.map((key, i) => ({ namespace: ["many"], key, value: { i } })));
      const got = await store.batch(keys.map((key) => ({ namespace: ["many"], key })));
      log("many gets", got.map((it) => it?.value.i));
      await store.batch(keys.slice(0, 50).map((key) => ({ namespace: ["many"], key, value: null })));
      log("many deletes", (await store.search(["many"], { limit: 100 })).map((it) => it.value.i).sort((a, b) => a - b));
      return out;
    };
    const want = await run(memoryStore());
    const got = await run(lociStore());
    for (let i = 0; i < want.length; i++) expect([got[i]?.[0], got[i]?.[1]]).toEqual(want[i]);
    expect(got.length).toBe(want.length);
  });

  it("except that a namespace whose last item is deleted is no longer listed (InMemoryStore keeps it, empty)", async () => {
    const mem = memoryStore();
    const store = lociStore();
    for (const s of [mem, store]) {
      await s.put(["a"], "k", { v: 1 });
      await s.put(["b"], "k", { v: 1 });
      await s.delete(["b"], "k");
    }
    expect(await mem.listNamespaces()).toEqual([["a"], ["b"]]);
    expect(await store.listNamespaces()).toEqual([["a"]]);
  });

  it("in a StateGraph whose nodes read and write memory through config.store", async () => {
    const State = Annotation.Root({
      user: Annotation({ reducer: (_, b) => b, default: () => "" }),
      said: Annotation({ reducer: (_, b) => b, default: () => "" }),
      recalled: Annotation({ reducer: (_, b) => b, default: () => [] }),
    });
    const graph = (store) =>
      new StateGraph(State)
        .addNode("remember", async (s, config) => {
          const ns = ["memories", s.user];
          const n = (await config.store.search(ns, { limit: 100 })).length;
          await config.store.put(ns, `m${n + 1}`, { text: s.said, n: n + 1 });
          return {};
        })
        .addNode("recall", async (s, config) => {
          const items = await config.store.search(["memories", s.user], { limit: 100, filter: { n: { $gte: 1 } } });
          return { recalled: items.sort((a, b) => a.value.n - b.value.n).map((it) => it.value.text) };
        })
        .addEdge(START, "remember")
        .addEdge("remember", "recall")
        .addEdge("recall", END)
        .compile({ store });
    const run = async (store) => {
      const g = graph(store);
      const answers = [];
      for (const [user, said] of [["ana", "I like tea"], ["bo", "I like coffee"], ["ana", "I moved to Porto"]]) {
        answers.push((await g.invoke({ user, said })).recalled);
      }
      return answers;
    };
    const want = await run(memoryStore());
    expect(want).toEqual([["I like tea"], ["I like coffee"], ["I like tea", "I moved to Porto"]]);
    const store = lociStore();
    expect(await run(store)).toEqual(want);
    // What the graph remembered is in loci: a new store over the same agent reads it.
    const again = new LociStore({ client, agentId: store.agentId });
    expect((await again.get(["memories", "ana"], "m2")).value).toEqual({ text: "I moved to Porto", n: 2 });
  });
});

describe("LociStore's own", () => {
  it("TTL: an item put with a time to live is gone once it passes", async () => {
    const store = lociStore({ ttl: { defaultTtl: 1 / 60 } }); // one second
    await store.put(["t"], "short", { v: 1 });
    await store.put(["t"], "long", { v: 2 }, undefined, { ttl: 60 });
    expect((await store.get(["t"], "short")).value).toEqual({ v: 1 });
    const [mem] = (await client.request("GET", "/v1/memories", { query: { kind: "note", agent_id: store.agentId, filters: JSON.stringify({ key: 'lg:["t","long"]' }) } })).memories;
    const left = new Date(mem.expires_at).getTime() - Date.now();
    expect(left).toBeGreaterThan(58 * 60_000);
    expect(left).toBeLessThanOrEqual(60 * 60_000);
    await store.put(["t"], "again", { v: 3 });
    await new Promise((r) => setTimeout(r, 700));
    await store.put(["t"], "again", { v: 3 }, undefined, { ttl: 60 }); // the same value: its TTL is set anew
    await new Promise((r) => setTimeout(r, 800));
    expect(await store.get(["t"], "short")).toBeNull();
    expect((await store.get(["t"], "again")).value).toEqual({ v: 3 });
    await store.delete(["t"], "again");
    expect(await store.search(["t"])).toHaveLength(1);
    expect(await store.listNamespaces()).toEqual([["t"]]);
  });

  it("keeps values exactly, and writes each item as a note loci can read", async () => {
    const store = lociStore();
    const value = { text: "ünïcödé 🦜 \"q\" \\", n: 1.5, ok: false, none: null, list: [1, "a", { b: [] }], deep: { a: { b: { c: 1 } } } };
    await store.put(["exact"], "v", value);
    expect((await store.get(["exact"], "v")).value).toEqual(value);
    const { memories } = await client.request("GET", "/v1/memories", { query: { kind: "note", agent_id: store.agentId } });
    expect(memories).toHaveLength(1);
    expect(memories[0].key).toBe('lg:["exact","v"]');
    expect(JSON.parse(memories[0].content.slice(0, memories[0].content.lastIndexOf("\n#")))).toEqual(value);
    // The same value again writes nothing (no new version).
    await store.put(["exact"], "v", value);
    const [again] = (await client.request("GET", "/v1/memories", { query: { kind: "note", agent_id: store.agentId } })).memories;
    expect(again.version).toBe(memories[0].version);
    expect(memories[0].metadata).toMatchObject({ lg: true, ns: { "0": "exact", n: 1 } });
  });

  it("refuses bad input, as InMemoryStore does where it refuses, and changes nothing", async () => {
    const store = lociStore();
    const mem = memoryStore();
    await store.put(["ok"], "kept", { v: 1 });
    for (const ns of [["a.b"], ["a:b"], [""], ["langgraph"], []]) {
      await expect(mem.put(ns, "k", { v: 1 })).rejects.toThrow(InvalidNamespaceError);
      await expect(store.put(ns, "k", { v: 1 })).rejects.toThrow(InvalidNamespaceError);
    }
    const deep = Array.from({ length: MAX_NAMESPACE_DEPTH + 1 }, (_, i) => `l${i}`);
    await expect(store.put(deep, "k", { v: 1 })).rejects.toThrow(InvalidNamespaceError);
    await expect(store.search(["a.b"])).rejects.toThrow(InvalidNamespaceError);
    await expect(store.put(["ok"], "k", "not an object")).rejects.toThrow(LociError);
    await expect(store.search(["ok"], { filter: { v: { $regex: "x" } } })).rejects.toThrow(/unknown operator \$regex/);
    // One bad put (a key past loci's 256 bytes): the whole batch is refused.
    await expect(
      store.batch([
        { namespace: ["ok"], key: "new", value: { v: 2 } },
        { namespace: ["ok"], key: "kept", value: null },
        { namespace: ["ok"], key: "x".repeat(300), value: { v: 3 } },
      ]),
    ).rejects.toThrow(Invalid);
    expect(await store.get(["ok"], "new")).toBeNull();
    expect((await store.get(["ok"], "kept")).value).toEqual({ v: 1 });
    expect(await store.listNamespaces()).toEqual([["ok"]]);
  });
});

it("the LangGraph store example runs and prints what it says", () => {
  runExample("### LangGraph.js store", "langgraph", server.url);
});
