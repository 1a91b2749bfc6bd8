// Real LangGraph graphs (no model) checkpointed in loci: the same runs on
// LangGraph's MemorySaver and on LociCheckpointSaver answer the same state,
// history, interrupts and resumes; parallel tasks, LangChain messages and a
// state far over one message's 64 KiB survive; bad input is refused and
// changes nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { Client, LociError, Unauthorized } from "@loci-memory/client";

import { LociCheckpointSaver } from "../dist/index.js";
import { Server } from "../../../typescript/test/server.mjs";

let server, client;
beforeAll(async () => {
  server = await new Server().start();
  client = new Client({ baseUrl: server.url, maxRetries: 0 });
}, 180_000);
afterAll(() => server?.stop());

const State = Annotation.Root({
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  note: Annotation({ reducer: (_, b) => b, default: () => "" }),
});

/** start → (left ∥ right) → review (asks a person) → finish. */
function workflow(checkpointer) {
  return new StateGraph(State)
    .addNode("left", (s) => ({ log: [`left saw ${s.log.length}`] }))
    .addNode("right", (s) => ({ log: [`right saw ${s.log.length}`] }))
    .addNode("review", () => {
      const answer = interrupt({ question: "ship it?" });
      return { log: [`review: ${answer}`] };
    })
    .addNode("finish", (s) => ({ note: s.log.join(" | ") }))
    .addEdge(START, "left")
    .addEdge(START, "right")
    .addEdge("left", "review")
    .addEdge("right", "review")
    .addEdge("review", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer });
}

/** An answer with its interrupts' ids left out: they derive from checkpoint ids, which differ by nature. */
function withoutIds(answer) {
  if (!answer?.__interrupt__) return answer;
  return { ...answer, __interrupt__: answer.__interrupt__.map(({ id, ...rest }) => ({ ...rest, id: typeof id })) };
}

/** What a run answers, with the checkpoint ids and times left out. */
async function play(checkpointer, thread) {
  const graph = workflow(checkpointer);
  const config = { configurable: { thread_id: thread } };
  const out = [];
  out.push(withoutIds(await graph.invoke({ log: ["start"] }, config)));
  const paused = await graph.getState(config);
  out.push({ next: paused.next, tasks: paused.tasks.map((t) => ({ name: t.name, interrupts: t.interrupts.map((i) => i.value) })) });
  out.push(await graph.invoke(new Command({ resume: "yes" }), config));
  out.push((await graph.getState(config)).values);
  out.push(withoutIds(await graph.invoke({ log: ["again"] }, config))); // a second turn on the same thread
  out.push(await graph.invoke(new Command({ resume: "no" }), config));
  const history = [];
  for await (const snap of graph.getStateHistory(config)) {
    history.push({ values: snap.values, next: snap.next, step: snap.metadata?.step, source: snap.metadata?.source });
  }
  out.push(history);
  return out;
}

describe("LociCheckpointSaver in a StateGraph", () => {
  it("answers as MemorySaver does: parallel nodes, an interrupt and its resume, two turns, the history", async () => {
    const saver = new LociCheckpointSaver({ client, userId: "graphs" });
    const want = await play(new MemorySaver(), "t1");
    const got = await play(saver, "t1");
    expect(got).toEqual(want);
    expect(got.at(-1).length).toBeGreaterThan(6);
    // A new saver on the same loci user reads the thread back.
    const again = workflow(new LociCheckpointSaver({ client, userId: "graphs" }));
    expect((await again.getState({ configurable: { thread_id: "t1" } })).values).toEqual(want[5]);
    // The thread is one loci session of the user, its checkpoints and writes messages.
    const session = await client.getSession("langgraph:t1");
    expect(session.user_id).toBe("graphs");
    expect(new Set(session.messages.map((m) => m.role))).toEqual(new Set(["checkpoint", "writes"]));
    await saver.deleteThread("t1");
    expect(await again.getState({ configurable: { thread_id: "t1" } })).toMatchObject({ values: {} });
    await expect(client.getSession("langgraph:t1")).rejects.toBeInstanceOf(LociError);
  });

  it("keeps LangChain messages, and a state far over 64 KiB, exactly", async () => {
    const build = (checkpointer) =>
      new StateGraph(MessagesAnnotation)
        .addNode("bot", (s) => ({ messages: [new AIMessage({ content: `echo ${s.messages.at(-1).content.slice(0, 20)}`, id: "ai-" + s.messages.length })] }))
        .addEdge(START, "bot")
        .addEdge("bot", END)
        .compile({ checkpointer });
    const big = "Ünïcödé ☃ line\n".repeat(20_000); // ~320 KB
    const config = { configurable: { thread_id: "chat" } };
    const answers = [];
    for (const checkpointer of [new MemorySaver(), new LociCheckpointSaver({ client, userId: "chats" })]) {
      const graph = build(checkpointer);
      await graph.invoke({ messages: [new HumanMessage({ content: "hello", id: "h1" })] }, config);
      await graph.invoke({ messages: [new HumanMessage({ content: big, id: "h2" })] }, config);
      answers.push((await graph.getState(config)).values.messages);
    }
    const [want, got] = answers;
    expect(got).toHaveLength(4);
    expect(got.map((m) => m.constructor.name)).toEqual(want.map((m) => m.constructor.name));
    expect(got.map((m) => [m.id, m.content])).toEqual(want.map((m) => [m.id, m.content]));
    expect(got[2].content).toBe(big);
    const session = await client.getSession("langgraph:chat");
    expect(session.messages.some((m) => m.role === "part")).toBe(true);
  });

  it("reads past messages of the thread's session it did not write", async () => {
    await client.putSession("langgraph:mixed", "mixed", {
      messages: [
        { role: "user", content: "hi" },
        { role: "checkpoint", content: '{"x":1}' },
        { role: "part", content: "not json" },
        { role: "writes", content: '{"ns":"","checkpoint_id":7}' },
      ],
    });
    const saver = new LociCheckpointSaver({ client, userId: "mixed" });
    const config = { configurable: { thread_id: "mixed", checkpoint_ns: "" } };
    expect(await saver.getTuple(config)).toBeUndefined();
    const stored = await saver.put(config, emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {});
    expect((await saver.getTuple(config)).config).toEqual(stored);
    expect((await client.getSession("langgraph:mixed")).message_count).toBe(5);
  });

  describe("bad input is refused and changes nothing", () => {
    const meta = { source: "input", step: -1, parents: {} };

    it("a config without thread_id or checkpoint_id, or with ids that are not strings", async () => {
      const saver = new LociCheckpointSaver({ client, userId: "bad" });
      await expect(saver.put({ configurable: {} }, emptyCheckpoint(), meta, {})).rejects.toThrow(/thread_id/);
      await expect(saver.put({ configurable: { thread_id: 7 } }, emptyCheckpoint(), meta, {})).rejects.toThrow(/thread_id/);
      await expect(saver.put({ configurable: { thread_id: "" } }, emptyCheckpoint(), meta, {})).rejects.toThrow(/thread_id/);
      await expect(saver.put({ configurable: { thread_id: "b" } }, { ...emptyCheckpoint(), id: undefined }, meta, {})).rejects.toThrow(/checkpoint_id/);
      await expect(saver.putWrites({ configurable: { thread_id: "b" } }, [["x", 1]], "task")).rejects.toThrow(/checkpoint_id/);
      await expect(saver.putWrites({ configurable: { thread_id: "b", checkpoint_id: "c" } }, [["x", 1]], "")).rejects.toThrow(/task_id/);
      await expect(saver.putWrites({ configurable: { thread_id: "b", checkpoint_id: "c" } }, [[1, 1]], "t")).rejects.toThrow(/writes\[0\]/);
      await expect(saver.getTuple({ configurable: { thread_id: "b", checkpoint_ns: 3 } })).rejects.toThrow(/checkpoint_ns/);
      await expect(saver.put({ configurable: { thread_id: "x".repeat(300) } }, emptyCheckpoint(), meta, {})).rejects.toThrow(/too long/);
      expect((await client.listSessions("bad")).count).toBe(0);
    });

    it("a batch of writes with one bad write stores none of them", async () => {
      const saver = new LociCheckpointSaver({ client, userId: "bad" });
      const config = await saver.put({ configurable: { thread_id: "batch", checkpoint_ns: "" } }, emptyCheckpoint(), meta, {});
      await expect(saver.putWrites(config, [["a", 1], ["b", 2], [3, 3]], "task")).rejects.toThrow(/writes\[2\]/);
      await expect(saver.putWrites(config, "not writes", "task")).rejects.toThrow(/array/);
      expect((await saver.getTuple(config)).pendingWrites).toEqual([]);
      expect((await client.getSession("langgraph:batch")).message_count).toBe(1);
      await saver.deleteThread("batch");
    });

    it("a thread whose loci session is another user's is neither read nor written", async () => {
      await client.putSession("langgraph:taken", "someone-else", { messages: [{ role: "user", content: "mine" }] });
      const saver = new LociCheckpointSaver({ client, userId: "bad" });
      const config = { configurable: { thread_id: "taken", checkpoint_ns: "" } };
      await expect(saver.getTuple(config)).rejects.toThrow(/another user/);
      await expect(saver.put(config, emptyCheckpoint(), meta, {})).rejects.toThrow(/loci|conflict|another/i);
      const session = await client.getSession("langgraph:taken");
      expect(session.user_id).toBe("someone-else");
      expect(session.messages).toHaveLength(1);
    });

    it("loci's refusal surfaces as its LociError (Unauthorized without a key once authentication is on)", async () => {
      server.createKey("admin"); // the last test on this server
      const saver = new LociCheckpointSaver({ client, userId: "bad" });
      await expect(saver.getTuple({ configurable: { thread_id: "any" } })).rejects.toBeInstanceOf(Unauthorized);
    });
  });
});
