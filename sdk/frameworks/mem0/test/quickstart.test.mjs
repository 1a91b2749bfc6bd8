// mem0's platform quickstart, run with mem0's own client (npm mem0ai)
// unchanged but for the host, against a real `loci serve`: Alex's two
// messages are added, then searched as the quickstart and a new user would
// search them. Twice: with a model server near (one this test starts and
// scripts: an OpenAI-compatible /v1/models and /v1/embeddings whose vectors
// come from a small fixed vocabulary, found by `--embedder auto`), and
// without one (lexical), where what is found is said as it is.
// Telemetry is off, and no request leaves the machine.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, it } from "node:test";

import { Server } from "../../../typescript/test/server.mjs";
import { keepFetchLocal, quietMem0 } from "../../test/guard.mjs";

quietMem0();
const outside = keepFetchLocal(); // every request the process makes stays on this machine

const { MemoryClient } = await import("mem0ai");

// The quickstart's conversation (docs.mem0.ai, platform quickstart).
const ALEX = [
  { role: "user", content: "Hi, I'm Alex. I'm a vegetarian and I'm allergic to nuts." },
  {
    role: "assistant",
    content: "Hello Alex! I've noted that you're a vegetarian and have a nut allergy. I'll keep this in mind for any food-related recommendations or discussions.",
  },
];
const SAID = ALEX[0].content;

// The scripted model's vocabulary: each word points along one meaning
// (food, the user, hiking); every text also has a small constant part, so
// that no vector is zero. A text's vector is the sum of its words', as a
// unit vector.
const MODEL = "scripted-embed-v1";
const MEANINGS = {
  food: ["vegetarian", "vegan", "nuts", "nut", "allergic", "allergy", "dietary", "restrictions", "diet", "cook", "dinner", "food", "eat", "meal"],
  user: ["i", "i'm", "me", "my", "alex", "know", "about"],
  hiking: ["hiking", "hike", "mountains", "trail"],
};
const DIMS = 4;
function embed(text) {
  const v = new Array(DIMS).fill(0);
  v[DIMS - 1] = 0.2;
  for (const word of text.toLowerCase().match(/[a-z']+/g) || []) {
    Object.values(MEANINGS).forEach((words, dim) => {
      if (words.includes(word)) v[dim] += 1;
    });
  }
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

// modelServer is an OpenAI-compatible embedding server on a free port:
// GET /v1/models lists MODEL, POST /v1/embeddings embeds with embed().
// It counts the texts it embedded.
async function modelServer() {
  const served = { texts: 0 };
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const reply = (status, obj) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(obj));
      };
      if (req.method === "GET" && req.url === "/v1/models") {
        return reply(200, { object: "list", data: [{ id: MODEL, object: "model", owned_by: "test" }] });
      }
      if (req.method === "POST" && req.url === "/v1/embeddings") {
        const input = JSON.parse(body).input;
        const texts = Array.isArray(input) ? input : [input];
        served.texts += texts.length;
        return reply(200, {
          object: "list",
          model: MODEL,
          data: texts.map((t, i) => ({ object: "embedding", index: i, embedding: embed(t) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      reply(404, { error: { message: "no such route" } });
    });
  });
  await new Promise((ok) => srv.listen(0, "127.0.0.1", ok));
  served.url = `http://127.0.0.1:${srv.address().port}`;
  served.close = () => new Promise((ok) => srv.close(ok));
  return served;
}

// embedded waits until every memory of the server has its vector: loci
// embeds in the background, and a write never waits for it.
async function embedded(server, key) {
  for (let i = 0; i < 400; i++) {
    const r = await fetch(server.url + "/v1/search", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: "dietary restrictions", user_id: "alex" }),
    });
    const body = await r.json();
    if (r.ok && body.pending_embeddings === 0) return body.retrieval;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error("the memories were not embedded in 20 s:\n" + server.log);
}

// quickstart runs the quickstart with mem0's client against host: the add
// and the searches, as a user would write them.
async function quickstart(client) {
  const added = await client.add(ALEX, { user_id: "alex", metadata: { topicName: "food" } });
  // The system prompt of another add is no memory about Alex either.
  const system = await client.add([{ role: "system", content: "You are a helpful cooking assistant." }], { user_id: "alex" });
  return { added, system };
}

const memories = (res) => res.results.map((m) => m.memory);

describe("mem0's platform quickstart against loci", () => {
  after(() => assert.deepEqual(outside, [], "requests left the machine"));

  describe("with a model server near (--embedder auto finds it)", () => {
    let model, server, client, key;
    before(async () => {
      model = await modelServer();
      process.env.LOCI_EMBED_PROBE = `openai=${model.url}`; // where auto looks, instead of the default ports
      try {
        server = await new Server("--embedder", "auto").start();
      } finally {
        delete process.env.LOCI_EMBED_PROBE;
      }
      key = server.createKey("editor");
      client = new MemoryClient({ apiKey: key, host: server.url + "/mem0" });
    });
    after(async () => {
      await server?.stop();
      await model?.close();
    });

    it("stores what Alex said, and finds it by meaning", async () => {
      const { added, system } = await quickstart(client);
      assert.deepEqual(
        added.map((m) => [m.event, m.memory, m.userId, m.metadata]),
        [["ADD", SAID, "alex", { topicName: "food" }]],
        "Alex's message is one memory about Alex; the assistant's reply is none",
      );
      assert.deepEqual(system, [], "a system prompt is no memory about Alex");
      assert.deepEqual((await client.getAll({ filters: { user_id: "alex" } })).results.map((m) => m.memory), [SAID]);
      const retrieval = await embedded(server, key);
      assert.deepEqual(retrieval, { mode: "hybrid", model: MODEL }, "the search says it ranked with the model auto found");
      assert.ok(model.texts > 0, "loci embedded through the scripted server");

      // "What do you know about me?" has no word left to search: it
      // answers the scope's memories, most important first (match: scope).
      const me = await client.search("What do you know about me?", { filters: { user_id: "alex" } });
      assert.deepEqual(memories(me), [SAID]);
      assert.equal(me.results[0].match, "scope");
      // The others are found by meaning: none of their words is in the memory.
      for (const query of ["What can I cook for dinner tonight?", "dietary restrictions"]) {
        const found = await client.search(query, { filters: { user_id: "alex" } });
        assert.deepEqual(memories(found), [SAID], `${query} finds Alex's memory`);
        assert.deepEqual(found.retrieval, { mode: "hybrid", model: MODEL });
        const [hit] = found.results;
        assert.ok(hit.score > 0 && hit.score <= 1, `${query}: a relevance in 0..1, not ${hit.score}`);
        assert.deepEqual(hit.metadata, { topicName: "food" }, "metadata round-trips");
      }
      // Metadata and mem0's filters.
      const food = await client.search("dinner", { filters: { AND: [{ user_id: "alex" }, { metadata: { topicName: "food" } }] } });
      assert.deepEqual(memories(food), [SAID]);
      const sport = await client.search("dinner", { filters: { AND: [{ user_id: "alex" }, { "metadata.topicName": "sport" }] } });
      assert.deepEqual(memories(sport), []);
      const someoneElse = await client.search("dietary restrictions", { filters: { user_id: "sam" } });
      assert.deepEqual(memories(someoneElse), [], "another user's scope holds none of Alex's memories");
      const got = await client.get(added[0].id);
      assert.deepEqual(got.metadata, { topicName: "food" });
    });
  });

  describe("without a model (lexical)", () => {
    let server, client;
    before(async () => {
      process.env.LOCI_EMBED_PROBE = "none"; // nowhere to look: whatever listens on this machine's default ports
      try {
        server = await new Server("--embedder", "auto").start();
      } finally {
        delete process.env.LOCI_EMBED_PROBE;
      }
      client = new MemoryClient({ apiKey: server.createKey("editor"), host: server.url + "/mem0" });
    });
    after(async () => server?.stop());

    it("stores the same, and finds it by the words it holds, or as the scope's memories", async () => {
      const { added, system } = await quickstart(client);
      assert.deepEqual(added.map((m) => [m.event, m.memory, m.metadata]), [["ADD", SAID, { topicName: "food" }]]);
      assert.deepEqual(system, []);
      // "What do you know about me?" has no word left to search: the
      // answer is Alex's memories, most important first (match: scope).
      const me = await client.search("What do you know about me?", { filters: { user_id: "alex" } });
      assert.deepEqual(me.retrieval, { mode: "lexical", model: null });
      assert.deepEqual(memories(me), [SAID]);
      assert.equal(me.results[0].match, "scope");
      // The words a memory holds find it ("vegetarian", "nuts"); words it
      // does not hold find nothing without a model: not "dinner", not
      // "dietary restrictions".
      assert.deepEqual(memories(await client.search("nuts", { filters: { user_id: "alex" } })), [SAID]);
      assert.deepEqual(memories(await client.search("am I vegetarian?", { filters: { user_id: "alex" } })), [SAID]);
      assert.deepEqual(memories(await client.search("What can I cook for dinner tonight?", { filters: { user_id: "alex" } })), []);
      assert.deepEqual(memories(await client.search("dietary restrictions", { filters: { user_id: "alex" } })), []);
      const food = await client.search("nuts", { filters: { AND: [{ user_id: "alex" }, { metadata: { topicName: "food" } }] } });
      assert.deepEqual(food.results.map((m) => [m.memory, m.metadata]), [[SAID, { topicName: "food" }]]);
    });
  });
});
