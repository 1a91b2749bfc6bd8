// The Vercel AI SDK's own MCP client (@ai-sdk/mcp) and its tool loop
// (generateText from `ai`, driven by the SDK's MockLanguageModelV3: no model,
// no network) list and call loci's tools over `loci serve`'s streamable HTTP
// endpoint; bad input gets the SDK's errors and changes nothing.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Client, NotFound } from "@loci-memory/client";

import { createLociMCPClient, lociMCPTransport } from "../dist/index.js";
import { Server } from "../../../typescript/test/server.mjs";
import { runExample } from "../../test/readme.mjs";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that makes the given tool calls, one step each, then answers "done". */
function scripted(calls) {
  const steps = calls.map(([toolName, input], i) => ({
    content: [{ type: "tool-call", toolCallId: `call-${i}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined },
    usage,
    warnings: [],
  }));
  steps.push({ content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] });
  let i = 0;
  return new MockLanguageModelV3({ doGenerate: async () => steps[Math.min(i++, steps.length - 1)] });
}

/** The JSON of a tool result's text (loci answers the REST envelope as text). */
function resultJSON(output) {
  return JSON.parse(output.content.find((c) => c.type === "text").text);
}

describe("loci's MCP tools in the AI SDK", () => {
  let server, rest;
  before(async () => {
    server = await new Server().start();
    rest = new Client({ baseUrl: server.url, maxRetries: 0 });
  });
  after(() => server?.stop());

  it("lists loci's compact default tools", async () => {
    const mcp = await createLociMCPClient({ baseUrl: server.url, agentId: "writer", userId: "u1" });
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ["add_memory", "delete_memory", "recall", "remember", "search_memory", "update_memory"]);
    } finally {
      await mcp.close();
    }
  });

  it("lists every kind's tools and calls them in generateText's tool loop", async () => {
    const mcp = await createLociMCPClient({ baseUrl: server.url, agentId: "writer", userId: "u1", tools: "all" });
    try {
      const listed = await mcp.listTools();
      const names = listed.tools.map((t) => t.name);
      for (const name of ["remember", "recall", "forget", "store_fact", "search_facts", "search_memory", "update_memory"]) {
        assert.ok(names.includes(name), `${name} is not among ${names}`);
      }
      const tools = await mcp.tools();
      assert.deepEqual(Object.keys(tools).sort(), [...names].sort());

      const result = await generateText({
        model: scripted([
          ["remember", { key: "tone", value: "friendly" }],
          ["store_fact", { category: "user_preference", fact: "Prefers weekly summaries on Mondays", keywords: ["summary"] }],
          ["recall", { key: "tone" }],
          ["search_facts", { query: "weekly summaries" }],
        ]),
        tools,
        stopWhen: stepCountIs(10),
        prompt: "Remember my tone and my summary preference, then read them back.",
      });
      assert.equal(result.text, "done");
      const outputs = result.steps.flatMap((s) => s.toolResults).map((r) => [r.toolName, r.output]);
      assert.deepEqual(
        outputs.map(([n]) => n),
        ["remember", "store_fact", "recall", "search_facts"],
      );
      for (const [, output] of outputs) assert.notEqual(output.isError, true, JSON.stringify(output));
      assert.equal(resultJSON(outputs[2][1]).value, "friendly");
      assert.match(JSON.stringify(resultJSON(outputs[3][1])), /Prefers weekly summaries on Mondays/);
    } finally {
      await mcp.close();
    }
    // What the tools did is loci's memory, for the bound agent and user.
    assert.equal((await rest.recall("writer", "tone")).value, "friendly");
    const facts = await rest.listFacts({ user_id: "u1" });
    assert.deepEqual(
      facts.facts.map((f) => f.fact),
      ["Prefers weekly summaries on Mondays"],
    );
  });

  it("reads loci's resource, the agent's core memory", async () => {
    await rest.setBlock("reader", "persona", "Concise and upbeat");
    const mcp = await createLociMCPClient({ baseUrl: server.url, agentId: "reader" });
    try {
      const { resources } = await mcp.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ["loci://agent/core-memory"],
      );
      const read = await mcp.readResource({ uri: "loci://agent/core-memory" });
      assert.match(read.contents[0].text, /### persona\nConcise and upbeat/);
    } finally {
      await mcp.close();
    }
  });

  it("names the agent by header; the transport settings are what loci reads", () => {
    assert.deepEqual(lociMCPTransport({ baseUrl: "http://127.0.0.1:8420/", agentId: "a", userId: "u", apiKey: "loci_x" }), {
      type: "http",
      url: "http://127.0.0.1:8420/mcp",
      headers: { "X-Loci-Agent": "a", "X-Loci-User": "u", Authorization: "Bearer loci_x" },
    });
    assert.throws(() => lociMCPTransport({ baseUrl: "ftp://x" }), TypeError);
  });

  describe("bad input gets the AI SDK's errors and changes nothing", () => {
    it("a tool call loci refuses is the tool's error result, and nothing is stored", async () => {
      const mcp = await createLociMCPClient({ baseUrl: server.url, agentId: "writer", userId: "u1", tools: "all" });
      try {
        const tools = await mcp.tools();
        const result = await generateText({
          model: scripted([
            ["forget", { key: "no_such_key" }],
            ["store_fact", { category: "Not a category!", fact: "Likes tea" }],
            ["update_memory", { label: "persona", mode: "replace", content: "x".repeat(10_000) }],
          ]),
          tools,
          stopWhen: stepCountIs(10),
          prompt: "Do three things loci refuses.",
        });
        const outcomes = result.steps.flatMap((s) => s.content).filter((c) => c.type === "tool-result" || c.type === "tool-error");
        assert.equal(outcomes.length, 3, JSON.stringify(outcomes));
        // An MCP tool error is the SDK's tool result with isError (the model sees it and may recover).
        for (const o of outcomes) assert.equal(o.type === "tool-error" || o.output?.isError === true, true, JSON.stringify(o));
        assert.equal(resultJSON(outcomes[0].output).code, "not_found");
        assert.match(outcomes[1].output.content[0].text, /category/);
        assert.equal(resultJSON(outcomes[2].output).code, "too_large");
      } finally {
        await mcp.close();
      }
      assert.deepEqual(
        (await rest.listFacts({ user_id: "u1" })).facts.map((f) => f.fact),
        ["Prefers weekly summaries on Mondays"],
      );
      await assert.rejects(rest.getBlock("writer", "persona"), NotFound);
    });

    it("a connection naming no agent is refused with the SDK's MCPClientError", async () => {
      const err = await createLociMCPClient({ baseUrl: server.url }).then(
        (c) => (c.close(), assert.fail("connected without an agent")),
        (e) => e,
      );
      assert.equal(err.name, "MCPClientError", String(err));
      assert.match(String(err.message), /400|agent/i);
    });

    it("a wrong key, once authentication is on, is refused (401)", async () => {
      server.createKey("admin"); // the last test on this server
      const err = await createLociMCPClient({ baseUrl: server.url, agentId: "writer", apiKey: "loci_wrong" }).then(
        (c) => (c.close(), assert.fail("connected with a wrong key")),
        (e) => e,
      );
      assert.ok(["MCPClientError", "UnauthorizedError"].includes(err.name), String(err));
      assert.match(String(err.message), /401|unauthori/i);
    });
  });
});

describe("README", () => {
  it("the Vercel AI SDK example runs and prints what it says", async () => {
    const server = await new Server().start();
    try {
      runExample("### Vercel AI SDK", "ai-sdk", server.url);
    } finally {
      await server.stop();
    }
  });
});
