// An app that installed loci's framework adapters as the README says: its frameworks from
// its own lockfile, then the tarballs of `npm --prefix sdk/frameworks run pack`.
// `make frameworks-install-test` copies this file, with one of apps/*/'s
// package.json and lockfile, into a fresh folder outside the repository, so
// that nothing resolves from the repository's node_modules. It checks that
// each adapter is installed in the app and takes the app's copy of its
// framework (the adapter's errors and classes are the app's), then runs each
// adapter's README example there. $LOCI_FRAMEWORKS is the repository's sdk/frameworks;
// fetch is checked to stay on this machine.

import assert from "node:assert/strict";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const FRAMEWORKS = process.env.LOCI_FRAMEWORKS;
assert.ok(FRAMEWORKS, "LOCI_FRAMEWORKS names the repository's sdk/frameworks");
const { Server } = await import(pathToFileURL(join(FRAMEWORKS, "..", "typescript", "test", "server.mjs")).href);
const { runExample } = await import(pathToFileURL(join(FRAMEWORKS, "test", "readme.mjs")).href);

const APP = realpathSync(process.cwd());
process.env.MEM0_DIR = mkdtempSync(join(tmpdir(), "mem0-dir-")); // mem0 writes nothing home

// Every request the process makes, to prove none leaves the machine.
const outside = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  if (url.hostname !== "127.0.0.1") {
    outside.push(url.href);
    return Promise.reject(new Error(`refused: ${url.href} is outside this machine`));
  }
  return realFetch(input, init);
};

/** Where a package the app imports lives, links followed. */
const installed = (spec) => realpathSync(fileURLToPath(import.meta.resolve(spec)));

const { Client, Invalid, LociError } = await import("@loci-memory/client");
const { LociStore, LociCheckpointSaver } = await import("@loci-memory/langgraph");
const { LociSession } = await import("@loci-memory/openai-agents");
const { createLociMCPClient } = await import("@loci-memory/ai-sdk");
const { BaseStore, BaseCheckpointSaver } = await import("@langchain/langgraph-checkpoint");
const langgraph = await import("@langchain/langgraph");
const { UserError } = await import("@openai/agents");
const { AISDKError } = await import("ai");

describe("the adapters installed from their tarballs", () => {
  let server;
  before(async () => {
    server = await new Server().start();
  });
  after(async () => {
    await server?.stop();
    assert.deepEqual(outside, [], "requests left the machine");
  });

  it("are packages of the app, with their built dist/, not links into the repository", () => {
    for (const spec of ["@loci-memory/client", "@loci-memory/langgraph", "@loci-memory/openai-agents", "@loci-memory/ai-sdk"]) {
      const at = installed(spec);
      assert.ok(at.startsWith(join(APP, "node_modules") + "/"), `${spec} resolves to ${at}, outside the app`);
      assert.match(at, /\/dist\/index\.js$/);
    }
  });

  it("take the app's copy of each framework, resolved once", () => {
    for (const spec of ["@langchain/langgraph-checkpoint", "@langchain/core", "@openai/agents-core", "@ai-sdk/mcp"]) {
      assert.ok(installed(spec).startsWith(join(APP, "node_modules") + "/"), `${spec} resolves outside the app`);
    }
    const client = new Client({ baseUrl: server.url });
    assert.ok(new LociStore({ client }) instanceof BaseStore, "LociStore is not the app's BaseStore");
    assert.ok(new LociStore({ client }) instanceof langgraph.BaseStore, "LociStore is not @langchain/langgraph's BaseStore");
    assert.ok(new LociCheckpointSaver({ client }) instanceof BaseCheckpointSaver, "LociCheckpointSaver is not the app's BaseCheckpointSaver");
  });

  it("throw the app's error classes", async () => {
    const client = new Client({ baseUrl: server.url, maxRetries: 0 });
    // The OpenAI Agents SDK's UserError, as @openai/agents exports it.
    assert.throws(() => new LociSession({ sessionId: "", userId: "u1", client }), UserError);
    const session = new LociSession({ sessionId: "s1", userId: "u1", client });
    await assert.rejects(session.addItems([{ neither: "role nor type" }]), UserError);
    // The AI SDK's MCPClientError (an AISDKError, which the app's ai
    // exports): a connection that names no agent is refused.
    const err = await createLociMCPClient({ baseUrl: server.url }).then(
      (c) => (c.close(), assert.fail("connected without an agent")),
      (e) => e,
    );
    assert.equal(err?.name, "MCPClientError", String(err));
    assert.ok(err instanceof AISDKError, `${err?.name}: ${err?.message} is not the app's AISDKError`);
    // loci's refusals are the app's @loci-memory/client errors.
    const store = new LociStore({ client });
    await assert.rejects(store.put(["ok"], "x".repeat(300), { v: 1 }), (e) => e instanceof Invalid && e instanceof LociError);
  });

  for (const heading of ["### OpenAI Agents SDK", "### Vercel AI SDK", "### LangGraph.js", "### LangGraph.js store", "### mem0"]) {
    it(`run the README's example under ${heading} as written`, async () => {
      const fresh = await new Server().start();
      try {
        runExample(heading, APP, fresh.url);
      } finally {
        await fresh.stop();
      }
    });
  }
});
