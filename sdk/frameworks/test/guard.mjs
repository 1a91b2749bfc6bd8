// What the adapters' tests share to reach nothing outside this machine.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Wrap globalThis.fetch so that a request to any host but 127.0.0.1 is refused and
 * recorded. Returns the list of refused URLs: a test asserts it is empty at the end.
 */
export function keepFetchLocal() {
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
  return outside;
}

/**
 * Turn mem0ai's telemetry off (MEM0_TELEMETRY, read when mem0ai loads: call this
 * before importing it) and give it a directory of its own, so it writes nothing home.
 */
export function quietMem0() {
  process.env.MEM0_TELEMETRY = "false";
  process.env.MEM0_DIR = mkdtempSync(join(tmpdir(), "mem0-dir-"));
}
