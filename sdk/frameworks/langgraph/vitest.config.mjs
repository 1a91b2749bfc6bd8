// The LangGraph adapter's tests: vitest, which LangGraph's checkpoint validation
// suite is written for. No telemetry: LangSmith tracing is off.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.mjs"],
    globals: true, // the validation suite calls describe, it, beforeAll… as globals
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    env: { LANGCHAIN_TRACING_V2: "false", LANGSMITH_TRACING: "false", LANGCHAIN_CALLBACKS_BACKGROUND: "false" },
  },
});
