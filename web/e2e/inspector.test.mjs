// Browser tests of the inspector: every view, the edit/conflict flow,
// forget (preview, then run), the review queue and the roles, in headless
// Chromium against a real `loci serve` seeded over REST. Any console error
// the test did not expect fails it. A screenshot of each view is written
// to a temporary folder, printed at the end.
import { after, afterEach, before, test } from "node:test";
import assert from "node:assert/strict";
import { Env, expectHTTP, open, useKey } from "./harness.mjs";

const env = new Env();
const pages = [];
const shots = [];

// newPage is a tab whose console is checked when the test ends.
async function newPage() {
  const page = await env.page();
  pages.push(page);
  return page;
}

async function shot(page, name) {
  shots.push(await env.screenshot(page, name));
}

// text waits until the element matching selector holds text.
async function text(page, selector, want) {
  await page.locator(selector, { hasText: want }).first().waitFor();
}

// seed writes memory of every kind over REST.
async function seed() {
  await env.must("POST", "/v1/agents", { id: "writer", name: "Writer" });
  await env.must("POST", "/v1/agents", { id: "seller", name: "Seller" });
  await env.must("PUT", "/v1/agents/writer/blocks/personality", { content: "Dry wit." });
  await env.must("PUT", "/v1/agents/writer/blocks/personality", { content: "Dry wit, short sentences." });
  const team = await env.must("POST", "/v1/agents/writer/blocks", { label: "team_news", content: "Launch on Friday", shared: true });
  env.teamBlock = team.id;
  await env.must("PUT", "/v1/blocks/" + team.id + "/consumers/seller");
  await env.must("PUT", "/v1/agents/writer/notes/tone", { value: "dry" });
  await env.must("PUT", "/v1/agents/writer/notes/tone", { value: "drier" });
  await env.must("POST", "/v1/agents/writer/passages", { content: "Draft: ten teas for winter", tags: ["drafts"] });
  await env.must("POST", "/v1/agents/writer/passages", { content: "Style guide: no exclamation marks" });
  await env.must("PUT", "/v1/tasks/t1/working/plan", { value: { step: 1 }, agent_id: "writer", user_id: "ann" });
  await env.must("POST", "/v1/episodes", {
    user_id: "ann", agent_id: "writer", action_type: "draft_post", action_description: "drafted a post about green tea", outcome: "success",
  });
  const fact = await env.must("POST", "/v1/facts", { user_id: "ann", agent_id: "writer", category: "general_fact", fact: "ann drinks green tea every morning" });
  env.annFact = fact.id;
  await env.must("POST", "/v1/facts/" + fact.id + "/contradict"); // disputed, once facts can be
  await env.must("POST", "/v1/facts", { category: "general_fact", fact: "tea contains caffeine" });
  await env.must("POST", "/v1/facts", { user_id: "bo", category: "general_fact", fact: "bo likes oolong tea" });
  await env.must("POST", "/v1/users/ann/preferences", { type: "tone", value: "casual", source: "explicit" });
  await env.must("POST", "/v1/users/ann/preferences", { type: "length", value: "short", source: "explicit" });
  await env.must("POST", "/v1/users/ann/preferences/tone/contradict", { source: "explicit" }); // flagged for removal
  await env.must("PUT", "/v1/sessions/s1", {
    user_id: "ann", summary: "Planning a tea blog", is_persistent: true,
    messages: [{ role: "user", content: "I want a blog about tea" }, { role: "assistant", content: "Let us plan it" }],
  });
  await env.must("GET", "/v1/users/cy/context"); // registered, no memories
}

before(async () => {
  await env.start();
  await seed();
});

afterEach(async () => {
  const problems = [];
  while (pages.length) {
    const page = pages.pop();
    problems.push(...page.problems);
    await page.close();
  }
  assert.deepEqual(problems, [], "the page logged errors");
});

after(async () => {
  await env.stop();
  console.log("screenshots of each view, in " + env.shots + ":\n  " + shots.join("\n  "));
});

test("overview: counts per kind, agent and user, growth, newest, queue, lists with search", async () => {
  const page = await newPage();
  await open(env, page, "#overview", env.keys.admin, "admin");
  const stats = await env.must("GET", "/v1/stats");
  await page.locator("#stat-embeddings").waitFor();
  await text(page, "#view-overview .stat .big", String(stats.total));
  assert.equal(await page.locator("#view-overview svg.chart rect.chart-bar").count(), 30, "one bar a day for 30 days");
  const kinds = await page.locator("#view-overview td .kind").allTextContents();
  assert.deepEqual(kinds.slice(0, 8), ["note", "block", "passage", "working", "episode", "fact", "preference", "session"]);
  assert.ok((await page.locator("table.newest tbody tr").count()) >= 5, "the newest memories are listed");
  await text(page, "#stat-embeddings", stats.embeddings.model);
  // The agent list and the user list, each with search.
  await text(page, "table.agents", "seller");
  await page.fill("#overview-agent-filter", "writ");
  await page.waitForFunction(() => document.querySelectorAll("table.agents tbody tr").length === 1);
  await text(page, "table.agents", "writer");
  await text(page, "table.users", "cy");
  await page.fill("#overview-user-search", "AN");
  await page.waitForFunction(() => {
    const rows = document.querySelectorAll("table.users tbody tr");
    return rows.length === 1 && rows[0].textContent.includes("ann");
  });
  await shot(page, "overview");
});

test("agent view: blocks with history and consumers, notes, passages, episodes, facts, working memory, users", async () => {
  const page = await newPage();
  await open(env, page, "#agents/writer", env.keys.admin, "admin");
  const personality = page.locator('.card.block[data-label="personality"]');
  await personality.waitFor();
  assert.equal(await personality.locator("textarea").inputValue(), "Dry wit, short sentences.");
  await personality.locator("button.history-toggle").click();
  await personality.locator(".history ol.versions li").nth(1).waitFor();
  const versions = await personality.locator(".history ol.versions li pre").allTextContents();
  assert.deepEqual(versions.slice(0, 2), ["Dry wit, short sentences.", "Dry wit."]);
  await text(page, "#agent-notes table.notes", "drier");
  await page.locator('#agent-notes tr[data-key="tone"] button', { hasText: "History" }).click();
  await text(page, "#agent-notes ol.versions", "dry");
  await text(page, "#agent-passages", "ten teas for winter");
  await text(page, "#agent-episodes table.memories", "drafted a post about green tea");
  await text(page, "#agent-facts table.memories", "ann drinks green tea");
  await text(page, "#agent-working table.memories", "plan");
  await text(page, "#agent-users", "ann");
  await text(page, "#agent-summary", "memories");
  // The shared block's consumers: detach, then attach again.
  const team = page.locator('.card.block[data-label="team_news"]');
  await text(page, '.card.block[data-label="team_news"] table.consumers', "seller");
  await team.locator("button.detach").click();
  await text(page, '.card.block[data-label="team_news"] .consumers', "Attached to no other agent.");
  let links = await env.must("GET", "/v1/blocks/" + env.teamBlock + "/consumers");
  assert.equal(links.count, 0);
  await team.locator("form.attach input").fill("seller");
  await team.locator("form.attach button").click();
  await text(page, '.card.block[data-label="team_news"] table.consumers', "seller");
  links = await env.must("GET", "/v1/blocks/" + env.teamBlock + "/consumers");
  assert.equal(links.count, 1);
  await shot(page, "agent");
});

test("edit and conflict: a stale save offers the other version beside yours", async () => {
  const page = await newPage();
  expectHTTP(page, 409, "/v1/agents/writer/blocks/relationships");
  await open(env, page, "#agents/writer", env.keys.editor, "editor");
  const card = page.locator('.card.block[data-label="relationships"]');
  await card.waitFor();
  // A plain save.
  await card.locator("textarea").fill("Knows seller.");
  await card.locator("button.save").click();
  await text(page, '.card.block[data-label="relationships"] .msg', "Saved: version 2.");
  // Someone else saves meanwhile; ours is then stale.
  await env.must("PUT", "/v1/agents/writer/blocks/relationships", { content: "Knows seller and ann." });
  await card.locator("textarea").fill("Knows seller, ann and bo.");
  await card.locator("button.save").click();
  await text(page, '.card.block[data-label="relationships"] .conflict', "409 Conflict");
  await card.locator("button.show-theirs").click();
  await text(page, '.card.block[data-label="relationships"] .compare', "Knows seller and ann.");
  await text(page, '.card.block[data-label="relationships"] .compare', "Knows seller, ann and bo.");
  await shot(page, "agent-conflict");
  let block = await env.must("GET", "/v1/agents/writer/blocks/relationships");
  assert.equal(block.content, "Knows seller and ann.", "nothing was overwritten before a choice");
  await card.locator("button.keep-mine").click();
  await text(page, '.card.block[data-label="relationships"] .msg', "Saved: version 4.");
  block = await env.must("GET", "/v1/agents/writer/blocks/relationships");
  assert.equal(block.content, "Knows seller, ann and bo.");
  assert.equal(block.version, 4);
});

test("users: preferences, sessions, memories by kind; forget previews, then forgets exactly that", async () => {
  const page = await newPage();
  await open(env, page, "#users/ann", env.keys.editor, "editor");
  await text(page, "#user-preferences table.preferences", "casual");
  await text(page, "#user-sessions table.sessions", "Planning a tea blog");
  await page.locator("#user-sessions button", { hasText: "Messages" }).click();
  await text(page, "#user-sessions ol.messages", "I want a blog about tea");
  await text(page, "#user-memories", "memories in all");
  await shot(page, "user");

  await page.goto(env.base + "/#users/bo");
  await text(page, "#user-memories", "bo likes oolong tea");
  await page.fill("#forget-query", "oolong");
  await page.click("#user-forget button[type=submit]");
  await text(page, "#forget-result", "Would forget 1:");
  let mems = await env.must("GET", "/v1/users/bo/memories");
  assert.equal(mems.count, 1, "the preview deleted nothing");
  await shot(page, "user-forget-preview");
  await page.click("#forget-result button.forget-run");
  await text(page, "#forget-result", "Forgot 1 memories.");
  mems = await env.must("GET", "/v1/users/bo/memories");
  assert.equal(mems.count, 0);
  await text(page, "#user-memories", "0 memories in all");
});

test("review queue: disputed facts and preferences flagged for removal, keep or forget", async (t) => {
  const page = await newPage();
  const probe = await env.api("GET", "/v1/users/ann/review");
  if (probe.status === 404) expectHTTP(page, 404, "/v1/users/ann/review");
  await open(env, page, "#review/ann", env.keys.editor, "editor");
  if (probe.status === 404) {
    await page.locator("#review-unavailable").waitFor();
    await shot(page, "review");
    t.skip("GET /v1/users/{user_id}/review answered 404: this server has no review queue yet; the view says so");
    return;
  }
  assert.equal(probe.status, 200, JSON.stringify(probe.body));
  await page.locator('table.review tr[data-kind="preference"]').waitFor();
  await page.locator('table.review tr[data-kind="fact"]').waitFor();
  await shot(page, "review");
  await page.locator('table.review tr[data-kind="preference"] button.keep').click();
  await text(page, "#review-msg", "Kept preference tone.");
  const prefs = await env.must("GET", "/v1/users/ann/preferences");
  assert.equal(prefs.preferences.find((p) => p.type === "tone").flagged_for_removal, false);
  await page.locator('table.review tr[data-kind="fact"] button.forget').click();
  await text(page, "#review-msg", "Forgot the fact.");
  const disputed = await env.must("GET", "/v1/facts?user_id=ann&status=disputed");
  assert.equal(disputed.count, 0);
});

test("timeline: a user's memories of every kind in time order, filtered by kind in the hash", async () => {
  const page = await newPage();
  await open(env, page, "#timeline?user=ann", env.keys.viewer, "viewer");
  await page.locator("table.timeline tr.entry").first().waitFor();
  const kinds = new Set(await page.locator("table.timeline tr.entry").evaluateAll((rows) => rows.map((r) => r.dataset.kind)));
  for (const k of ["fact", "preference", "episode", "session", "working"]) assert.ok(kinds.has(k), "the timeline holds " + k);
  const times = await page.locator("table.timeline tr.entry td.time").evaluateAll((cells) => cells.map((c) => c.title));
  assert.deepEqual(times, [...times].sort().reverse(), "newest first");
  await shot(page, "timeline");
  await page.check('#timeline-kinds input[value="fact"]');
  await page.click("#timeline-form button[type=submit]");
  await page.waitForFunction(() => location.hash.includes("kinds=fact"));
  await page.waitForFunction(() => {
    const rows = Array.from(document.querySelectorAll("table.timeline tr.entry"));
    return rows.length > 0 && rows.every((r) => r.dataset.kind === "fact");
  });
});

// (Episodes: ann's fact was resolved as wrong by the review test, and a
// search answers what is true now.)
test("search: links carry their filters", async () => {
  const page = await newPage();
  await open(env, page, "#search/tea?user=ann&kinds=episode", env.keys.viewer, "viewer");
  await page.locator("table.results tbody tr").first().waitFor();
  assert.equal(await page.inputValue("#search-query"), "tea");
  assert.equal(await page.inputValue("#search-user"), "ann");
  assert.ok(await page.isChecked('#search-kinds input[value="episode"]'));
  assert.ok(!(await page.isChecked('#search-kinds input[value="preference"]')));
  const kinds = await page.locator("table.results tbody tr td:nth-child(3)").allTextContents();
  assert.ok(kinds.length > 0 && kinds.every((k) => k === "episode"), "only episodes: " + kinds);
  await shot(page, "search");
  await page.check('#search-kinds input[value="preference"]');
  await page.fill("#search-agent", "writer");
  await page.click("#search-form button[type=submit]");
  await page.waitForFunction(() => /kinds=episode%2Cpreference|kinds=episode,preference/.test(location.hash) && location.hash.includes("agent=writer"));
  await page.reload();
  await page.locator("table.results tbody tr").first().waitFor();
  assert.equal(await page.inputValue("#search-agent"), "writer", "the link kept its filters");
});

test("audit log: an admin reads who did what", async () => {
  const page = await newPage();
  await open(env, page, "#audit", env.keys.admin, "admin");
  await page.locator("table.audit tbody tr").first().waitFor();
  await text(page, "table.audit", "block.put");
  await shot(page, "audit");
});

test("roles: a viewer reads and cannot change anything", async () => {
  const page = await newPage();
  await open(env, page, "#agents/writer", env.keys.viewer, "viewer");
  const card = page.locator('.card.block[data-label="personality"]');
  await card.waitFor();
  assert.ok(await card.locator("button.save").isDisabled(), "save is disabled");
  assert.equal(await card.locator("button.save").getAttribute("title"), "needs the editor role");
  assert.ok(await card.locator("textarea").evaluate((t) => t.readOnly), "the block is read-only");
  await text(page, "#agent-notes table.notes", "tone");
  assert.ok(await page.locator('#agent-notes tr[data-key="tone"] button.danger').isDisabled(), "delete is disabled");
  assert.ok(await page.locator('#tabs a[data-tab="audit"]').isHidden(), "no audit tab");
  await page.goto(env.base + "/#users/ann");
  await page.locator("#user-forget button[type=submit]").waitFor();
  assert.ok(await page.locator("#user-forget button[type=submit]").isDisabled(), "forget is disabled");
  await text(page, "#who", "role viewer");
  await shot(page, "role-viewer");
});

test("roles: an editor edits but reads no audit log", async () => {
  const page = await newPage();
  await open(env, page, "#agents/writer", env.keys.editor, "editor");
  const card = page.locator('.card.block[data-label="personality"]');
  await card.waitFor();
  assert.ok(await card.locator("button.save").isEnabled());
  assert.ok(await page.locator('#tabs a[data-tab="audit"]').isHidden());
  await page.goto(env.base + "/#audit");
  await text(page, "#audit-results", "needs an admin key");
});

test("roles: a key bound to an agent lands on its agent and sees only it", async () => {
  const page = await newPage();
  expectHTTP(page, 401, "/v1/"); // the page before a key is pasted
  await page.goto(env.base + "/");
  await text(page, "#banner", "this server requires an API key");
  await useKey(page, env.keys.bound, "editor");
  await page.waitForFunction(() => location.hash === "#agents/writer");
  await text(page, "#who", "bound to agent writer");
  await page.locator('.card.block[data-label="personality"]').waitFor();
  assert.deepEqual(await page.locator("#agents-list .pick").allTextContents(), ["writer"]);
  await text(page, "#agent-facts", "ann drinks green tea");
  await page.goto(env.base + "/#overview");
  await text(page, "#view-overview h2", "Overview of agent writer");
  await page.locator("#stat-embeddings").waitFor();
  await text(page, "#view-overview", "the lists of every agent and user are not open to it");
  await page.goto(env.base + "/#search/tea");
  assert.equal(await page.inputValue("#search-agent"), "writer");
  assert.ok(await page.locator("#search-agent").isDisabled());
  await page.locator("table.results tbody tr").first().waitFor();
  await shot(page, "role-bound");
});

test("switching keys clears what the previous key loaded", async () => {
  const page = await newPage();
  expectHTTP(page, 401, "/v1/");
  await open(env, page, "#users/ann", env.keys.admin, "admin");
  await text(page, "#user-preferences", "casual");
  await useKey(page, "not-a-key");
  await page.locator("#banner").waitFor();
  await text(page, "#banner", "401 Unauthorized");
  await page.waitForFunction(() => !document.querySelector("main").textContent.includes("casual"));
  assert.ok(!(await page.locator("main").textContent()).includes("Planning a tea blog"), "nothing of the admin's view is left");
  // A bound key after an admin one: only its agent.
  await useKey(page, env.keys.bound, "editor");
  await page.waitForFunction(() => location.hash === "#agents/writer");
  await page.locator('.card.block[data-label="personality"]').waitFor();
  assert.ok(!(await page.locator("#view-users").textContent()).includes("casual"));
});

// ---- a new user's first hour ----

test("prompt: empty blocks are left out of the rendered prompt", async () => {
  await env.must("POST", "/v1/agents", { id: "prompty" }); // three empty blocks
  await env.must("PUT", "/v1/agents/prompty/blocks/personality", { content: "Calm." });
  const page = await newPage();
  await open(env, page, "#agents/prompty", env.keys.admin, "admin");
  await text(page, "#agent-prompt pre.prompt", "### personality");
  assert.equal(await page.locator("#agent-prompt pre.prompt").textContent(), "### personality\nCalm.");
});

test("agents: an agent with only notes is listed and opens, with no blocks", async () => {
  await env.must("PUT", "/v1/agents/noter/notes/remind", { value: "water the plants" });
  const page = await newPage();
  expectHTTP(page, 404, "/v1/agents/noter/"); // its blocks and prompt: it has none
  await open(env, page, "#agents", env.keys.admin, "admin");
  await page.locator('#agents-list .pick[data-id="noter"]').waitFor();
  await page.locator('#agents-list .pick[data-id="noter"]').click();
  await text(page, "#agent-notes table.notes", "water the plants");
  await text(page, "#agent-blocks", "No blocks.");
  assert.equal(await page.locator("#agent-detail .error").count(), 0, "no error for an agent without blocks");
});

test("audit log: the via column says which interface an operation came through", async () => {
  const page = await newPage();
  await open(env, page, "#audit", env.keys.admin, "admin");
  await page.locator("table.audit tbody tr").first().waitFor();
  assert.ok((await page.locator("table.audit thead").textContent()).includes("via"));
  await text(page, "table.audit td.via", "rest");
});

test("a key bound to an agent opening another agent: one refusal, not one per section", async () => {
  const page = await newPage();
  await open(env, page, "#agents/writer", env.keys.bound, "editor");
  await page.locator('.card.block[data-label="personality"]').waitFor();
  await page.goto(env.base + "/#agents/seller");
  await text(page, "#agent-refused", "bound to agent writer");
  assert.equal(await page.locator("#agent-detail .error").count(), 1);
});

test("working and session rows show no meaningless confidence", async () => {
  const page = await newPage();
  await open(env, page, "#agents/writer", env.keys.admin, "admin");
  await text(page, "#agent-working table.memories", "plan");
  const cells = await page.locator("#agent-working table.memories tbody tr td.num").allTextContents();
  assert.deepEqual(cells, ["—"]);
});

test("newest memories mark a superseded fact as history", async () => {
  await env.must("POST", "/v1/facts", { user_id: "zed", category: "general_fact", key: "home", fact: "zed lives in Paris", valid_at: "2020-01-01T00:00:00Z" });
  await env.must("POST", "/v1/facts", { user_id: "zed", category: "general_fact", key: "home", fact: "zed lives in Berlin" });
  const page = await newPage();
  await open(env, page, "#overview", env.keys.admin, "admin");
  await text(page, "table.newest", "zed lives in Berlin");
  const paris = page.locator("table.newest tr", { hasText: "zed lives in Paris" });
  await paris.waitFor();
  assert.equal(await paris.locator(".badge.history").count(), 1, "the superseded fact is marked");
  const berlin = page.locator("table.newest tr", { hasText: "zed lives in Berlin" });
  assert.equal(await berlin.locator(".badge.history").count(), 0, "the current fact is not");
});

test("timeline: a date range narrows it", async () => {
  const page = await newPage();
  await open(env, page, "#timeline?user=ann&after=2000-01-01&before=2000-01-31", env.keys.admin, "admin");
  await text(page, "#timeline-results", "Nothing here.");
  assert.equal(await page.inputValue("#timeline-after"), "2000-01-01");
  const today = new Date().toISOString().slice(0, 10);
  await page.fill("#timeline-after", today);
  await page.fill("#timeline-before", "");
  await page.locator("#timeline-form button[type=submit]").click();
  await page.locator("#timeline-results tr.entry").first().waitFor();
  assert.ok(new URL(page.url()).hash.includes("after=" + today));
});

test("users: export downloads the user's JSON Lines", async () => {
  const page = await newPage();
  await open(env, page, "#users/ann", env.keys.admin, "admin");
  await page.locator("#user-export").waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#user-export").click()]);
  assert.equal(download.suggestedFilename(), "loci-user-ann.jsonl");
  const path = await download.path();
  const { readFileSync } = await import("node:fs");
  const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => l.user_id === "ann"), "the export holds ann's records");
});

test("users: delete one fact, episode, session and working entry, then the user", async () => {
  await env.must("POST", "/v1/facts", { user_id: "dee", category: "general_fact", fact: "dee keeps bees" });
  await env.must("POST", "/v1/episodes", { user_id: "dee", agent_id: "writer", action_type: "note", action_description: "asked about bees", outcome: "success" });
  await env.must("PUT", "/v1/sessions/dee-s1", { user_id: "dee", summary: "Bee talk" });
  await env.must("POST", "/v1/users/dee/preferences", { type: "tone", value: "warm", source: "explicit" });
  await env.must("PUT", "/v1/tasks/hive/working/step", { value: "check the frames", agent_id: "writer", user_id: "dee" });
  const page = await newPage();
  await open(env, page, "#users/dee", env.keys.admin, "admin");
  for (const kind of ["fact", "episode", "session", "working"]) {
    const row = page.locator('#user-memories tr[data-kind="' + kind + '"]').first();
    await row.waitFor();
    const id = await row.getAttribute("data-id");
    await row.locator("button.delete").click();
    await page.locator('#user-memories tr[data-id="' + id + '"]').waitFor({ state: "detached" });
    const left = await env.must("GET", "/v1/users/dee/memories");
    assert.ok(!JSON.stringify(left).includes(id), kind + " " + id + " is deleted");
  }
  await page.locator("#user-delete").click();
  await text(page, "#user-deleted", "Deleted user");
  const left = await env.must("GET", "/v1/users/dee/memories");
  assert.equal(left.count, 0);
  await shot(page, "user-deleted");
});

test("users: after a delete, the counts and the users list say what is left, without a reload", async () => {
  for (const fact of ["eve keeps goats", "eve reads maps", "eve bakes rye", "eve rows boats"]) {
    await env.must("POST", "/v1/facts", { user_id: "eve", category: "general_fact", fact });
  }
  const page = await newPage();
  await open(env, page, "#overview", env.keys.admin, "admin");
  const before = await env.must("GET", "/v1/stats");
  const total = (n) => page.waitForFunction((n) => document.querySelector("#view-overview .stat .big")?.textContent === String(n), n);
  await total(before.total);
  const userRow = (list) => page.locator(list + " table.users tr", { hasText: "eve" }).locator("td.num");
  await page.waitForFunction(() => [...document.querySelectorAll("#view-overview table.users tr")].some((r) => r.textContent.includes("eve")));
  assert.equal(await userRow("#view-overview").textContent(), "4");

  await page.goto(env.base + "/#users/eve");
  await text(page, "#user-memories", "4 memories in all");
  await text(page, "#user-memories h4", "fact (4)");
  await page.waitForFunction(() => [...document.querySelectorAll("#users-list table.users tr")].some((r) => r.textContent.includes("eve")));
  assert.equal(await userRow("#users-list").textContent(), "4");

  const row = page.locator('#user-memories tr[data-kind="fact"]').first();
  const id = await row.getAttribute("data-id");
  await row.locator("button.delete").click();
  await page.locator('#user-memories tr[data-id="' + id + '"]').waitFor({ state: "detached" });
  await text(page, "#user-memories", "3 memories in all");
  await text(page, "#user-memories h4", "fact (3)");
  await page.waitForFunction(() =>
    [...document.querySelectorAll("#users-list table.users tr")].some((r) => r.textContent.includes("eve") && r.querySelector("td.num")?.textContent === "3"),
  );
  // The overview, shown before the delete, says so too when it is shown again.
  await page.goto(env.base + "/#overview");
  await total(before.total - 1);
  await page.waitForFunction(() =>
    [...document.querySelectorAll("#view-overview table.users tr")].some((r) => r.textContent.includes("eve") && r.querySelector("td.num")?.textContent === "3"),
  );

  // Deleting the user takes it off the list.
  await page.goto(env.base + "/#users/eve");
  await page.locator("#user-delete").click();
  await text(page, "#user-deleted", "Deleted user");
  await page.waitForFunction(() => ![...document.querySelectorAll("#users-list table.users tr")].some((r) => r.textContent.includes("eve")));
  await shot(page, "user-counts-after-delete");
});

test("metadata: shown as badges on every record, and a filter on it on the user, agent and search screens", async () => {
  await env.must("POST", "/v1/memories", { content: "meg is a vegetarian", user_id: "meg", metadata: { topicName: "food", food: { kind: "veg" } } });
  await env.must("POST", "/v1/memories", { content: "meg hikes on Sundays", user_id: "meg", metadata: { topicName: "sport" } });
  await env.must("POST", "/v1/memories", { content: "meg was born in May", user_id: "meg" });
  await env.must("POST", "/v1/memories", { content: "Soup recipe, warming", agent_id: "cook", kind: "passage", metadata: { topicName: "food" } });
  await env.must("POST", "/v1/memories", { content: "Bread recipe, crusty", agent_id: "cook", kind: "passage" });
  await env.must("POST", "/v1/memories", { content: "keeps stock in the freezer", agent_id: "cook", kind: "note", key: "stock", metadata: { topicName: "food" } });
  const page = await newPage();
  await open(env, page, "#users/meg", env.keys.admin, "admin");
  // Badges: each top-level key with its value, nested ones as JSON.
  await text(page, '#user-memories tr:has-text("vegetarian") .badge.meta', "topicName: food");
  await text(page, '#user-memories tr:has-text("vegetarian") .badge.meta', 'food: {"kind":"veg"}');
  assert.equal(await page.locator('#user-memories tr:has-text("born in May") .badge.meta').count(), 0, "no metadata, no badge");
  // The filter: key=value, a nested path, a filter in JSON, bad input.
  const filter = async (prefix, value) => {
    await page.fill("#" + prefix + "-meta-filter", value);
    await page.click("#" + prefix + "-meta-form button[type=submit]");
  };
  await filter("user", "topicName=food");
  await text(page, "#user-meta-results .meta-count", "1 memory matches");
  await text(page, "#user-meta-results table.memories", "meg is a vegetarian");
  assert.equal(await page.locator("#user-meta-results table.memories tbody tr").count(), 1);
  await filter("user", "food.kind=veg");
  await text(page, "#user-meta-results table.memories", "meg is a vegetarian");
  await filter("user", '{"metadata.topicName": {"in": ["food", "sport"]}}');
  await text(page, "#user-meta-results .meta-count", "2 memories match");
  await filter("user", "topicName=cars");
  await text(page, "#user-meta-results", "No memory's metadata matches.");
  await filter("user", "nonsense");
  await text(page, '#user-meta-results [role="alert"]', "key=value");
  await shot(page, "user-metadata");

  await page.goto(env.base + "/#agents/cook");
  await text(page, '#agent-passages tr:has-text("Soup recipe") .badge.meta', "topicName: food");
  await text(page, '#agent-notes tr[data-key="stock"] .badge.meta', "topicName: food");
  await filter("agent", "topicName=food");
  await text(page, "#agent-meta-results .meta-count", "2 memories match");
  await text(page, "#agent-meta-results table.memories", "Soup recipe");
  assert.equal(await page.locator('#agent-meta-results tr:has-text("Bread recipe")').count(), 0);
  await shot(page, "agent-metadata");

  // Search: the filter is in the link, and each result shows its metadata.
  await page.goto(env.base + "/#search/recipe?agent=cook&meta=topicName%3Dfood");
  await text(page, "#search-results table.results", "Soup recipe");
  await text(page, '#search-results tr:has-text("Soup recipe") .badge.meta', "topicName: food");
  assert.equal(await page.locator('#search-results tr:has-text("Bread recipe")').count(), 0);
  assert.equal(await page.inputValue("#search-meta"), "topicName=food");
  await page.fill("#search-meta", "");
  await page.click("#search-form button[type=submit]");
  await text(page, "#search-results table.results", "Bread recipe");
  await shot(page, "search-metadata");
});
