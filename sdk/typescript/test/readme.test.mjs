// README.md's TypeScript example runs as written against a real server and
// prints what its comments say; src/schema.ts is what openapi-typescript makes
// of the OpenAPI document; every JSON operation has a method.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { REPO, SDK, Server } from "./server.mjs";

/** The first ```lang block after the line `heading` in README.md. */
export function readmeExample(heading, lang) {
  const text = readFileSync(join(REPO, "README.md"), "utf8");
  const start = text.indexOf("\n" + heading + "\n");
  assert.ok(start >= 0, `no ${heading} in README.md`);
  const m = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "m").exec(text.slice(start));
  assert.ok(m, `no \`\`\`${lang} block after ${heading} in README.md`);
  return m[1];
}

describe("README", () => {
  let server;
  before(async () => {
    server = await new Server().start();
  });
  after(() => server.stop());

  it("the TypeScript example runs and prints what it says", () => {
    const code = readmeExample("### TypeScript", "js");
    const want = [...code.matchAll(/console\.log\(.*?\/\/\s*(.+)$/gm)].map((m) => m[1]);
    assert.ok(want.length >= 4, "the example's console.log comments were not found");
    const env = { ...process.env, LOCI_URL: server.url };
    delete env.LOCI_API_KEY;
    // Run from the package's folder, so that "@loci-memory/client" resolves to
    // this package (a package may import itself by name).
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: SDK, env, encoding: "utf8", timeout: 120_000 });
    assert.equal(out.status, 0, out.stderr);
    const lines = out.stdout.split("\n");
    let at = 0;
    for (const w of want) {
      const i = lines.indexOf(w, at);
      assert.ok(i >= 0, `README promises ${JSON.stringify(w)}, in this order; the example printed:\n${out.stdout}`);
      at = i + 1;
    }
  });
});

describe("schema", () => {
  it("src/schema.ts is up to date with httpapi/openapi.json", () => {
    const dir = mkdtempSync(join(tmpdir(), "loci-schema-"));
    try {
      const fresh = join(dir, "schema.ts");
      // The flags of `npm run gen` (e.g. --empty-objects-unknown), so that the two cannot differ.
      const flags = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")).scripts.gen.split(/\s+/).filter((a) => a.startsWith("--"));
      execFileSync(join(SDK, "node_modules", ".bin", "openapi-typescript"), [join(REPO, "httpapi", "openapi.json"), ...flags, "-o", fresh], {
        stdio: "pipe",
      });
      const same = readFileSync(fresh, "utf8") === readFileSync(join(SDK, "src", "schema.ts"), "utf8");
      assert.ok(same, "sdk/typescript/src/schema.ts is stale: run `npm run gen` in sdk/typescript");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every JSON operation has a method", () => {
    const doc = JSON.parse(readFileSync(join(REPO, "httpapi", "openapi.json"), "utf8"));
    const source = readFileSync(join(SDK, "src", "client.ts"), "utf8");
    const missing = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (["openapi", "metrics", "agentPrompt", "export"].includes(op.operationId)) continue; // not JSON: prompt() and export() answer text
        if (!source.includes(`Answer<"${op.operationId}">`)) missing.push(`${method.toUpperCase()} ${p} (${op.operationId})`);
      }
    }
    assert.deepEqual(missing, [], "operations without a client method");
  });
});
