// README.md's LangGraph.js example runs as written against a real server and
// prints what its comments say.

import { afterAll, beforeAll, it } from "vitest";

import { Server } from "../../../typescript/test/server.mjs";
import { runExample } from "../../test/readme.mjs";

let server;
beforeAll(async () => {
  server = await new Server().start();
}, 180_000);
afterAll(() => server?.stop());

it("the LangGraph.js example runs and prints what it says", () => {
  runExample("### LangGraph.js", "langgraph", server.url);
});
