// Every method of Client and its scoped helpers, against a real `loci serve`.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Client, Conflict, Invalid, NotFound, TooLarge, Unauthorized, Forbidden } from "@loci-memory/client";
import { Server } from "./server.mjs";

let server;
let c;

before(async () => {
  server = await new Server().start();
  c = new Client({ baseUrl: server.url });
});
after(() => server.stop());

describe("health", () => {
  it("health and ready", async () => {
    assert.deepEqual(await c.health(), { success: true, status: "ok" });
    assert.deepEqual(await c.ready(), {
      success: true,
      status: "ready",
      writes: "ok",
      retrieval: { mode: "lexical", model: null },
    });
  });

  it("base URL from the environment", async () => {
    const old = process.env.LOCI_URL;
    process.env.LOCI_URL = server.url + "/";
    let fromEnv;
    try {
      fromEnv = new Client();
    } finally {
      if (old === undefined) delete process.env.LOCI_URL;
      else process.env.LOCI_URL = old;
    }
    assert.equal(fromEnv.baseUrl, server.url);
    assert.equal((await fromEnv.health()).status, "ok");
  });

  it("refuses a base URL without a scheme", () => {
    assert.throws(() => new Client({ baseUrl: "127.0.0.1:8420" }), TypeError);
  });
});

describe("notes", () => {
  it("remember, recall, forget", async () => {
    const got = await c.remember("notes-a", "best_posting_time", "Thursday 9am");
    assert.equal(got.action, "created");
    assert.equal(got.message, "Remembered: best_posting_time");
    assert.equal((await c.remember("notes-a", "best_posting_time", "Friday 8am")).action, "updated");
    await c.remember("notes-a", "limits", { posts_per_day: 3 });

    assert.equal((await c.recall("notes-a", "best_posting_time")).value, "Friday 8am");
    assert.deepEqual((await c.recall("notes-a", "limits")).value, { posts_per_day: 3 });

    const all = await c.recallAll("notes-a");
    assert.equal(all.count, 2);
    assert.deepEqual(all.memories.map((m) => m.key).sort(), ["best_posting_time", "limits"]);
    assert.equal((await c.recallAll("notes-a", { limit: 1, offset: 1 })).memories.length, 1);

    const history = await c.noteHistory("notes-a", "best_posting_time");
    assert.deepEqual(history.versions.map((v) => v.value), ["Friday 8am", "Thursday 9am"]);

    assert.deepEqual(await c.forget("notes-a", "best_posting_time"), { success: true });
    await assert.rejects(c.recall("notes-a", "best_posting_time"), (err) => {
      assert.ok(err instanceof NotFound);
      assert.equal(err.message, "Memory not found");
      return true;
    });
  });

  it("escapes keys", async () => {
    const key = "a key/with?odd#chars&é";
    await c.remember("notes-b", key, "v");
    assert.equal((await c.recall("notes-b", key)).key, key);
  });

  it("agent scope", async () => {
    const writer = c.agent("notes-c");
    assert.equal((await writer.remember("tone", "friendly")).action, "created");
    assert.equal((await writer.recall("tone")).value, "friendly");
    assert.equal((await writer.recallAll({ limit: 10 })).count, 1);
    await writer.remember("tone", "warm");
    assert.equal((await writer.noteHistory("tone")).versions.length, 2);
    await writer.forget("tone");
    assert.equal((await writer.recallAll()).count, 0);
  });
});

describe("agents and blocks", () => {
  it("agents", async () => {
    const created = await c.createAgent("michael", { name: "Michael Scott" });
    assert.equal(created.id, "michael");
    assert.deepEqual(created.blocks.map((b) => b.label).sort(), ["current_state", "personality", "relationships"]);
    const custom = await c.createAgent("jim", { blocks: [{ label: "pranks", content: "stapler in jello", limit: 100 }] });
    assert.deepEqual(custom.blocks.map((b) => [b.label, b.limit]), [["pranks", 100]]);
    await assert.rejects(c.createAgent("michael"), Conflict);
    assert.equal((await c.getAgent("michael")).name, "Michael Scott");
    const ids = (await c.listAgents({ limit: 1000 })).agents.map((a) => a.id);
    assert.ok(ids.includes("michael") && ids.includes("jim"));
    assert.equal((await c.listAgents({ limit: 1 })).agents.length, 1);
    await c.deleteAgent("jim");
    await assert.rejects(c.getAgent("jim"), NotFound);
  });

  it("blocks: compare-and-set, limits, prompt", async () => {
    const first = await c.setBlock("dwight", "personality", "Assistant to the regional manager");
    assert.deepEqual([first.action, first.version], ["created", 1]);
    const second = await c.setBlock("dwight", "personality", "Beet farmer", { expected_version: 1 });
    assert.deepEqual([second.action, second.version], ["updated", 2]);
    await assert.rejects(c.setBlock("dwight", "personality", "Stale", { expected_version: 1 }), Conflict);
    await assert.rejects(c.setBlock("dwight", "personality", "Only if new", { expected_version: 0 }), Conflict);
    assert.equal((await c.getBlock("dwight", "personality")).content, "Beet farmer");
    await c.setBlock("dwight", "motto", "Bears. Beets.", { limit: 20 });
    await assert.rejects(c.setBlock("dwight", "motto", "x".repeat(21)), TooLarge);
    const labels = (await c.listBlocks("dwight")).blocks.map((b) => b.label);
    assert.ok(labels.includes("motto") && labels.includes("personality"));
    const prompt = await c.prompt("dwight");
    assert.equal(typeof prompt, "string");
    assert.ok(prompt.includes("### personality\nBeet farmer"), prompt);

    const history = await c.blockHistory("dwight", "personality");
    assert.deepEqual([history.label, history.count], ["personality", 2]);
    assert.deepEqual(history.versions.map((v) => [v.version, v.content]), [[2, "Beet farmer"], [1, "Assistant to the regional manager"]]);
    await assert.rejects(c.blockHistory("dwight", "no_such_block"), NotFound);
  });

  it("shared blocks", async () => {
    await c.createAgent("pam");
    await c.createAgent("angela");
    const shared = await c.createBlock("pam", "office_news", "Party on Friday", { shared: true });
    assert.equal(shared.is_shared, true);
    assert.equal(shared.owner_agent_id, "pam");
    assert.equal((await c.createBlock("pam", "sketches", "Watercolours")).is_shared, false);
    await assert.rejects(c.createBlock("pam", "sketches", "again"), Conflict);

    assert.equal((await c.attachBlock(shared.id, "angela")).agent_id, "angela");
    await c.attachBlock(shared.id, "angela"); // idempotent
    assert.deepEqual((await c.listBlockConsumers(shared.id)).consumers.map((x) => x.agent_id), ["angela"]);
    assert.ok((await c.prompt("angela")).includes("### office_news\nParty on Friday"));

    await c.detachBlock(shared.id, "angela");
    assert.equal((await c.listBlockConsumers(shared.id)).count, 0);
    await assert.rejects(c.detachBlock(shared.id, "angela"), NotFound);
  });

  it("agent scope", async () => {
    const kevin = c.agent("kevin");
    assert.equal((await kevin.create({ name: "Kevin" })).id, "kevin");
    assert.equal((await kevin.get()).name, "Kevin");
    const v = (await kevin.setBlock("personality", "Chili")).version;
    await kevin.setBlock("personality", "Famous chili", { expected_version: v });
    assert.equal((await kevin.getBlock("personality")).content, "Famous chili");
    assert.deepEqual((await kevin.blockHistory("personality")).versions.map((x) => x.content), ["Famous chili", "Chili", ""]);
    const shared = await kevin.createBlock("snacks", "M&Ms", { shared: true });
    assert.ok((await kevin.listBlocks()).blocks.some((b) => b.label === "snacks"));
    const oscar = c.agent("oscar");
    await oscar.create();
    await oscar.attachBlock(shared.id);
    assert.ok((await oscar.prompt()).includes("M&Ms"));
    await oscar.detachBlock(shared.id);
    assert.ok(!(await oscar.prompt()).includes("M&Ms"));
    await kevin.delete();
    await assert.rejects(kevin.get(), NotFound);
  });
});

describe("passages", () => {
  it("add, list, search, delete", async () => {
    const a = await c.addPassage("stanley", "That time Michael grilled his foot", { tags: ["episode"] });
    const b = await c.addPassage("stanley", "Pretzel day is the best day of the year");
    const listed = await c.listPassages("stanley");
    assert.equal(listed.count, 2);
    assert.equal(listed.passages[0].id, b.id); // newest first
    const tagged = await c.listPassages("stanley", { tag: "episode", limit: 20, offset: 0 });
    assert.deepEqual(tagged.passages.map((p) => p.id), [a.id]);

    const found = await c.searchPassages("stanley", "grilled foot", { limit: 5 });
    assert.equal(found.results[0].id, a.id);
    assert.ok(found.results[0].score > 0);
    assert.ok("explain" in (await c.searchPassages("stanley", "pretzel", { explain: true })).results[0]);
    assert.equal((await c.searchPassages("stanley", "grilled", { tag: "nothing" })).count, 0);

    await c.deletePassage("stanley", a.id);
    await assert.rejects(c.deletePassage("stanley", a.id), NotFound);
  });

  it("agent scope", async () => {
    const creed = c.agent("creed");
    const p = await creed.addPassage("Sprouts and mung beans", { tags: ["food"] });
    assert.equal((await creed.listPassages({ tag: "food" })).count, 1);
    assert.equal((await creed.searchPassages("mung beans")).results[0].id, p.id);
    await creed.deletePassage(p.id);
    assert.equal((await creed.listPassages()).count, 0);
  });
});

describe("sessions", () => {
  it("put, append, get, list, delete", async () => {
    const put = await c.putSession("s1", "sess-u1", {
      context: { vertical: "Retail" },
      summary: "Planned the Q3 campaign",
      messages: [{ role: "user", content: "Budget is 500K" }],
      is_persistent: true,
      expires_at: "2099-01-01T00:00:00Z",
      confidence: 80,
    });
    assert.equal(put.action, "created");
    assert.equal(put.expires_at, "2099-01-01T00:00:00Z");
    assert.equal((await c.putSession("s1", "sess-u1", { summary: "Replanned" })).action, "updated");
    await assert.rejects(c.putSession("s1", "someone-else"), Conflict);

    const appended = await c.appendMessage("s1", "assistant", "Noted");
    assert.deepEqual([appended.message_count, appended.index], [1, 0]);
    await assert.rejects(c.appendMessage("no-such-session", "user", "hello"), NotFound);

    const got = await c.getSession("s1");
    assert.equal(got.summary, "Replanned");
    assert.deepEqual(got.messages.map((m) => m.content), ["Noted"]);

    await c.putSession("s2", "sess-u1", { summary: "Second" });
    const listed = await c.listSessions("sess-u1", { limit: 10, offset: 0 });
    assert.equal(listed.count, 2);
    assert.equal(listed.sessions[0].session_id, "s2");

    assert.equal((await c.deleteSession("s1")).deleted, true);
    assert.equal((await c.deleteSession("s1")).deleted, false);
    await assert.rejects(c.getSession("s1"), NotFound);
  });

  it("user scope", async () => {
    const u = c.user("sess-u2");
    await u.putSession("s3", { summary: "Talked about CTV", is_persistent: true });
    assert.equal((await u.listSessions()).count, 1);
  });
});

describe("working memory", () => {
  it("set, get, list, clear", async () => {
    assert.equal((await c.setWorking("t1", "plan", { step: 2, of: 5 }, "planner")).action, "created");
    await c.setWorking("t1", "note", "check budget", "planner", { user_id: "work-u1" });
    assert.deepEqual((await c.getWorking("t1", "plan")).value, { step: 2, of: 5 });
    assert.equal((await c.getWorking("t1", "note", { agent_id: "planner", user_id: "work-u1" })).user_id, "work-u1");
    await c.setWorking("t1", "tmp", "scratch", "planner");
    await c.deleteWorking("t1", "tmp");
    await assert.rejects(c.getWorking("t1", "tmp"), NotFound);
    await assert.rejects(c.deleteWorking("t1", "tmp"), NotFound);
    assert.deepEqual((await c.listWorking("t1")).values, { plan: { step: 2, of: 5 }, note: "check budget" });
    assert.equal((await c.listWorking("t1", { agent_id: "planner", user_id: "work-u1" })).count, 1);
    await assert.rejects(c.setWorking("t1", "big", "x".repeat(60000), "planner"), TooLarge);
    assert.equal((await c.clearWorking("t1", { agent_id: "planner", user_id: "work-u1" })).deleted, 1);
    assert.equal((await c.clearWorking("t1")).deleted, 1);
    await assert.rejects(c.getWorking("t1", "plan"), NotFound);
  });

  it("agent scope", async () => {
    const planner = c.agent("planner2");
    await planner.setWorking("t2", "plan", [1, 2, 3]);
    assert.deepEqual((await planner.getWorking("t2", "plan")).value, [1, 2, 3]);
    assert.deepEqual((await planner.listWorking("t2")).values, { plan: [1, 2, 3] });
    assert.equal((await planner.clearWorking("t2")).deleted, 1);
  });
});

describe("episodes", () => {
  it("record, search, recent, feedback", async () => {
    const ep = await c.recordEpisode(
      "ep-u1", "planner", "budget_split", "Split a 500K budget across search and social", "success",
      { context: { budget: 500000 }, outcome_details: { note: "spot on" }, confidence_score: 0.9 },
    );
    assert.ok(ep.id);
    await c.recordEpisode("ep-u1", "planner", "channel_mix", "Picked CTV and paid search", "partial");
    await assert.rejects(c.recordEpisode("ep-u1", "planner", "x", "y", /** @type {any} */ ("maybe")), Invalid);

    const found = await c.searchEpisodes("ep-u1", "planner", "budget split", { outcome: "success", limit: 5 });
    assert.equal(found.results[0].id, ep.id);
    assert.ok("explain" in (await c.searchEpisodes("ep-u1", "planner", "budget", { explain: true })).results[0]);

    assert.equal((await c.recentEpisodes("ep-u1", "planner")).count, 2);
    const only = await c.recentEpisodes("ep-u1", "planner", { action_type: "budget_split", outcome: "success", limit: 10, offset: 0 });
    assert.deepEqual(only.episodes.map((e) => e.id), [ep.id]);

    const fb = await c.episodeFeedback(ep.id, { rating: 5, comment: "spot on", corrections: { split: "60/40" } });
    assert.equal(fb.id, ep.id);
    assert.equal(fb.user_feedback.rating, 5);
    await assert.rejects(c.episodeFeedback("no-such-episode", { rating: 1 }), NotFound);

    const got = await c.getEpisode(ep.id);
    assert.deepEqual([got.id, got.action_type, got.user_feedback.rating], [ep.id, "budget_split", 5]);
    assert.deepEqual(await c.deleteEpisode(ep.id), { success: true });
    await assert.rejects(c.getEpisode(ep.id), NotFound);
    await assert.rejects(c.deleteEpisode(ep.id), NotFound);
    assert.equal((await c.recentEpisodes("ep-u1", "planner")).count, 1);
  });

  it("user scope", async () => {
    const u = c.user("ep-u2");
    const ep = await u.recordEpisode("planner", "audit", "Audited the accounts", "failure", { confidence_score: 0.2 });
    assert.equal((await u.recentEpisodes("planner")).episodes[0].id, ep.id);
    assert.equal((await u.searchEpisodes("planner", "audited accounts")).results[0].id, ep.id);
  });
});

describe("facts", () => {
  it("store, search, list, validate, contradict", async () => {
    const f = await c.storeFact("user_preference", "Prefers weekly summaries on Mondays", {
      user_id: "fact-u1", agent_id: "writer", keywords: ["summary", "monday"], evidence: { said: "Mondays please" },
    });
    assert.equal(f.relevance_score, 1);
    const g = await c.storeFact("general_fact", "Weekly summaries are sent at 9am");
    await assert.rejects(c.storeFact("Gossip!", "not a category"), Invalid);

    const ids = (await c.searchFacts("weekly summary", { user_id: "fact-u1", include_global: true, limit: 10 })).results.map((r) => r.id);
    assert.ok(ids.includes(f.id) && ids.includes(g.id));
    const onlyUser = await c.searchFacts("weekly summary", { user_id: "fact-u1", category: "user_preference", explain: true });
    assert.deepEqual(onlyUser.results.map((r) => r.id), [f.id]);
    assert.ok("explain" in onlyUser.results[0]);

    const listed = await c.listFacts({ user_id: "fact-u1", keyword: "monday" });
    assert.deepEqual(listed.facts.map((x) => x.id), [f.id]);
    assert.ok(listed.facts[0].access_count >= 1);

    const contradicted = await c.contradictFact(f.id);
    assert.ok(Math.abs(contradicted.relevance_score - 0.8) < 1e-9);
    assert.equal(contradicted.contradiction_count, 1);
    const validated = await c.validateFact(f.id);
    assert.ok(Math.abs(validated.relevance_score - 0.9) < 1e-9);
    assert.equal(validated.is_validated, true);
    await assert.rejects(c.validateFact("no-such-fact"), NotFound);

    assert.equal((await c.getFact(g.id)).fact, "Weekly summaries are sent at 9am");
    assert.deepEqual(await c.deleteFact(g.id), { success: true }); // a global fact
    await assert.rejects(c.getFact(g.id), NotFound);
    await assert.rejects(c.deleteFact(g.id), NotFound);
  });

  it("facts over time: key, valid_at, as_of, include_history, history, invalidate", async () => {
    const paris = await c.storeFact("general_fact", "Lives in Paris", {
      user_id: "time-u1", key: "home_city", valid_at: "2023-05-01T00:00:00Z",
    });
    assert.deepEqual([paris.key, paris.valid_at, paris.status], ["home_city", "2023-05-01T00:00:00Z", "current"]);
    const berlin = await c.storeFact("general_fact", "Lives in Berlin", { user_id: "time-u1", key: "home_city" });
    assert.equal(berlin.supersedes, paris.id);

    const old = await c.getFact(paris.id);
    assert.deepEqual([old.status, old.superseded_by, old.invalid_at], ["superseded", berlin.id, berlin.valid_at]);

    const ids = (r) => r.map((x) => x.id);
    assert.deepEqual(ids((await c.searchFacts("lives", { user_id: "time-u1" })).results), [berlin.id]);
    assert.deepEqual(ids((await c.searchFacts("lives", { user_id: "time-u1", as_of: "2024-01-01T00:00:00Z" })).results), [paris.id]);
    const every = await c.searchFacts("lives", { user_id: "time-u1", include_history: true });
    assert.deepEqual(ids(every.results).sort(), [paris.id, berlin.id].sort());

    assert.deepEqual(ids((await c.listFacts({ user_id: "time-u1" })).facts), [berlin.id]);
    assert.deepEqual(ids((await c.listFacts({ user_id: "time-u1", as_of: "2024-01-01T00:00:00Z" })).facts), [paris.id]);
    const marked = await c.listFacts({ user_id: "time-u1", include_history: true });
    assert.deepEqual(marked.facts.map((f) => [f.fact, f.status]).sort(), [["Lives in Berlin", "current"], ["Lives in Paris", "superseded"]]);

    const history = await c.factHistory(paris.id);
    assert.deepEqual([history.count, ids(history.facts)], [2, [berlin.id, paris.id]]);
    await assert.rejects(c.factHistory("no-such-fact"), NotFound);

    assert.deepEqual((await c.userMemories("time-u1")).memories.fact.map((m) => m.content), ["Lives in Berlin"]);
    const then = await c.userMemories("time-u1", { as_of: "2024-01-01T00:00:00Z" });
    assert.deepEqual(then.memories.fact.map((m) => m.content), ["Lives in Paris"]);
    assert.equal((await c.userMemories("time-u1", { include_history: true })).memories.fact.length, 2);

    const ended = await c.invalidateFact(berlin.id, { at: "2099-01-01T00:00:00Z" });
    assert.deepEqual([ended.invalid_at, ended.status], ["2099-01-01T00:00:00Z", "current"]);
    await assert.rejects(c.invalidateFact(berlin.id, { at: "2000-01-01T00:00:00Z" }), Invalid); // before its valid_at
    await assert.rejects(c.invalidateFact(paris.id), Conflict); // already ended
    assert.equal((await c.invalidateFact(berlin.id)).status, "invalidated");
    assert.equal((await c.listFacts({ user_id: "time-u1" })).count, 0);
    await assert.rejects(c.invalidateFact("no-such-fact"), NotFound);
  });

  it("disputes and the review queue", async () => {
    const f = await c.storeFact("general_fact", "Works at Dunder Mifflin", { user_id: "rev-u1" });
    const g = await c.storeFact("general_fact", "Drives a Chrysler Sebring", { user_id: "rev-u1" });
    await assert.rejects(c.resolveFact(f.id, true), Conflict); // not disputed
    await c.contradictFact(f.id);
    await c.contradictFact(g.id);
    const disputed = await c.listFacts({ user_id: "rev-u1", status: "disputed" });
    assert.deepEqual(disputed.facts.map((x) => x.id).sort(), [f.id, g.id].sort());
    assert.deepEqual([...new Set(disputed.facts.map((x) => x.status))], ["disputed"]);
    await assert.rejects(c.listFacts({ user_id: "rev-u1", status: /** @type {any} */ ("bogus") }), Invalid);

    await c.observePreference("rev-u1", "tone", "formal", "explicit");
    await c.contradictPreference("rev-u1", "tone", "explicit");
    await c.observePreference("rev-u1", "vertical", "Paper", "explicit");
    await assert.rejects(c.resolvePreference("rev-u1", "vertical", true), Conflict); // not flagged
    await c.contradictPreference("rev-u1", "vertical", "explicit");

    const queue = await c.reviewQueue("rev-u1");
    assert.equal(queue.count, 4);
    assert.deepEqual(queue.items.map((x) => `${x.kind} ${x.reason}`).sort(), [
      "fact disputed", "fact disputed", "preference flagged_for_removal", "preference flagged_for_removal",
    ]);
    assert.equal((await c.reviewQueue("rev-u1", { limit: 1, offset: 1 })).items.length, 1);

    const kept = await c.resolveFact(f.id, true);
    assert.deepEqual([kept.id, kept.status], [f.id, "current"]);
    const dropped = await c.resolveFact(g.id, false);
    assert.equal(dropped.status, "invalidated");
    assert.ok(dropped.invalid_at);
    await assert.rejects(c.resolveFact("no-such-fact", true), NotFound);

    const stays = await c.resolvePreference("rev-u1", "tone", true);
    assert.deepEqual([stays.type, stays.kept, stays.flagged_for_removal], ["tone", true, false]);
    const gone = await c.resolvePreference("rev-u1", "vertical", false);
    assert.deepEqual([gone.type, gone.kept], ["vertical", false]);
    assert.deepEqual((await c.listPreferences("rev-u1")).preferences.map((p) => p.type), ["tone"]);
    await assert.rejects(c.resolvePreference("rev-u1", "vertical", true), NotFound);
    assert.deepEqual(await c.reviewQueue("rev-u1"), { success: true, count: 0, items: [] });
  });

  it("user scope", async () => {
    const u = c.user("fact-u2");
    const f = await u.storeFact("career_goal", "Wants to lead a data team", { keywords: ["data"] });
    assert.equal((await u.searchFacts("data team")).results[0].id, f.id);
    assert.equal((await u.listFacts({ keyword: "data" })).count, 1);
  });
});

describe("preferences and privacy", () => {
  it("observe, use, confirm, contradict, list, context, delete, clear", async () => {
    const p = await c.observePreference("pref-u1", "vertical", "Retail", "explicit");
    assert.deepEqual([p.action, p.confidence, p.tier], ["created", 100, "high"]);
    const imp = await c.observePreference("pref-u1", "channel_preference", ["Paid Search", "CTV"], "implicit", { context: "frequently selected" });
    assert.equal(imp.confidence, 40);
    assert.equal((await c.observePreference("pref-u1", "channel_preference", ["Paid Search", "CTV"], "implicit")).confidence, 55);
    assert.equal((await c.usePreference("pref-u1", "channel_preference")).confidence, 55); // at its peak
    assert.equal((await c.contradictPreference("pref-u1", "channel_preference", "implicit")).confidence, 25);
    assert.equal((await c.confirmPreference("pref-u1", "channel_preference")).confidence, 100);
    await c.observePreference("pref-u1", "tone", "formal", "decision", { session_id: "pref-s1" });
    await assert.rejects(c.observePreference("pref-u1", "tone", "formal", /** @type {any} */ ("rumour")), Invalid);
    await assert.rejects(c.usePreference("pref-u1", "no_such_type"), NotFound);

    const listed = await c.listPreferences("pref-u1", { limit: 10, offset: 0 });
    assert.deepEqual(listed.preferences.map((x) => x.type).sort(), ["channel_preference", "tone", "vertical"]);
    assert.ok((await c.listPreferences("pref-u1", { session_id: "pref-s1" })).preferences.some((x) => x.type === "tone"));
    assert.equal((await c.usePreference("pref-u1", "tone", { session_id: "pref-s1" })).type, "tone");
    assert.equal((await c.confirmPreference("pref-u1", "tone", { session_id: "pref-s1" })).confidence, 100);
    assert.equal((await c.contradictPreference("pref-u1", "vertical", "explicit")).flagged_for_removal, true);

    const ctx = await c.userContext("pref-u1");
    assert.equal(ctx.user_id, "pref-u1");
    assert.ok(ctx.preferences.some((x) => x.type === "channel_preference"));
    assert.equal((await c.userContext("pref-new")).created, true);

    assert.equal((await c.deletePreference("pref-u1", "channel_preference")).deleted, 1);
    await assert.rejects(c.deletePreference("pref-u1", "channel_preference"), NotFound);
    assert.ok((await c.clearPreferences("pref-u1")).deleted >= 1);
    assert.equal((await c.listPreferences("pref-u1")).count, 0);
  });

  it("memories, forget, delete user", async () => {
    await c.storeFact("user_preference", "Prefers weekly summaries on Mondays", { user_id: "priv-u1" });
    await c.observePreference("priv-u1", "vertical", "Retail", "explicit");
    await c.putSession("priv-s1", "priv-u1", { summary: "Quarterly plan" });
    const mems = await c.userMemories("priv-u1");
    assert.equal(mems.memories.fact.length, 1);
    assert.equal(mems.memories.preference.length, 1);

    const preview = await c.forgetUserMemories("priv-u1", { query: "weekly summaries", dry_run: true });
    assert.equal(preview.dry_run, true);
    assert.equal(preview.count, 1);
    assert.equal((await c.userMemories("priv-u1")).memories.fact.length, 1);
    const gone = await c.forgetUserMemories("priv-u1", { ids: preview.deleted.map((d) => d.id) });
    assert.equal(gone.count, 1);
    assert.equal((await c.userMemories("priv-u1")).memories.fact.length, 0);

    assert.ok((await c.deleteUser("priv-u1")).deleted >= 2);
    assert.equal((await c.userMemories("priv-u1")).count, 0);
  });

  it("user scope", async () => {
    const u = c.user("pref-u3");
    await u.observePreference("channel", "CTV", "implicit");
    await u.usePreference("channel");
    await u.confirmPreference("channel");
    assert.equal((await u.contradictPreference("channel", "implicit")).confidence, 70);
    assert.equal((await u.listPreferences()).count, 1);
    assert.equal((await u.context()).preferences[0].type, "channel");
    assert.equal((await u.memories()).count, 1);
    assert.equal((await u.forget({ query: "CTV", dry_run: true })).count, 1);
    await u.observePreference("tone", "casual", "explicit");
    assert.equal((await u.deletePreference("tone")).deleted, 1);
    assert.equal((await u.clearPreferences()).deleted, 1);
    await u.observePreference("tone", "casual", "explicit");
    await u.contradictPreference("tone", "explicit");
    assert.equal((await u.reviewQueue({ limit: 10 })).items[0].type, "tone");
    assert.equal((await u.resolvePreference("tone", true)).kept, true);
    assert.equal((await u.reviewQueue()).count, 0);
    await u.storeFact("general_fact", "Owns a bobblehead", { key: "desk_item", valid_at: "2020-01-01T00:00:00Z" });
    await u.storeFact("general_fact", "Owns a stapler", { key: "desk_item" });
    assert.equal((await u.memories({ include_history: true })).memories.fact.length, 2);
    assert.equal((await u.memories({ as_of: "2021-01-01T00:00:00Z" })).memories.fact[0].content, "Owns a bobblehead");
    assert.equal((await u.delete()).deleted, 3);
  });
});

describe("search", () => {
  it("hybrid search with explain, kinds and tags", async () => {
    await c.addPassage("search-a", "That time Michael grilled his foot", { tags: ["episode"] });
    await c.remember("search-a", "grill", "The foot grill is in the break room");
    await c.storeFact("user_preference", "Likes a budget review on Fridays", { user_id: "search-u1" });

    const res = await c.search("grilled foot", { agent_id: "search-a", explain: true });
    assert.ok(res.count >= 2);
    assert.ok("explain" in res.results[0]);
    assert.ok("pending_embeddings" in res);
    const only = await c.search("grilled foot", { agent_id: "search-a", kinds: ["passage"], tags: ["episode"], limit: 5 });
    assert.deepEqual(only.results.map((r) => r.kind), ["passage"]);
    assert.equal((await c.search("budget", { user_id: "search-u1" })).results[0].kind, "fact");
    assert.equal((await c.search("grilled", { agent_id: "search-a", session_id: "none" })).count, 0);
    await assert.rejects(c.search("   "), Invalid);
  });

  it("scopes", async () => {
    const a = c.agent("search-b");
    await a.addPassage("Pretzel day");
    assert.equal((await a.search("pretzel")).results[0].kind, "passage");
    const u = c.user("search-u2");
    await u.storeFact("general_fact", "Pretzels are salty");
    assert.equal((await u.search("pretzels", { kinds: ["fact"] })).count, 1);
  });
});

describe("overview: users, stats, timeline, whoami", () => {
  it("list users", async () => {
    await c.userContext("ov-ann"); // registers the user
    await c.storeFact("general_fact", "Ann likes tea", { user_id: "ov-anna" });
    const users = await c.listUsers({ q: "OV-ANN", limit: 50 });
    assert.deepEqual(users.users.map((u) => u.user_id).sort(), ["ov-ann", "ov-anna"]);
    assert.equal(users.count, 2);
    assert.equal(users.users.find((u) => u.user_id === "ov-anna").memories, 1);
    assert.equal((await c.listUsers({ q: "ov-ann", limit: 1, offset: 1 })).users.length, 1);
    assert.equal((await c.listUsers({ q: "nobody-has-this-id" })).count, 0);
    await assert.rejects(c.listUsers({ limit: 100000 }), Invalid);
  });

  it("stats", async () => {
    await c.remember("ov-agent", "k", "v");
    await c.addPassage("ov-agent", "A passage about the warehouse");
    await c.storeFact("general_fact", "Bob works in the warehouse", { user_id: "ov-bob" });
    const whole = await c.stats();
    assert.ok(whole.total >= 3);
    assert.equal(whole.growth.length, 30);
    const mine = await c.stats({ agent_id: "ov-agent", days: 2, top: 1 });
    // The agent's first write gave it the three standard blocks.
    assert.deepEqual(mine.kinds, { note: 1, passage: 1, block: 3, working: 0, episode: 0, fact: 0, preference: 0, session: 0 });
    assert.deepEqual([mine.agent_id, mine.total, mine.growth.length], ["ov-agent", 5, 2]);
    assert.deepEqual(mine.top_agents, [{ id: "ov-agent", count: 5 }]);
    assert.ok("pending" in mine.embeddings);
    assert.equal((await c.stats({ user_id: "ov-bob" })).kinds.fact, 1);
    assert.equal((await c.agent("ov-agent").stats({ days: 1 })).total, 5);
    assert.equal((await c.user("ov-bob").stats()).total, 1);
    await assert.rejects(c.stats({ days: 0 }), Invalid);
    await assert.rejects(c.stats({ top: 101 }), Invalid);
  });

  it("timeline", async () => {
    await c.remember("ov-tl", "first", "one");
    await c.addPassage("ov-tl", "two");
    await c.storeFact("general_fact", "three", { user_id: "ov-tl-u", agent_id: "ov-tl" });
    const kinds = (r) => r.memories.map((m) => m.kind);
    const everything = await c.listMemories({ agent_id: "ov-tl" });
    // Newest first; the agent's first write gave it the three standard blocks.
    assert.deepEqual(kinds(everything), ["fact", "passage", "block", "block", "block", "note"]);
    assert.equal(everything.count, 6);
    assert.deepEqual(kinds(await c.listMemories({ agent_id: "ov-tl", kind: ["passage"] })), ["passage"]);
    assert.deepEqual(kinds(await c.listMemories({ agent_id: "ov-tl", kind: ["note", "fact"] })), ["fact", "note"]);
    assert.deepEqual(kinds(await c.listMemories({ agent_id: "ov-tl", limit: 1, offset: 5 })), ["note"]);
    const created = everything.memories[1].created_at; // the passage's
    assert.deepEqual(kinds(await c.listMemories({ agent_id: "ov-tl", before: created })), ["block", "block", "block", "note"]);
    assert.deepEqual(kinds(await c.listMemories({ agent_id: "ov-tl", after: created })), ["fact"]);
    const tomorrow = new Date(Date.now() + 86400_000).toISOString();
    assert.equal((await c.listMemories({ agent_id: "ov-tl", after: tomorrow })).count, 0);
    assert.equal((await c.listMemories({ user_id: "ov-tl-u" })).memories[0].content, "three");
    assert.equal((await c.listMemories({ agent_id: "ov-tl", session_id: "none", task_id: "none" })).count, 0);
    assert.equal((await c.agent("ov-tl").listMemories({ kind: ["note"] })).count, 1);
    assert.equal((await c.user("ov-tl-u").listMemories()).count, 1);
    await assert.rejects(c.listMemories({ kind: [/** @type {any} */ ("gossip")] }), Invalid);
  });

  it("whoami", async () => {
    const me = await c.whoami();
    assert.deepEqual([me.auth, me.key_id, me.role, me.agent_id], [false, "", "admin", ""]);
    assert.ok(me.workspace);
  });
});

describe("administration", () => {
  it("maintenance, export, import, audit", async () => {
    const rep = await c.maintain({ tasks: ["decay", "prune"], dry_run: true });
    assert.equal(rep.dry_run, true);
    assert.deepEqual(Object.keys(rep.tasks).sort(), ["decay", "prune"]);
    assert.deepEqual(Object.keys((await c.maintain()).tasks).sort(), ["consolidate", "decay", "expire", "prune"]);

    await c.remember("admin-a", "k", "exported");
    await c.storeFact("general_fact", "An exported fact", { user_id: "admin-u1" });
    assert.ok((await c.export()).includes('"exported"'));
    const dump = await c.export({ user_id: "admin-u1" });
    assert.deepEqual(dump.split("\n").filter((l) => l.includes('"kind"')).map((l) => JSON.parse(l).kind), ["fact"]);
    await c.deleteUser("admin-u1");
    assert.equal((await c.userMemories("admin-u1")).count, 0);
    assert.equal((await c.importJsonl(dump)).records, 1);
    assert.equal((await c.userMemories("admin-u1")).memories.fact[0].content, "An exported fact");
    // The same import again skips what is there (a re-run after a failure
    // in the middle); a record present with other content is a conflict.
    assert.equal((await c.importJsonl(new TextEncoder().encode(dump))).skipped, 1);
    await assert.rejects(c.importJsonl(dump.replace('"version":1,', '"version":9,')), Conflict);

    assert.ok((await c.audit({ agent_id: "admin-a", limit: 50 })).count > 0);
    const tomorrow = new Date(Date.now() + 86400_000).toISOString();
    assert.equal((await c.audit({ since: tomorrow })).count, 0);
    assert.ok((await c.audit({ operation: "note.remember", limit: 5, offset: 0 })).count >= 1);
  });

  it("keys", async () => {
    const srv = new Server();
    const adminKey = srv.createKey("admin");
    await srv.start();
    try {
      const admin = new Client({ baseUrl: srv.url, apiKey: adminKey });
      const made = await admin.createKey("viewer", { name: "dashboard" });
      assert.ok(made.api_key.startsWith("loci_"));
      const bound = await admin.createKey("editor", { agent_id: "writer" });
      assert.equal(bound.agent_id, "writer");
      assert.equal((await admin.listKeys()).count, 3);
      assert.equal((await admin.audit({ key_id: made.id })).count, 0);
      await admin.revokeKey(made.id);
      await assert.rejects(new Client({ baseUrl: srv.url, apiKey: made.api_key }).recallAll("writer"), Unauthorized);
      await assert.rejects(admin.revokeKey("no-such-key"), NotFound);
      const writer = new Client({ baseUrl: srv.url, apiKey: bound.api_key }).agent("writer");
      await writer.remember("tone", "friendly");
      await assert.rejects(writer.client.remember("other", "tone", "x"), Forbidden);

      const me = await writer.client.whoami();
      assert.deepEqual([me.auth, me.key_id, me.role, me.agent_id], [true, bound.id, "editor", "writer"]);
      assert.equal((await admin.whoami()).role, "admin");
      assert.equal((await writer.stats()).kinds.note, 1); // a bound key names its agent
      assert.equal((await writer.listMemories({ kind: ["note"] })).count, 1);
      await assert.rejects(writer.client.stats(), Forbidden);
      await assert.rejects(writer.client.listUsers(), Forbidden);
      await assert.rejects(new Client({ baseUrl: srv.url }).whoami(), Unauthorized);
    } finally {
      await srv.stop();
    }
  });
});
