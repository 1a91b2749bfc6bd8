// An adapter's README.md example, run as written against a real server: the
// first ```js block after its heading, from the adapter's folder (so that the
// package resolves by its own name), checked to print what its
// `console.log(…); // comment` lines say, in that order.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const FRAMEWORKS = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const README = join(FRAMEWORKS, "..", "..", "README.md");

/** The first ```lang block after the line `heading` in README.md. */
export function readmeExample(heading, lang = "js") {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("\n" + heading + "\n");
  if (start < 0) throw new Error(`no ${heading} in README.md`);
  const m = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "m").exec(text.slice(start));
  if (!m) throw new Error(`no \`\`\`${lang} block after ${heading} in README.md`);
  return m[1];
}

/**
 * Run the example under heading in the adapter's folder (or any folder: an app's) against the server at
 * url; an error naming what it printed unless it printed what it promises.
 */
export function runExample(heading, adapter, url) {
  const code = readmeExample(heading);
  const want = [...code.matchAll(/console\.log\(.*?\/\/\s*(.+)$/gm)].map((m) => m[1]);
  if (want.length < 1) throw new Error(`the example under ${heading} has no console.log(…); // output comments`);
  const env = { ...process.env, LOCI_URL: url };
  delete env.LOCI_API_KEY;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: resolve(FRAMEWORKS, adapter), env, encoding: "utf8", timeout: 120_000 });
  if (out.status !== 0) throw new Error(`the example under ${heading} failed (${out.status}):\n${out.stderr}`);
  const lines = out.stdout.split("\n");
  let at = 0;
  for (const w of want) {
    const i = lines.indexOf(w, at);
    if (i < 0) throw new Error(`README promises ${JSON.stringify(w)}, in this order; the example printed:\n${out.stdout}`);
    at = i + 1;
  }
}
