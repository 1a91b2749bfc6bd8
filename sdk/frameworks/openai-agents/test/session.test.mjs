// LociSession against the SDK's own MemorySession: the same sequences of
// calls on both, every answer compared exactly; then a real run of the
// SDK's Runner (a scripted model, no network) keeping its history in loci;
// then bad input, which gets the SDK's UserError and changes nothing.

process.env.OPENAI_AGENTS_DISABLE_TRACING = "1"; // no trace export
delete process.env.OPENAI_API_KEY;

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Client, LociError } from "@loci-memory/client";
import { Agent, MemorySession, Runner, SystemError, UserError, Usage } from "@openai/agents-core";

import { LociSession } from "../dist/index.js";
import { Server } from "../../../typescript/test/server.mjs";
import { runExample } from "../../test/readme.mjs";

/** Items of every shape a run stores: messages, tool calls and results, reasoning. */
const ITEMS = [
  { role: "user", content: "What's the weather in Zürich? ☔ \"quoted\" \\ back\nslash" },
  { role: "system", content: "Answer briefly." },
  {
    type: "message",
    role: "assistant",
    status: "completed",
    id: "msg_1",
    content: [{ type: "output_text", text: "Let me check.", providerData: { annotations: [] } }],
  },
  { type: "function_call", callId: "call_1", name: "get_weather", arguments: '{"city":"Zürich"}', status: "completed", id: "fc_1" },
  {
    type: "function_call_result",
    callId: "call_1",
    name: "get_weather",
    status: "completed",
    output: { type: "text", text: "12°C, rain" },
  },
  { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "The user wants weather." }], providerData: { n: 1.5, ok: true, none: null } },
  { role: "user", content: [{ type: "input_text", text: "And tomorrow?" }, { type: "input_image", image: "https://example.invalid/x.png" }] },
  { role: "assistant", status: "completed", content: [{ type: "output_text", text: "x".repeat(40_000) }] },
  // What loci's message text refuses as such (a NUL byte, a lone surrogate), and blank text, kept exactly inside the JSON.
  { role: "user", content: "nul \u0000, lone \ud800, tab\t, emoji 🦜, RTL \u202e", providerData: { blank: "   ", deep: [[[{}]], []] } },
];

/** Each step is a call on a session; `run` answers what it resolved to. */
const SEQUENCES = {
  "add, read, limits, pop, clear": [
    ["getItems"],
    ["popItem"],
    ["addItems", ITEMS.slice(0, 3)],
    ["getItems"],
    ["addItems", []],
    ["addItems", ITEMS.slice(3)],
    ["getItems"],
    ["getItems", 0],
    ["getItems", -1],
    ["getItems", 1],
    ["getItems", 3],
    ["getItems", ITEMS.length],
    ["getItems", 1000],
    ["popItem"],
    ["popItem"],
    ["getItems"],
    ["getItems", 2],
    ["addItems", [ITEMS[0]]],
    ["getItems"],
    ["clearSession"],
    ["getItems"],
    ["popItem"],
    ["clearSession"],
    ["addItems", [ITEMS[4], ITEMS[1]]],
    ["getItems"],
  ],
  "history mutations: a function call replaced": [
    ["applyHistoryMutations", { mutations: [] }],
    ["applyHistoryMutations", { mutations: [{ type: "replace_function_call", callId: "call_1", replacement: { ...ITEMS[3], arguments: '{"city":"Bern"}' } }] }],
    ["getItems"],
    ["addItems", ITEMS.slice(0, 5)],
    ["addItems", [ITEMS[3]]],
    ["applyHistoryMutations", { mutations: [{ type: "replace_function_call", callId: "call_1", replacement: { ...ITEMS[3], arguments: '{"city":"Bern"}' } }] }],
    ["getItems"],
    ["applyHistoryMutations", { mutations: [{ type: "replace_function_call", callId: "no_such_call", replacement: ITEMS[3] }] }],
    ["getItems"],
    ["popItem"],
    ["getItems", 2],
  ],
  "pop to empty, then add again": [
    ["addItems", [ITEMS[0]]],
    ["addItems", [ITEMS[1]]],
    ["popItem"],
    ["popItem"],
    ["popItem"],
    ["getItems"],
    ["addItems", [ITEMS[2], ITEMS[3]]],
    ["getItems", 1],
    ["getItems"],
  ],
};

async function play(session, steps) {
  const answers = [await session.getSessionId()];
  for (const [method, arg] of steps) {
    answers.push([method, arg === undefined ? await session[method]() : await session[method](structuredClone(arg))]);
  }
  return answers;
}

describe("LociSession", () => {
  let server, client;
  before(async () => {
    server = await new Server().start();
    client = new Client({ baseUrl: server.url, maxRetries: 0 });
  });
  after(() => server?.stop());

  for (const [name, steps] of Object.entries(SEQUENCES)) {
    it(`answers as MemorySession does: ${name}`, async () => {
      const sessionId = "seq-" + name.replace(/\W+/g, "-");
      const memory = new MemorySession({ sessionId });
      const want = await play(memory, steps);
      const got = await play(new LociSession({ sessionId, userId: "u1", client }), steps);
      assert.deepStrictEqual(got, want);
      // A second LociSession on the same loci session reads the same items.
      const again = new LociSession({ sessionId, userId: "u1", client });
      assert.deepStrictEqual(await again.getItems(), await memory.getItems());
    });
  }

  it("keeps each item as one message of the loci session: its JSON, its role or type", async () => {
    const session = new LociSession({ sessionId: "shape", userId: "u1", client, summary: "Weather chat" });
    await session.addItems(ITEMS.slice(0, 5));
    const stored = await client.getSession("shape");
    assert.equal(stored.user_id, "u1");
    assert.equal(stored.summary, "Weather chat");
    assert.deepEqual(
      stored.messages.map((m) => m.role),
      ["user", "system", "assistant", "function_call", "function_call_result"],
    );
    assert.deepEqual(
      stored.messages.map((m) => JSON.parse(m.content)),
      ITEMS.slice(0, 5),
    );
    // popItem keeps the session's other fields and its messages' times.
    await session.popItem();
    const after = await client.getSession("shape");
    assert.equal(after.summary, "Weather chat");
    assert.deepEqual(after.messages, stored.messages.slice(0, 4));
    // What was said is found by loci's search.
    const hits = await client.search("weather Zürich", { user_id: "u1", kinds: ["session"] });
    assert.ok(hits.results.some((h) => h.content.includes("Zürich")), JSON.stringify(hits));
  });

  it("is the session of a real run: the second turn's model sees the first", async () => {
    const seen = [];
    const model = {
      async getResponse(request) {
        seen.push(structuredClone(request.input));
        return {
          usage: new Usage(),
          output: [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              id: `msg_${seen.length}`,
              content: [{ type: "output_text", text: `answer ${seen.length}` }],
            },
          ],
        };
      },
      async *getStreamedResponse() {
        throw new Error("not streamed in this test");
      },
    };
    const agent = new Agent({ name: "helper", instructions: "Be brief.", model });
    const runner = new Runner({ tracingDisabled: true });
    const session = new LociSession({ sessionId: "run-1", userId: "u2", client });
    const first = await runner.run(agent, "Remember: my name is Ada.", { session });
    assert.equal(first.finalOutput, "answer 1");
    const second = await runner.run(agent, "What is my name?", { session });
    assert.equal(second.finalOutput, "answer 2");
    const texts = (input) => (typeof input === "string" ? [input] : input.map((i) => JSON.stringify(i.content)));
    assert.ok(texts(seen[1]).some((t) => t.includes("my name is Ada")), JSON.stringify(seen[1]));
    assert.ok(texts(seen[1]).some((t) => t.includes("answer 1")), JSON.stringify(seen[1]));
    const items = await session.getItems();
    assert.equal(items.length, 4);
    assert.deepEqual(
      items.map((i) => i.role),
      ["user", "assistant", "user", "assistant"],
    );
    assert.equal((await client.getSession("run-1")).message_count, 4);
  });

  it("continues a conversation stored through loci's REST API: its messages are items", async () => {
    await client.putSession("rest-chat", "u3", {
      summary: "Started elsewhere",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Budget is 500K" },
        { role: "assistant", content: "Noted" },
        { role: "user", content: "42" },
      ],
    });
    const session = new LociSession({ sessionId: "rest-chat", userId: "u3", client });
    await session.addItems([ITEMS[0]]);
    assert.deepStrictEqual(await session.getItems(), [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Budget is 500K" },
      { role: "assistant", status: "completed", content: [{ type: "output_text", text: "Noted" }] },
      { role: "user", content: "42" },
      ITEMS[0],
    ]);
    assert.deepStrictEqual(await session.popItem(), ITEMS[0]);
    assert.deepStrictEqual(await session.popItem(), { role: "user", content: "42" });
    const stored = await client.getSession("rest-chat");
    assert.equal(stored.summary, "Started elsewhere");
    assert.deepEqual(
      stored.messages.map((m) => [m.role, m.content]),
      [
        ["system", "Be brief."],
        ["user", "Budget is 500K"],
        ["assistant", "Noted"],
      ],
    );
  });

  describe("bad input gets UserError and changes nothing", () => {
    it("an item JSON cannot keep, or too large, in a batch: none is added", async () => {
      const session = new LociSession({ sessionId: "bad-items", userId: "u1", client });
      await session.addItems([ITEMS[0]]);
      const cyclic = { role: "user", content: "x" };
      cyclic.self = cyclic;
      const bad = [
        [ITEMS[1], cyclic],
        [ITEMS[1], { role: "user", content: "x", n: 10n }],
        [ITEMS[1], { role: "user", content: "x", at: new Date(0) }],
        [ITEMS[1], { role: "user", content: "x", f: Number.NaN }],
        [ITEMS[1], { role: "user", content: "x", data: new Uint8Array([1, 2]) }],
        [ITEMS[1], { role: "user", content: "y".repeat(70_000) }],
        [ITEMS[1], "just text"],
        [ITEMS[1], null],
        [ITEMS[1], { content: "neither a role nor a type" }],
      ];
      for (const items of bad) {
        await assert.rejects(session.addItems(items), UserError);
      }
      await assert.rejects(session.addItems("not an array"), UserError);
      await assert.rejects(
        session.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "x", replacement: { type: "function_call", big: "y".repeat(70_000) } }] }),
        UserError,
      );
      assert.deepEqual(await session.getItems(), [ITEMS[0]]);
      // A new session with a bad item is not created.
      const fresh = new LociSession({ sessionId: "bad-fresh", userId: "u1", client });
      await assert.rejects(fresh.addItems([ITEMS[0], { role: "user", content: "y".repeat(70_000) }]), UserError);
      await assert.rejects(client.getSession("bad-fresh"), (e) => e instanceof LociError && e.code === "not_found");
    });

    it("a session id or user loci refuses", async () => {
      assert.throws(() => new LociSession({ sessionId: "", userId: "u1", client }), UserError);
      assert.throws(() => new LociSession({ sessionId: "s".repeat(257), userId: "u1", client }), UserError);
      assert.throws(() => new LociSession({ sessionId: "ok", client }), UserError);
      assert.throws(() => new LociSession({ sessionId: "ok", userId: " ", client }), UserError);
    });

    it("another user's session is neither read nor written", async () => {
      const mine = new LociSession({ sessionId: "owned", userId: "alice", client });
      await mine.addItems([ITEMS[0]]);
      const other = new LociSession({ sessionId: "owned", userId: "bob", client });
      for (const f of [() => other.getItems(), () => other.addItems([ITEMS[1]]), () => other.popItem(), () => other.clearSession()]) {
        await assert.rejects(f(), UserError);
      }
      assert.deepEqual(await mine.getItems(), [ITEMS[0]]);
    });

    it("loci's refusal is a UserError with the LociError as cause", async () => {
      // A key turns authentication on: a request without one is refused (the last test on this server).
      server.createKey("admin");
      const session = new LociSession({ sessionId: "no-key", userId: "u1", client });
      const err = await session.getItems().then(
        () => assert.fail("no error"),
        (e) => e,
      );
      assert.ok(err instanceof UserError, String(err));
      assert.ok(err.cause instanceof LociError);
      assert.equal(err.cause.code, "unauthorized");
    });

    it("no answer from loci is a SystemError", async () => {
      const dead = new Client({ baseUrl: "http://127.0.0.1:1", maxRetries: 0 });
      const err = await new LociSession({ sessionId: "x", userId: "u1", client: dead }).getItems().then(
        () => assert.fail("no error"),
        (e) => e,
      );
      assert.ok(err instanceof SystemError, String(err));
    });
  });
});

describe("README", () => {
  it("the OpenAI Agents SDK example runs and prints what it says", async () => {
    const server = await new Server().start();
    try {
      runExample("### OpenAI Agents SDK", "openai-agents", server.url);
    } finally {
      await server.stop();
    }
  });
});

describe("LociSession, calls at once", () => {
  it("applies changes in the order they were called, as MemorySession does", async () => {
    const server = await new Server().start();
    try {
      const client = new Client({ baseUrl: server.url, maxRetries: 0 });
      const answers = [];
      for (const session of [new MemorySession({ sessionId: "c" }), new LociSession({ sessionId: "c", userId: "u1", client })]) {
        await Promise.all([session.addItems([ITEMS[0]]), session.addItems([ITEMS[1], ITEMS[2]]), session.addItems([ITEMS[3]])]);
        const popped = await Promise.all([session.popItem(), session.addItems([ITEMS[4]])]);
        answers.push([popped, await session.getItems()]);
      }
      assert.deepStrictEqual(answers[1], answers[0]);
    } finally {
      await server.stop();
    }
  });
});
