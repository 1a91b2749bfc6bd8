// The memories API through the client, against a real `loci serve`:
// every method, and its error cases.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Client, Conflict, Invalid, NotFound, TooLarge } from "@loci-memory/client";
import { Server } from "./server.mjs";

let server;
let c;

before(async () => {
  server = await new Server().start();
  c = new Client({ baseUrl: server.url });
});
after(() => server.stop());

const inHours = (h) => new Date(Date.now() + h * 3600_000).toISOString();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects with cls, and the error has the HTTP status. */
async function rejectsWith(promise, cls, status) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof cls, `${err} is not a ${cls.name}`);
    assert.equal(err.status, status);
    return true;
  });
}

describe("memories", () => {
  it("addMessages: user messages become memories, the rest are skipped; async with getEvent", async () => {
    const res = await c.addMessages(
      [
        { role: "system", content: "You are a helpful chef" },
        { role: "user", content: "I am vegetarian" },
        { role: "assistant", content: "Noted" },
      ],
      { user_id: "alex", session_id: "alex-dinner" },
    );
    assert.deepEqual(res.results.map((r) => [r.event, r.content, r.role]), [["ADD", "I am vegetarian", "user"]]);
    assert.deepEqual(res.skipped.map((s) => [s.index, s.role]), [[0, "system"], [2, "assistant"]]);
    assert.equal(res.inference.mode, "rule");
    const queued = await c.addMessages([{ role: "user", content: "I love hiking" }], { user_id: "alex", async: true });
    assert.equal(queued.status, "PENDING");
    let ev = await c.getEvent(queued.event_id);
    for (let i = 0; i < 200 && ev.status === "PENDING"; i++) {
      await sleep(50);
      ev = await c.getEvent(queued.event_id);
    }
    assert.deepEqual([ev.status, ev.results.map((r) => r.content)], ["SUCCEEDED", ["I love hiking"]]);
    await rejectsWith(c.addMessages([{ role: "robot", content: "beep" }], { user_id: "alex" }), Invalid, 400);
    await rejectsWith(c.getEvent("nope"), NotFound, 404);
  });

  it("add, get, NOOP, keyed UPDATE, history; passages and notes", async () => {
    const u = "alice";
    const ev = await c.addMemory("Alice likes  green tea", { user_id: u, metadata: { source: "chat", n: 2 }, tags: ["drinks"] });
    assert.deepEqual([ev.success, ev.kind, ev.event], [true, "fact", "ADD"]);
    const m = await c.getMemory(ev.id);
    assert.deepEqual([m.id, m.kind, m.content, m.user_id, m.category], [ev.id, "fact", "Alice likes  green tea", u, "general_fact"]);
    assert.deepEqual(m.metadata, { source: "chat", n: 2 });
    assert.deepEqual(m.tags, ["drinks"]);
    assert.equal(m.version, 1);

    const again = await c.addMemory("alice likes green TEA", { user_id: u });
    assert.deepEqual([again.event, again.id], ["NOOP", ev.id]);
    assert.equal((await c.listMemories({ user_id: u })).count, 1);

    const home = await c.addMemory("Lives in Paris", { user_id: u, key: "home", category: "location" });
    const up = await c.addMemory("Lives in Berlin", { user_id: u, key: "home", category: "location" });
    assert.deepEqual([up.event, up.previous_id], ["UPDATE", home.id]);
    assert.notEqual(up.id, home.id);
    const hist = await c.memoryHistory(up.id);
    assert.equal(hist.count, 2);
    assert.deepEqual(
      hist.versions.map((v) => [v.event, v.content, v.current]),
      [
        ["UPDATE", "Lives in Berlin", true],
        ["ADD", "Lives in Paris", false],
      ],
    );

    const p = await c.addMemory("Deploy failed at 3am", { agent_id: "ops", kind: "passage", tags: ["incident"] });
    assert.deepEqual([p.kind, p.event], ["passage", "ADD"]);
    assert.equal((await c.addMemory("deploy failed at 3AM", { agent_id: "ops", kind: "passage" })).event, "NOOP");
    const n = await c.addMemory("Thursday", { agent_id: "ops", kind: "note", key: "day" });
    assert.equal((await c.addMemory("Friday", { agent_id: "ops", kind: "note", key: "day" })).event, "UPDATE");
    assert.equal((await c.getMemory(n.id)).content, "Friday");
  });

  it("scoped helpers", async () => {
    const u = c.user("scoped-u");
    const ev = await u.addMemory("Allergic to peanuts", { category: "health", metadata: { severity: "high" } });
    assert.equal((await c.getMemory(ev.id)).user_id, "scoped-u");
    assert.equal((await u.listMemories({ filters: { "metadata.severity": "high" } })).count, 1);
    const pv = await c.agent("scoped-a").addMemory("Runbook: restart the queue", { kind: "passage" });
    assert.equal((await c.getMemory(pv.id)).agent_id, "scoped-a");
  });

  it("update: one version a patch, NOOP, metadata null clears, absent keeps", async () => {
    const f = await c.addMemory("Prefers email", { user_id: "patch-u", metadata: { v: 0 } });
    let ev = await c.updateMemory(f.id, { content: "Prefers phone calls" });
    assert.deepEqual([ev.event, ev.id, ev.version], ["UPDATE", f.id, 2]);
    assert.deepEqual((await c.getMemory(f.id)).metadata, { v: 0 });
    const same = await c.updateMemory(f.id, { content: "prefers phone  calls" });
    assert.deepEqual([same.event, same.version], ["NOOP", 2]);
    ev = await c.updateMemory(f.id, { metadata: { v: 1 }, tags: ["contact"] });
    assert.deepEqual([ev.event, ev.version], ["UPDATE", 3]);
    const m = await c.getMemory(f.id);
    assert.deepEqual([m.metadata, m.tags, m.version], [{ v: 1 }, ["contact"], 3]);
    const versions = (await c.memoryHistory(f.id)).versions;
    assert.deepEqual(
      versions.map((v) => v.version),
      [3, 2, 1],
    );
    assert.deepEqual(versions[0].metadata, { v: 1 });
    assert.equal(versions[2].content, "Prefers email");
    assert.equal((await c.updateMemory(f.id, { metadata: null })).event, "UPDATE");
    assert.ok(!(await c.getMemory(f.id)).metadata);
    await c.updateMemory(f.id, { expires_at: inHours(1) });
    assert.ok((await c.getMemory(f.id)).expires_at);
    await c.updateMemory(f.id, { ttl_seconds: 3600 });
    // Metadata of any JSON, answered as sent, filtered by path.
    const meta = { topicName: "food", recipe: { kind: "stew", serves: 4 }, none: null };
    await c.updateMemory(f.id, { metadata: meta });
    assert.deepEqual((await c.getMemory(f.id)).metadata, meta);
    const found = await c.listMemories({ user_id: "patch-u", filters: { "metadata.recipe.kind": { icontains: "STEW" } } });
    assert.deepEqual(found.memories.map((m) => m.id), [f.id]);
  });

  it("update errors: unknown id, a session message, a past time, a bad key", async () => {
    await rejectsWith(c.updateMemory("mem_does_not_exist", { content: "x" }), NotFound, 404);
    await c.putSession("s1", "patch-err", { messages: [{ role: "user", content: "hi" }] });
    const msgs = (await c.listMemories({ session_id: "s1", kind: ["session"] })).memories.filter((m) => m.content === "hi");
    assert.equal(msgs.length, 1);
    await rejectsWith(c.updateMemory(msgs[0].id, { content: "bye" }), Conflict, 409);
    const f = await c.addMemory("Temporary", { user_id: "patch-err" });
    await rejectsWith(c.updateMemory(f.id, { expires_at: inHours(-1) }), Invalid, 400);
    await rejectsWith(c.updateMemory(f.id, { metadata: { "bad.key": 1 } }), Invalid, 400);
    await rejectsWith(c.updateMemory(f.id, {}), Invalid, 400);
    assert.equal((await c.getMemory(f.id)).version, 1);
  });

  it("delete; then get, delete and history are 404", async () => {
    const f = await c.addMemory("Owns a cat", { user_id: "del-u" });
    assert.deepEqual(await c.deleteMemory(f.id), { success: true });
    await rejectsWith(c.getMemory(f.id), NotFound, 404);
    await rejectsWith(c.deleteMemory(f.id), NotFound, 404);
    await rejectsWith(c.memoryHistory(f.id), NotFound, 404);
    await rejectsWith(c.getMemory("no/such id?"), NotFound, 404);
  });

  it("add errors: 400 for what is malformed, 413 for metadata over 4 KB, nothing written", async () => {
    const u = "add-err";
    for (const options of [
      { user_id: u, category: "Food!" },
      { kind: "note", agent_id: "a" },
      { kind: "passage" },
      { kind: /** @type {any} */ ("memo"), user_id: u },
      { user_id: u, metadata: { a: { b: { c: { d: { e: 1 } } } } } }, // five levels
      { user_id: u, expires_at: inHours(-1) },
      { user_id: u, ttl_seconds: 0 },
    ]) {
      await rejectsWith(c.addMemory("x", options), Invalid, 400);
    }
    await rejectsWith(c.addMemory("   ", { user_id: u }), Invalid, 400);
    await rejectsWith(c.addMemory("x", { user_id: u, metadata: { a: "x".repeat(5000) } }), TooLarge, 413);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, "y".repeat(200)]));
    await assert.rejects(c.addMemory("x", { user_id: u, metadata: many }), (err) => err instanceof TooLarge && err.code === "too_large");
    assert.equal((await c.listMemories({ user_id: u })).count, 0);
  });

  it("a time to live: answered nowhere once past", async () => {
    const u = "ttl-u";
    const f = await c.addMemory("Door code 1234", { user_id: u, ttl_seconds: 1 });
    assert.ok((await c.getMemory(f.id)).expires_at);
    const g = await c.addMemory("Parking on level 2", { user_id: u, expires_at: inHours(24) });
    await sleep(1200);
    await rejectsWith(c.getMemory(f.id), NotFound, 404);
    assert.deepEqual(
      (await c.listMemories({ user_id: u })).memories.map((m) => m.id),
      [g.id],
    );
    assert.equal((await c.search("door code", { user_id: u })).count, 0);
  });

  it("filters on listMemories and search; a bad filter is 400", async () => {
    const u = "filter-u";
    for (const [content, metadata, tags] of [
      ["Paris trip in May", { topic: "travel", stars: 5, labels: ["trip", "eu"] }, undefined],
      ["Rome trip in June", { topic: "travel", stars: 3 }, undefined],
      ["Likes jazz", { topic: "music", stars: 4 }, undefined],
      ["Likes trips to the sea", undefined, ["sea"]],
    ]) {
      await c.addMemory(content, { user_id: u, metadata, tags });
    }
    const cases = [
      [{ "metadata.topic": "travel" }, 2],
      [{ "metadata.stars": { gte: 4 } }, 2],
      [{ and: [{ "metadata.topic": "travel" }, { "metadata.stars": { lt: 4 } }] }, 1],
      [{ or: [{ "metadata.topic": "music" }, { tags: { contains: "sea" } }] }, 2],
      [{ not: { "metadata.topic": "travel" } }, 2],
      [{ "metadata.topic": { in: ["music", "art"] } }, 1],
      [{ "metadata.topic": { nin: ["music"] } }, 3],
      [{ "metadata.labels": { contains: "eu" } }, 1],
      [{ kind: "fact", "metadata.stars": { gt: 3 } }, 2],
    ];
    for (const [filters, want] of cases) {
      const page = await c.listMemories({ user_id: u, filters, limit: 1 });
      assert.deepEqual([page.count, page.memories.length], [want, 1], JSON.stringify(filters));
      assert.ok((await c.search("trip jazz sea likes", { user_id: u, filters })).count <= want, JSON.stringify(filters));
    }
    // The filter as JSON text is sent as it is.
    assert.equal((await c.listMemories({ user_id: u, filters: '{"metadata.topic": "music"}' })).count, 1);
    const travel = await c.search("trip", { user_id: u, filters: { "metadata.topic": "travel" }, limit: 2 });
    assert.deepEqual(travel.results.map((r) => r.content).sort(), ["Paris trip in May", "Rome trip in June"]);
    // {} holds wherever it stands: {"and": []} holds, {"or": []} does not.
    assert.equal((await c.listMemories({ user_id: u, filters: { and: [] } })).count, 4);
    assert.equal((await c.listMemories({ user_id: u, filters: { or: [] } })).count, 0);
    for (const bad of [{ colour: "red" }, { "metadata.x": { like: 1 } }, { tags: { gt: "a" } }, { and: {} }]) {
      await rejectsWith(c.listMemories({ user_id: u, filters: bad }), Invalid, 400);
      await rejectsWith(c.search("trip", { user_id: u, filters: bad }), Invalid, 400);
    }
    await rejectsWith(c.listMemories({ user_id: u, filters: "{not json" }), Invalid, 400);
  });

  it("batch: all or nothing, events in order", async () => {
    const u = "batch-u";
    const a = await c.addMemory("one", { user_id: u });
    const b = await c.addMemory("two", { user_id: u, metadata: { keep: true } });
    const contents = async () => (await c.listMemories({ user_id: u })).memories.map((m) => m.content).sort();

    await assert.rejects(
      c.batchMemories({
        add: [
          { content: "three", user_id: u },
          { content: "four", user_id: u, category: "Bad!" },
        ],
        update: [{ id: b.id, content: "two!" }],
        delete: [a.id],
      }),
      (err) => err instanceof Invalid && err.message.includes("add[1]"),
    );
    assert.deepEqual(await contents(), ["one", "two"]);
    await rejectsWith(c.batchMemories({ add: [{ content: "five", user_id: u }], delete: ["mem_nope"] }), NotFound, 404);
    assert.deepEqual(await contents(), ["one", "two"]);
    await assert.rejects(
      c.batchMemories({ update: [/** @type {any} */ ({ content: "no id" })] }),
      (err) => err instanceof Invalid && err.message.includes("update[0]"),
    );
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ content: `x${i}`, user_id: u }));
    await rejectsWith(c.batchMemories({ add: tooMany }), Invalid, 400);
    assert.deepEqual(await contents(), ["one", "two"]);

    const res = await c.batchMemories({
      add: [
        { content: "three", user_id: u, expires_at: inHours(24) },
        { content: "THREE", user_id: u },
      ],
      update: [{ id: b.id, content: "two!", metadata: null }],
      delete: [a.id],
    });
    assert.equal(res.count, 4);
    assert.deepEqual(
      res.results.map((r) => r.event),
      ["ADD", "NOOP", "UPDATE", "DELETE"],
    );
    assert.equal(res.results[1].id, res.results[0].id);
    assert.ok((await c.getMemory(res.results[0].id)).expires_at);
    const two = await c.getMemory(b.id);
    assert.equal(two.content, "two!");
    assert.ok(!two.metadata);
    await rejectsWith(c.getMemory(a.id), NotFound, 404);
  });
});
