// LangGraph's own checkpoint validation suite
// (@langchain/langgraph-checkpoint-validation), every test of it, against
// LociCheckpointSaver on a real `loci serve`; and the opt-in
// getDeltaChannelHistory tests it publishes beside them.

import { describe } from "vitest";
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import { Client } from "@loci-memory/client";

import { LociCheckpointSaver } from "../dist/index.js";
import { Server } from "../../../typescript/test/server.mjs";

let server;
let n = 0;

const initializer = {
  checkpointerName: "@loci-memory/langgraph",
  beforeAllTimeout: 180_000,
  async beforeAll() {
    server = await new Server().start();
  },
  async afterAll() {
    await server?.stop();
  },
  // Each checkpointer its own loci user and session prefix: what one wrote,
  // another never reads (the suite asks that instances be isolated).
  createCheckpointer() {
    n += 1;
    return new LociCheckpointSaver({
      client: new Client({ baseUrl: server.url, maxRetries: 0 }),
      userId: `validation-${n}`,
      prefix: `v${n}:`,
    });
  },
};

validate(initializer);

describe("opt-in", () => {
  deltaChannelHistoryTests(initializer);
});
