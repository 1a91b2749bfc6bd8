// mem0's official client (npm mem0ai), unchanged, against a real `loci serve`
// through loci's /mem0 routes: every verb loci supports, mem0's filters, and
// bad input (an unknown id, a filter loci refuses, a batch with one bad
// operation) surfacing as the client's own errors with nothing changed.
// Telemetry is off (MEM0_TELEMETRY=false, read when mem0ai loads), and every
// fetch is checked to stay on this machine.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Server } from "../../../typescript/test/server.mjs";
import { keepFetchLocal, quietMem0 } from "../../test/guard.mjs";
import { runExample } from "../../test/readme.mjs";

quietMem0();
const outside = keepFetchLocal(); // every request the process makes stays on this machine

const { MemoryClient, MemoryNotFoundError, ValidationError, AuthenticationError } = await import("mem0ai");

describe("mem0ai's MemoryClient against loci", () => {
  let server, client, key;
  before(async () => {
    server = await new Server().start();
    key = server.createKey("editor");
    client = new MemoryClient({ apiKey: key, host: server.url + "/mem0" });
    await client.ping();
  });
  after(async () => {
    await server?.stop();
    assert.deepEqual(outside, [], "requests left the machine");
  });

  it("adds messages and text, reads, searches, lists, updates, keeps history, batches and deletes", async () => {
    const added = await client.add(
      [
        { role: "system", content: "You are a helpful chef" },
        { role: "user", content: "I am vegetarian and allergic to nuts" },
        { role: "assistant", content: "Noted: vegetarian, no nuts" },
        { role: "user", content: "No nuts in desserts either" },
      ],
      { user_id: "alex", agent_id: "chef", run_id: "trip-1", metadata: { topic: "food", topicName: "Food", diet: { strict: true } } },
    );
    assert.equal(added.length, 2, "one memory per user message: the system prompt and the assistant's reply are no memories about alex");
    assert.deepEqual(
      added.map((m) => [m.event, m.memory, m.data.memory, m.userId, m.agentId, m.runId, m.metadata]),
      [
        ["ADD", "I am vegetarian and allergic to nuts", "I am vegetarian and allergic to nuts", "alex", "chef", "trip-1", { topic: "food", topicName: "Food", diet: { strict: true } }],
        ["ADD", "No nuts in desserts either", "No nuts in desserts either", "alex", "chef", "trip-1", { topic: "food", topicName: "Food", diet: { strict: true } }],
      ],
    );
    const [veg, noted] = added.map((m) => m.id);

    const [lisbon] = await client.add("Alex lives in Lisbon", { userId: "alex", metadata: { topic: "home" } });
    assert.equal(lisbon.memory, "Alex lives in Lisbon");
    assert.equal(lisbon.runId, null);
    const [again] = await client.add("alex lives in  Lisbon", { userId: "alex" });
    assert.deepEqual([again.event, again.id], ["NOOP", lisbon.id], "the same again stores nothing");
    await client.add([{ role: "user", content: "Sam likes nuts" }], { user_id: "sam" });

    const got = await client.get(veg);
    assert.deepEqual([got.id, got.memory, got.userId, got.categories], [veg, "I am vegetarian and allergic to nuts", "alex", ["general_fact"]]);

    const found = await client.search("nuts", { filters: { AND: [{ user_id: "alex" }, { created_at: { gte: "2000-01-01" } }] }, topK: 5 });
    assert.deepEqual(found.results.map((m) => m.id).sort(), [veg, noted].sort());
    assert.ok(found.results.every((m) => typeof m.score === "number"));
    const byMeta = await client.search("nuts", { filters: { OR: [{ user_id: "sam" }, { metadata: { topic: "food" } }] }, topK: 10 });
    assert.equal(byMeta.results.length, 3);
    const notFood = await client.search("nuts", { filters: { user_id: "alex", NOT: [{ metadata: { topic: "food" } }] } });
    assert.deepEqual(notFood.results, []);
    // A nested value by its path, and contains on a string (icontains without case).
    const strict = await client.search("nuts", { filters: { AND: [{ user_id: "alex" }, { metadata: { diet: { strict: true } } }] } });
    assert.deepEqual(strict.results.map((m) => m.id).sort(), [veg, noted].sort());
    const byTopic = await client.getAll({ filters: { AND: [{ user_id: "alex" }, { "metadata.topicName": { icontains: "FOO" } }] } });
    assert.equal(byTopic.count, 2);
    const byCategory = await client.search("Lisbon", { filters: { user_id: "alex" }, categories: ["general_fact"] });
    assert.deepEqual(byCategory.results.map((m) => m.id), [lisbon.id]);

    const page1 = await client.getAll({ filters: { AND: [{ user_id: "alex" }] }, page: 1, pageSize: 2 });
    assert.equal(page1.count, 3);
    assert.equal(page1.results.length, 2);
    assert.ok(page1.next && page1.previous === null);
    const page2 = await client.getAll({ filters: { user_id: "alex" }, page: 2, pageSize: 2 });
    assert.equal(page2.results.length, 1);
    assert.equal(page2.next, null);
    assert.equal((await client.getAll({ filters: { run_id: "trip-1" } })).count, 2);

    const updated = await client.update(lisbon.id, { text: "Alex lives in Porto" });
    assert.deepEqual([updated.memory, updated.event], ["Alex lives in Porto", "UPDATE"]);
    const history = await client.history(updated.id);
    assert.deepEqual(
      history.map((h) => [h.event, h.oldMemory, h.newMemory, h.memoryId]),
      [
        ["ADD", null, "Alex lives in Lisbon", updated.id],
        ["UPDATE", "Alex lives in Lisbon", "Alex lives in Porto", updated.id],
      ],
    );
    const tagged = await client.update(updated.id, { metadata: { topic: "home", moved: true } });
    assert.deepEqual(tagged.metadata, { topic: "home", moved: true });

    assert.deepEqual(await client.batchUpdate([{ memoryId: veg, text: "Alex is vegan" }, { memoryId: noted, text: "No nuts at all" }]), {
      message: "Successfully updated 2 memories",
    });
    assert.equal((await client.get(veg)).memory, "Alex is vegan");
    assert.deepEqual(await client.batchDelete([noted]), { message: "Successfully deleted 1 memories" });
    await assert.rejects(client.get(noted), MemoryNotFoundError);

    assert.deepEqual(await client.delete(veg), { message: "Memory deleted successfully!" });
    const all = await client.deleteAll({ userId: "alex" });
    assert.equal(all.message, "Memories deleted successfully!");
    assert.equal((await client.getAll({ filters: { user_id: "alex" } })).count, 0);
    assert.equal((await client.getAll({ filters: { user_id: "sam" } })).count, 1);
  });

  it("answers bad input with the client's errors and changes nothing", async () => {
    const [kept] = await client.add("kept as it is", { user_id: "bo", metadata: { v: 1 } });
    const isErr = (cls, says) => (e) => {
      assert.ok(e instanceof cls, `${e.name}: ${e.message}`);
      assert.match(e.message, says);
      return true;
    };
    await assert.rejects(client.get("no-such-id"), isErr(MemoryNotFoundError, /not found/));
    await assert.rejects(client.update("no-such-id", { text: "x" }), isErr(MemoryNotFoundError, /not found/));
    await assert.rejects(client.delete("no-such-id"), isErr(MemoryNotFoundError, /not found/));
    await assert.rejects(client.history("no-such-id"), isErr(MemoryNotFoundError, /not found/));
    await assert.rejects(client.search("kept", { filters: { keywords: { icontains: "kept" } } }), isErr(ValidationError, /keywords/));
    await assert.rejects(client.search("kept", { filters: { user_id: "*" } }), isErr(ValidationError, /wildcard/));
    await assert.rejects(client.search("kept", { filters: { app_id: "app" } }), isErr(ValidationError, /app_id/));
    await assert.rejects(client.search("kept", { threshold: 1.5 }), isErr(ValidationError, /threshold/));
    await assert.rejects(client.getAll({ filters: { created_at: { gte: "last week" } } }), isErr(ValidationError, /RFC 3339/));
    await assert.rejects(client.add([{ role: "user", content: "fine" }, { role: "user", content: " " }], { user_id: "bo" }), isErr(ValidationError, /messages\[1\]/));
    await assert.rejects(client.add("x", { user_id: "bo", metadata: { "not.a.key": 1 } }), ValidationError);
    await assert.rejects(client.deleteAll({}), isErr(ValidationError, /user_id/));
    // One bad operation: the whole batch is refused.
    await assert.rejects(
      client.batchUpdate([{ memoryId: kept.id, text: "changed" }, { memoryId: "no-such-id", text: "x" }]),
      isErr(MemoryNotFoundError, /memories\[1\]/),
    );
    await assert.rejects(client.batchDelete([kept.id, "no-such-id"]), isErr(MemoryNotFoundError, /memories\[1\]/));
    const after = await client.get(kept.id);
    assert.deepEqual([after.memory, after.metadata], ["kept as it is", { v: 1 }]);
    assert.equal((await client.getAll({ filters: { user_id: "bo" } })).count, 1);
    assert.equal((await client.history(kept.id)).length, 1);

    const wrong = new MemoryClient({ apiKey: "not-a-key", host: server.url + "/mem0" });
    await assert.rejects(wrong.get(kept.id), AuthenticationError);
    const viewer = new MemoryClient({ apiKey: server.createKey("viewer"), host: server.url + "/mem0" });
    assert.equal((await viewer.get(kept.id)).memory, "kept as it is");
    await assert.rejects(viewer.add("x", { user_id: "bo" }), isErr(AuthenticationError, /creator/));
  });

  it("runs the README example", async () => {
    const open = await new Server().start();
    try {
      runExample("### mem0", "mem0", open.url);
    } finally {
      await open.stop();
    }
  });
});
