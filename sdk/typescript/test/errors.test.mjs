// Each error class, from a real server where loci can produce the code, and the
// retries: on 429 from a rate-limited server, on 503 and dropped connections
// through a fault-injecting proxy, never for a non-idempotent request nor on a
// 507 (a full disk).

import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";

import {
  Client,
  Conflict,
  Forbidden,
  Invalid,
  LociError,
  NotFound,
  RateLimited,
  ServerError,
  StorageFull,
  TooLarge,
  TransportError,
  Unauthorized,
  Unavailable,
  errorFromResponse,
} from "@loci-memory/client";
import { FaultProxy } from "./faults.mjs";
import { Server } from "./server.mjs";

const servers = {};
const keys = {};

before(async () => {
  servers.open = await new Server().start();
  const auth = new Server();
  keys.admin = auth.createKey("admin");
  keys.viewer = auth.createKey("viewer");
  keys.bound = auth.createKey("editor", "writer");
  servers.auth = await auth.start();
  servers.limited = await new Server("--rate-limit", "1", "--rate-burst", "1").start();
});
after(() => Promise.all(Object.values(servers).map((s) => s.stop())));

const headers = (h = {}) => new Headers(h);

describe("error classes", () => {
  it("every class is a LociError; Unavailable and StorageFull are ServerErrors", () => {
    for (const cls of [Invalid, Unauthorized, Forbidden, NotFound, Conflict, TooLarge, RateLimited, ServerError, Unavailable, StorageFull, TransportError]) {
      assert.ok(new cls("m") instanceof LociError, cls.name);
      assert.ok(new cls("m") instanceof Error);
      assert.equal(new cls("m").name, cls.name);
    }
    assert.ok(new Unavailable("m") instanceof ServerError);
    assert.ok(new StorageFull("m") instanceof ServerError);
    assert.ok(!(new StorageFull("m") instanceof Unavailable));
    assert.equal(new StorageFull("m").code, "storage_full");
  });

  it("maps every code of the envelope", () => {
    const cases = [
      [400, "invalid", Invalid], [401, "unauthorized", Unauthorized], [403, "forbidden", Forbidden],
      [404, "not_found", NotFound], [409, "conflict", Conflict], [413, "too_large", TooLarge],
      [429, "rate_limited", RateLimited], [500, "internal", ServerError], [503, "unavailable", Unavailable],
      [507, "storage_full", StorageFull],
    ];
    for (const [status, code, cls] of cases) {
      const body = JSON.stringify({ success: false, error: `the ${code} message`, code });
      const err = errorFromResponse(status, body, headers({ "Retry-After": "7" }));
      assert.equal(err.constructor, cls, code);
      assert.deepEqual([err.message, err.code, err.status, err.retryAfter], [`the ${code} message`, code, status, 7]);
    }
  });

  it("maps by status without an envelope", () => {
    const cases = [
      [404, "404 page not found", NotFound, "404 page not found"],
      [405, "Method Not Allowed", Invalid, "Method Not Allowed"],
      [502, "", ServerError, "HTTP 502"],
      [503, "<html>busy</html>", Unavailable, "<html>busy</html>"],
      [507, "Insufficient Storage", StorageFull, "Insufficient Storage"],
      [418, "{}", LociError, "{}"],
      [500, '{"success":false,"error":"new","code":"some_new_code"}', ServerError, "new"],
    ];
    for (const [status, body, cls, message] of cases) {
      const err = errorFromResponse(status, body, headers());
      assert.equal(err.constructor, cls, String(status));
      assert.equal(err.message, message);
      assert.equal(err.retryAfter, undefined);
    }
  });

  it("reads a Retry-After date", () => {
    assert.equal(errorFromResponse(503, "", headers({ "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT" })).retryAfter, 0);
  });
});

/** Asserts err is exactly cls, with status and the server's message. */
function fromServer(cls, status) {
  return (err) => {
    assert.equal(err.constructor, cls);
    assert.equal(err.status, status);
    assert.equal(err.code, cls.code);
    assert.ok(err.message);
    assert.equal(err.message, err.body.error);
    return true;
  };
}

describe("errors from a real server", () => {
  let c;
  before(() => {
    c = new Client({ baseUrl: servers.open.url });
  });

  it("invalid", async () => {
    await assert.rejects(c.remember("errs", "k", "   "), fromServer(Invalid, 400));
    await assert.rejects(c.recallAll("errs", { limit: 5000 }), (err) => err instanceof Invalid && err.message.includes("limit"));
  });

  it("not_found", async () => {
    await assert.rejects(c.recall("errs", "missing"), (err) => fromServer(NotFound, 404)(err) && err.message === "Memory not found");
  });

  it("conflict", async () => {
    await c.setBlock("errs", "state", "one");
    await assert.rejects(c.setBlock("errs", "state", "two", { expected_version: 7 }), fromServer(Conflict, 409));
  });

  it("too_large", async () => {
    await assert.rejects(c.setBlock("errs", "tiny", "x".repeat(11), { limit: 10 }), fromServer(TooLarge, 413));
  });

  it("unauthorized", async () => {
    for (const apiKey of [undefined, "loci_not_a_key"]) {
      await assert.rejects(new Client({ baseUrl: servers.auth.url, apiKey }).recallAll("writer"), fromServer(Unauthorized, 401));
    }
  });

  it("forbidden", async () => {
    const viewer = new Client({ baseUrl: servers.auth.url, apiKey: keys.viewer });
    assert.equal((await viewer.recallAll("writer")).success, true);
    await assert.rejects(viewer.remember("writer", "tone", "friendly"), (err) => fromServer(Forbidden, 403)(err) && err.message.includes("creator"));
    const bound = new Client({ baseUrl: servers.auth.url, apiKey: keys.bound });
    await bound.remember("writer", "tone", "friendly");
    await assert.rejects(bound.remember("reader", "tone", "friendly"), Forbidden);
    const admin = new Client({ baseUrl: servers.auth.url, apiKey: keys.admin });
    assert.equal((await admin.recall("writer", "tone")).value, "friendly");
  });

  it("API key from the environment", async () => {
    const old = process.env.LOCI_API_KEY;
    process.env.LOCI_API_KEY = keys.viewer;
    let client;
    try {
      client = new Client({ baseUrl: servers.auth.url });
    } finally {
      if (old === undefined) delete process.env.LOCI_API_KEY;
      else process.env.LOCI_API_KEY = old;
    }
    assert.equal((await client.recallAll("writer")).success, true);
    await assert.rejects(client.remember("writer", "tone", "x"), Forbidden); // not Unauthorized: the key was sent
  });
});

describe("rate limit (1 request a second, burst 1)", () => {
  it("rate_limited with Retry-After", async () => {
    const c = new Client({ baseUrl: servers.limited.url, maxRetries: 0 });
    let err;
    for (let i = 0; i < 50 && !err; i++) {
      await c.recallAll("limited").catch((e) => {
        err = e;
      });
    }
    assert.ok(err instanceof RateLimited, `50 requests at once were never limited: ${err}`);
    assert.deepEqual([err.status, err.code], [429, "rate_limited"]);
    assert.ok(err.retryAfter >= 1);
    assert.ok(err.message.includes("too many requests"));
  });

  it("a Retry-After over the bound is thrown without a retry", async () => {
    const retries = [];
    const c = new Client({ baseUrl: servers.limited.url, maxRetries: 3, maxRetryWaitMs: 500, onRetry: (r) => retries.push(r) });
    await assert.rejects(async () => {
      for (let i = 0; i < 50; i++) await c.recallAll("limited");
    }, RateLimited);
    assert.deepEqual(retries, []);
  });

  it("retries honour Retry-After, a POST too", async () => {
    // The limit refuses a request before it does anything, so nothing is stored twice.
    const retries = [];
    const c = new Client({ baseUrl: servers.limited.url, maxRetries: 3, onRetry: (r) => retries.push(r) });
    let added = 0;
    for (let i = 0; i < 20 && retries.length === 0; i++) {
      await c.addPassage("limited-writer", `passage ${i}`);
      added++;
    }
    assert.ok(retries.length > 0);
    assert.equal(retries[0].reason, "429 rate_limited");
    assert.ok(retries[0].waitMs >= 1000);
    assert.equal((await c.listPassages("limited-writer")).count, added);
  });
});

describe("retries through a fault proxy", () => {
  let proxy;
  let retries;
  let c;
  before(async () => {
    proxy = await new FaultProxy(servers.open.url).listen();
    retries = [];
    c = new Client({ baseUrl: proxy.url, maxRetries: 2, backoffMs: 10, onRetry: (r) => retries.push(r) });
    await c.remember("retries", "k", "The wall is painted teal");
  });
  after(() => proxy.close());

  it("idempotent requests are retried on 503", async () => {
    retries.length = 0;
    proxy.inject("503", "503");
    assert.equal((await c.recall("retries", "k")).value, "The wall is painted teal");
    assert.equal(proxy.seen.length, 3);
    assert.deepEqual(retries.map((r) => [r.attempt, r.reason, r.waitMs]), [[1, "503 unavailable", 0], [2, "503 unavailable", 0]]);
  });

  it("retries are bounded", async () => {
    proxy.inject("503", "503", "503", "503");
    await assert.rejects(c.recall("retries", "k"), (err) => {
      assert.ok(err instanceof Unavailable);
      assert.deepEqual([err.status, err.retryAfter, err.message], [503, 0, "storage unreachable"]);
      return true;
    });
    assert.equal(proxy.seen.length, 3);
  });

  it("storage_full is thrown at once, a PUT too", async () => {
    // A full disk does not heal in seconds.
    retries.length = 0;
    proxy.inject("507", "507", "507");
    await assert.rejects(c.remember("retries", "k3", "v3"), (err) => {
      assert.equal(err.constructor, StorageFull);
      assert.ok(err instanceof ServerError);
      assert.deepEqual([err.status, err.code, err.message], [507, "storage_full", "storage full: the disk has no space left"]);
      return true;
    });
    assert.equal(proxy.seen.length, 1);
    assert.deepEqual(retries, []);
    proxy.inject();
    await assert.rejects(c.recall("retries", "k3"), NotFound);
  });

  it("idempotent requests are retried on a dropped connection", async () => {
    proxy.inject("drop");
    assert.equal((await c.remember("retries", "k2", "v2")).action, "created");
    proxy.inject("drop");
    assert.deepEqual(await c.forget("retries", "k2"), { success: true });
    proxy.inject("drop", "503");
    assert.equal((await c.search("teal", { agent_id: "retries" })).count, 1);
    assert.equal(proxy.seen.length, 3);
  });

  it("a POST is not retried", async () => {
    proxy.inject("drop");
    await assert.rejects(c.addPassage("retries", "once only"), TransportError);
    assert.equal(proxy.seen.length, 1);
    proxy.inject("503");
    await assert.rejects(c.addPassage("retries", "once only"), Unavailable);
    assert.equal(proxy.seen.length, 1);
    assert.equal((await c.listPassages("retries")).count, 0);
  });
});

describe("transport", () => {
  it("connection refused: retried, then TransportError", async () => {
    const port = await new Promise((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
    });
    const retries = [];
    const c = new Client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, backoffMs: 10, onRetry: (r) => retries.push(r) });
    await assert.rejects(c.recall("a", "k"), (err) => {
      assert.ok(err instanceof TransportError);
      assert.ok(err.message.includes("cannot reach loci"), err.message);
      assert.equal(err.status, undefined);
      assert.equal(err.timedOut, false);
      return true;
    });
    assert.equal(retries.length, 2);
  });

  it("a timeout is not retried", async () => {
    const sockets = [];
    const silent = net.createServer((s) => sockets.push(s)); // accepts and never answers
    await new Promise((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const retries = [];
      const c = new Client({ baseUrl: `http://127.0.0.1:${silent.address().port}`, timeoutMs: 200, onRetry: (r) => retries.push(r) });
      await assert.rejects(c.recall("a", "k"), (err) => err instanceof TransportError && err.timedOut && err.message.includes("timed out"));
      assert.deepEqual(retries, []);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
